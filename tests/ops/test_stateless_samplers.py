"""StatelessRandomBinomial, StatelessMultinomial and StatelessParameterizedTruncatedNormal
(tf.random.stateless_binomial / stateless_categorical / stateless_multinomial /
stateless_parameterized_truncated_normal) and RandomIndexShuffle (tf.random_index_shuffle):
TensorFlow's very values (the
committed answers of tools/make_miscops_fixtures.py, and TF itself where installed), moments and
frequencies on fixed seeds, determinism per seed, and the errors."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import opforge as of
from opforge.ops.stateless_samplers import (random_index_shuffle, stateless_binomial, stateless_categorical,
                                            stateless_multinomial, stateless_parameterized_truncated_normal)

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "miscops_expected.npz")


@pytest.fixture(scope="module")
def expected():
    return np.load(DATA)


def test_binomial_and_multinomial_give_tensorflows_values(expected):
    seed = expected["seed"]
    for i in range(2):
        got = of.raw_ops.StatelessRandomBinomial(
            shape=expected[f"binomial_{i}_shape"], seed=seed, counts=expected[f"binomial_{i}_counts"],
            probs=expected[f"binomial_{i}_probs"], dtype=of.float64).numpy()
        np.testing.assert_array_equal(got, expected[f"binomial_{i}"])
    got = of.raw_ops.StatelessMultinomial(logits=expected["multinomial_logits"], num_samples=50, seed=seed).numpy()
    np.testing.assert_array_equal(got, expected["multinomial"])


def test_truncated_normal_gives_tensorflows_values(expected):
    for i in range(4):
        mean, stddev, lo, hi = expected[f"truncnorm_{i}_params"]
        for dt in (np.float32, np.float64):
            got = of.raw_ops.StatelessParameterizedTruncatedNormal(
                shape=np.array([3, 4], np.int32), seed=expected["seed"], means=dt(mean), stddevs=dt(stddev),
                minvals=dt(lo), maxvals=dt(hi)).numpy()
            np.testing.assert_array_equal(got, expected[f"truncnorm_{i}_{np.dtype(dt).name}"])


def test_tensorflow_parity_on_other_seeds():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(9)
    for s in ([1, 2], [-7, 2**40]):
        counts, probs = rng.integers(1, 60, 5).astype(np.float32), rng.uniform(size=5).astype(np.float32)
        kw = dict(shape=np.array([3, 5], np.int32), seed=np.array(s, np.int64), counts=counts, probs=probs)
        np.testing.assert_array_equal(of.raw_ops.StatelessRandomBinomial(**kw, dtype=of.int32).numpy(),
                                      tf.raw_ops.StatelessRandomBinomial(**kw, dtype=tf.int32).numpy())
        logits = rng.normal(size=(4, 6)).astype(np.float32)
        np.testing.assert_array_equal(stateless_categorical(logits, 30, s).numpy(),
                                      tf.random.stateless_categorical(logits, 30, s).numpy())


def test_determinism_per_seed():
    a = stateless_binomial([200], [3, 4], 30.0, 0.3).numpy()
    np.testing.assert_array_equal(a, stateless_binomial([200], [3, 4], 30.0, 0.3).numpy())
    assert not np.array_equal(a, stateless_binomial([200], [3, 5], 30.0, 0.3).numpy())
    t = stateless_parameterized_truncated_normal([300], [1, 2]).numpy()
    np.testing.assert_array_equal(t, stateless_parameterized_truncated_normal([300], [1, 2]).numpy())
    assert not np.array_equal(t, stateless_parameterized_truncated_normal([300], [2, 1]).numpy())
    with of.Graph().as_default():
        c = stateless_multinomial(np.zeros((2, 3), np.float32), 7, [5, 6])
        assert c.shape.as_list() == [2, 7] and c.dtype == of.int64
        with of.Session() as sess:
            np.testing.assert_array_equal(sess.run(c), sess.run(c))


@pytest.mark.parametrize("count, p", [(8.0, 0.3), (200.0, 0.4), (150.0, 0.9), (5.0, 0.99)])
def test_binomial_moments(count, p):
    x = stateless_binomial([20000], [11, 12], count, p, output_dtype="float64").numpy()
    assert x.min() >= 0 and x.max() <= count and np.all(x == np.round(x))
    mean, var = count * p, count * p * (1 - p)
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / x.size)
    assert abs(x.var() / var - 1) < 0.05


def test_binomial_edges_and_broadcasting():
    x = stateless_binomial([4, 2, 3], [1, 1], [[0.0], [10.0]], [0.5, 1.0, 0.0], output_dtype="int64").numpy()
    assert x.shape == (4, 2, 3)
    assert np.all(x[:, 0, :] == 0) and np.all(x[:, 1, 1] == 10) and np.all(x[:, 1, 2] == 0)


def test_categorical_frequencies_chi_square():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = np.log(np.stack([probs, probs[::-1]])).astype(np.float32)
    n = 20000
    draws = stateless_categorical(logits, n, [3, 3]).numpy()
    for row, p in zip(draws, (probs, probs[::-1])):
        counts = np.bincount(row, minlength=4)
        chi2 = np.sum((counts - n * p) ** 2 / (n * p))
        assert chi2 < 16.27  # the 0.999 quantile of chi-square with 3 degrees of freedom
    # a -inf logit is never drawn
    assert 0 not in stateless_categorical(np.array([[-np.inf, 0.0, 0.0]]), 500, [1, 1]).numpy()


def truncated_moments(mu, sigma, lo, hi):
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    pdf = lambda z: 0.0 if math.isinf(z) else math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    zz = cdf(b) - cdf(a)
    za = 0.0 if math.isinf(a) else a * pdf(a)
    zb = 0.0 if math.isinf(b) else b * pdf(b)
    mean = mu + sigma * (pdf(a) - pdf(b)) / zz
    var = sigma**2 * (1 + (za - zb) / zz - ((pdf(a) - pdf(b)) / zz) ** 2)
    return mean, var


@pytest.mark.parametrize("mu, sigma, lo, hi", [
    (0.0, 1.0, -3.0, 3.0),          # normal proposals
    (1.0, 2.0, 1.0, 1.5),           # uniform proposals
    (0.0, 1.0, 3.0, math.inf),      # exponential proposals in the tail
    (2.0, 0.5, -math.inf, 0.5),     # the mirrored tail
])
def test_truncated_normal_moments(mu, sigma, lo, hi):
    x = stateless_parameterized_truncated_normal([20000], [4, 2], np.float64(mu), sigma, lo, hi).numpy()
    assert x.dtype == np.float64 and x.min() >= lo and x.max() <= hi
    mean, var = truncated_moments(mu, sigma, lo, hi)
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / x.size)
    assert abs(x.var() / var - 1) < 0.06


def test_truncated_normal_parameters_broadcast_to_the_trailing_dims():
    x = stateless_parameterized_truncated_normal([500, 3], [0, 9], means=[0.0, 10.0, -10.0], stddevs=1.0,
                                                 minvals=[-1.0, 9.0, -10.5], maxvals=[1.0, 12.0, -9.5]).numpy()
    assert x.dtype == np.float32 and x.shape == (500, 3)
    assert np.all(np.abs(x[:, 0]) <= 1) and np.all((x[:, 1] >= 9) & (x[:, 1] <= 12))
    assert np.all((x[:, 2] >= -10.5) & (x[:, 2] <= -9.5))


@pytest.mark.parametrize("call, match", [
    (lambda: stateless_binomial([3], [1, 2, 3], 5.0, 0.5), "StatelessRandomBinomial: seed must have shape"),
    (lambda: stateless_binomial([3], [1, 2], [5.0, 6.0], [0.5, 0.1, 0.2]),
     "StatelessRandomBinomial: counts and probs must have compatible"),
    (lambda: stateless_binomial([3, 2], [1, 2], 5.0, [0.5, 0.1, 0.2]),
     "StatelessRandomBinomial: Shape passed in must end with broadcasted shape"),
    (lambda: stateless_categorical(np.zeros(3, np.float32), 2, [1, 2]), "StatelessMultinomial.*matrix"),
    (lambda: stateless_categorical(np.zeros((1, 3), np.float32), -1, [1, 2]), "StatelessMultinomial.*nonnegative"),
    (lambda: stateless_parameterized_truncated_normal([3], [1, 2], stddevs=0.0),
     "StatelessParameterizedTruncatedNormal: Invalid parameters"),
    (lambda: stateless_parameterized_truncated_normal([3], [1, 2], minvals=1.0, maxvals=1.0),
     "StatelessParameterizedTruncatedNormal: Invalid parameters"),
    (lambda: stateless_parameterized_truncated_normal([3], [1, 2], minvals=-np.inf, maxvals=np.inf),
     "StatelessParameterizedTruncatedNormal: Invalid parameters"),
])
def test_errors(call, match):
    with pytest.raises(of.errors.InvalidArgumentError, match=match):
        call()


def test_wrong_dtype_is_a_typed_error():
    with pytest.raises(of.errors.OpError, match="StatelessRandomBinomial"):
        of.raw_ops.StatelessRandomBinomial(shape=np.array([2], np.int32), seed=np.array([1, 2], np.int64),
                                           counts=np.array([3], np.int32), probs=np.array([1], np.int32))


# ---- RandomIndexShuffle


def test_random_index_shuffle_gives_tensorflows_values(expected):
    for i in range(7):
        got = random_index_shuffle(expected[f"shuffle_{i}_index"], expected[f"shuffle_{i}_seed"],
                                   expected[f"shuffle_{i}_max"], rounds=int(expected[f"shuffle_{i}_rounds"]))
        np.testing.assert_array_equal(got.numpy(), expected[f"shuffle_{i}"])


@pytest.mark.parametrize("top", [1, 9, 1000, 70001])
def test_random_index_shuffle_is_a_permutation(top):
    index = np.arange(top + 1, dtype=np.int64)
    out = random_index_shuffle(index, np.array([7, 8, 9], np.int64), np.int64(top)).numpy()
    np.testing.assert_array_equal(np.sort(out), index)
    if top > 9:
        assert np.mean(out == index) < 0.01
    # one seed row per index: row i of the seed matrix keys output i
    seeds = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    both = random_index_shuffle(np.array([top, top], np.int32), seeds, np.int32(top)).numpy()
    assert both.tolist() == [random_index_shuffle(np.int32(top), s, np.int32(top)).numpy() for s in seeds]


def test_random_index_shuffle_shapes_and_errors():
    with of.Graph().as_default():
        ph = of.placeholder(of.int64, [None])
        assert random_index_shuffle(ph, np.array([1, 2, 3], np.int64), np.int64(5)).shape.as_list() == [None]
        assert random_index_shuffle(np.int64(1), np.zeros((4, 3), np.int64), np.int64(5)).shape.as_list() == [4]
        assert random_index_shuffle(np.int64(1), np.zeros(3, np.int64), np.int64(5)).shape.as_list() == []
    with pytest.raises(of.errors.InvalidArgumentError, match="RandomIndexShuffle: rounds must be even"):
        random_index_shuffle(1, [1, 2, 3], 9, rounds=5)
    with pytest.raises(of.errors.InvalidArgumentError, match="RandomIndexShuffle.*seed must be a vector of size"):
        random_index_shuffle(1, [1, 2], 9)
    with pytest.raises(of.errors.InvalidArgumentError, match=r"RandomIndexShuffle: index 12 must be within \[0"):
        random_index_shuffle([1, 12], [1, 2, 3], 9)
