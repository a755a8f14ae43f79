"""tf.train optimizers on TensorFlow's Apply* ops: several steps of a least-squares problem
against a NumPy transcription of each update rule, against TensorFlow 1's optimizers when
tensorflow is installed, and the ops' diagnostics."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge import ops

STEPS = 4


def _problem(rng, dtype=np.float64):
    x = rng.standard_normal((6, 3)).astype(dtype)
    y = rng.standard_normal((6, 2)).astype(dtype)
    w0 = rng.standard_normal((3, 2)).astype(dtype)
    b0 = rng.standard_normal(2).astype(dtype)
    return x, y, w0, b0


def _grads(x, y, w, b):
    r = x @ w + b - y
    return [2 * x.T @ r, 2 * r.sum(0)]


def _numpy_steps(rule, params, x, y, steps=STEPS):
    """Runs rule(i, param, grad, state) -> new param on each parameter for `steps` steps."""
    state = [{} for _ in params]
    params = [p.copy() for p in params]
    for t in range(1, steps + 1):
        gs = _grads(x, y, *params)
        params = [rule(t, p, g, s) for p, g, s in zip(params, gs, state)]
    return params


def _momentum(lr, mu, nesterov=False):
    def rule(t, p, g, s):
        a = s.setdefault("a", np.zeros_like(p))
        a[...] = a * mu + g
        return p - (g * lr + a * mu * lr if nesterov else a * lr)
    return rule


def _adam(lr=0.001, b1=0.9, b2=0.999, eps=1e-8):
    def rule(t, p, g, s):
        m, v = s.setdefault("m", np.zeros_like(p)), s.setdefault("v", np.zeros_like(p))
        m[...] = b1 * m + (1 - b1) * g
        v[...] = b2 * v + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return p - lr_t * m / (np.sqrt(v) + eps)
    return rule


def _rmsprop(lr, decay=0.9, mu=0.0, eps=1e-10, centered=False):
    def rule(t, p, g, s):
        ms, mom, mg = s.setdefault("ms", np.ones_like(p)), s.setdefault("mom", np.zeros_like(p)), \
            s.setdefault("mg", np.zeros_like(p))
        ms[...] = decay * ms + (1 - decay) * g * g
        mg[...] = decay * mg + (1 - decay) * g
        denom = ms - mg * mg if centered else ms
        mom[...] = mu * mom + lr * g / np.sqrt(denom + eps)
        return p - mom
    return rule


def _adagrad(lr, init=0.1):
    def rule(t, p, g, s):
        a = s.setdefault("a", np.full_like(p, init))
        a += g * g
        return p - lr * g / np.sqrt(a)
    return rule


def _adadelta(lr=0.001, rho=0.95, eps=1e-8):
    def rule(t, p, g, s):
        a, u = s.setdefault("a", np.zeros_like(p)), s.setdefault("u", np.zeros_like(p))
        a[...] = rho * a + (1 - rho) * g * g
        upd = np.sqrt(u + eps) / np.sqrt(a + eps) * g
        u[...] = rho * u + (1 - rho) * upd * upd
        return p - lr * upd
    return rule


def _ftrl(lr, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0):
    def rule(t, p, g, s):
        n, z = s.setdefault("n", np.full_like(p, init)), s.setdefault("z", np.zeros_like(p))
        n_new = n + g * g
        z[...] = z + g + 2 * shrink * p - (n_new ** -power - n ** -power) / lr * p
        n[...] = n_new
        quad = n_new ** -power / lr + 2 * l2
        return np.where(np.abs(z) > l1, (np.clip(z, -l1, l1) - z) / quad, 0.0)
    return rule


CASES = {
    "gd": (lambda m: m.GradientDescentOptimizer(0.05), lambda: lambda t, p, g, s: p - 0.05 * g),
    "momentum": (lambda m: m.MomentumOptimizer(0.02, 0.9), lambda: _momentum(0.02, 0.9)),
    "nesterov": (lambda m: m.MomentumOptimizer(0.02, 0.9, use_nesterov=True), lambda: _momentum(0.02, 0.9, True)),
    "adam": (lambda m: m.AdamOptimizer(0.1), lambda: _adam(0.1)),
    "rmsprop": (lambda m: m.RMSPropOptimizer(0.01), lambda: _rmsprop(0.01)),
    "rmsprop_momentum_centered": (lambda m: m.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, centered=True),
                                  lambda: _rmsprop(0.01, 0.8, 0.5, centered=True)),
    "adagrad": (lambda m: m.AdagradOptimizer(0.3), lambda: _adagrad(0.3)),
    "adadelta": (lambda m: m.AdadeltaOptimizer(1.0), lambda: _adadelta(1.0)),
    "ftrl": (lambda m: m.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.1),
             lambda: _ftrl(0.3, l1=0.01, l2=0.1)),
    "ftrl_power_shrinkage": (lambda m: m.FtrlOptimizer(0.3, learning_rate_power=-0.3, l1_regularization_strength=0.01,
                                                       l2_shrinkage_regularization_strength=0.05),
                             lambda: _ftrl(0.3, power=-0.3, l1=0.01, shrink=0.05)),
}


def _run_v1(module, make_opt, x, y, w0, b0):
    """Builds the least-squares problem with `module` (opforge.compat.v1 or TF's compat.v1) and
    takes STEPS steps; returns the final parameters."""
    g = module.Graph()
    with g.as_default():
        w = module.Variable(w0, name="w")
        b = module.Variable(b0, name="b")
        loss = module.reduce_sum(module.square(module.matmul(module.constant(x), w) + b - module.constant(y)))
        train = make_opt(module.train).minimize(loss)
        with module.Session(graph=g) as sess:
            sess.run(module.global_variables_initializer())
            for _ in range(STEPS):
                sess.run(train)
            return sess.run([w, b])


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_matches_numpy_rule(case, rng):
    make_opt, rule = CASES[case]
    x, y, w0, b0 = _problem(rng)
    got = _run_v1(tf, make_opt, x, y, w0, b0)
    want = _numpy_steps(rule(), [w0, b0], x, y)
    for a, b in zip(got, want):  # hyperparameters pass through float32, as in TensorFlow
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_matches_tensorflow(case, rng):
    tf_real = pytest.importorskip("tensorflow").compat.v1
    make_opt, _ = CASES[case]
    x, y, w0, b0 = _problem(rng)
    got = _run_v1(tf, make_opt, x, y, w0, b0)
    want = _run_v1(tf_real, make_opt, x, y, w0, b0)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_optimizer_float32_and_slot_names(rng):
    x, y, w0, b0 = (a.astype(np.float32) for a in _problem(rng))
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(w0, name="w")
        b = tf.Variable(b0, name="b")
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y))
        opt = tf.train.AdamOptimizer(0.05)
        step = tf.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=step)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == sorted(["w", "b", "global_step", "beta1_power", "beta2_power",
                                "w/Adam", "w/Adam_1", "b/Adam", "b/Adam_1"])
        assert opt.get_slot(w, "m").op.name == "w/Adam" and opt.get_slot_names() == ["m", "v"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(20):
                sess.run(train)
            assert sess.run(loss) < first
            assert sess.run(step) == 20
            got = sess.run([w, b])
    want = _numpy_steps(_adam(0.05), [w0.astype(np.float64), b0.astype(np.float64)],
                        x.astype(np.float64), y.astype(np.float64), steps=20)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


def test_apply_op_diagnostics(graph):
    v = of.Variable(np.zeros((2, 3), np.float32), _graph=True)
    slot = of.Variable(np.zeros((2, 3), np.float32), _graph=True)
    bad_shape = ops.apply_momentum(v, slot, np.float32(0.1), np.ones((3, 2), np.float32), np.float32(0.9))
    not_scalar = ops.apply_gradient_descent(v, np.ones(2, np.float32), np.ones((2, 3), np.float32))
    uninit = ops.apply_adagrad(v, slot, np.float32(0.1), np.ones((2, 3), np.float32))
    with of.Session(graph=graph) as sess:
        with pytest.raises(of.FailedPreconditionError, match="ApplyAdagrad.*uninitialized"):
            sess.run(uninit)
        sess.run(of.global_variables_initializer())
        with pytest.raises(of.InvalidArgumentError, match="ApplyMomentum"):
            sess.run(bad_shape)
        with pytest.raises(of.InvalidArgumentError, match="ApplyGradientDescent.*alpha is not a scalar"):
            sess.run(not_scalar)
    with pytest.raises(of.InvalidArgumentError, match="ApplyAdam"):
        ops.apply_adam(np.zeros(2, np.float32), *[np.float32(1)] * 8, np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
