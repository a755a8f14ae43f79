"""Counting and segment statistics built from UnsortedSegmentSum/ScatterNd
(opforge/ops/histogram_ops.py), the Gumbel-max categorical sampler (random_ops.categorical)
and the convolution compositions of nn_impl (conv1d_transpose, conv3d_transpose,
separable_conv2d): NumPy references on random data, TensorFlow's where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values
from opforge.ops import histogram_ops as H
from opforge.ops import nn_impl
from opforge.ops import random_ops as R

RNG = np.random.default_rng(326)


def test_bincount():
    a = RNG.integers(0, 7, 40).astype(np.int32)
    w = RNG.random(40)
    check_values(H.bincount, lambda v: np.bincount(v).astype(np.int32), a, exact=True)
    check_values(lambda v, ww: H.bincount(v, ww), lambda v, ww: np.bincount(v, ww), a, w, rtol=1e-12)
    np.testing.assert_array_equal(H.bincount(a, minlength=10).numpy(), np.bincount(a, minlength=10))
    np.testing.assert_array_equal(H.bincount(a, maxlength=3).numpy(), np.bincount(a)[:3])
    np.testing.assert_array_equal(H.bincount(a.reshape(5, 8), dtype="float32").numpy(), np.bincount(a))
    assert H.bincount(np.zeros(0, np.int32)).numpy().shape == (0,)


@pytest.mark.parametrize("nbins", [1, 5, 13])
def test_histogram_fixed_width(nbins):
    v = RNG.uniform(-2, 7, (6, 7))
    edges = np.linspace(0.0, 5.0, nbins + 1)

    def bins(x):
        return np.clip(np.searchsorted(edges, x, side="right") - 1, 0, nbins - 1).astype(np.int32)

    check_values(lambda t: H.histogram_fixed_width_bins(t, [0.0, 5.0], nbins), bins, v, exact=True)
    check_values(lambda t: H.histogram_fixed_width(t, [0.0, 5.0], nbins),
                 lambda x: np.bincount(bins(x).ravel(), minlength=nbins).astype(np.int32), v, exact=True)


def test_confusion_matrix():
    labels, preds = RNG.integers(0, 4, 50), RNG.integers(0, 4, 50)
    w = RNG.random(50)
    want = np.zeros((4, 4), np.int32)
    np.add.at(want, (labels, preds), 1)
    np.testing.assert_array_equal(H.confusion_matrix(labels, preds).numpy(), want)
    np.testing.assert_array_equal(H.confusion_matrix(labels, preds, num_classes=6).numpy()[:4, :4], want)
    wanted = np.zeros((4, 4))
    np.add.at(wanted, (labels, preds), w)
    np.testing.assert_allclose(H.confusion_matrix(labels, preds, dtype="float64", weights=w).numpy(), wanted)


def test_segment_means():
    ids = np.sort(RNG.integers(0, 5, 12)).astype(np.int32)
    data = RNG.standard_normal((12, 3))
    n = 7
    sums = np.zeros((n, 3))
    counts = np.zeros((n, 1))
    np.add.at(sums, ids, data)
    np.add.at(counts, ids, 1)
    top = ids.max() + 1
    check_values(lambda d: H.segment_mean(d, ids), lambda d: sums[:top] / np.maximum(counts[:top], 1), data,
                 rtol=1e-12)
    check_values(lambda d: H.unsorted_segment_mean(d, ids, n), lambda d: sums / np.maximum(counts, 1), data,
                 rtol=1e-12)
    check_values(lambda d: H.unsorted_segment_sqrt_n(d, ids, n), lambda d: sums / np.sqrt(np.maximum(counts, 1)),
                 data, rtol=1e-12)
    def np_mean(d):
        s = np.zeros((n, 3))
        np.add.at(s, ids, d)
        return s / np.maximum(counts, 1)

    check_gradient(lambda d: H.unsorted_segment_mean(d, of.constant(ids), n), np_mean, data, RNG)
    ints = RNG.integers(-9, 9, (12,)).astype(np.int32)
    got = H.segment_mean(ints, ids).numpy()
    int_sums = np.zeros(n, np.int64)
    np.add.at(int_sums, ids, ints)
    np.testing.assert_array_equal(got, np.trunc(int_sums[:top] / np.maximum(counts[:top, 0], 1)).astype(np.int32))


def test_is_inf_and_rint():
    x = RNG.standard_normal(20) * 3
    x[[1, 5, 7]] = [np.inf, -np.inf, np.nan]
    check_values(H.is_inf, np.isinf, x, exact=True)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.2, -3.7])
    check_values(H.rint, np.rint, halves, exact=True)


def test_categorical_samples_the_softmax_distribution():
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25], [1.0, 0.0, 0.0]])
    with np.errstate(divide="ignore"):
        logits = np.log(p).astype(np.float32)
    n = 20000
    draws = R.categorical(logits, n, seed=7).numpy()
    assert draws.shape == (3, n) and draws.dtype == np.int64
    for row, probs in zip(draws, p):
        freq = np.bincount(row, minlength=3) / n
        np.testing.assert_allclose(freq, probs, atol=4 * np.sqrt(0.25 / n))  # 4 standard errors
    assert R.multinomial(logits, 5, output_dtype="int32").numpy().dtype == np.int32
    g = of.Graph()
    with g.as_default():
        ph = of.placeholder(of.float32, [None, 3])
        out = R.categorical(ph, 4)
    with of.Session(graph=g) as sess:
        assert sess.run(out, {ph: logits[:2]}).shape == (2, 4)


def test_conv_compositions_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    f = RNG.standard_normal((3, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(nn_impl.conv1d_transpose(x, f, [2, 10, 4], 2).numpy(),
                               tf.nn.conv1d_transpose(x, f, [2, 10, 4], 2).numpy(), rtol=1e-4, atol=1e-5)
    x3 = RNG.standard_normal((1, 3, 4, 4, 2)).astype(np.float32)
    f3 = RNG.standard_normal((2, 2, 2, 5, 2)).astype(np.float32)
    np.testing.assert_allclose(nn_impl.conv3d_transpose(x3, f3, [1, 6, 8, 8, 5], 2).numpy(),
                               tf.nn.conv3d_transpose(x3, f3, [1, 6, 8, 8, 5], 2).numpy(), rtol=1e-4, atol=1e-4)
    xi = RNG.standard_normal((2, 7, 7, 3)).astype(np.float32)
    dw = RNG.standard_normal((3, 3, 3, 2)).astype(np.float32)
    pw = RNG.standard_normal((1, 1, 6, 4)).astype(np.float32)
    for pad, rate in (("SAME", None), ("VALID", [2, 2])):
        np.testing.assert_allclose(
            nn_impl.separable_conv2d(xi, dw, pw, [1, 1, 1, 1], pad, rate=rate).numpy(),
            tf.nn.separable_conv2d(xi, dw, pw, [1, 1, 1, 1], pad, dilations=rate).numpy(), rtol=1e-4, atol=1e-4)


def test_separable_conv2d_is_depthwise_then_pointwise():
    """Without TensorFlow: against a NumPy depthwise + 1x1 convolution."""
    xi = RNG.standard_normal((1, 5, 5, 2))
    dw = RNG.standard_normal((3, 3, 2, 2))
    pw = RNG.standard_normal((1, 1, 4, 3))
    depth = np.zeros((1, 3, 3, 2, 2))
    for i in range(3):
        for j in range(3):
            depth[0, i, j] = np.einsum("abc,abcm->cm", xi[0, i:i + 3, j:j + 3], dw)
    want = depth.reshape(1, 3, 3, 4) @ pw[0, 0]
    np.testing.assert_allclose(nn_impl.separable_conv2d(xi, dw, pw, [1, 1, 1, 1], "VALID").numpy(), want,
                               rtol=1e-10)
