"""The friendly math API of issue 4: of.math (tf.math names), top-level reductions and
argmax/cumsum/clip_by_value, tf.matmul on batches, tensor operators (eager and graph), and the
compat.v1 names in a TF1-style program."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1

X = np.array([[-2.5, -1.5, 0.5], [1.5, 2.5, 3.0]], np.float32)


@pytest.mark.parametrize("name,np_fn", [
    ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan), ("sinh", np.sinh),
    ("cosh", np.cosh), ("asinh", np.arcsinh), ("floor", np.floor), ("ceil", np.ceil),
    ("round", np.round), ("sign", np.sign), ("expm1", np.expm1), ("is_nan", np.isnan),
    ("is_finite", np.isfinite), ("negative", np.negative), ("abs", np.abs),
])
def test_unary_names(name, np_fn):
    np.testing.assert_allclose(getattr(of.math, name)(X).numpy(), np_fn(X), rtol=1e-6)


def test_round_is_bankers():
    np.testing.assert_array_equal(of.math.round(np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)).numpy(),
                                  [0.0, 2.0, 2.0, -0.0, -2.0])


def test_binary_names():
    y = np.array([2.0, -1.5, 0.75], np.float32)
    np.testing.assert_allclose(of.math.floormod(X, y).numpy(), np.mod(X, y))
    np.testing.assert_allclose(of.math.mod(X, y).numpy(), np.mod(X, y))
    np.testing.assert_allclose(of.math.floordiv(X, y).numpy(), np.floor(X / y))
    np.testing.assert_allclose(of.floordiv(X, y).numpy(), np.floor(X / y))
    np.testing.assert_allclose(of.math.squared_difference(X, y).numpy(), (X - y) ** 2)
    np.testing.assert_allclose(of.math.atan2(X, y).numpy(), np.arctan2(X, y), rtol=1e-6)
    a, b = np.array([True, True, False]), np.array([True, False, False])
    np.testing.assert_array_equal(of.math.logical_xor(a, b).numpy(), a ^ b)
    np.testing.assert_array_equal(of.logical_and(a, b).numpy(), a & b)


def test_reductions_axis_none_and_keepdims():
    np.testing.assert_allclose(of.reduce_prod(X).numpy(), np.prod(X), rtol=1e-6)
    np.testing.assert_allclose(of.reduce_prod(X, axis=1, keepdims=True).numpy(), np.prod(X, 1, keepdims=True))
    assert float(of.reduce_min(X).numpy()) == X.min()
    np.testing.assert_array_equal(of.math.reduce_min(X, axis=0).numpy(), X.min(0))
    b = X > 0
    assert not bool(of.reduce_all(b).numpy()) and bool(of.reduce_any(b).numpy())
    np.testing.assert_array_equal(of.reduce_all(b, axis=1).numpy(), b.all(1))
    np.testing.assert_array_equal(of.reduce_any(b, axis=[0, 1], keepdims=True).numpy(), b.any((0, 1), keepdims=True))


def test_argmax_argmin_defaults():
    out = of.argmax(X)  # axis 0, int64, as tf.math.argmax
    assert out.dtype == of.int64
    np.testing.assert_array_equal(out.numpy(), X.argmax(0))
    out = of.argmin(X, axis=1, output_type=of.int32)
    assert out.dtype == of.int32
    np.testing.assert_array_equal(out.numpy(), X.argmin(1))
    np.testing.assert_array_equal(of.math.argmax(X, axis=-1).numpy(), X.argmax(-1))


def test_cumsum_and_clip():
    v = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_array_equal(of.cumsum(v).numpy(), [1, 3, 6, 10])
    np.testing.assert_array_equal(of.cumsum(v, exclusive=True).numpy(), [0, 1, 3, 6])
    np.testing.assert_array_equal(of.cumsum(v, reverse=True).numpy(), [10, 9, 7, 4])
    np.testing.assert_array_equal(of.cumsum(v, exclusive=True, reverse=True).numpy(), [9, 7, 4, 0])
    np.testing.assert_array_equal(of.math.cumsum(X, axis=1).numpy(), np.cumsum(X, 1))
    np.testing.assert_array_equal(of.clip_by_value(X, -1.0, 2.0).numpy(), np.clip(X, -1, 2))


def test_matmul_batches_go_to_batch_mat_mul_v2():
    rng = np.random.default_rng(0)
    a, b = rng.random((2, 1, 3, 4)), rng.random((5, 4, 2))
    np.testing.assert_allclose(of.matmul(a, b).numpy(), np.matmul(a, b))
    np.testing.assert_allclose(of.matmul(a, np.swapaxes(b, -1, -2), transpose_b=True).numpy(), np.matmul(a, b))
    np.testing.assert_allclose(of.matmul(np.swapaxes(a, -1, -2), b, adjoint_a=True).numpy(), np.matmul(a, b))
    m = rng.random((3, 4))
    np.testing.assert_allclose(of.matmul(m, m, transpose_b=True).numpy(), m @ m.T)


def test_eager_operators():
    a = of.constant(np.array([7, -7, 5], np.int32))
    b = of.constant(np.array([2, 2, -3], np.int32))
    np.testing.assert_array_equal((a // b).numpy(), [3, -4, -2])
    np.testing.assert_array_equal((a % b).numpy(), [1, 1, -1])
    np.testing.assert_array_equal((7 // b).numpy(), 7 // np.array([2, 2, -3]))
    np.testing.assert_array_equal((a <= b).numpy(), [False, True, False])
    np.testing.assert_array_equal((a >= b).numpy(), [True, False, True])
    np.testing.assert_array_equal((a != b).numpy(), [True, True, True])
    f = of.constant(np.array([np.nan, 1.0], np.float32))
    np.testing.assert_array_equal((f <= f).numpy(), [False, True])  # NaN compares false
    np.testing.assert_array_equal((f != f).numpy(), [True, False])
    p, q = of.constant(np.array([True, True, False])), of.constant(np.array([True, False, False]))
    np.testing.assert_array_equal((~p).numpy(), [False, False, True])
    np.testing.assert_array_equal((p & q).numpy(), [True, False, False])
    np.testing.assert_array_equal((p | q).numpy(), [True, True, False])
    np.testing.assert_array_equal((p ^ q).numpy(), [False, True, False])
    with pytest.raises(of.InvalidArgumentError, match="LogicalNot"):
        ~a  # noqa: B018  (no bitwise ops on integers here)


def test_graph_operators_and_gradients(graph):
    x = of.placeholder(of.float32, [None, 3])
    y = of.placeholder(of.float32, [None, 3])
    q, r = x // y, x % y
    le = x <= y
    clipped = of.clip_by_value(x, -1.0, 2.0)
    loss = of.reduce_sum(of.reduce_prod(clipped, axis=1))
    (g,) = of.gradients(loss, [x])
    yv = np.array([[2.0, -1.5, 0.75], [1.0, 1.0, 1.0]], np.float32)
    with of.Session() as sess:
        qv, rv, lev, gv = sess.run([q, r, le, g], {x: X, y: yv})
    np.testing.assert_allclose(qv, np.floor(X / yv))
    np.testing.assert_allclose(rv, np.mod(X, yv), rtol=1e-6)
    np.testing.assert_array_equal(lev, X <= yv)
    c = np.clip(X, -1, 2)
    inside = (X >= -1) & (X <= 2)
    want = np.stack([np.prod(np.delete(c, i, axis=1), axis=1) for i in range(3)], axis=1) * inside
    np.testing.assert_allclose(gv, want, rtol=1e-6)


def test_compat_v1_program():
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf1.float32, [None, 3])
        best = tf1.argmax(x, axis=1)
        total = tf1.reduce_prod(tf1.clip_by_value(x, 0.5, 2.0), axis=1)
        picked = tf1.where_v2(tf1.greater_equal(x, 0.0), x, tf1.zeros_like(x))
        sines = tf1.sin(x)
        with tf1.Session() as sess:
            b, t, p, s = sess.run([best, total, picked, sines], {x: X})
    np.testing.assert_array_equal(b, X.argmax(1))
    np.testing.assert_allclose(t, np.prod(np.clip(X, 0.5, 2.0), 1), rtol=1e-6)
    np.testing.assert_array_equal(p, np.where(X >= 0, X, 0))
    np.testing.assert_allclose(s, np.sin(X), rtol=1e-6)


def test_cast_to_own_dtype_adds_no_op():
    """tf.cast of a graph tensor to its own dtype returns it (TF's math_ops.cast): casting a
    string tensor to tf.string is valid though Cast has no string kernel (a TFRecord reader's
    label, tf.cast(features['label'], tf.string)); another dtype still adds a Cast."""
    with tf1.Graph().as_default() as g:
        s = tf1.constant(["a", "b"])
        assert tf1.cast(s, tf1.string) is s
        f = tf1.placeholder(tf1.float32, [None, 2])
        n_ops = len(g.get_operations())
        assert tf1.cast(f, "float32") is f and len(g.get_operations()) == n_ops
        i = tf1.cast(f, tf1.int32, name="to_int")
        assert i.op.type == "Cast" and i.op.name == "to_int"
        with tf1.Session() as sess:
            assert sess.run(tf1.cast(s, tf1.string)).tolist() == [b"a", b"b"]


def test_tf_math_names_of_nn_and_check_functions():
    """tf.math's names for functions that live elsewhere (tf.nn, tf.debugging, ...) compute the
    same as those functions, and erfc is the Erfc op."""
    x = np.random.default_rng(5).standard_normal((3, 7)).astype(np.float32)
    np.testing.assert_array_equal(of.math.softmax(x).numpy(), of.nn.softmax(x).numpy())
    np.testing.assert_array_equal(of.math.log_softmax(x).numpy(), of.nn.log_softmax(x).numpy())
    np.testing.assert_array_equal(of.math.l2_normalize(x, axis=1).numpy(), of.nn.l2_normalize(x, axis=1).numpy())
    assert of.math.zero_fraction(np.array([0.0, 1.0, 0.0, 2.0], np.float32)).numpy() == 0.5
    np.testing.assert_allclose(of.math.erfc(x).numpy(), 1 - np.vectorize(__import__("math").erf)(x), atol=1e-6)
    ids = np.array([1, 0, 1], np.int32)
    np.testing.assert_array_equal(of.math.unsorted_segment_sum(x[:, :2], ids, 2).numpy(),
                                  [x[1, :2], x[0, :2] + x[2, :2]])
    values, _ = of.math.approx_max_k(x, 2)
    np.testing.assert_array_equal(values.numpy(), -np.sort(-x, axis=1)[:, :2])
    assert of.math.sobol_sample(2, 4).numpy().shape == (4, 2)


@pytest.mark.parametrize("dtype,want", [(np.int8, np.float32), (np.uint8, np.float32), (np.int16, np.float32),
                                        (np.int32, np.float64), (np.int64, np.float64)])
def test_true_division_of_integers_is_float(dtype, want):
    """tf.divide, tf.math.truediv and `/` cast integer operands to a float first (8/16-bit to
    float32, 32/64-bit to float64), eagerly, in graphs and on variables: [[0, 1], [2, 3]] / 2 is
    [[0, 0.5], [1, 1.5]], never RealDiv's integer quotient."""
    import opforge.compat.v1 as tf1
    b = np.array([[0, 1], [2, 3]], dtype)
    expect = b.astype(np.float64) / 2
    for got in (of.math.divide(b, dtype(2)), of.math.truediv(of.constant(b), dtype(2)), of.constant(b) / dtype(2)):
        assert got.numpy().dtype == want
        np.testing.assert_allclose(got.numpy(), expect)
    np.testing.assert_allclose((6 / of.constant(b + 1)).numpy(), 6 / (b + 1).astype(np.float64))
    with tf1.Graph().as_default():
        t = tf1.constant(b)
        v = tf1.Variable(b)
        outs = [tf1.divide(t, 2), tf1.truediv(t, 2), t / 2, 3 / (t + 1), v / 2, tf1.div(t, 2)]
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            got = sess.run(outs)
    for g in got[:5]:
        assert g.dtype == want
    np.testing.assert_allclose(got[0], expect)
    np.testing.assert_allclose(got[3], 3 / (b + 1).astype(np.float64))
    np.testing.assert_array_equal(got[5], b // 2)  # tf.div stays Python 2's division


def test_float_division_is_unchanged():
    x = np.array([1.0, 3.0], np.float32)
    got = of.constant(x) / 2
    assert got.numpy().dtype == np.float32
    np.testing.assert_array_equal(got.numpy(), x / 2)


def test_transpose_without_perm_of_unknown_rank():
    """The reversed axes come from the rank at run time (tf.transpose(x) of a placeholder with no
    shape)."""
    import opforge.compat.v1 as tf1
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32)
        y = tf1.transpose(x)
        with tf1.Session() as sess:
            for v in (np.arange(6.0).reshape(2, 3), np.arange(24.0).reshape(2, 3, 4), np.float32(5)):
                np.testing.assert_array_equal(sess.run(y, {x: v}), np.transpose(v))
