"""More of issue 32's TF1 names: make_template, get_local_variable, reverse_sequence,
static_bidirectional_rnn, nn.convolution / nn.pool, batch_norm_with_global_normalization,
clip_by_average_norm, reduce_euclidean_norm, uniform_unit_scaling_initializer, ensure_shape,
gfile.Stat, the checkpoint utilities and assert_global_step; NumPy references on random data,
TensorFlow's answers where it is installed."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opforge.compat.v1 as tf

RNG = np.random.default_rng(327)


@pytest.fixture
def g():
    tf.reset_default_graph()
    yield tf.get_default_graph()
    tf.reset_default_graph()


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_make_template_shares_variables(g):
    def scale(x, factor):
        w = tf.get_variable("w", [3], initializer=tf.constant_initializer(factor))
        return x * w

    t = tf.make_template("scale", scale, factor=2.0)
    x = RNG.standard_normal(3).astype(np.float32)
    a, b = t(x), t(x + 1)
    assert [v.op.name for v in tf.global_variables()] == ["scale/w"]
    t2 = tf.make_template("scale", scale, factor=3.0)
    c = t2(x)
    assert [v.op.name for v in tf.global_variables()] == ["scale/w", "scale_1/w"]
    ra, rb, rc = run([a, b, c])
    np.testing.assert_allclose(ra, 2 * x) and np.testing.assert_allclose(rb, 2 * (x + 1))
    np.testing.assert_allclose(rc, 3 * x)
    with pytest.raises(tf.errors.UnimplementedError, match="custom_getter"):
        tf.make_template("s", scale, custom_getter_=lambda *a, **k: None)


def test_get_local_variable(g):
    v = tf.get_local_variable("counter", [2], initializer=tf.zeros_initializer())
    assert v in tf.local_variables() and v not in tf.global_variables() and v not in tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_array_equal(sess.run(v), [0, 0])


def _np_reverse_sequence(x, lengths, seq_axis, batch_axis):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = np.take(x, b, axis=batch_axis)
        dst_axis = seq_axis if seq_axis < batch_axis else seq_axis - 1
        rev = np.concatenate([np.flip(np.take(src, range(n), dst_axis), dst_axis),
                              np.take(src, range(n, src.shape[dst_axis]), dst_axis)], dst_axis)
        idx = [slice(None)] * x.ndim
        idx[batch_axis] = b
        out[tuple(idx)] = rev
    return out


@pytest.mark.parametrize("seq_axis,batch_axis", [(1, 0), (0, 1), (2, 0), (1, 2)])
def test_reverse_sequence(g, seq_axis, batch_axis):
    x = RNG.standard_normal((3, 4, 5))
    lengths = RNG.integers(0, x.shape[seq_axis] + 1, x.shape[batch_axis])
    got = run(tf.reverse_sequence(x, lengths, seq_axis=seq_axis, batch_axis=batch_axis))
    np.testing.assert_array_equal(got, _np_reverse_sequence(x, lengths, seq_axis, batch_axis))
    np.testing.assert_array_equal(run(tf.reverse_sequence(x, lengths, seq_dim=seq_axis, batch_dim=batch_axis)), got)


def test_static_bidirectional_rnn_matches_two_static_rnns(g):
    steps = [tf.constant(RNG.standard_normal((2, 3)).astype(np.float32)) for _ in range(4)]
    fw, bw = tf.nn.rnn_cell.BasicRNNCell(5), tf.nn.rnn_cell.BasicRNNCell(5)
    outputs, st_fw, st_bw = tf.nn.static_bidirectional_rnn(fw, bw, steps, dtype=tf.float32)
    assert len(outputs) == 4 and outputs[0].shape.as_list() == [2, 10]
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["bidirectional_rnn/bw/basic_rnn_cell/bias", "bidirectional_rnn/bw/basic_rnn_cell/kernel",
                     "bidirectional_rnn/fw/basic_rnn_cell/bias", "bidirectional_rnn/fw/basic_rnn_cell/kernel"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = {v.op.name: sess.run(v) for v in tf.global_variables()}
        out, sf, sb = sess.run([outputs, st_fw, st_bw])
        xs = sess.run(steps)

    def cell(prefix, x, h):
        k, b = vals[f"bidirectional_rnn/{prefix}/basic_rnn_cell/kernel"], vals[f"bidirectional_rnn/{prefix}/basic_rnn_cell/bias"]
        return np.tanh(np.concatenate([x, h], 1) @ k + b)

    h, fws = np.zeros((2, 5)), []
    for x in xs:
        h = cell("fw", x, h)
        fws.append(h)
    h, bws = np.zeros((2, 5)), []
    for x in xs[::-1]:
        h = cell("bw", x, h)
        bws.append(h)
    for t in range(4):
        np.testing.assert_allclose(out[t], np.concatenate([fws[t], bws[3 - t]], 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sf, fws[-1], rtol=1e-5) and np.testing.assert_allclose(sb, bws[-1], rtol=1e-5)


def test_convolution_and_pool_dispatch_by_rank(g):
    x1 = RNG.standard_normal((2, 8, 3)).astype(np.float32)
    f1 = RNG.standard_normal((3, 3, 4)).astype(np.float32)
    want1 = np.stack([np.einsum("bwc,wco->bo", x1[:, i:i + 3], f1) for i in range(6)], 1)
    np.testing.assert_allclose(run(tf.nn.convolution(x1, f1, "VALID")), want1, rtol=1e-4, atol=1e-5)
    x2 = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
    f2 = RNG.standard_normal((2, 2, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(run(tf.nn.convolution(x2, filter=f2, padding="VALID", dilation_rate=[2, 2])),
                               run(tf.nn.conv2d(x2, f2, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])), rtol=1e-5)
    x3 = RNG.standard_normal((1, 4, 4, 4, 2)).astype(np.float32)
    f3 = RNG.standard_normal((2, 2, 2, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(run(tf.nn.convolution(x3, f3, "SAME", strides=[2, 2, 2])),
                               run(tf.nn.conv3d(x3, f3, [1, 2, 2, 2, 1], "SAME")), rtol=1e-5)
    np.testing.assert_allclose(run(tf.nn.pool(x1, [2], "MAX", "VALID", strides=[2])),
                               x1.reshape(2, 4, 2, 3).max(2))
    np.testing.assert_allclose(run(tf.nn.pool(x2[:, :4, :4], [2, 2], "AVG", "VALID", strides=[2, 2])),
                               x2[:, :4, :4].reshape(1, 2, 2, 2, 2, 2).mean((2, 4)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(tf.nn.pool(x3, [2, 2, 2], "MAX", "VALID", strides=[2, 2, 2])),
                               x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).max((2, 4, 6)))
    with pytest.raises(ValueError, match="MAX or AVG"):
        tf.nn.pool(x1, [2], "MIN", "VALID")


def test_batch_norm_with_global_normalization(g):
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    m, v = RNG.standard_normal(3).astype(np.float32), RNG.random(3).astype(np.float32) + 0.5
    beta, gamma = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    for scale in (True, False):
        got = run(tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 1e-3, scale))
        want = (x - m) / np.sqrt(v + 1e-3) * (gamma if scale else 1) + beta
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_clip_by_average_norm_and_euclidean_norm(g):
    t = RNG.standard_normal((3, 4)).astype(np.float32)
    avg = np.sqrt((t * t).sum()) / t.size
    for clip in (avg / 2, avg * 2):
        want = t * min(1.0, clip / avg)
        np.testing.assert_allclose(run(tf.clip_by_average_norm(t, clip)), want, rtol=1e-5)
    np.testing.assert_allclose(run(tf.math.reduce_euclidean_norm(t, 1)), np.linalg.norm(t, axis=1), rtol=1e-6)
    ints = RNG.integers(-5, 5, (3, 4)).astype(np.int32)
    np.testing.assert_array_equal(run(tf.math.reduce_euclidean_norm(ints, 1, keepdims=True)),
                                  np.floor(np.linalg.norm(ints, axis=1, keepdims=True)).astype(np.int32))


@pytest.mark.parametrize("shape", [(50, 40), (3, 3, 16, 8), (200,)])
def test_uniform_unit_scaling_initializer(shape):
    init = tf.uniform_unit_scaling_initializer(factor=1.5, seed=3)
    v = np.asarray(init(shape))  # an eager tensor, as TensorFlow 2 gives
    limit = 1.5 * np.sqrt(3.0 / max(1.0, np.prod(shape[:-1])))
    assert v.shape == shape and np.abs(v).max() <= limit and np.abs(v).max() > 0.9 * limit
    assert abs(v.std() - limit / np.sqrt(3)) < 0.1 * limit
    assert tf.initializers.uniform_unit_scaling is tf.uniform_unit_scaling_initializer


def test_ensure_shape(g):
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.ensure_shape(x, [None, 3])
    assert y.shape.as_list() == [None, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((2, 3))}), np.ones((2, 3)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible"):
            sess.run(y, {x: np.ones((2, 4))})
    with pytest.raises(ValueError, match="not compatible"):
        tf.ensure_shape(tf.placeholder(tf.float32, [2, 3]), [2, 4])


def test_gfile_stat(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"12345")
    st = tf.gfile.Stat(str(p))
    assert st.length == 5 and not st.is_directory and st.mtime_nsec == os.stat(p).st_mtime_ns
    assert tf.gfile.Stat(str(tmp_path)).is_directory
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Stat(str(tmp_path / "missing"))


def test_checkpoint_utilities(g, tmp_path):
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        first = saver.save(sess, str(tmp_path / "model"), global_step=1)
        second = saver.save(sess, str(tmp_path / "model"), global_step=2)
    times = tf.train.get_checkpoint_mtimes([first, second, str(tmp_path / "nothing")])
    assert len(times) == 2 and all(t > 0 for t in times)
    assert next(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.2)) == second
    assert list(tf.train.checkpoints_iterator(str(tmp_path / "empty"), timeout=0.2)) == []
    tf.train.remove_checkpoint(second)
    assert not tf.train.checkpoint_exists(second) and tf.train.checkpoint_exists(first)
    assert not os.path.exists(second + ".meta") and os.path.exists(first + ".meta")
    state = tf.train.generate_checkpoint_state_proto("rel", "rel/model-3", ["rel/model-2"])
    assert state.model_checkpoint_path == "model-3" and list(state.all_model_checkpoint_paths) == [
        "model-2", "model-3"]


def test_assert_global_step(g):
    tf.train.assert_global_step(tf.train.get_or_create_global_step())
    for bad, what in ((tf.Variable(1.0), "integer"), (tf.Variable([1, 2]), "scalar"), (3, "Variable or Tensor")):
        with pytest.raises(TypeError, match=what):
            tf.train.assert_global_step(bad)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float64", "uint8"), ("int64", "int8"),
                                     ("int32", "float16"), ("float32", "int64"), ("int8", "int64")])
def test_saturate_cast(g, src, dst):
    info = np.iinfo if np.issubdtype(np.dtype(dst), np.integer) else np.finfo
    lo, hi = float(info(dst).min), float(info(dst).max)
    x = np.array([-1e30, lo - 1, lo, -1.5, 0, 2.5, hi, hi + 1, 1e30])
    x = np.clip(x, float(np.finfo("float64").min), float(np.finfo("float64").max))
    if np.issubdtype(np.dtype(src), np.integer):
        x = np.clip(x, np.iinfo(src).min, np.iinfo(src).max)
    x = x.astype(src)
    got = run(tf.saturate_cast(x, dst))
    assert got.dtype == np.dtype(dst)
    want = np.clip(x.astype(np.float64), lo, hi)
    assert np.all(np.abs(got.astype(np.float64) - want) <= np.maximum(1.0, np.abs(want) * 1e-3)), (x, got)


def test_broadcast_dynamic_shape(g):
    cases = [([2, 1, 3], [4, 3]), ([1], [5, 2]), ([], [3]), ([2, 3], [2, 3])]
    for a, b in cases:
        got = run(tf.broadcast_dynamic_shape(np.asarray(a, np.int32), np.asarray(b, np.int32)))
        np.testing.assert_array_equal(got, np.broadcast_shapes(tuple(a), tuple(b)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        run(tf.broadcast_dynamic_shape(np.asarray([2, 3], np.int32), np.asarray([4], np.int32)))


def test_switch_case(g):
    i = tf.placeholder(tf.int32, [])
    out = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20), lambda: tf.constant(30)])
    out_d = tf.switch_case(i, {1: lambda: tf.constant(1.0), 4: lambda: tf.constant(4.0)},
                           default=lambda: tf.constant(-1.0))
    with tf.Session() as sess:
        assert [sess.run(out, {i: k}) for k in (0, 1, 2, 7, -1)] == [10, 20, 30, 30, 30]
        assert [sess.run(out_d, {i: k}) for k in (1, 4, 0)] == [1.0, 4.0, -1.0]


def test_add_check_numerics_ops(g):
    x = tf.placeholder(tf.float32, [2])
    y = tf.log(x)
    check = tf.add_check_numerics_ops()
    with tf.Session() as sess:
        sess.run([y, check], {x: [1.0, 2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Log"):
            sess.run([y, check], {x: [1.0, 0.0]})


def test_device_wrapper(g):
    cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.BasicRNNCell(3), "/cpu:0")
    out, state = cell(tf.constant(np.ones((2, 4), np.float32)), cell.zero_state(2, tf.float32))
    assert cell.state_size == 3 and cell.output_size == 3
    assert out.op.device.lower().endswith("cpu:0") and out.shape.as_list() == [2, 3]
    assert run(out).shape == (2, 3)


def test_tensor_summary(g):
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    s = tf.summary.tensor_summary("weights", t, summary_description="the weights", display_name="W")
    assert s in tf.get_collection(tf.GraphKeys.SUMMARIES)
    summary = tf.Summary.FromString(run(s))
    value = summary.value[0]
    assert value.tag == "weights" and value.metadata.summary_description == "the weights"
    assert value.metadata.display_name == "W"
    np.testing.assert_array_equal(tf.make_ndarray(value.tensor), np.arange(6).reshape(2, 3))


def test_conv_transpose_dispatch_and_atrous_transpose(g):
    x = RNG.standard_normal((1, 3, 3, 2)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 4, 2)).astype(np.float32)
    a = tf.nn.conv_transpose(x, w, [1, 6, 6, 4], 2)
    b = tf.nn.conv2d_transpose(x, w, [1, 6, 6, 4], [1, 2, 2, 1])
    x1 = RNG.standard_normal((1, 3, 2)).astype(np.float32)
    w1 = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    c = tf.nn.conv_transpose(x1, w1, [1, 6, 4], 2)
    d = tf.nn.conv1d_transpose(x1, w1, [1, 6, 4], 2)
    # rate 2 with a 1x1 filter is a plain 1x1 transposed convolution
    w11 = RNG.standard_normal((1, 1, 4, 2)).astype(np.float32)
    e = tf.nn.atrous_conv2d_transpose(x, w11, [1, 3, 3, 4], rate=2, padding="SAME")
    ra, rb, rc, rd, re = run([a, b, c, d, e])
    np.testing.assert_array_equal(ra, rb) and np.testing.assert_array_equal(rc, rd)
    np.testing.assert_allclose(re, np.einsum("bhwc,oc->bhwo", x, w11[0, 0]), rtol=1e-5, atol=1e-6)
    tfm = pytest.importorskip("tensorflow")
    w3 = RNG.standard_normal((3, 3, 4, 2)).astype(np.float32)
    np.testing.assert_allclose(run(tf.nn.atrous_conv2d_transpose(x, w3, [1, 3, 3, 4], 2, "SAME")),
                               tfm.nn.atrous_conv2d_transpose(x, w3, [1, 3, 3, 4], 2, "SAME").numpy(), rtol=1e-4,
                               atol=1e-5)


def test_required_flags_are_checked_when_parsed():
    from absl import flags as absl_flags
    fv = absl_flags.FlagValues()
    tf.flags.DEFINE_string("data_dir", None, "where the data is", flag_values=fv)
    tf.flags.DEFINE_integer("steps", None, "how many", flag_values=fv)
    tf.flags.mark_flags_as_required(["data_dir"], flag_values=fv)
    tf.flags.mark_flag_as_required(flag_name="steps", flag_values=fv)
    assert fv(["prog", "--data_dir=/d", "--steps", "3", "rest"]) == ["prog", "rest"]
    assert fv.data_dir == "/d" and fv.steps == 3
    fv2 = absl_flags.FlagValues()
    tf.flags.DEFINE_string("data_dir", None, "where", flag_values=fv2)
    tf.flags.mark_flag_as_required("data_dir", flag_values=fv2)
    with pytest.raises(tf.flags.IllegalFlagValueError, match="data_dir"):
        fv2(["prog"])
