"""tf.nn compositions in opforge/ops/nn_impl.py: sufficient_statistics, normalize_moments,
weighted_moments, log_poisson_loss, max_pool1d, avg_pool1d, against NumPy on random data
(values eagerly and in a graph, float64 gradients)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values
from opforge.ops import nn_impl as nn

RNG = np.random.default_rng(321)


@pytest.mark.parametrize("axes,shift", [([0], None), ([0, 1], 0.5), ([2], None)])
def test_sufficient_statistics_and_normalize_moments(axes, shift):
    x = RNG.standard_normal((3, 4, 5))

    def mean_var(t):
        count, m_ss, v_ss, s = nn.sufficient_statistics(t, axes, shift=shift)
        return nn.normalize_moments(count, m_ss, v_ss, s)

    check_values(mean_var, lambda v: (v.mean(tuple(axes)), v.var(tuple(axes))), x, rtol=1e-9, atol=1e-12)
    count, m_ss, v_ss, _ = nn.sufficient_statistics(of.constant(x), axes, shift=shift, keepdims=True)
    centred = x - (shift or 0)
    assert float(np.asarray(count)) == np.prod([x.shape[a] for a in axes])
    np.testing.assert_allclose(m_ss.numpy(), centred.sum(tuple(axes), keepdims=True))
    np.testing.assert_allclose(v_ss.numpy(), (centred ** 2).sum(tuple(axes), keepdims=True))


def test_sufficient_statistics_with_unknown_dims():
    x = RNG.standard_normal((3, 4))
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float64, [None, 4])
        count, m_ss, v_ss, _ = nn.sufficient_statistics(ph, [0])
        mean, var = nn.normalize_moments(count, m_ss, v_ss, None)
    with of.Session(graph=g) as sess:
        c, mu, va = sess.run([count, mean, var], {ph: x})
    assert c == 3
    np.testing.assert_allclose(mu, x.mean(0)) and np.testing.assert_allclose(va, x.var(0))


@pytest.mark.parametrize("keepdims", [False, True])
def test_weighted_moments(keepdims):
    x = RNG.standard_normal((4, 3))
    w = RNG.random((4, 1)) + 0.1

    def ref(v):
        ww = np.broadcast_to(w, v.shape)
        mean = (ww * v).sum(0, keepdims=True) / ww.sum(0, keepdims=True)
        var = (ww * (v - mean) ** 2).sum(0, keepdims=True) / ww.sum(0, keepdims=True)
        return (mean, var) if keepdims else (mean[0], var[0])

    check_values(lambda t: nn.weighted_moments(t, [0], of.constant(w), keepdims=keepdims), ref, x, rtol=1e-10)
    check_gradient(lambda t: nn.weighted_moments(t, [0], of.constant(w))[0], lambda v: ref(v)[0], x, RNG)


@pytest.mark.parametrize("full", [False, True])
def test_log_poisson_loss(full):
    targets = RNG.integers(0, 5, (3, 4)).astype(np.float64)
    log_input = RNG.standard_normal((3, 4))

    def ref(t, li):
        loss = np.exp(li) - li * t
        if full:
            stirling = np.vectorize(lambda z: z * math.log(z) - z + 0.5 * math.log(2 * math.pi * z) if z > 1 else 0.0)
            loss = loss + stirling(t)
        return loss

    check_values(lambda t, li: nn.log_poisson_loss(t, li, compute_full_loss=full), ref, targets, log_input, rtol=1e-12)
    check_gradient(lambda li: nn.log_poisson_loss(of.constant(targets), li, compute_full_loss=full),
                   lambda li: ref(targets, li), log_input, RNG)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_pool1d(padding):
    x = RNG.standard_normal((2, 7, 3)).astype(np.float32)
    w = 7 // 2 if padding == "VALID" else 4
    xp = x if padding == "VALID" else np.concatenate([x, np.full((2, 1, 3), np.nan, np.float32)], 1)
    windows = xp[:, :2 * w].reshape(2, w, 2, 3)
    check_values(lambda t: nn.max_pool1d(t, 2, 2, padding), lambda v: np.nanmax(windows, 2), x)
    check_values(lambda t: nn.avg_pool1d(t, [1, 2, 1], [1, 2, 1], padding), lambda v: np.nanmean(windows, 2), x,
                 rtol=1e-6)
    ncw = np.ascontiguousarray(x.transpose(0, 2, 1))
    if padding == "VALID":
        out = nn.max_pool1d(of.constant(ncw), 2, 2, padding, data_format="NCW")
        np.testing.assert_array_equal(out.numpy(), np.nanmax(windows, 2).transpose(0, 2, 1))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    w = (RNG.random((4, 5)) + 0.1).astype(np.float32)
    for ours, theirs in zip(nn.weighted_moments(of.constant(x), [1], of.constant(w)),
                            tf.nn.weighted_moments(x, [1], w)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
    t = RNG.integers(0, 6, (4, 5)).astype(np.float32)
    np.testing.assert_allclose(nn.log_poisson_loss(of.constant(t), of.constant(x), True).numpy(),
                               tf.nn.log_poisson_loss(t, x, True).numpy(), rtol=1e-5, atol=1e-6)
