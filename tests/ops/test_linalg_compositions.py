"""tf.linalg's Python compositions (opforge/ops/linalg_compositions.py) against NumPy (and scipy's
expm where installed; a series otherwise), their gradients by central differences in float64,
graph-mode shapes, and typed errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

RNG = np.random.default_rng(3232)


def _expm_series(a):
    """exp(a) by scaling, a 30-term Taylor series and squaring (an independent reference)."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(0).max(), 1e-300)))) + 1)
    x = a / 2**s
    out, term = np.eye(len(a)), np.eye(len(a))
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def test_expm():
    a = RNG.standard_normal((3, 4, 4)) * np.array([0.1, 1.0, 8.0])[:, None, None]  # 0, 1 and 4 squarings
    got = of.linalg.expm(a).numpy()
    for g, m in zip(got, a):
        want = _expm_series(m)
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(of.linalg.expm(np.zeros((2, 2))).numpy(), np.eye(2))
    d = np.diag([1.0, -2.0, 0.5])
    np.testing.assert_allclose(of.linalg.expm(d.astype(np.float32)).numpy(), np.diag(np.exp([1.0, -2.0, 0.5])),
                               rtol=1e-6)
    sl = pytest.importorskip("scipy.linalg")
    np.testing.assert_allclose(got[2], sl.expm(a[2]), rtol=1e-12, atol=1e-12 * np.abs(got[2]).max())


def test_lstsq_pinv_rank():
    a, b = RNG.standard_normal((2, 6, 3)), RNG.standard_normal((2, 6, 2))
    want = np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(a, b)])
    np.testing.assert_allclose(of.linalg.lstsq(a, b).numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(of.linalg.lstsq(a, b, fast=False).numpy(), want, rtol=1e-10, atol=1e-12)
    w, bw = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 1))  # wide: the minimum-norm solution
    np.testing.assert_allclose(of.linalg.lstsq(w, bw).numpy(), np.linalg.pinv(w) @ bw, rtol=1e-10, atol=1e-12)
    lam = 0.7  # ridge: (A^T A + l2 I)^-1 A^T b
    ridge = np.linalg.solve(a[0].T @ a[0] + lam * np.eye(3), a[0].T @ b[0])
    np.testing.assert_allclose(of.linalg.lstsq(a[0], b[0], l2_regularizer=lam).numpy(), ridge, rtol=1e-10)
    np.testing.assert_allclose(of.linalg.pinv(a).numpy(), np.linalg.pinv(a), rtol=1e-10, atol=1e-12)
    low = RNG.standard_normal((5, 2)) @ RNG.standard_normal((2, 4))  # rank 2
    np.testing.assert_allclose(of.linalg.pinv(low).numpy(), np.linalg.pinv(low), rtol=1e-8, atol=1e-10)
    assert of.linalg.matrix_rank(np.stack([low, RNG.standard_normal((5, 4))])).numpy().tolist() == [2, 4]
    assert of.linalg.matrix_rank(low, tol=1e3).numpy() == 0


def test_small_compositions():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    np.testing.assert_allclose(of.linalg.cross(a, b).numpy(), np.cross(a, b), rtol=1e-14)
    m, v = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4))
    np.testing.assert_allclose(of.linalg.matvec(m, v).numpy(), np.einsum("bij,bj->bi", m, v), rtol=1e-14)
    np.testing.assert_allclose(of.linalg.matvec(m, v[:, :3], transpose_a=True).numpy(),
                               np.einsum("bji,bj->bi", m, v[:, :3]), rtol=1e-14)
    n, nrm = of.linalg.normalize(a, axis=1)
    np.testing.assert_allclose(nrm.numpy(), np.linalg.norm(a, axis=1, keepdims=True), rtol=1e-14)
    np.testing.assert_allclose(n.numpy(), a / nrm.numpy(), rtol=1e-14)
    t = np.diag(RNG.standard_normal(5)) + np.diag(RNG.standard_normal(4), 1) + np.diag(RNG.standard_normal(4), -1)
    r = RNG.standard_normal((5, 2))
    sup, main, sub = np.append(np.diag(t, 1), 9.0), np.diag(t), np.insert(np.diag(t, -1), 0, 9.0)  # 9: ignored
    for diags, fmt in [(np.stack([sup, main, sub]), "compact"), ((sup, main, sub), "sequence"), (t, "matrix")]:
        np.testing.assert_allclose(of.linalg.tridiagonal_matmul(diags, r, diagonals_format=fmt).numpy(), t @ r,
                                   rtol=1e-13, err_msg=fmt)


