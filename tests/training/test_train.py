"""of.train optimizers: GradientDescent, Momentum, Adam; compute/apply_gradients; global_step."""

import numpy as np
import pytest

import opforge as of


def _linreg_data(rng, n=64, d=3):
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=(d, 1)) + 0.7 + 0.01 * rng.normal(size=(n, 1))
    A = np.hstack([X, np.ones((n, 1))])
    return X, y, np.linalg.lstsq(A, y, rcond=None)[0]


def test_gradient_descent_linear_regression_matches_lstsq(graph, rng):
    X, y, ref = _linreg_data(rng)
    x = of.placeholder(of.float64, [None, 3], name="x")
    t = of.placeholder(of.float64, [None, 1], name="t")
    w = of.Variable(np.zeros((3, 1)), name="w")
    b = of.Variable(np.zeros(1), name="b")
    loss = of.reduce_mean(of.square(of.matmul(x, w) + b - t))
    train_op = of.train.GradientDescentOptimizer(0.2).minimize(loss)
    assert isinstance(train_op, of.Operation)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        first = sess.run(loss, {x: X, t: y})
        for _ in range(400):
            sess.run(train_op, {x: X, t: y})
        wv, bv, last = sess.run([w, b, loss], {x: X, t: y})
    assert last < first
    np.testing.assert_allclose(wv.ravel(), ref[:3].ravel(), atol=1e-8)
    np.testing.assert_allclose(bv, ref[3], atol=1e-8)


def test_gradient_descent_single_step_exact(graph):
    w = of.Variable(np.array([1.0, -2.0]), name="w")
    loss = of.reduce_sum(of.square(w))
    step = of.train.GradientDescentOptimizer(0.1).minimize(loss)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        sess.run(step)
        lr = float(np.float32(0.1))  # Python hyperparameters pass through float32, as in TensorFlow
        np.testing.assert_allclose(sess.run(w), np.array([1.0, -2.0]) * (1 - 2 * lr), rtol=1e-14)


def test_momentum_matches_reference_and_converges(graph):
    target = np.array([3.0, -1.0, 0.5])
    w = of.Variable(np.zeros(3), name="w")
    loss = of.reduce_sum(of.square(w - target))
    opt = of.train.MomentumOptimizer(0.05, momentum=0.9)
    step = opt.minimize(loss)
    wr, acc = np.zeros(3), np.zeros(3)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        for i in range(300):
            sess.run(step)
            g = 2 * (wr - target)
            acc = float(np.float32(0.9)) * acc + g
            wr = wr - float(np.float32(0.05)) * acc
            if i < 5:
                np.testing.assert_allclose(sess.run(w), wr, rtol=1e-12)
        assert sess.run(loss) < 1e-10
        np.testing.assert_allclose(sess.run(w), target, atol=1e-6)
        assert opt.get_slot(w, "momentum") is not None


def test_nesterov_momentum_converges(graph):
    w = of.Variable(np.array([5.0, -5.0]), name="w")
    loss = of.reduce_sum(of.square(w))
    step = of.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        for _ in range(200):
            sess.run(step)
        assert sess.run(loss) < 1e-8


def test_adam_matches_reference_and_converges(graph):
    target = np.array([[1.0, -2.0], [0.5, 4.0]])
    w = of.Variable(np.zeros((2, 2)), name="w")
    loss = of.reduce_mean(of.square(w - target))
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    step = of.train.AdamOptimizer(lr, b1, b2, eps).minimize(loss)
    # As TensorFlow does, hyperparameters pass through float32 and the beta powers are float32.
    lr, b1, b2, eps = (float(np.float32(h)) for h in (lr, b1, b2, eps))
    b1p = b2p = np.float32(1)
    wr, m, v = np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2))
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        for t in range(1, 6):
            sess.run(step)
            g = 2 * (wr - target) / wr.size
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            b1p, b2p = b1p * np.float32(b1), b2p * np.float32(b2)
            lr_t = lr * np.sqrt(1 - float(b2p)) / (1 - float(b1p))
            wr = wr - lr_t * m / (np.sqrt(v) + eps)
            np.testing.assert_allclose(sess.run(w), wr, rtol=1e-10, atol=1e-12)
        for _ in range(1000):
            sess.run(step)
        assert sess.run(loss) < 1e-6


