"""Wire compatibility with TensorFlow's GraphDef, both ways (skipped when TensorFlow is absent)."""

import os

import numpy as np
import pytest

import opforge as of

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _tf_run(graph_def_bytes, fetches, feeds):
    gd = tf1.GraphDef.FromString(graph_def_bytes)
    with tf.Graph().as_default() as g:
        tf1.import_graph_def(gd, name="")
        with tf1.Session(graph=g) as sess:
            return sess.run(fetches, feeds)


def _of_run(graph_def, fetches, feeds, setup=()):
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(graph_def, name="")
    with of.Session(graph=g) as sess:
        for op in setup:
            sess.run(op)
        return sess.run(fetches, feeds)


def test_opforge_graph_def_parses_and_runs_in_tensorflow():
    rng = np.random.default_rng(3)
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 3], name="x")
        w = of.constant(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = of.constant(rng.normal(size=(4,)).astype(np.float32), name="b")
        h = of.relu(of.matmul(x, w) + b, name="h")
        s = of.sigmoid(of.matmul(h, w, transpose_b=True), name="s")
        y = of.reduce_sum(of.tanh(s) * of.square(s), axis=1, name="y")
        m = of.reduce_mean(of.transpose(of.reshape(h, [-1, 2, 2]), [0, 2, 1]), axis=[1, 2], name="m")
        d = of.identity(of.real_div(of.sub(y, m), of.add(of.exp(m), 1.0)), name="d")
    data = g.as_graph_def().SerializeToString()
    xv = rng.normal(size=(5, 3)).astype(np.float32)
    names = ["h:0", "s:0", "y:0", "m:0", "d:0"]
    with of.Session(graph=g) as sess:
        ours = sess.run(names, {x: xv})
    theirs = _tf_run(data, names, {"x:0": xv})
    for name, a, b_ in zip(names, ours, theirs):
        assert a.shape == b_.shape, name
        np.testing.assert_allclose(a, b_, rtol=1e-5, atol=1e-6, err_msg=name)
    # TensorFlow's parse of our bytes re-serializes to the same message.
    tgd = tf1.GraphDef.FromString(data)
    assert of.GraphDef.FromString(tgd.SerializeToString()) == g.as_graph_def()
    del d


def test_opforge_variables_graph_runs_in_tensorflow():
    g = of.Graph()
    with g.as_default():
        v = of.Variable(np.array([1.0, 2.0], np.float32), name="v")
        inc = v.assign_add(np.array([0.5, 0.5], np.float32), name="inc")
        init = of.global_variables_initializer()
        out = of.mul(v, 2.0, name="out")
    data = g.as_graph_def().SerializeToString()
    gd = tf1.GraphDef.FromString(data)
    with tf.Graph().as_default() as tg:
        tf1.import_graph_def(gd, name="")
        with tf1.Session(graph=tg) as sess:
            sess.run(init.name)
            sess.run(inc.op.name)
            np.testing.assert_allclose(sess.run("out:0"), [3.0, 5.0])
    del out


def _tf_model():
    rng = np.random.default_rng(5)
    with tf.Graph().as_default() as g:
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant(rng.normal(size=(3, 4)).astype(np.float32), name="w")
        b = tf.constant(rng.normal(size=(1, 4)).astype(np.float32), name="b")
        h = tf.nn.relu(tf.add(tf.matmul(x, w), b), name="h")
        t = tf.transpose(tf.reshape(h, [-1, 2, 2]), [0, 2, 1], name="t")
        tf.reduce_sum(tf.sigmoid(t) * tf.tanh(t), axis=[1, 2], name="s")
        m = tf.reduce_mean(h, axis=1, keepdims=True, name="m")
        y = tf.identity(tf.matmul(h, w, transpose_b=True) - m, name="y")
        z = tf.maximum(tf.square(y), tf.exp(-tf.abs(y)), name="z")
        tf.reduce_max(z, axis=0, name="mx")
    return g, ["h:0", "t:0", "s:0", "m:0", "y:0", "z:0", "mx:0"], rng.normal(size=(6, 3)).astype(np.float32)


def test_tensorflow_graph_def_imports_and_runs_in_opforge():
    tg, names, xv = _tf_model()
    with tf1.Session(graph=tg) as sess:
        theirs = sess.run(names, {"x:0": xv})
    data = tg.as_graph_def().SerializeToString()
    gd = of.GraphDef.FromString(data)
    assert {n.op for n in gd.node} >= {"Placeholder", "Const", "MatMul", "AddV2", "Relu"}
    for graph_def in (gd, data):
        ours = _of_run(graph_def, names, {"x:0": xv})
        for name, a, b in zip(names, ours, theirs):
            assert np.shape(a) == np.shape(b), name
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)