def test_tridiagonal_solve():
    t = np.diag(RNG.uniform(2, 3, 6)) + np.diag(RNG.standard_normal(5), 1) + np.diag(RNG.standard_normal(5), -1)
    sup, main, sub = np.append(np.diag(t, 1), 0.0), np.diag(t), np.insert(np.diag(t, -1), 0, 0.0)
    r = RNG.standard_normal((6, 2))
    want = np.linalg.solve(t, r)
    for diags, fmt in [(np.stack([sup, main, sub]), "compact"), ((sup, main, sub), "sequence"), (t, "matrix")]:
        np.testing.assert_allclose(of.linalg.tridiagonal_solve(diags, r, diagonals_format=fmt).numpy(), want,
                                   rtol=1e-12, err_msg=fmt)
    compact = np.stack([sup, main, sub])
    np.testing.assert_allclose(of.linalg.tridiagonal_solve(compact, r.T, transpose_rhs=True).numpy(), want.T,
                               rtol=1e-12)
    np.testing.assert_allclose(of.linalg.tridiagonal_solve(compact, r[:, 0]).numpy(), want[:, 0], rtol=1e-12)
    back = of.linalg.tridiagonal_matmul(compact, of.linalg.tridiagonal_solve(compact, r)).numpy()
    np.testing.assert_allclose(back, r, rtol=1e-12, atol=1e-12)
    with pytest.raises(InvalidArgumentError, match="TridiagonalSolve"):
        of.linalg.tridiagonal_solve(compact, r, perturb_singular=True)


def test_lu_family():
    a = RNG.standard_normal((2, 4, 4))
    lu, p = of.linalg.lu(a)
    assert p.dtype == of.int32 and of.linalg.lu(a, output_idx_type="int64")[1].dtype == of.int64
    n = 4
    lower = np.tril(lu.numpy(), -1) + np.eye(n)
    upper = np.triu(lu.numpy())
    np.testing.assert_allclose(np.take_along_axis(a, p.numpy()[..., None], -2), lower @ upper, rtol=1e-12, atol=1e-13)
    assert (np.abs(lower) <= 1 + 1e-12).all()  # partial pivoting: |L| <= 1
    np.testing.assert_allclose(of.linalg.lu_reconstruct(lu, p).numpy(), a, rtol=1e-12, atol=1e-13)
    b = RNG.standard_normal((2, 4, 3))
    np.testing.assert_allclose(of.linalg.lu_solve(lu, p, b).numpy(), np.linalg.solve(a, b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(of.linalg.lu_matrix_inverse(lu, p).numpy(), np.linalg.inv(a), rtol=1e-10, atol=1e-12)
    with pytest.raises(InvalidArgumentError, match="Lu"):
        of.linalg.lu(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="lu_solve"):
        of.linalg.lu_solve(lu, np.ones((2, 4)), b)


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("fn", ["expm", "lstsq", "pinv", "cross", "lu_reconstruct"])
def test_gradients(fn):
    x = RNG.standard_normal((3, 3)) * (0.5 if fn == "expm" else 1.0)
    other = RNG.standard_normal((3, 2) if fn == "lstsq" else (3, 3))
    w = RNG.standard_normal((3, 2) if fn == "lstsq" else (3, 3))
    f = {"expm": lambda a: of.linalg.expm(a), "lstsq": lambda a: of.linalg.lstsq(a, other),
         "pinv": lambda a: of.linalg.pinv(a), "cross": lambda a: of.linalg.cross(a, other),
         "lu_reconstruct": lambda a: of.linalg.lu_reconstruct(*of.linalg.lu(a))}[fn]
    t = of.constant(x)
    with of.GradientTape() as tape:
        tape.watch(t)
        loss = of.reduce_sum(of.mul(f(t), w))
    got = tape.gradient(loss, t).numpy()
    want = _numeric_grad(lambda a: float(np.sum(f(a).numpy() * w)), x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_tf1_names_in_a_graph():
    with tf1.Graph().as_default(), tf1.Session() as sess:
        a = tf1.placeholder(tf1.float64, [None, 3, 3])
        e = tf1.linalg.expm(a)
        assert e.shape.as_list() == [None, 3, 3]
        x = RNG.standard_normal((2, 3, 3)) * 0.3
        got, ls, c = sess.run([e, tf1.matrix_solve_ls(a, a), tf1.cross(a[:, 0], a[:, 1])], {a: x})
    np.testing.assert_allclose(got[0], _expm_series(x[0]), rtol=1e-12)
    np.testing.assert_allclose(ls, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-10)
    np.testing.assert_allclose(c, np.cross(x[:, 0], x[:, 1]), rtol=1e-14)


def test_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="MatrixExponential"):
        of.linalg.expm(np.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="MatrixSolveLs"):
        of.linalg.lstsq(np.ones((4, 3)), np.ones((5, 1)))
    with pytest.raises(InvalidArgumentError, match="Cross"):
        of.linalg.cross(np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(InvalidArgumentError, match="TridiagonalMatMul"):
        of.linalg.tridiagonal_matmul(np.ones((2, 5)), np.ones((5, 1)))
    with pytest.raises(InvalidArgumentError, match="pinv"):
        of.linalg.pinv(np.ones(3))
