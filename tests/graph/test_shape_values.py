"""Static shapes through shape arithmetic: what graph construction knows of the value of a
shape tensor (Shape(x) is x's static shape; Pack, ConcatV2, StridedSlice, Cast and Identity
carry what they know) gives the ops that read one (Reshape, Fill, BroadcastTo, Tile,
ScatterNd, the convolution backprops, StridedSliceGrad) their static output shapes, as
TensorFlow's shape inference does. Compared against TensorFlow's static shapes where it is
installed; the expected shapes are written out so the tests run without it too."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1

# (name, builder(tf) -> tensor, TensorFlow's static shape)
CASES = [
    ("reshape to Shape(x)", lambda tf, x: tf.reshape(tf.ones_like(x), tf.shape(x)), [None, 8, 8, 3]),
    ("reshape to [batch, -1]", lambda tf, x: tf.reshape(x, tf.stack([tf.shape(x)[0], -1])), [None, None]),
    ("reshape to [batch, 192]", lambda tf, x: tf.reshape(x, tf.stack([tf.shape(x)[0], 192])), [None, 192]),
    ("reshape to concat", lambda tf, x: tf.reshape(x, tf.concat([tf.shape(x)[:1], [64, 3]], 0)), [None, 64, 3]),
    ("reshape to a slice", lambda tf, x: tf.reshape(x, tf.concat([tf.shape(x)[:-1], [3]], 0)), [None, 8, 8, 3]),
    ("fill", lambda tf, x: tf.fill(tf.stack([tf.shape(x)[0], 5]), 1.0), [None, 5]),
    ("zeros of Shape(x)", lambda tf, x: tf.zeros(tf.shape(x)), [None, 8, 8, 3]),
    ("broadcast_to", lambda tf, x: tf.broadcast_to(tf.ones([1, 8, 1, 3]), tf.shape(x)), [None, 8, 8, 3]),
    ("tile", lambda tf, x: tf.tile(x, tf.stack([1, tf.shape(x)[1], 2, 1])), [None, 64, 16, 3]),
    ("cast shape", lambda tf, x: tf.reshape(x, tf.cast(tf.shape(x), tf.int64)), [None, 8, 8, 3]),
    ("random_normal", lambda tf, x: tf.random_normal(tf.shape(x)), [None, 8, 8, 3]),
    ("concat of an unknown piece", lambda tf, x: tf.reshape(x, tf.concat([tf.shape(x)[:2] * [1, 8], [3]], 0)),
     [None, None, 3]),
    ("tensordot", lambda tf, x: tf.tensordot(x, np.ones((3, 5), np.float32), [[3], [0]]), [None, 8, 8, 5]),
]


def _x(tf):
    return tf.placeholder(tf.float32, [None, 8, 8, 3], name="x")


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_static_shape(name, build, want):
    with tf1.Graph().as_default():
        y = build(tf1, _x(tf1))
        assert y.get_shape().as_list() == want


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_the_same_as_tensorflow(name, build, want):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        assert build(tf, _x(tf)).get_shape().as_list() == want


def test_values_are_right_at_run_time():
    """The static shapes are a statement about the run: the values computed agree."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 8, 8, 3)).astype(np.float32)
    with tf1.Graph().as_default():
        x = _x(tf1)
        outs = [build(tf1, x) for _, build, _ in CASES]
        with tf1.Session() as sess:
            values = sess.run(outs, {x: xs})
    for (name, _, want), v in zip(CASES, values):
        assert all(w is None or w == d for w, d in zip(want, v.shape)), (name, v.shape)
    np.testing.assert_array_equal(values[1], xs.reshape(5, -1))
    np.testing.assert_array_equal(values[8], np.tile(xs, (1, 8, 2, 1)))


def test_gathered_shape_dims():
    """Shape(x) gathered at constant indices (a frozen tf.tensordot's [free dims of x..., N]) keeps
    what x's static shape knows; TensorFlow's inference stops at the GatherV2 ([None] * 3 + [5])."""
    with tf1.Graph().as_default():
        x = _x(tf1)
        m = tf1.matmul(tf1.reshape(x, [-1, 3]), np.ones((3, 5), np.float32))
        y = tf1.reshape(m, tf1.concat([tf1.gather(tf1.shape(x), [0, 1, 2]), [5]], 0))
        assert y.get_shape().as_list() == [None, 8, 8, 5]
        z = tf1.reshape(m, tf1.concat([tf1.gather(tf1.shape(x), [2, 0]), [-1]], 0))
        assert z.get_shape().as_list() == [8, None, None]
        with tf1.Session() as sess:
            xs = np.random.default_rng(1).standard_normal((2, 8, 8, 3)).astype(np.float32)
            got_y, got_z = sess.run([y, z], {x: xs})
        assert got_y.shape == (2, 8, 8, 5) and got_z.shape == (8, 2, 40)


def test_gradients_keep_the_static_shapes():
    """The gradient of a broadcasting op reshapes to Shape(input): its static shape is the
    input's (it was [None] * rank before)."""
    with tf1.Graph().as_default():
        x = _x(tf1)
        scale = tf1.Variable(np.ones(3, np.float32))
        mean = tf1.reduce_mean(x, axis=[0, 1, 2], keepdims=True)
        y = (x - mean) * scale
        gx, gscale, gmean = tf1.gradients(tf1.reduce_sum(y * y), [x, scale, mean])
        assert gx.get_shape().as_list() == [None, 8, 8, 3]
        assert gscale.get_shape().as_list() == [3]
        assert gmean.get_shape().as_list() == [1, 1, 1, 3]


def test_conv_backprop_sizes_from_shape():
    with tf1.Graph().as_default():
        x = _x(tf1)
        f = tf1.constant(np.ones((3, 3, 3, 4), np.float32))
        dy = tf1.placeholder(tf1.float32, [None, 8, 8, 4])
        dx = of.raw_ops.Conv2DBackpropInput(input_sizes=tf1.shape(x), filter=f, out_backprop=dy,
                                            strides=[1, 1, 1, 1], padding="SAME")
        assert dx.get_shape().as_list() == [None, 8, 8, 3]


def test_an_inconsistent_partial_value_is_not_an_error_at_construction():
    """Partial knowledge never rejects a graph: a Reshape whose known dims do not divide the
    element count builds, and fails (typed) when run."""
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None, 5])
        y = tf1.reshape(tf1.ones([4, 5]), tf1.stack([tf1.shape(x)[0], 3]))
        assert y.get_shape().as_list() == [None, 3]
        with tf1.Session() as sess, pytest.raises(of.errors.InvalidArgumentError):
            sess.run(y, {x: np.ones((2, 5), np.float32)})


def test_huge_partial_dims_do_not_overflow():
    """Known dims whose product overflows int64 leave the unknown one unknown (no solving)."""
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None, 5])
        big = 2 ** 31 - 1
        y = tf1.reshape(tf1.ones([4, 5]), tf1.stack([tf1.shape(x)[0], big, big, big]))
        assert y.get_shape().as_list() == [None, big, big, big]
