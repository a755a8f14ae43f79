"""ProximalGradientDescent, ProximalAdagrad and AdagradDA (ApplyProximalGradientDescent,
ApplyProximalAdagrad, ApplyAdagradDA): steps of a least-squares problem against NumPy
transcriptions of TensorFlow's update rules and, when installed, against TensorFlow itself; and
the diagnostics."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops

STEPS = 3


def _problem(rng):
    return [rng.standard_normal(s).astype(np.float32) for s in ((6, 3), (6, 2), (3, 2), (2,))]


def _prox(p, rate, l1, l2):
    if l1 > 0:
        return np.sign(p) * np.maximum(np.abs(p) - rate * l1, 0) / (1 + rate * l2)
    return p / (1 + rate * l2)


def _pgd(lr, l1, l2):
    return lambda t, p, g, s: _prox(p - lr * g, lr, l1, l2)


def _padagrad(lr, init, l1, l2):
    def rule(t, p, g, s):
        acc = s.setdefault("acc", np.full_like(p, init))
        acc += g * g
        rate = lr / np.sqrt(acc)
        return _prox(p - rate * g, rate, l1, l2)
    return rule


def _adagrad_da(lr, init, l1, l2):
    def rule(t, p, g, s):
        acc, sq = s.setdefault("acc", np.zeros_like(p)), s.setdefault("sq", np.full_like(p, init))
        acc += g
        sq += g * g
        denom = t * l2 * lr + np.sqrt(sq)  # t: the global step + 1 the update sees
        return -lr * np.sign(acc) * np.maximum(np.abs(acc) - t * l1, 0) / denom
    return rule


CASES = {
    "proximal_gd": (lambda m, gs: m.ProximalGradientDescentOptimizer(0.05, 0.1, 0.2), lambda: _pgd(0.05, 0.1, 0.2)),
    "proximal_gd_l2_only": (lambda m, gs: m.ProximalGradientDescentOptimizer(0.05, l2_regularization_strength=0.3),
                            lambda: _pgd(0.05, 0.0, 0.3)),
    "proximal_adagrad": (lambda m, gs: m.ProximalAdagradOptimizer(0.3, 0.1, 0.05, 0.1),
                         lambda: _padagrad(0.3, 0.1, 0.05, 0.1)),
    "adagrad_da": (lambda m, gs: m.AdagradDAOptimizer(0.3, gs, 0.1, 0.05, 0.1), lambda: _adagrad_da(0.3, 0.1, 0.05, 0.1)),
    "adagrad_da_no_l1": (lambda m, gs: m.AdagradDAOptimizer(0.3, gs, 0.2, 0.0, 0.1),
                         lambda: _adagrad_da(0.3, 0.2, 0.0, 0.1)),
}


def _run_v1(module, make_opt, x, y, w0, b0):
    g = module.Graph()
    with g.as_default():
        w = module.Variable(w0, name="w")
        b = module.Variable(b0, name="b")
        loss = module.reduce_sum(module.square(module.matmul(module.constant(x), w) + b - module.constant(y)))
        step = module.train.get_or_create_global_step()
        train = make_opt(module.train, step).minimize(loss, global_step=step)
        with module.Session(graph=g) as sess:
            sess.run(module.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
            return sess.run([w, b])


def _numpy_steps(rule, x, y, w0, b0):
    params = [w0.astype(np.float64), b0.astype(np.float64)]
    x, y = x.astype(np.float64), y.astype(np.float64)
    state = [{}, {}]
    for t in range(1, STEPS + 1):
        r = x @ params[0] + params[1] - y
        grads = [2 * x.T @ r, 2 * r.sum(0)]
        params = [rule(t, p, gr, s) for p, gr, s in zip(params, grads, state)]
    return params


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_numpy_rule(case, rng):
    make_opt, rule = CASES[case]
    x, y, w0, b0 = _problem(rng)
    got = _run_v1(tf, make_opt, x, y, w0, b0)
    for a, b in zip(got, _numpy_steps(rule(), x, y, w0, b0)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_matches_tensorflow(rng):
    tf_real = pytest.importorskip("tensorflow").compat.v1
    x, y, w0, b0 = _problem(rng)
    for case, (make_opt, _) in sorted(CASES.items()):
        got = _run_v1(tf, make_opt, x, y, w0, b0)
        want = _run_v1(tf_real, make_opt, x, y, w0, b0)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=case)


def test_slot_names(graph):
    w = tf.Variable(np.ones((2, 2), np.float32), name="w")
    step = tf.train.get_or_create_global_step()
    opt = tf.train.AdagradDAOptimizer(0.1, step)
    opt.minimize(tf.reduce_sum(w * w), global_step=step)
    assert opt.get_slot_names() == ["gradient_accumulator", "gradient_squared_accumulator"]
    assert opt.get_slot(w, "gradient_accumulator").op.name == "w/AdagradDA"
    assert opt.get_slot(w, "gradient_squared_accumulator").op.name == "w/AdagradDA_1"
    opt = tf.train.ProximalAdagradOptimizer(0.1)
    opt.minimize(tf.reduce_sum(w * w))
    assert opt.get_slot(w, "accumulator").op.name == "w/ProximalAdagrad"


def test_diagnostics(graph):
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value"):
        tf.train.AdagradDAOptimizer(0.1, None, initial_gradient_squared_accumulator_value=-1.0)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=-0.5)
    v = of.Variable(np.zeros((2, 3), np.float32), _graph=True)
    acc = of.Variable(np.ones((2, 3), np.float32), _graph=True)
    sq = of.Variable(np.ones((2, 3), np.float32), _graph=True)
    f = np.float32
    bad_step = ops.apply_adagrad_da(v, acc, sq, np.ones((2, 3), f), f(0.1), f(0), f(0), np.ones(2, np.int64))
    bad_l1 = ops.apply_proximal_gradient_descent(v, f(0.1), np.ones(2, f), f(0), np.ones((2, 3), f))
    bad_shape = ops.apply_proximal_adagrad(v, acc, f(0.1), f(0), f(0), np.ones((3, 2), f))
    with of.Session(graph=graph) as sess:
        sess.run(of.global_variables_initializer())
        with pytest.raises(of.InvalidArgumentError, match="ApplyAdagradDA.*global_step is not a scalar"):
            sess.run(bad_step)
        with pytest.raises(of.InvalidArgumentError, match="ApplyProximalGradientDescent.*l1 is not a scalar"):
            sess.run(bad_l1)
        with pytest.raises(of.InvalidArgumentError, match="ApplyProximalAdagrad"):
            sess.run(bad_shape)
