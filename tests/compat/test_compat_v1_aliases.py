"""The names issue 32's API-surface work added to opforge.compat.v1 (opforge/compat/v1/
_tf1_aliases.py and the namespaces in _tf1.py): each computes what TensorFlow's does, checked
against NumPy on random data (or against TensorFlow where it is installed)."""

from __future__ import annotations

import logging
import math as pymath
import os

import numpy as np
import pytest

import opforge.compat.v1 as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(32)


@pytest.fixture
def g():
    tf.reset_default_graph()
    yield tf.get_default_graph()
    tf.reset_default_graph()


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_versions_follow_the_checked_tensorflow_surface():
    import json
    with open(os.path.join(ROOT, "tests", "data", "tf1_api_surface.json")) as f:
        assert tf.__version__ == tf.VERSION == tf.version.VERSION == json.load(f)["tf_version"]
    assert tf.GIT_VERSION.startswith("opforge-") and tf.__git_version__ == tf.GIT_VERSION


def test_graph_def_version_is_what_graphs_are_written_with(g):
    tf.constant(1.0)
    assert g.as_graph_def().versions.producer == tf.GRAPH_DEF_VERSION


def test_protos_are_tensorflows_messages(g):
    tf.constant(1.0, name="c")
    node = g.as_graph_def().node[0]
    parsed = tf.NodeDef.FromString(node.SerializeToString())
    assert parsed.name == "c" and parsed.op == "Const" and isinstance(parsed.attr["dtype"], tf.AttrValue)
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5])),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[3])),
        "z": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ab"]))}))
    back = tf.train.Example.FromString(ex.SerializeToString())
    assert list(back.features.feature["x"].float_list.value) == [1.5, 2.5]
    tfm = pytest.importorskip("tensorflow")
    theirs = tfm.train.Example.FromString(ex.SerializeToString())
    assert theirs.SerializeToString(deterministic=True) == ex.SerializeToString(deterministic=True)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "float64", "bool"])
def test_make_tensor_proto_and_make_ndarray(dtype):
    arr = (RNG.standard_normal((2, 3)) * 10).astype(dtype)
    proto = tf.make_tensor_proto(arr)
    np.testing.assert_array_equal(tf.make_ndarray(proto), arr)
    np.testing.assert_array_equal(tf.make_ndarray(tf.make_tensor_proto(7, dtype, shape=[2, 2])),
                                  np.full((2, 2), 7, dtype))
    with pytest.raises(TypeError, match="shape"):
        tf.make_tensor_proto(arr, shape=[3, 2], verify_shape=True)
    with pytest.raises(ValueError, match="Too many elements"):
        tf.make_tensor_proto(np.arange(4), shape=[3])
    tfm = pytest.importorskip("tensorflow")
    np.testing.assert_array_equal(tfm.make_ndarray(proto), arr)
    np.testing.assert_array_equal(tf.make_ndarray(tfm.make_tensor_proto(arr)), arr)


def test_deprecated_variable_and_table_aliases(g):
    a = tf.Variable(1.0, name="scope1/a")
    b = tf.Variable(2.0, name="scope2/b", trainable=False)
    assert tf.all_variables() == [a, b] == tf.global_variables()
    assert tf.global_variables("scope2") == [b] and tf.trainable_variables("scope1") == [a]
    assert tf.trainable_variables("scope2") == []
    with tf.Session() as sess:
        sess.run(tf.initialize_variables([a]))
        assert sess.run(a) == 1.0
        sess.run(tf.initialize_all_tables())


def test_small_helpers(g, caplog):
    assert tf.get_logger() is logging.getLogger("tensorflow")
    assert tf.no_regularizer(tf.constant(1.0)) is None
    assert tf.is_numeric_tensor(tf.constant([1, 2])) and not tf.is_numeric_tensor(tf.constant(["a"]))
    assert not tf.is_numeric_tensor(np.ones(2))
    with tf.op_scope([], "outer"):
        assert tf.constant(0.0).op.name.startswith("outer/")
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(run(tf.scalar_mul(2.5, x)), 2.5 * x, rtol=1e-6)
    np.testing.assert_allclose(run(tf.math.scalar_mul(tf.constant(-1.0), x)), -x)
    with pytest.raises(ValueError, match="Only scalar"):
        tf.scalar_mul(np.ones(2, np.float32), x)
    tf.set_random_seed(5)
    assert tf.get_seed(None)[0] == 5 and tf.get_seed(3) == (5, 3) == tf.random.get_seed(3)


