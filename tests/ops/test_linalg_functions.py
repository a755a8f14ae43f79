"""tf.linalg.sqrtm (the MatrixSquareRoot op) and tf.linalg.eigh_tridiagonal against NumPy on
random matrices, and TensorFlow's answers where it is installed. MatrixSquareRoot's reference,
gradient check and error inputs also run in the op matrix (linalg_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework.errors import InvalidArgumentError

rng = np.random.default_rng(7)


def _eig_sqrt(a):
    w, v = np.linalg.eig(a)
    return ((v * np.sqrt(w.astype(complex))[..., None, :]) @ np.linalg.inv(v)).real


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_sqrtm_squares_back_and_matches_the_eigen_route(n):
    a = 2 * np.eye(n) + rng.uniform(-0.7, 0.7, size=(3, n, n))  # complex-conjugate pairs: 2x2 Schur blocks
    got = of.linalg.sqrtm(a).numpy()
    np.testing.assert_allclose(got @ got, a, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got, _eig_sqrt(a), rtol=1e-9, atol=1e-11)
    got32 = of.linalg.sqrtm(a.astype(np.float32)).numpy()
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, got, rtol=2e-5, atol=2e-5)


def test_sqrtm_of_rotations_and_symmetric_matrices():
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i: one 2x2 block
    np.testing.assert_allclose(of.linalg.sqrtm(rot).numpy(), np.sqrt(0.5) * np.array([[1.0, -1.0], [1.0, 1.0]]),
                               atol=1e-15)
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    spd = q @ np.diag([1.0, 4.0, 9.0, 16.0]) @ q.T
    np.testing.assert_allclose(of.linalg.sqrtm(spd).numpy(), q @ np.diag([1.0, 2.0, 3.0, 4.0]) @ q.T, atol=1e-12)
    assert of.linalg.sqrtm(np.zeros((2, 0, 0))).shape == (2, 0, 0)


def test_sqrtm_of_a_negative_eigenvalue_is_nan_as_in_tensorflow():
    assert np.isnan(of.linalg.sqrtm(np.diag([-1.0, 4.0])).numpy()).all()


def test_sqrtm_bad_inputs():
    with pytest.raises(InvalidArgumentError, match="MatrixSquareRoot: input must be a batch of square"):
        of.linalg.sqrtm(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="MatrixSquareRoot: input must have rank >= 2"):
        of.linalg.sqrtm(np.ones(3))
    with pytest.raises(InvalidArgumentError, match="MatrixSquareRoot: dtype int32 is not supported"):
        of.linalg.sqrtm(np.ones((2, 2), np.int32))


def test_sqrtm_gradient_solves_the_sylvester_equation():
    a = 2 * np.eye(3) + rng.uniform(-0.5, 0.5, size=(3, 3))
    w = rng.normal(size=(3, 3))
    v = of.Variable(a)
    with of.GradientTape() as tape:
        loss = of.reduce_sum(of.linalg.sqrtm(v) * w)
    got = tape.gradient(loss, v).numpy()
    eps, num = 1e-6, np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            d = np.zeros_like(a)
            d[i, j] = eps
            num[i, j] = ((_eig_sqrt(a + d) - _eig_sqrt(a - d)) * w).sum() / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)


def _tridiag(alpha, beta):
    return np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)


def test_eigh_tridiagonal_all_and_selected():
    alpha, beta = rng.normal(size=7), rng.normal(size=6)
    w, v = np.linalg.eigh(_tridiag(alpha, beta))
    np.testing.assert_allclose(of.linalg.eigh_tridiagonal(alpha, beta).numpy(), w, atol=1e-12)
    got_w, got_v = of.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    np.testing.assert_allclose(np.abs(got_v.numpy()), np.abs(v), atol=1e-10)  # vectors up to sign
    np.testing.assert_allclose(_tridiag(alpha, beta) @ got_v.numpy(), got_v.numpy() * got_w.numpy(), atol=1e-12)
    np.testing.assert_allclose(of.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[2, 4]).numpy(),
                               w[2:5], atol=1e-12)
    lo, hi = w[1] + 1e-3, w[4]
    sel_w, sel_v = of.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False, select="v", select_range=(lo, hi))
    np.testing.assert_allclose(sel_w.numpy(), w[2:5], atol=1e-12)
    assert sel_v.shape == (7, 3)
    w32 = of.linalg.eigh_tridiagonal(alpha.astype(np.float32), beta.astype(np.float32))
    assert w32.dtype == of.float32


def test_eigh_tridiagonal_bad_inputs():
    with pytest.raises(ValueError, match="n - 1"):
        of.linalg.eigh_tridiagonal(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="select must be"):
        of.linalg.eigh_tridiagonal(np.ones(3), np.ones(2), select="x")
    with pytest.raises(ValueError, match="indices"):
        of.linalg.eigh_tridiagonal(np.ones(3), np.ones(2), select="i", select_range=[1, 3])
    with pytest.raises(InvalidArgumentError, match="float32 or float64"):
        of.linalg.eigh_tridiagonal(np.ones(3, np.int32), np.ones(2, np.int32))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    a = 2 * np.eye(4) + rng.uniform(-0.6, 0.6, size=(2, 4, 4))
    np.testing.assert_allclose(of.linalg.sqrtm(a).numpy(), tf.linalg.sqrtm(a).numpy(), rtol=1e-10, atol=1e-12)
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.linalg.sqrtm(x) ** 2)
    v = of.Variable(a)
    with of.GradientTape() as t2:
        mine = of.reduce_sum(of.linalg.sqrtm(v) ** 2)
    np.testing.assert_allclose(t2.gradient(mine, v).numpy(), tape.gradient(loss, x).numpy(), rtol=1e-9)
    alpha, beta = rng.normal(size=5), rng.normal(size=4)
    np.testing.assert_allclose(of.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2]).numpy(),
                               tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2]).numpy(),
                               atol=1e-12)


def _static(ns, placeholder, shape):
    with ns.Graph().as_default():
        out = ns.linalg.sqrtm(placeholder(ns.float64, shape))
        return None if out.shape.rank is None else out.shape.as_list()


@pytest.mark.parametrize("shape,want", [([None, 3, None], [None, 3, 3]), ([2, None, None], [2, None, None]),
                                        (None, None)])
def test_sqrtm_static_shapes(shape, want):
    assert _static(of, of.placeholder, shape) == want
    tf = pytest.importorskip("tensorflow")
    assert _static(tf, tf.compat.v1.placeholder, shape) == want
