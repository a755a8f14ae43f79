"""Gamma and Poisson samplers (RandomGamma, RandomPoissonV2, StatelessRandomGammaV2,
StatelessRandomPoisson and the tf.random functions over them): moments against the
distributions', shapes, seeds, stateless determinism, edge parameters and typed errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError
from opforge.ops import random_distributions as rd
from opmatrix import covers

N = 20000


def _check_moments(x, mean, var, what):
    x = np.asarray(x, np.float64)
    se = np.sqrt(var / len(x))  # the sample mean is within 5 standard errors
    assert abs(x.mean() - mean) < 5 * se, f"{what}: mean {x.mean()} vs {mean}"
    assert abs(x.var() / var - 1) < 0.08, f"{what}: variance {x.var()} vs {var}"


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.5, 150.0])
def test_gamma_moments(alpha):
    with covers("statistical", "RandomGamma"):
        x = rd.gamma([N], alpha, beta=2.0, dtype="float64", seed=7).numpy()
        _check_moments(x, alpha / 2, alpha / 4, f"gamma({alpha})")
    assert (x > 0).all()


@pytest.mark.parametrize("lam", [0.5, 4.0, 30.0, 1e4])
def test_poisson_moments(lam):
    with covers("statistical", "RandomPoissonV2"):
        x = rd.poisson(lam, [N], dtype="int64", seed=11).numpy()
        assert x.dtype == np.int64 and (x >= 0).all()
        _check_moments(x, lam, lam, f"poisson({lam})")


def test_shapes_and_parameter_batches():
    alpha = np.array([[1.0, 2.0, 3.0]])
    x = rd.gamma([500, 2], alpha, dtype="float32", seed=3)
    assert x.shape == (500, 2, 1, 3) and x.dtype == of.float32
    means = x.numpy().reshape(-1, 3).mean(0)
    np.testing.assert_allclose(means, [1.0, 2.0, 3.0], rtol=0.15)
    assert rd.gamma([4], np.float64(2.0), beta=np.array([1.0, 10.0])).shape == (4, 2)  # alpha x beta
    p = rd.poisson(np.array([1.0, 50.0]), [300], dtype="float32", seed=5)
    assert p.shape == (300, 2)
    np.testing.assert_allclose(p.numpy().mean(0), [1.0, 50.0], rtol=0.2)
    with of.Graph().as_default():
        a = tf1.placeholder(of.float32, [None, 3])
        assert rd.gamma([5], a).shape.as_list() == [5, None, 3]
        s = tf1.placeholder(of.int32, [2])
        assert rd.gamma(s, a).shape.as_list() == [None, None, None, 3]


def test_seeds_and_stateless_determinism():
    a = rd.gamma([8], 2.0, seed=1).numpy()
    b = rd.gamma([8], 2.0, seed=1).numpy()
    assert not np.array_equal(a, b)  # the op's stream continues
    s1 = rd.stateless_gamma([3, 4], seed=[1, 2], alpha=np.array([1.0, 2.0, 3.0, 4.0])).numpy()
    s2 = rd.stateless_gamma([3, 4], seed=[1, 2], alpha=np.array([1.0, 2.0, 3.0, 4.0])).numpy()
    s3 = rd.stateless_gamma([3, 4], seed=[1, 3], alpha=np.array([1.0, 2.0, 3.0, 4.0])).numpy()
    np.testing.assert_array_equal(s1, s2)
    assert s1.shape == (3, 4) and not np.array_equal(s1, s3)
    with covers("statistical", "StatelessRandomPoisson"):
        p = rd.stateless_poisson([N], seed=[4, 5], lam=np.float32(3.0)).numpy()
        assert p.dtype == np.int32
        np.testing.assert_array_equal(p, rd.stateless_poisson([N], seed=[4, 5], lam=np.float32(3.0)).numpy())
        _check_moments(p, 3.0, 3.0, "stateless_poisson")
    with covers("statistical", "StatelessRandomGammaV2"):
        g = rd.stateless_gamma([N], seed=[9, 9], alpha=np.float64(2.5), dtype="float64").numpy()
        _check_moments(g, 2.5, 2.5, "stateless_gamma")
    with tf1.Graph().as_default():  # TF1 spellings: graph nodes seeded from the graph seed
        tf1.set_random_seed(3)
        x, y = tf1.random_gamma([4], 2.0), tf1.random.poisson(2.0, [4])
        with tf1.Session() as sess:
            first = sess.run([x, y])
        with tf1.Session() as sess:
            np.testing.assert_array_equal(sess.run([x, y])[0], first[0])


def test_edge_parameters():
    x = of.ops.random_gamma(np.int32([3]), np.array([0.0, -1.0, np.nan]), seed=1).numpy()
    assert np.isnan(x).all()  # no distribution: NaN
    p = of.ops.random_poisson_v2(np.int32([2]), np.array([0.0, -1.0]), dtype="float64", seed=1).numpy()
    assert p[0, 0] == 0 and np.isnan(p[0, 1])
    q = of.ops.random_poisson_v2(np.int32([2]), np.array([-1.0]), dtype="int64", seed=1).numpy()
    assert (q == 0).all()
    assert rd.gamma([0], 1.0).shape == (0,) and rd.poisson(np.zeros((2, 0)), [3]).shape == (3, 2, 0)
    tiny = rd.gamma([2000], 1e-3, dtype="float32", seed=2).numpy()  # underflow: kept at the smallest normal
    assert (tiny >= np.finfo(np.float32).tiny).all()


def test_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="RandomGamma"):
        of.ops.random_gamma(np.int32([[2]]), np.float32(1.0))  # shape must be a vector
    with pytest.raises(InvalidArgumentError, match="RandomPoissonV2"):
        of.ops.random_poisson_v2(np.int32([-2]), np.float32(1.0))
    with pytest.raises(InvalidArgumentError, match="StatelessRandomGammaV2"):
        of.ops.stateless_random_gamma_v2(np.int32([2]), np.int64([1, 2, 3]), np.float32(1.0))
    with pytest.raises(InvalidArgumentError, match="StatelessRandomPoisson"):
        of.ops.stateless_random_poisson(np.int32([3]), np.int64([1, 2]), np.float32([1.0, 2.0]), dtype="int32")
    with pytest.raises(InvalidArgumentError, match="RandomGamma"):
        of.ops.random_gamma(np.int32([2]), np.int32(1))
