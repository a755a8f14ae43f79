"""tf.linalg.LinearOperator and its subclasses (opforge/ops/linear_operator*.py) against dense
NumPy on random well-conditioned float64 matrices: products (with both adjoint flags, vectors,
broadcast batch dims), solves, determinants, diagonals, traces, adjoint / inverse / Cholesky
operators; the hints' consistency checks and the structural errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.framework.errors import InvalidArgumentError

la = of.linalg
rng = np.random.default_rng(1234)


def _well(*shape):
    """Random matrices with a dominant diagonal (well conditioned)."""
    a = rng.normal(size=shape)
    return a + 4 * np.eye(shape[-1])


def _spd(*shape):
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _kron(a, b):
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    out = a[..., :, None, :, None] * b[..., None, :, None, :]
    return out.reshape(batch + (a.shape[-2] * b.shape[-2], a.shape[-1] * b.shape[-1]))


def _block_diag(blocks, batch):
    rows = sum(b.shape[-2] for b in blocks)
    cols = sum(b.shape[-1] for b in blocks)
    out = np.zeros(batch + (rows, cols))
    r = c = 0
    for b in blocks:
        out[..., r:r + b.shape[-2], c:c + b.shape[-1]] = b
        r, c = r + b.shape[-2], c + b.shape[-1]
    return out


def _cases():
    """(name, operator, dense reference) for every class."""
    a, b, c = _well(2, 3, 3), _well(3, 3), _well(2, 2)
    d = rng.uniform(1, 2, size=(2, 4)) * np.array([1, -1, 1, 1])
    tril = np.tril(_well(2, 3, 3))
    v = rng.normal(size=(2, 3))
    vn = v / np.linalg.norm(v, axis=-1, keepdims=True)
    perm = np.array([[2, 0, 1], [1, 2, 0]])
    col, row = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    col[..., 0] += 5
    toeplitz = np.array([[[col[k, i - j] if i >= j else row[k, j - i] for j in range(4)] for i in range(4)]
                         for k in range(2)])
    sup, main, sub = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)) + 5, rng.normal(size=(3, 4))
    tri = np.diag(main[0]) + np.diag(sup[0, :-1], 1) + np.diag(sub[0, 1:], -1)
    u, dv, vv = rng.normal(size=(2, 4, 2)), rng.uniform(1, 2, size=2), rng.normal(size=(2, 4, 2))
    pd = rng.uniform(1, 2, size=4)
    s21 = rng.normal(size=(3, 2))
    return [
        ("full", la.LinearOperatorFullMatrix(a), a),
        ("full_spd", la.LinearOperatorFullMatrix(_spd(3, 3), is_self_adjoint=True, is_positive_definite=True), None),
        ("diag", la.LinearOperatorDiag(d), np.einsum("...i,ij->...ij", d, np.eye(4))),
        ("identity", la.LinearOperatorIdentity(3, batch_shape=[2], dtype="float64"), np.broadcast_to(np.eye(3), (2, 3, 3))),
        ("scaled_identity", la.LinearOperatorScaledIdentity(3, np.array([2.0, -0.5])),
         np.array([2.0, -0.5])[:, None, None] * np.eye(3)),
        ("lower_triangular", la.LinearOperatorLowerTriangular(tril + np.triu(np.ones(3), 1)), tril),
        ("permutation", la.LinearOperatorPermutation(perm, dtype="float64"), np.eye(3)[perm]),
        ("householder", la.LinearOperatorHouseholder(v), np.eye(3) - 2 * vn[..., :, None] * vn[..., None, :]),
        ("adjoint", la.LinearOperatorAdjoint(la.LinearOperatorFullMatrix(a)), np.swapaxes(a, -1, -2)),
        ("inversion", la.LinearOperatorInversion(la.LinearOperatorFullMatrix(b)), np.linalg.inv(b)),
        ("composition", la.LinearOperatorComposition([la.LinearOperatorFullMatrix(a),
                                                      la.LinearOperatorLowerTriangular(np.tril(b))]), a @ np.tril(b)),
        ("kronecker", la.LinearOperatorKronecker([la.LinearOperatorFullMatrix(c), la.LinearOperatorFullMatrix(a)]),
         _kron(c, a)),
        ("kronecker3", la.LinearOperatorKronecker([la.LinearOperatorFullMatrix(c), la.LinearOperatorDiag(d[0, :2]),
                                                   la.LinearOperatorFullMatrix(b)]),
         _kron(_kron(c, np.diag(d[0, :2])), b)),
        ("block_diag", la.LinearOperatorBlockDiag([la.LinearOperatorFullMatrix(a), la.LinearOperatorFullMatrix(c)]),
         _block_diag([a, np.broadcast_to(c, (2, 2, 2))], (2,))),
        ("block_lower_triangular", la.LinearOperatorBlockLowerTriangular(
            [[la.LinearOperatorFullMatrix(c)], [la.LinearOperatorFullMatrix(s21), la.LinearOperatorFullMatrix(a)]]),
         np.concatenate([np.concatenate([np.broadcast_to(c, (2, 2, 2)), np.zeros((2, 2, 3))], -1),
                         np.concatenate([np.broadcast_to(s21, (2, 3, 2)), a], -1)], -2)),
        ("low_rank_update", la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(d), u, diag_update=dv, v=vv),
         np.einsum("...i,ij->...ij", d, np.eye(4)) + u @ (dv[:, None] * np.swapaxes(vv, -1, -2))),
        ("low_rank_update_spd", la.LinearOperatorLowRankUpdate(
            la.LinearOperatorDiag(pd, is_positive_definite=True), u[0]), np.diag(pd) + u[0] @ u[0].T),
        ("toeplitz", la.LinearOperatorToeplitz(col, row), toeplitz),
        ("tridiag_compact", la.LinearOperatorTridiag(np.stack([sup, main, sub], -2)[0]), tri),
        ("tridiag_sequence", la.LinearOperatorTridiag([sup[0], main[0], sub[0]], diagonals_format="sequence"), tri),
        ("tridiag_matrix", la.LinearOperatorTridiag(tri + np.triu(np.ones((4, 4)), 2), diagonals_format="matrix"), tri),
    ]


CASES = _cases()


@pytest.mark.parametrize("name,op,dense", CASES, ids=[c[0] for c in CASES])
def test_operator_against_dense(name, op, dense):
    if dense is None:
        dense = op.to_dense().numpy()
    close = lambda got, want: np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-9)  # noqa: E731
    dense = np.asarray(dense)
    assert op.shape.as_list() == list(dense.shape) and op.dtype.name == "float64"
    assert op.batch_shape.as_list() == list(dense.shape[:-2])
    assert (op.range_dimension, op.domain_dimension) == dense.shape[-2:]
    np.testing.assert_array_equal(op.shape_tensor().numpy(), dense.shape)
    close(op.to_dense(), dense)
    n, m = dense.shape[-1], dense.shape[-2]
    dt = np.swapaxes(dense, -1, -2)
    x = rng.normal(size=(3, 1) + (1,) * max(0, dense.ndim - 3) + (n, 2))  # extra, broadcast batch dims
    close(op.matmul(x), dense @ x)
    close(op @ x, dense @ x)
    xa = rng.normal(size=(m, 2))
    close(op.matmul(xa, adjoint=True), dt @ xa)
    close(op.matmul(xa.T, adjoint=True, adjoint_arg=True), dt @ xa)
    xs = rng.normal(size=(n, 2))
    close(op.matmul(xs.T, adjoint_arg=True), dense @ xs)
    vec = rng.normal(size=(n,))
    close(op.matvec(vec), dense @ vec)
    close(op.matvec(rng.normal(size=(m,)) * 0 + 1, adjoint=True), dt @ np.ones(m))
    close(op.diag_part(), np.diagonal(dense, axis1=-2, axis2=-1))
    close(op.trace(), np.trace(dense, axis1=-2, axis2=-1))
    z = rng.normal(size=dense.shape)
    close(op.add_to_tensor(z), dense + z)
    close(op.adjoint().to_dense(), dt)
    close(op.H.matmul(xa), dt @ xa)
    if op.is_self_adjoint:
        close(np.sort(op.eigvals().numpy(), -1), np.linalg.eigvalsh(dense))  # structured ones need not sort
    if m != n or op.is_non_singular is False:
        return
    close(op.solve(x), np.linalg.solve(dense, np.broadcast_to(x, np.broadcast_shapes(x.shape, dense.shape[:-2] + x.shape[-2:]))))
    close(op.solve(xa, adjoint=True), np.linalg.solve(dt, np.broadcast_to(xa, dt.shape[:-2] + xa.shape)))
    close(op.solve(xa.T, adjoint_arg=True), np.linalg.solve(dense, np.broadcast_to(xa, dense.shape[:-2] + xa.shape)))
    close(op.solvevec(vec), np.linalg.solve(dense, np.broadcast_to(vec, dense.shape[:-1])[..., None])[..., 0])
    sign, logdet = np.linalg.slogdet(dense)
    close(op.log_abs_determinant(), logdet)
    close(op.determinant(), sign * np.exp(logdet))
    close(op.inverse().to_dense(), np.linalg.inv(dense))
    close(op.inverse().log_abs_determinant(), -logdet)
    close(op.inverse().matmul(xa), np.linalg.solve(dense, np.broadcast_to(xa, dense.shape[:-2] + xa.shape)))
    if op.is_self_adjoint and op.is_positive_definite:
        close(op.cholesky().to_dense(), np.linalg.cholesky(dense))


def test_matmul_and_solve_of_operators_give_operators():
    a, b = _well(3, 3), _well(3, 3)
    fa, fb = la.LinearOperatorFullMatrix(a), la.LinearOperatorFullMatrix(b)
    prod = fa @ fb
    assert isinstance(prod, la.LinearOperatorComposition)
    np.testing.assert_allclose(prod.to_dense().numpy(), a @ b, rtol=1e-10)
    np.testing.assert_allclose(fa.solve(fb).to_dense().numpy(), np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)
    d1, d2 = la.LinearOperatorDiag([1.0, 2.0]), la.LinearOperatorDiag([3.0, 4.0])
    assert isinstance(d1 @ d2, la.LinearOperatorDiag)
    np.testing.assert_allclose(d1.solve(d2).diag.numpy(), [3.0, 2.0])
    eye = la.LinearOperatorIdentity(3, dtype="float64")
    assert eye @ fa is fa and eye.inverse() is eye and eye.adjoint() is eye


def test_structured_results_keep_their_structure():
    d = la.LinearOperatorDiag([4.0, 9.0], is_positive_definite=True)
    assert isinstance(d.inverse(), la.LinearOperatorDiag) and isinstance(d.cholesky(), la.LinearOperatorDiag)
    np.testing.assert_allclose(d.cholesky().diag.numpy(), [2.0, 3.0])
    h = la.LinearOperatorHouseholder([1.0, 2.0])
    assert h.inverse() is h and h.adjoint() is h
    np.testing.assert_allclose(h.eigvals().numpy(), [-1.0, 1.0])
    full = la.LinearOperatorFullMatrix(_well(3, 3))
    assert full.adjoint().adjoint() is full and full.inverse().inverse() is full
    k = la.LinearOperatorKronecker([d, d])
    assert k.is_positive_definite and isinstance(k.cholesky(), la.LinearOperatorKronecker)
    np.testing.assert_allclose(k.cholesky().to_dense().numpy(), np.kron(np.diag([2.0, 3.0]), np.diag([2.0, 3.0])))
    z = la.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
    assert z.shape.as_list() == [2, 3] and z.adjoint().shape.as_list() == [3, 2]
    np.testing.assert_array_equal(z.matmul(np.ones((3, 4))).numpy(), np.zeros((2, 4)))


def test_hints_are_checked():
    with pytest.raises(ValueError, match="always non-singular"):
        la.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True, is_non_singular=False)
    with pytest.raises(ValueError, match="always square"):
        la.LinearOperatorFullMatrix(np.eye(2), is_self_adjoint=True, is_square=False)
    with pytest.raises(ValueError, match="conflicts"):
        _ = la.LinearOperatorFullMatrix(np.ones((2, 3)), is_square=True).is_square
    with pytest.raises(ValueError, match="identity operator is always"):
        la.LinearOperatorIdentity(2, is_positive_definite=False)
    with pytest.raises(ValueError, match="always singular"):
        la.LinearOperatorZeros(2, is_non_singular=True)
    with pytest.raises(ValueError, match="Householder operator is always self adjoint"):
        la.LinearOperatorHouseholder([1.0, 0.0], is_self_adjoint=False)
    with pytest.raises(ValueError, match="unique integers"):
        la.LinearOperatorPermutation([0, 0, 1])
    with pytest.raises(ValueError, match="must be non-singular"):
        la.LinearOperatorInversion(la.LinearOperatorFullMatrix(np.eye(2), is_non_singular=False))
    singular = la.LinearOperatorFullMatrix(np.ones((2, 2)), is_non_singular=False)
    with pytest.raises(NotImplementedError, match="singular"):
        singular.solve(np.ones((2, 1)))
    with pytest.raises(ValueError, match="Cholesky"):
        la.LinearOperatorFullMatrix(np.eye(2)).cholesky()
    with pytest.raises(NotImplementedError, match="self-adjoint"):
        la.LinearOperatorFullMatrix(np.eye(2)).eigvals()


def test_bad_arguments_are_typed_errors():
    op = la.LinearOperatorFullMatrix(np.eye(3))
    with pytest.raises(TypeError, match="dtype"):
        op.matmul(of.constant(np.ones((3, 1), np.float32)))
    with pytest.raises(ValueError, match="dimensions do not match"):
        op.matmul(np.ones((2, 1)))
    with pytest.raises(ValueError, match="at least 2"):
        la.LinearOperatorFullMatrix([1.0, 2.0])
    with pytest.raises(TypeError, match="dtype"):
        la.LinearOperatorDiag([1, 2])
    with pytest.raises(ValueError, match="Operators are incompatible"):
        la.LinearOperatorComposition([op, la.LinearOperatorFullMatrix(np.ones((2, 2)))])
    with pytest.raises(TypeError, match="same dtype"):
        la.LinearOperatorBlockDiag([op, la.LinearOperatorDiag(np.ones(2, np.float32))])
    with pytest.raises(ValueError, match="diagonals_format"):
        la.LinearOperatorTridiag(np.ones((3, 3)), diagonals_format="banded")
    with pytest.raises(ValueError, match="must contain 2 blocks"):
        la.LinearOperatorBlockLowerTriangular([[op], [op]])


def test_asserts_fail_at_run_time():
    ok = la.LinearOperatorFullMatrix(_spd(3, 3), is_self_adjoint=True, is_positive_definite=True)
    for check in (ok.assert_non_singular, ok.assert_positive_definite, ok.assert_self_adjoint):
        check()
    with pytest.raises(InvalidArgumentError):
        la.LinearOperatorFullMatrix(np.array([[1.0, 2.0], [2.0, 4.0]])).assert_non_singular()
    with pytest.raises(InvalidArgumentError):
        la.LinearOperatorFullMatrix(np.array([[1.0, 2.0], [0.0, 4.0]])).assert_self_adjoint()
    with pytest.raises(InvalidArgumentError):
        la.LinearOperatorDiag([1.0, -1.0]).assert_positive_definite()
    with pytest.raises(InvalidArgumentError):
        la.LinearOperatorDiag([1.0, 0.0]).assert_non_singular()


def test_graph_mode_and_gradients():
    a = _well(3, 3)
    with of.Graph().as_default():
        m = tf1.placeholder("float64", [3, 3])
        op = la.LinearOperatorLowRankUpdate(la.LinearOperatorFullMatrix(m), np.ones((3, 1)))
        y = op.solve(np.eye(3))
        with tf1.Session() as sess:
            got = sess.run(y, {m: a})
    np.testing.assert_allclose(got, np.linalg.inv(a + np.ones((3, 3))), rtol=1e-9)
    d = of.Variable(np.array([1.0, 2.0, 3.0]))
    with of.GradientTape() as tape:
        logdet = la.LinearOperatorDiag(d).log_abs_determinant()
    np.testing.assert_allclose(tape.gradient(logdet, d).numpy(), [1.0, 0.5, 1.0 / 3])


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    tl = tf.linalg
    col, row = rng.normal(size=4), rng.normal(size=4)
    diags = rng.normal(size=(3, 4)) + np.array([[0], [4], [0]])
    perm, v = np.array([2, 0, 3, 1], np.int32), rng.normal(size=4)
    u, base = rng.normal(size=(4, 2)), rng.uniform(1, 2, size=4)
    pairs = [
        (la.LinearOperatorToeplitz(col, row), tl.LinearOperatorToeplitz(col, row)),
        (la.LinearOperatorTridiag(diags), tl.LinearOperatorTridiag(diags)),
        (la.LinearOperatorPermutation(perm, dtype="float64"), tl.LinearOperatorPermutation(perm, dtype=tf.float64)),
        (la.LinearOperatorHouseholder(v), tl.LinearOperatorHouseholder(v)),
        (la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(base), u, diag_update=np.array([2.0, 3.0])),
         tl.LinearOperatorLowRankUpdate(tl.LinearOperatorDiag(base), u, diag_update=np.array([2.0, 3.0]))),
    ]
    x = rng.normal(size=(4, 2))
    for mine, theirs in pairs:
        np.testing.assert_allclose(mine.to_dense().numpy(), theirs.to_dense().numpy(), rtol=1e-10, atol=1e-12)
        for adjoint in (False, True):
            np.testing.assert_allclose(mine.matmul(x, adjoint=adjoint).numpy(),
                                       theirs.matmul(x, adjoint=adjoint).numpy(), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(mine.solve(x, adjoint=adjoint).numpy(),
                                       theirs.solve(x, adjoint=adjoint).numpy(), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(mine.log_abs_determinant().numpy(), theirs.log_abs_determinant().numpy(),
                                   rtol=1e-9)
        assert (mine.is_self_adjoint, mine.is_positive_definite, mine.is_non_singular, mine.is_square) == (
            theirs.is_self_adjoint, theirs.is_positive_definite, theirs.is_non_singular, theirs.is_square)