def test_tensorflow_graph_def_with_scalar_constants():
    with tf.Graph().as_default() as tg:
        x = tf1.placeholder(tf.float64, [None], name="x")
        y = tf.add(tf.multiply(x, 2.5), 1.0, name="y")
        s = tf.reduce_sum(y, name="s")
        c = tf.constant(4.0, tf.float64, name="c")
        del s, c
    xv = np.array([1.0, 2.0, -3.0])
    with tf1.Session(graph=tg) as sess:
        theirs = sess.run(["y:0", "s:0"], {"x:0": xv})
    ours = _of_run(tg.as_graph_def().SerializeToString(), ["y:0", "s:0"], {"x:0": xv})
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])


def test_tensorflow_scalar_constant_keeps_shape():
    with tf.Graph().as_default() as tg:
        tf.constant(4.0, tf.float64, name="c")
    out = _of_run(tg.as_graph_def().SerializeToString(), "c:0", {})
    assert np.shape(out) == () and out == 4.0


def test_tensorflow_text_graph_def_via_read_graph(tmp_path):
    tg, names, xv = _tf_model()
    tf1.train.write_graph(tg.as_graph_def(), str(tmp_path), "tf_model.pbtxt", as_text=True)
    tf1.train.write_graph(tg.as_graph_def(), str(tmp_path), "tf_model.pb", as_text=False)
    with tf1.Session(graph=tg) as sess:
        theirs = sess.run(names[-1], {"x:0": xv})
    for fname in ("tf_model.pbtxt", "tf_model.pb"):
        gd = of.train.read_graph(str(tmp_path / fname))
        ours = _of_run(gd, names[-1], {"x:0": xv})
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_opforge_written_files_read_by_tensorflow(tmp_path):
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 2], name="x")
        of.relu(of.matmul(x, of.constant(np.eye(2, dtype=np.float32) * -1.0)), name="y")
    p_txt = of.train.write_graph(g, str(tmp_path), "m.pbtxt", as_text=True)
    p_bin = of.train.write_graph(g, str(tmp_path), "m.pb", as_text=False)
    from google.protobuf import text_format
    gd_txt = text_format.Parse(open(p_txt).read(), tf1.GraphDef())
    gd_bin = tf1.GraphDef.FromString(open(p_bin, "rb").read())
    assert gd_txt == gd_bin
    xv = np.array([[1.0, -2.0]], np.float32)
    out = _tf_run(gd_bin.SerializeToString(), "y:0", {"x:0": xv})
    np.testing.assert_array_equal(out, [[0.0, 2.0]])


def test_tensorflow_graph_def_with_unsupported_op_is_rejected():
    with tf.Graph().as_default() as tg:
        x = tf1.placeholder(tf.float32, [None, 3], name="x")
        tf.raw_ops.Dawsn(x=x, name="dg")  # an op opforge does not have (special functions beyond its set)
    g = of.Graph()
    with g.as_default():
        with pytest.raises(of.NotFoundError) as exc:
            of.import_graph_def(tg.as_graph_def().SerializeToString(), name="")
    assert "dg" in str(exc.value) and "Dawsn" in str(exc.value)
    assert g.get_operations() == []


def test_tensorflow_cnn_graph_def_runs():
    """A TensorFlow graph of nn ops (Conv2D, BiasAdd, Relu, MaxPool, Softmax) imports and gives
    TensorFlow's answer (issue 4, nn)."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    with tf.Graph().as_default() as tg:
        x = tf1.placeholder(tf.float32, [None, 6, 6, 2], name="x")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b))
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        tf.nn.softmax(tf.reshape(h, [-1, 36]), name="probs")
    feed = rng.standard_normal((3, 6, 6, 2)).astype(np.float32)
    want = _tf_run(tg.as_graph_def().SerializeToString(), "probs:0", {"x:0": feed})
    got = _of_run(tg.as_graph_def().SerializeToString(), "probs:0", {"x:0": feed})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_tensorflow_placeholder_with_default_imports_with_its_shape_and_can_be_fed():
    """Keras and TF2 graphs carry PlaceholderWithDefault (keras_learning_phase, defaults of
    signatures): it imports as the op, with the attr's static shape, the default when not fed."""
    rng = np.random.default_rng(7)
    default = rng.standard_normal((2, 3)).astype(np.float32)
    fed = rng.standard_normal((5, 3)).astype(np.float32)
    with tf.Graph().as_default() as tg:
        x = tf1.placeholder_with_default(default, shape=[None, 3], name="x")
        tf.identity(x * 2.0, name="y")
    data = tg.as_graph_def().SerializeToString()
    assert "PlaceholderWithDefault" in {n.op for n in tf1.GraphDef.FromString(data).node}
    g = of.Graph()
    with g.as_default():
        of.import_graph_def(of.GraphDef.FromString(data), name="")
    assert g.get_tensor_by_name("x:0").shape.as_list() == [None, 3]
    with of.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run("y:0"), _tf_run(data, "y:0", {}), rtol=1e-6)
        np.testing.assert_allclose(sess.run("y:0", {"x:0": fed}), _tf_run(data, "y:0", {"x:0": fed}), rtol=1e-6)
    with pytest.raises(of.InvalidArgumentError, match="not compatible with the shape attr"):
        of.raw_ops.PlaceholderWithDefault(input=np.ones((2, 4), np.float32), shape=[None, 3])