def test_adam_float32(graph):
    w = of.Variable(np.array([2.0, -3.0], np.float32), name="w")
    loss = of.reduce_sum(of.square(w))
    step = of.train.AdamOptimizer(0.05).minimize(loss)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        for _ in range(600):
            sess.run(step)
        assert sess.run(w).dtype == np.float32
        assert sess.run(loss) < 1e-3


def test_global_step_increments(graph):
    gs = of.train.get_or_create_global_step()
    assert of.train.get_global_step() is gs
    assert gs.dtype == of.int64 and gs not in of.trainable_variables()
    w = of.Variable(np.ones(2), name="w")
    loss = of.reduce_sum(of.square(w))
    step = of.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        assert sess.run(gs) == 0
        for i in range(1, 6):
            sess.run(step)
            assert sess.run(gs) == i
        np.testing.assert_allclose(sess.run(w), np.ones(2) * (1 - 2 * float(np.float32(0.1))) ** 5, rtol=1e-12)


def test_global_step_plain_variable(graph):
    gs = of.Variable(np.int32(10), name="step", trainable=False)
    w = of.Variable(np.ones(2), name="w")
    step = of.train.AdamOptimizer(0.01).minimize(of.reduce_sum(w * w), global_step=gs)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        sess.run(step)
        sess.run(step)
        assert sess.run(gs) == 12


def test_compute_and_apply_gradients(graph, rng):
    w = of.Variable(rng.normal(size=3), name="w")
    frozen = of.Variable(rng.normal(size=3), name="frozen")
    loss = of.reduce_sum(of.square(w) * frozen)
    opt = of.train.GradientDescentOptimizer(0.1)
    gv = opt.compute_gradients(loss, var_list=[w])
    assert [v for _, v in gv] == [w]
    gv_all = opt.compute_gradients(loss)
    assert {v.name for _, v in gv_all} == {"w:0", "frozen:0"}
    # Clip-and-apply pattern: transform the gradients, then apply.
    clipped = [(of.mul(g, 0.5), v) for g, v in gv]
    step = opt.apply_gradients(clipped)
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        w0, f0 = sess.run([w, frozen])
        gw = sess.run(gv[0][0])
        np.testing.assert_allclose(gw, 2 * w0 * f0, rtol=1e-12)
        sess.run(step)
        np.testing.assert_allclose(sess.run(w), w0 - float(np.float32(0.1)) * 0.5 * gw, rtol=1e-12)
        np.testing.assert_array_equal(sess.run(frozen), f0)


def test_minimize_var_list_only_updates_listed(graph):
    a = of.Variable(np.array([1.0]), name="a")
    b = of.Variable(np.array([1.0]), name="b")
    loss = of.reduce_sum(a * a + b * b)
    step = of.train.GradientDescentOptimizer(0.25).minimize(loss, var_list=[b])
    with of.Session() as sess:
        sess.run(of.global_variables_initializer())
        sess.run(step)
        assert sess.run(a)[0] == 1.0 and sess.run(b)[0] == 0.5


def test_optimizer_errors(graph):
    x = of.placeholder(of.float64, [2])
    loss = of.reduce_sum(x * x)
    with pytest.raises(ValueError):
        of.train.GradientDescentOptimizer(0.1).minimize(loss)  # no variables
    v = of.Variable(np.ones(2), name="unrelated")
    with pytest.raises(ValueError):
        of.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[v])  # no gradients


def test_minimize_name_names_the_returned_op(graph):
    w = of.Variable(np.ones(2), name="w")
    step = of.train.GradientDescentOptimizer(0.1).minimize(of.reduce_sum(w * w), name="train")
    assert step.name == "train"
    assert graph.get_operation_by_name("train") is step