def test_tuple_gates_every_value(g):
    v = tf.Variable(0.0)
    a, b = tf.tuple([tf.constant(1.0), v.assign_add(1.0)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(a) == 1.0 and sess.run(v) == 1.0  # reading a ran the assign_add too


def test_tf1_keyword_spellings(g, tmp_path):
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    z, o = tf.zeros_like(tensor=x, dtype=tf.int32), tf.ones_like(tensor=x, dtype="float64", optimize=False)
    assert z.dtype == tf.int32 and o.dtype == tf.float64
    np.testing.assert_array_equal(run(z), np.zeros((2, 3), np.int32))
    np.testing.assert_array_equal(run(o), np.ones((2, 3)))
    np.testing.assert_array_equal(run(tf.transpose(a=x, conjugate=True)), x.T)
    y = RNG.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_allclose(run(tf.matmul(a=x, b=y, a_is_sparse=True)), x @ y, rtol=1e-5)
    np.testing.assert_allclose(run(tf.linalg.matmul(x, y, b_is_sparse=True)), x @ y, rtol=1e-5)
    with pytest.raises(tf.errors.UnimplementedError, match="output_type"):
        tf.matmul(x, y, output_type=tf.float64)
    c = x > 0
    np.testing.assert_array_equal(run(tf.where_v2(condition=c, x=x, y=0.0)), np.where(c, x, 0.0))
    np.testing.assert_array_equal(run(tf.where_v2(c)), np.argwhere(c))
    with tf.device(device_name_or_function="/cpu:0"):
        assert tf.constant(1.0).op.device.lower().endswith("cpu:0")
    np.testing.assert_allclose(run(tf.math.reduce_sum(x, reduction_indices=[1], keep_dims=True)),
                               x.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(run(tf.math.argmax(x, dimension=1)), x.argmax(1))
    r = tf.random.normal(shape=[1000], mean=3.0, stddev=0.5, seed=1)
    v = run(r)
    assert abs(v.mean() - 3.0) < 0.1 and abs(v.std() - 0.5) < 0.1
    p = tmp_path / "a.txt"
    p.write_text("x")
    assert tf.gfile.Exists(filename=str(p)) and tf.gfile.IsDirectory(dirname=str(tmp_path))
    tf.gfile.Copy(oldpath=str(p), newpath=str(tmp_path / "b.txt"))
    tf.gfile.Rename(oldname=str(tmp_path / "b.txt"), newname=str(tmp_path / "c.txt"))
    tf.gfile.MakeDirs(dirname=str(tmp_path / "d" / "e"))
    assert sorted(tf.gfile.ListDirectory(dirname=str(tmp_path))) == ["a.txt", "c.txt", "d"]
    assert tf.gfile.Glob(filename=str(tmp_path / "*.txt")) and tf.io.gfile.exists(str(p))
    tf.gfile.Remove(filename=str(p))
    tf.gfile.DeleteRecursively(dirname=str(tmp_path / "d"))
    assert sorted(os.listdir(tmp_path)) == ["c.txt"]


def test_logging_extras(caplog):
    before = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(v=tf.logging.INFO)
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            tf.logging.vlog(tf.logging.INFO, "v %d", 1)
            tf.logging.log_if(tf.logging.INFO, "yes", True)
            tf.logging.log_if(tf.logging.INFO, "no", False)
            tf.logging.TaskLevelStatusMessage("status")
            tf.logging.flush()
        assert [r.getMessage() for r in caplog.records] == ["v 1", "yes", "status"]
    finally:
        tf.logging.set_verbosity(before)


def test_math_aliases(g):
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    y = (RNG.integers(1, 5, (4, 5)) * np.sign(RNG.standard_normal((4, 5)))).astype(np.float32)
    np.testing.assert_allclose(run(tf.erfc(x)), [[pymath.erfc(v) for v in row] for row in x], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(tf.math.erfc(x)), run(tf.erfc(x)))
    np.testing.assert_array_equal(run(tf.floor_div(x * 10, y)), np.floor_divide(x * 10, y))
    np.testing.assert_allclose(run(tf.math.softmax(x, dim=0)), np.exp(x) / np.exp(x).sum(0), rtol=1e-5)
    np.testing.assert_allclose(run(tf.math.log_softmax(x)), x - np.log(np.exp(x).sum(1, keepdims=True)),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(tf.math.zero_fraction(np.maximum(x, 0))), np.mean(np.maximum(x, 0) == 0))
    np.testing.assert_allclose(run(tf.math.accumulate_n([x, y, x])), 2 * x + y, rtol=1e-6)
    ids = np.array([0, 2, 0, 1])
    want = np.zeros((3, 5), np.float32)
    np.add.at(want, ids, x)
    np.testing.assert_allclose(run(tf.math.unsorted_segment_sum(x, ids, 3)), want, rtol=1e-6)
    a, b = run(tf.identity_n([x, y]))
    np.testing.assert_array_equal(a, x) and np.testing.assert_array_equal(b, y)
    shapes = run(tf.shape_n([x, np.zeros((2, 3, 1))]))
    np.testing.assert_array_equal(shapes[0], [4, 5]) and np.testing.assert_array_equal(shapes[1], [2, 3, 1])


def test_space_to_batch_nd_round_trip(g):
    x = RNG.standard_normal((1, 4, 4, 2)).astype(np.float32)
    s2b = tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
    want = x.reshape(1, 2, 2, 2, 2, 2).transpose(2, 4, 0, 1, 3, 5).reshape(4, 2, 2, 2)
    np.testing.assert_array_equal(run(s2b), want)
    np.testing.assert_array_equal(run(tf.batch_to_space_nd(s2b, [2, 2], [[0, 0], [0, 0]])), x)


def _conv2d_valid(x, w):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, o))
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            out[:, i, j] = np.tensordot(x[:, i:i + kh, j:j + kw], w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_nn_aliases(g):
    x = RNG.standard_normal((2, 7, 7, 3)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 3, 4)).astype(np.float32)
    dilated = np.zeros((3, 3, 3, 4), np.float32)
    dilated[::2, ::2] = w  # rate 2: the filter with holes
    np.testing.assert_allclose(run(tf.nn.atrous_conv2d(x, w, rate=2, padding="VALID")), _conv2d_valid(x, dilated),
                               rtol=1e-4, atol=1e-4)
    f = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_array_equal(run(tf.nn.crelu(f)), np.concatenate([np.maximum(f, 0), np.maximum(-f, 0)], -1))
    np.testing.assert_array_equal(run(tf.nn.crelu(f, axis=0)),
                                  np.concatenate([np.maximum(f, 0), np.maximum(-f, 0)], 0))
    mp = run(tf.nn.max_pool_v2(x, ksize=2, strides=2, padding="VALID"))
    np.testing.assert_array_equal(mp, x[:, :6, :6].reshape(2, 3, 2, 3, 2, 3).max((2, 4)))
    ap = run(tf.nn.avg_pool_v2(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"))
    np.testing.assert_allclose(ap, x[:, :6, :6].reshape(2, 3, 2, 3, 2, 3).mean((2, 4)), rtol=1e-5)
    v = RNG.standard_normal((1, 4, 4, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(run(tf.nn.max_pool_v2(v, 2, 2, "VALID")),
                                  v.reshape(1, 2, 2, 2, 2, 2, 2, 2).max((2, 4, 6)))
    assert tf.nn.conv3d_backprop_filter.__wrapped__ is tf.nn.conv3d_backprop_filter_v2.__wrapped__
    assert tf.nn.depthwise_conv2d_backprop_input.__wrapped__ is \
        tf.nn.depthwise_conv2d_native_backprop_input.__wrapped__


def test_linalg_namespace(g):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(run(tf.linalg.adjoint(a)), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(run(tf.linalg.transpose(a, conjugate=True)), a.transpose(0, 2, 1))
    np.testing.assert_allclose(run(tf.linalg.trace(a[:, :3, :3])), np.trace(a[:, :3, :3], axis1=1, axis2=2),
                               rtol=1e-5)
    np.testing.assert_array_equal(run(tf.linalg.eye(3, batch_shape=[2])), np.broadcast_to(np.eye(3), (2, 3, 3)))
    np.testing.assert_allclose(run(tf.linalg.norm(a, axis=-1, keep_dims=True)),
                               np.linalg.norm(a, axis=-1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(run(tf.linalg.diag(a[:, 0])), np.stack([np.diag(r) for r in a[:, 0]]))
    np.testing.assert_allclose(run(tf.linalg.einsum("bij,bkj->bik", a, a)), np.einsum("bij,bkj->bik", a, a),
                               rtol=1e-5)


def test_io_namespace(g):
    rec = tf.io.decode_csv(["1,2.5", "3,4.5"], record_defaults=[[0], [0.0]])
    ints, floats = run(rec)
    np.testing.assert_array_equal(ints, [1, 3]) and np.testing.assert_allclose(floats, [2.5, 4.5])


def test_bare_int_shape_and_dimension_value(g):
    batch_size = 4
    x = tf.placeholder(tf.int32, shape=(batch_size))  # a bare int, as TF1 programs write it
    assert x.get_shape().as_list() == [4] and x.get_shape()[0].value == 4
    y = tf.placeholder(tf.float32, [None, 3])
    assert y.get_shape()[1].value == 3 and y.shape[0] is None and tf.dimension_value(y.shape[0]) is None
    assert (tf.Dimension(3) * y.get_shape()[1]).value == 9 and isinstance(y.shape, tf.TensorShape)
    assert tf.dimension_at_index(y.shape, 1).value == 3
    assert tf.broadcast_static_shape(y.shape, tf.TensorShape([5, 1, 3])).as_list() == [5, None, 3]
    np.testing.assert_array_equal(run(x, {x: np.arange(4)}), np.arange(4))


def test_tf1_nn_argument_names(g):
    x = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
    np.testing.assert_allclose(run(tf.nn.avg_pool2d(value=x, ksize=2, strides=2, padding="VALID")),
                               x.reshape(2, 3, 2, 3, 2, 3).mean((2, 4)), rtol=1e-5)
    s = RNG.standard_normal((2, 7, 3)).astype(np.float32)
    f = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    want = np.stack([np.einsum("bwc,wco->bo", s[:, i:i + 2], f) for i in range(6)], 1)
    np.testing.assert_allclose(run(tf.nn.conv1d(value=s, filters=f, stride=1, padding="VALID")), want, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(run(tf.nn.conv1d(s, f, 1, "VALID", True, "NWC")), want, rtol=1e-4, atol=1e-5)
    w = RNG.standard_normal((2, 2, 5, 3)).astype(np.float32)
    y = tf.nn.conv2d_transpose(value=x, filter=w, output_shape=[2, 12, 12, 5], strides=[1, 2, 2, 1])
    z = tf.nn.conv2d_transpose(x, w, [2, 12, 12, 5], [1, 2, 2, 1], "SAME")
    a, b = run([y, z])
    np.testing.assert_array_equal(a, b)
    # stride 2, kernel 2: every output pixel gets exactly one input pixel times one filter tap
    np.testing.assert_allclose(a[:, ::2, ::2], np.einsum("bhwc,oc->bhwo", x, w[0, 0]), rtol=1e-4, atol=1e-5)
    v = RNG.standard_normal((1, 2, 2, 2, 3)).astype(np.float32)
    k = RNG.standard_normal((1, 1, 1, 4, 3)).astype(np.float32)
    out = run(tf.nn.conv3d_transpose(value=v, filter=k, output_shape=[1, 2, 2, 2, 4], strides=[1, 1, 1, 1, 1]))
    np.testing.assert_allclose(out, np.einsum("bdhwc,oc->bdhwo", v, k[0, 0, 0]), rtol=1e-5, atol=1e-6)
    assert tf.as_dtype(type_value="float32") == tf.float32


def test_new_top_level_names_are_the_ops_functions():
    from opforge.ops import check_ops, functional_ops, histogram_ops, manip_ops
    checked = 0
    for module in (check_ops, functional_ops, histogram_ops, manip_ops):
        for name in dir(module):
            if not name.startswith("_") and callable(getattr(module, name)) and getattr(
                    getattr(module, name), "__module__", "") == module.__name__ and hasattr(tf, name):
                assert getattr(tf, name).__wrapped__ is getattr(module, name), name
                checked += 1
    assert checked >= 40
