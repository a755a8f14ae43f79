"""of.gradients: symbolic gradients checked against central differences computed by running
the same graph (float64), including unknown batch dims, unknown rank and grad_ys."""

import numpy as np
import pytest

import opforge as of


def numeric_grad(sess, y, feeds, x, eps=1e-6, weights=None):
    """d sum(weights * y) / d feeds[x] by central differences."""
    base = {k: np.array(v, dtype=np.float64) for k, v in feeds.items()}
    xv = base[x]
    g = np.zeros_like(xv)

    def f():
        out = np.asarray(sess.run(y, base), np.float64)
        return float((out * weights).sum() if weights is not None else out.sum())

    it = np.nditer(xv, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = xv[i]
        xv[i] = old + eps
        fp = f()
        xv[i] = old - eps
        fm = f()
        xv[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def check(y, xs, feeds, grad_ys=None, gy_feed=None, rtol=1e-6, atol=1e-7):
    grads = of.gradients(y, xs, grad_ys=grad_ys)
    assert len(grads) == len(xs)
    with of.Session() as sess:
        all_feeds = dict(feeds)
        if gy_feed is not None:
            all_feeds[grad_ys] = gy_feed
        sym = sess.run(grads, all_feeds)
        for x, gs in zip(xs, sym):
            assert gs is not None
            num = numeric_grad(sess, y, feeds, x, weights=gy_feed)
            assert gs.shape == np.shape(feeds[x])
            assert gs.dtype == np.float64
            np.testing.assert_allclose(gs, num, rtol=rtol, atol=atol, err_msg=f"d/d{x.name}")
    return sym


def test_dense_sigmoid_sum(graph, rng):
    x = of.placeholder(of.float64, [None, 3], name="x")
    w = of.placeholder(of.float64, [3, 4], name="w")
    b = of.placeholder(of.float64, [4], name="b")
    y = of.reduce_sum(of.sigmoid(of.matmul(x, w) + b))
    assert y.shape.as_list() == []
    feeds = {x: rng.normal(size=(5, 3)), w: rng.normal(size=(3, 4)), b: rng.normal(size=4)}
    gx, gw, gb = check(y, [x, w, b], feeds)
    # Closed form too.
    z = feeds[x] @ feeds[w] + feeds[b]
    s = 1 / (1 + np.exp(-z))
    np.testing.assert_allclose(gb, (s * (1 - s)).sum(0), rtol=1e-10)


def test_tanh_relu_mul_mean(graph, rng):
    x = of.placeholder(of.float64, [None, 4], name="x")
    c = of.constant(rng.normal(size=(4,)))
    y = of.reduce_mean(of.tanh(x) * of.relu(x * c + 0.1))
    feeds = {x: rng.normal(size=(3, 4))}
    check(y, [x], feeds)


def test_transposed_matmul_and_transpose_reshape(graph, rng):
    a = of.placeholder(of.float64, [None, 2], name="a")
    b = of.placeholder(of.float64, [3, 2], name="b")
    m = of.matmul(a, b, transpose_b=True)                   # [n, 3]
    t = of.transpose(m)                                       # [3, n]
    r = of.reshape(t, [-1, 1])                                # [3n, 1]
    y = of.reduce_sum(of.square(r) * of.sigmoid(r))
    feeds = {a: rng.normal(size=(4, 2)), b: rng.normal(size=(3, 2))}
    check(y, [a, b], feeds)
    m2 = of.matmul(b, a, transpose_b=True)                    # [3, n]
    y2 = of.reduce_sum(of.tanh(m2))
    check(y2, [a, b], feeds)
    z = of.placeholder(of.float64, [None, 3], name="z")
    m3 = of.matmul(a, z, transpose_a=True)                    # [2, 3], unknown inner dim
    assert m3.shape.as_list() == [2, 3]
    y3 = of.reduce_sum(of.sigmoid(m3) * of.transpose(b))
    check(y3, [a, z, b], {**feeds, z: rng.normal(size=(4, 3))})


def test_reduce_max_and_axis_reductions(graph, rng):
    x = of.placeholder(of.float64, [None, 5], name="x")
    y = of.reduce_sum(of.reduce_max(x, axis=1) * 2.0) + of.reduce_sum(of.reduce_mean(x, axis=0, keepdims=True))
    xv = rng.permutation(20).reshape(4, 5).astype(np.float64) / 3.0  # distinct values: no ties
    sym = check(y, [x], {x: xv})
    expect = np.full_like(xv, 1 / 4)
    expect[np.arange(4), xv.argmax(1)] += 2.0
    np.testing.assert_allclose(sym[0], expect, rtol=1e-12)


def test_mean_over_unknown_batch_dim(graph, rng):
    x = of.placeholder(of.float64, [None, 3], name="x")
    y = of.reduce_mean(of.square(x))
    for n in (2, 7):
        xv = rng.normal(size=(n, 3))
        (g,) = check(y, [x], {x: xv})
        np.testing.assert_allclose(g, 2 * xv / xv.size, rtol=1e-12)


def test_broadcasting_gradients(graph, rng):
    x = of.placeholder(of.float64, [None, 1], name="x")
    r = of.placeholder(of.float64, [4], name="r")
    s = of.placeholder(of.float64, [], name="s")
    y = of.reduce_sum(of.tanh(x * r + s) * r)
    feeds = {x: rng.normal(size=(3, 1)), r: rng.normal(size=4), s: np.float64(0.3)}
    check(y, [x, r, s], feeds)


def test_unknown_rank_placeholder(graph, rng):
    u = of.placeholder(of.float64, name="u")       # no shape at all
    c = of.constant(rng.normal(size=(1, 4)))
    y = of.reduce_sum(of.sigmoid(u * c) + of.tanh(u))
    assert y.shape.as_list() == []
    check(y, [u], {u: rng.normal(size=(3, 1))})
    check(y, [u], {u: rng.normal(size=(2, 3, 4))})


def test_unknown_rank_matmul(graph, rng):
    a = of.placeholder(of.float64, name="a")
    w = of.constant(rng.normal(size=(3, 2)))
    y = of.reduce_mean(of.relu(of.matmul(a, w) + 0.5))
    check(y, [a], {a: rng.normal(size=(4, 3))})


def test_grad_ys(graph, rng):
    x = of.placeholder(of.float64, [None, 3], name="x")
    w = of.constant(rng.normal(size=(3, 2)))
    y = of.tanh(of.matmul(x, w))
    gy = of.placeholder(of.float64, [None, 2], name="gy")
    xv, gyv = rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    (g,) = check(y, [x], {x: xv}, grad_ys=gy, gy_feed=gyv)
    t = np.tanh(xv @ w.op.get_attr("value").numpy())
    np.testing.assert_allclose(g, (gyv * (1 - t * t)) @ w.op.get_attr("value").numpy().T, rtol=1e-10)
    # grad_ys as a constant list entry.
    (g2,) = of.gradients([y], [x], grad_ys=[of.constant(gyv)])
    with of.Session() as sess:
        np.testing.assert_allclose(sess.run(g2, {x: xv}), g, rtol=1e-12)


def test_multiple_ys_and_fan_out(graph, rng):
    x = of.placeholder(of.float64, [3], name="x")
    y1 = of.reduce_sum(x * x)          # x used twice
    y2 = of.reduce_sum(of.sigmoid(x) * x)
    (g,) = of.gradients([y1, y2], [x])
    xv = rng.normal(size=3)
    s = 1 / (1 + np.exp(-xv))
    with of.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: xv}), 2 * xv + s * (1 - s) * xv + s, rtol=1e-10)


