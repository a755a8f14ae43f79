"""tf.train.ExponentialMovingAverage (opforge/training/moving_averages.py) and the learning-rate
schedules linear_cosine_decay and cosine_decay_restarts, against NumPy recurrences (and TF's
schedules where TF is installed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.training import learning_rate_decay as lr_decay

RNG = np.random.default_rng(324)


@pytest.fixture
def g():
    tf.reset_default_graph()
    yield tf.get_default_graph()
    tf.reset_default_graph()


@pytest.mark.parametrize("with_step", [False, True])
def test_moving_average_follows_the_recurrence(g, with_step):
    init = RNG.standard_normal(3).astype(np.float32)
    v = tf.Variable(init, name="w")
    step = tf.Variable(0, trainable=False, name="step")
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step if with_step else None)
    update = ema.apply([v])
    shadow = ema.average(v)
    assert shadow.op.name == "w/ExponentialMovingAverage" == ema.average_name(v)
    assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == [v]
    assert shadow not in tf.trainable_variables() and shadow in tf.global_variables()
    want = init.astype(np.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(shadow), init)
        for k in range(6):
            value = RNG.standard_normal(3).astype(np.float32)
            sess.run([v.assign(value), step.assign(k)])
            sess.run(update)
            decay = min(0.9, (1 + k) / (10 + k)) if with_step else 0.9
            want = want - (1 - decay) * (want - value)
            np.testing.assert_allclose(sess.run(shadow), want, rtol=1e-5)


def test_moving_average_of_tensors_starts_at_zero(g):
    """Batch statistics (tensors, not variables) are averaged too, as TF1's batch-norm code
    does; their shadows start at zero and are not MOVING_AVERAGE_VARIABLES."""
    x = tf.placeholder(tf.float32, [None, 3])
    mean, var = tf.nn.moments(x, [0])
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([mean, var])
    assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == []
    assert ema.average(mean).op.name == f"{mean.op.name}/ExponentialMovingAverage"
    want_m = want_v = np.zeros(3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            batch = RNG.standard_normal((8, 3)).astype(np.float32)
            sess.run(update, {x: batch})
            want_m = 0.5 * want_m + 0.5 * batch.mean(0)
            want_v = 0.5 * want_v + 0.5 * batch.var(0)
        np.testing.assert_allclose(sess.run(ema.average(mean)), want_m, rtol=1e-5)
        np.testing.assert_allclose(sess.run(ema.average(var)), want_v, rtol=1e-5)


def test_variables_to_restore_maps_averages_onto_variables(g):
    v = tf.Variable(1.0, name="v")
    other = tf.Variable(2.0, name="other", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.99)
    ema.apply([v])
    assert ema.variables_to_restore() == {"v/ExponentialMovingAverage": v, "other": other}
    assert ema.average(other) is None


def test_errors(g):
    with pytest.raises(tf.errors.UnimplementedError, match="zero_debias"):
        tf.train.ExponentialMovingAverage(0.9, zero_debias=True)
    with pytest.raises(TypeError, match="float"):
        tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="i")])


def _schedule(fn, steps):
    s = tf.placeholder(tf.int64, [])
    out = fn(s)
    with tf.Session() as sess:
        return np.array([sess.run(out, {s: k}) for k in steps])


def test_linear_cosine_decay(g):
    steps = list(range(0, 130, 7))

    def ref(k, n=100, periods=0.5, alpha=0.1, beta=0.01):
        k = min(k, n)
        return 0.5 * ((alpha + (n - k) / n) * 0.5 * (1 + math.cos(2 * math.pi * periods * k / n)) + beta)

    got = _schedule(lambda s: lr_decay.linear_cosine_decay(0.5, s, 100, alpha=0.1, beta=0.01), steps)
    np.testing.assert_allclose(got, [ref(k) for k in steps], rtol=1e-5)


@pytest.mark.parametrize("t_mul,m_mul", [(2.0, 1.0), (1.0, 0.5), (1.5, 0.8)])
def test_cosine_decay_restarts(g, t_mul, m_mul):
    steps = list(range(0, 200, 3))

    def ref(k, first=20, alpha=0.05):
        start, period, i = 0, first, 0
        while k >= start + period:
            start, period, i = start + period, period * t_mul, i + 1
        frac = (k - start) / period
        return 0.1 * ((1 - alpha) * 0.5 * m_mul ** i * (1 + math.cos(math.pi * frac)) + alpha)

    got = _schedule(lambda s: lr_decay.cosine_decay_restarts(0.1, s, 20, t_mul, m_mul, alpha=0.05), steps)
    np.testing.assert_allclose(got, [ref(k) for k in steps], rtol=1e-4, atol=1e-6)


def test_schedules_match_tensorflow(g):
    tfm = pytest.importorskip("tensorflow")
    steps = list(range(0, 150, 11))
    got = _schedule(lambda s: tf.train.cosine_decay_restarts(0.1, s, 20, 2.0, 0.7, 0.01), steps)
    want = [tfm.compat.v1.train.cosine_decay_restarts(0.1, k, 20, 2.0, 0.7, 0.01)().numpy() for k in steps]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    got = _schedule(lambda s: tf.train.linear_cosine_decay(0.1, s, 100, 2.0, 0.1, 0.002), steps)
    want = [tfm.compat.v1.train.linear_cosine_decay(0.1, k, 100, 2.0, 0.1, 0.002)().numpy() for k in steps]
    np.testing.assert_allclose(got, want, rtol=1e-5)
