"""Gradients of broadcasting ops in graphs with unknown dims: where the static shapes of the two
operands decide which axes an operand was stretched along (x + bias with bias [C] and x
[None, H, W, C]), the gradient sums over them with no run-time shape arithmetic (no Shape /
BroadcastGradientArgs nodes); where they cannot (both batch dims unknown), it falls back to
run-time arithmetic and is still right when a batch of 1 is stretched. Values are checked
against NumPy in every case."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1

OPS = {
    "add": (lambda a, b: a + b, lambda g, a, b: (g, g)),
    "mul": (lambda a, b: a * b, lambda g, a, b: (g * b, g * a)),
    "sub": (lambda a, b: a - b, lambda g, a, b: (g, -g)),
    "div": (lambda a, b: a / b, lambda g, a, b: (g / b, -g * a / b ** 2)),
}


def _reduce_to(g, shape):
    """NumPy's unbroadcast: g summed down to shape."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


def _grads(op, a_static, b_static, a_val, b_val):
    fwd, _ = OPS[op]
    g = of.Graph()
    with g.as_default():
        a = tf1.placeholder(tf1.float64, a_static)
        b = tf1.placeholder(tf1.float64, b_static)
        y = fwd(a, b)
        w = tf1.placeholder(tf1.float64, a_static)  # the result's static shape, in these cases
        ga, gb = tf1.gradients(tf1.reduce_sum(y * w), [a, b])
    # The node types of the op's own gradient (not of the loss's: y * w has two unknown batches).
    types = {o.type for o in g.get_operations() if o.name.startswith(f"gradients/{y.op.name}_grad/")}
    rng = np.random.default_rng(0)
    out_shape = np.broadcast_shapes(a_val.shape, b_val.shape)
    wv = rng.standard_normal(out_shape)
    with tf1.Session(graph=g) as sess:
        got = sess.run([ga, gb], {a: a_val, b: b_val, w: wv})
    return got, wv, types, (ga, gb)


@pytest.mark.parametrize("op", sorted(OPS))
def test_bias_like_operand_needs_no_runtime_shapes(op):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 4, 5))
    bias = rng.uniform(0.5, 2.0, 5)
    (gx, gb), w, types, (sx, sb) = _grads(op, [None, 4, 4, 5], [5], x, bias)
    want_x, want_b = OPS[op][1](w, x, bias)
    np.testing.assert_allclose(gx, _reduce_to(want_x, x.shape), rtol=1e-12)
    np.testing.assert_allclose(gb, _reduce_to(want_b, bias.shape), rtol=1e-12)
    assert "BroadcastGradientArgs" not in types
    assert sx.get_shape().as_list() == [None, 4, 4, 5] and sb.get_shape().as_list() == [5]


@pytest.mark.parametrize("op", sorted(OPS))
def test_keep_dims_operand(op):
    """x - mean(x, keepdims) as batch norm writes it: the mean's [1, 1, 1, C] is summed over
    the stretched axes statically."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 3, 4))
    m = rng.uniform(0.5, 2.0, (1, 1, 1, 4))
    (gx, gm), w, types, _ = _grads(op, [None, 3, 3, 4], [1, 1, 1, 4], x, m)
    want_x, want_m = OPS[op][1](w, x, m)
    np.testing.assert_allclose(gx, _reduce_to(want_x, x.shape), rtol=1e-12)
    np.testing.assert_allclose(gm, _reduce_to(want_m, m.shape), rtol=1e-12)
    assert "BroadcastGradientArgs" not in types


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("b_batch", [1, 3])
def test_both_batches_unknown_is_decided_at_run_time(op, b_batch):
    """[None, 4] with [None, 4]: b may be a batch of 1 stretched to 3 (decided by running)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4))
    b = rng.uniform(0.5, 2.0, (b_batch, 4))
    (ga, gb), w, types, _ = _grads(op, [None, 4], [None, 4], a, b)
    want_a, want_b = OPS[op][1](w, a, b)
    np.testing.assert_allclose(ga, _reduce_to(want_a, a.shape), rtol=1e-12)
    np.testing.assert_allclose(gb, _reduce_to(want_b, b.shape), rtol=1e-12)
    assert gb.shape == b.shape
    assert "BroadcastGradientArgs" in types
    assert types  # (the scope is the one the gradient nodes are in)


def test_unknown_dim_beside_a_one():
    """x [None, 3] * y [1, 3]: x's unknown dim is the result's (y has 1 there)."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((5, 3)), rng.standard_normal((1, 3))
    (gx, gy), w, types, _ = _grads("mul", [None, 3], [1, 3], x, y)
    np.testing.assert_allclose(gx, w * y, rtol=1e-12)
    np.testing.assert_allclose(gy, (w * x).sum(axis=0, keepdims=True), rtol=1e-12)
    assert "BroadcastGradientArgs" not in types


def test_mean_gradient_with_an_unknown_batch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 2, 3))
    g = of.Graph()
    with g.as_default():
        xp = tf1.placeholder(tf1.float64, [None, 2, 3])
        m = tf1.reduce_mean(xp, axis=[0, 1])
        w = rng.standard_normal(3)
        (gx,) = tf1.gradients(tf1.reduce_sum(m * w), [xp])
        assert gx.get_shape().as_list() == [None, 2, 3]
    with tf1.Session(graph=g) as sess:
        got = sess.run(gx, {xp: x})
    np.testing.assert_allclose(got, np.broadcast_to(w / 12.0, x.shape), rtol=1e-12)


def test_an_operand_with_itself():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3))
    g = of.Graph()
    with g.as_default():
        xp = tf1.placeholder(tf1.float64, [None, 3])
        y = xp * xp
        (gx,) = tf1.gradients(tf1.reduce_sum(y), [xp])
        types = {o.type for o in g.get_operations() if o.name.startswith(f"gradients/{y.op.name}_grad/")}
    assert types and "BroadcastGradientArgs" not in types
    with tf1.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(gx, {xp: x}), 2 * x, rtol=1e-12)