def test_single_x_and_unconnected(graph):
    x = of.placeholder(of.float64, [2], name="x")
    z = of.placeholder(of.float64, [2], name="z")
    y = of.reduce_sum(x * 3.0)
    g = of.gradients(y, x)
    assert isinstance(g, list) and len(g) == 1
    assert of.gradients(y, [z]) == [None]
    gx, gz = of.gradients(y, [x, z], unconnected_gradients="zero")
    with of.Session() as sess:
        np.testing.assert_array_equal(sess.run(gz, {z: [1.0, 2.0]}), [0, 0])
        np.testing.assert_array_equal(sess.run(gx, {x: [1.0, 2.0]}), [3, 3])


def test_gradients_of_variables(graph, rng):
    w0 = rng.normal(size=(3, 1))
    w = of.Variable(w0, name="w")
    b = of.Variable(np.zeros(1), name="b")
    x = of.placeholder(of.float64, [None, 3])
    t = of.placeholder(of.float64, [None, 1])
    loss = of.reduce_mean(of.square(of.matmul(x, w) + b - t))
    gw, gb = of.gradients(loss, [w, b])
    xv, tv = rng.normal(size=(6, 3)), rng.normal(size=(6, 1))
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        gwv, gbv = sess.run([gw, gb], {x: xv, t: tv})
    resid = xv @ w0 - tv
    np.testing.assert_allclose(gwv, 2 * xv.T @ resid / 6, rtol=1e-10)
    np.testing.assert_allclose(gbv, 2 * resid.sum(0) / 6, rtol=1e-10)


def test_gradient_nodes_live_under_gradients_scope(graph):
    x = of.placeholder(of.float64, [2], name="x")
    (g,) = of.gradients(of.reduce_sum(of.tanh(x)), [x])
    assert g.op.name.startswith("gradients/")
    (g2,) = of.gradients(of.reduce_sum(of.tanh(x)), [x])
    assert g2.op.name.startswith("gradients_1/")


def test_second_order(graph):
    x = of.placeholder(of.float64, [3], name="x")
    y = of.reduce_sum(x * x * x)
    (g,) = of.gradients(y, [x])
    (h,) = of.gradients(g, [x])
    xv = np.array([1.0, -2.0, 0.5])
    with of.Session() as sess:
        np.testing.assert_allclose(sess.run(h, {x: xv}), 6 * xv, rtol=1e-12)


def test_gradient_of_non_differentiable_path_is_none(graph):
    x = of.placeholder(of.float64, [2], name="x")
    y = of.reduce_sum(of.cast(of.greater(x, 0.0), of.float64))
    assert of.gradients(y, [x]) == [None]
    with pytest.raises(TypeError):
        of.gradients(y, ["not a tensor"])


def test_elementwise_composite_and_cast(graph, rng):
    x = of.placeholder(of.float64, [None], name="x")
    y = of.reduce_sum(of.exp(x) + of.log(x) + of.sqrt(x) + x / (x + 1.0) - of.neg(x) + of.pow(x, 2.0)
                      + of.cast(of.cast(x, of.float32), of.float64) * 0.0)
    check(y, [x], {x: rng.uniform(0.5, 2.0, size=4)}, rtol=1e-5)


def test_gradient_through_read_value(graph):
    v = of.Variable(np.array([1.0, 2.0]), name="v")
    loss = of.reduce_sum(of.square(v.read_value()))
    (g,) = of.gradients(loss, [v])
    assert g is not None
    with of.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(g), [2.0, 4.0])
