"""tf.linalg's functions that TensorFlow itself composes in Python from other ops: matvec,
normalize, pinv and matrix_rank (from Svd), expm (scaling and squaring of a [13/13] Pade
approximant, solved with MatrixSolve), lstsq / matrix_solve_ls (regularized normal equations
through Cholesky, or a QR solve with fast=False), cross and tridiagonal_matmul (slices and
elementwise products). Gradients follow from the ops they are built of."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.control_flow import while_loop
from ..framework.errors import InvalidArgumentError
from .array_ops import concat, expand_dims, squeeze, stack
from .linalg_decompositions import cholesky, cholesky_solve, qr, solve, svd, triangular_solve
from .linalg_ops import eye, norm
from .math_ops import _as_tensor, cast, matmul, reduce_max, reduce_sum

__all__ = ["matvec", "normalize", "pinv", "matrix_rank", "expm", "lstsq", "cross", "tridiagonal_matmul",
           "tridiagonal_solve", "lu", "lu_reconstruct", "lu_solve", "lu_matrix_inverse"]


def _eps(dtype) -> float:
    return float(np.finfo(_dtypes.as_dtype(dtype).as_numpy_dtype).eps)


def _scalar(v, dtype):
    return np.asarray(v, _dtypes.as_dtype(dtype).as_numpy_dtype)


def _matrix_dims(x, op: str, square: bool = False):
    """x's last two dims (None where unknown); rank >= 2 is required."""
    rank = x.shape.rank
    if rank is not None and rank < 2:
        raise InvalidArgumentError(f"{op}: the input must have rank >= 2, got shape {x.shape}", op)
    m, n = (x.shape[-2], x.shape[-1]) if rank is not None else (None, None)
    if square and m is not None and n is not None and m != n:
        raise InvalidArgumentError(f"{op}: the input must be square, got shape {x.shape}", op)
    return m, n


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a matrix (batch) a and a vector (batch) b (tf.linalg.matvec). The sparsity hints
    are accepted and ignored, as TensorFlow's CPU kernels do."""
    del a_is_sparse, b_is_sparse
    a = _as_tensor(a)
    b = _as_tensor(b, a.dtype)
    out = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return squeeze(out, [-1], name=name)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 (TensorFlow's names)
    """(tensor / norm, norm) with the norm kept in tensor's rank (tf.linalg.normalize)."""
    x = _as_tensor(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return _ops.real_div(x, n, name=name), n


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse from the SVD (tf.linalg.pinv): singular values at or below
    rcond * max(s) are treated as zero; rcond defaults to 10 * max(rows, cols) * eps."""
    del validate_args
    a = _as_tensor(a)
    if not a.dtype.is_floating:
        raise InvalidArgumentError(f"pinv: a must be float, got {a.dtype.name}", "pinv")
    m, n = _matrix_dims(a, "pinv")
    if rcond is None:
        rows_cols = max(m or 1, n or 1)
        rcond = 10.0 * rows_cols * _eps(a.dtype)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = _ops.mul(_scalar(rcond, a.dtype), reduce_max(s, -1, keepdims=True))
    inf = _scalar(np.inf, a.dtype)
    s = _ops.select_v2(_ops.greater(s, cutoff), s, _ops.mul(_ops.ones_like(s), inf))
    return matmul(_ops.real_div(v, expand_dims(s, -2)), u, adjoint_b=True, name=name)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above tol (tf.linalg.matrix_rank); tol defaults to
    max(s) * max(rows, cols) * eps."""
    del validate_args
    a = _as_tensor(a)
    m, n = _matrix_dims(a, "matrix_rank")
    s = svd(a, compute_uv=False)
    if tol is None:
        tol = _ops.mul(reduce_max(s, -1, keepdims=True), _scalar(max(m or 1, n or 1) * _eps(a.dtype), a.dtype))
    else:
        tol = _as_tensor(tol, a.dtype)
    return reduce_sum(cast(_ops.greater(s, tol), "int32"), -1, name=name)


_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152  # the largest 1-norm the [13/13] approximant covers to double precision


def expm(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The matrix exponential (tf.linalg.expm): each matrix scaled by 2^-s into the range of the
    [13/13] Pade approximant, which is then squared s times (s per matrix of a batch)."""
    a = _as_tensor(input)
    if not a.dtype.is_floating:
        raise InvalidArgumentError(f"expm: input must be float, got {a.dtype.name}", "MatrixExponential")
    _, n = _matrix_dims(a, "MatrixExponential", square=True)
    dt = a.dtype
    l1 = reduce_max(reduce_sum(_ops.abs(a), -2), -1)  # the 1-norm of each matrix
    s = _ops.maximum(_ops.ceil(_ops.real_div(_ops.log(_ops.real_div(l1, _scalar(_THETA13, dt))),
                                             _scalar(np.log(2.0), dt))), _ops.zeros_like(l1))
    s = _ops.select_v2(_ops.is_finite(s), s, _ops.zeros_like(s))  # a zero matrix: log(0)
    x = _ops.mul(a, expand_dims(expand_dims(_ops.pow(_scalar(0.5, dt), s), -1), -1))
    if n is not None:
        ident = eye(n, dtype=dt)
    else:  # the size is known only when the graph runs
        size = _ops.shape(x, out_type="int32")[-1]
        ident = _ops.one_hot(_ops.range(np.int32(0), size, np.int32(1)), size, _scalar(1, dt), _scalar(0, dt))
    ident = _ops.add_v2(_ops.zeros_like(x), ident)
    b = [_scalar(c, dt) for c in _PADE13]
    x2 = matmul(x, x)
    x4 = matmul(x2, x2)
    x6 = matmul(x4, x2)

    def comb(*terms):
        out = None
        for coef, mat in terms:
            t = _ops.mul(mat, coef)
            out = t if out is None else _ops.add_v2(out, t)
        return out

    u = matmul(x, _ops.add_v2(matmul(x6, comb((b[13], x6), (b[11], x4), (b[9], x2))),
                              comb((b[7], x6), (b[5], x4), (b[3], x2), (b[1], ident))))
    v = _ops.add_v2(matmul(x6, comb((b[12], x6), (b[10], x4), (b[8], x2))),
                    comb((b[6], x6), (b[4], x4), (b[2], x2), (b[0], ident)))
    r = solve(_ops.sub(v, u), _ops.add_v2(v, u))
    steps = cast(reduce_max(s), "int32") if s.shape.rank else cast(s, "int32")
    mask_s = expand_dims(expand_dims(s, -1), -1)

    def body(i, r):
        sq = matmul(r, r)
        return i + 1, _ops.select_v2(_ops.less(cast(i, dt), mask_s), sq, r)

    _, r = while_loop(lambda i, r: _ops.less(i, steps), body, [np.int32(0), r])
    return _ops.identity(r, name=name)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of matrix @ x = rhs (tf.linalg.lstsq, tf.matrix_solve_ls):
    with fast, the regularized normal equations through Cholesky (TensorFlow's fast path:
    (A^T A + l2 I)^-1 A^T b for tall A, A^T (A A^T + l2 I)^-1 b for wide A); without, a QR
    solve (unregularized; full column rank)."""
    a = _as_tensor(matrix)
    b = _as_tensor(rhs, a.dtype)
    m, n = _matrix_dims(a, "MatrixSolveLs")
    if b.shape.rank is not None and b.shape.rank < 2:
        raise InvalidArgumentError(f"MatrixSolveLs: rhs must have rank >= 2, got shape {b.shape}", "MatrixSolveLs")
    if m is not None and b.shape.rank is not None and b.shape[-2] is not None and b.shape[-2] != m:
        raise InvalidArgumentError(
            f"MatrixSolveLs: matrix and rhs must have the same number of rows, got {a.shape} and {b.shape}",
            "MatrixSolveLs")
    if m is None or n is None:
        raise InvalidArgumentError("MatrixSolveLs: the matrix dimensions must be known", "MatrixSolveLs")
    l2 = _as_tensor(l2_regularizer, a.dtype)
    if not fast:
        if m < n:
            raise InvalidArgumentError("MatrixSolveLs: fast=False needs rows >= columns", "MatrixSolveLs")
        q, r = qr(a)
        return triangular_solve(r, matmul(q, b, adjoint_a=True), lower=False, name=name)
    if m >= n:
        gram = _ops.add_v2(matmul(a, a, adjoint_a=True), _ops.mul(eye(n, dtype=a.dtype), l2))
        return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True), name=name)
    gram = _ops.add_v2(matmul(a, a, adjoint_b=True), _ops.mul(eye(m, dtype=a.dtype), l2))
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True, name=name)


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last dimension (tf.linalg.cross)."""
    a = _as_tensor(a)
    b = _as_tensor(b, a.dtype)
    for t in (a, b):
        if t.shape.rank == 0 or (t.shape.rank is not None and t.shape[-1] not in (None, 3)):
            raise InvalidArgumentError(f"Cross: the last dimension must be 3, got shapes {a.shape} and {b.shape}",
                                       "Cross")
    if a.shape.is_fully_defined() and b.shape.is_fully_defined() and a.shape != b.shape:
        raise InvalidArgumentError(f"Cross: a and b must have the same shape, got {a.shape} and {b.shape}", "Cross")
    ax, ay, az = (a[..., i] for i in range(3))
    bx, by, bz = (b[..., i] for i in range(3))
    return stack([_ops.sub(_ops.mul(ay, bz), _ops.mul(az, by)), _ops.sub(_ops.mul(az, bx), _ops.mul(ax, bz)),
                  _ops.sub(_ops.mul(ax, by), _ops.mul(ay, bx))], axis=-1, name=name)


def _three_diagonals(diagonals, diagonals_format, op):
    """(superdiagonal, diagonal, subdiagonal), each [..., M], from TensorFlow's three formats."""
    if diagonals_format == "sequence":
        sup, main, sub = (_as_tensor(d) for d in diagonals)
    elif diagonals_format == "compact":
        d = _as_tensor(diagonals)
        if d.shape.rank is not None and (d.shape.rank < 2 or d.shape[-2] not in (None, 3)):
            raise InvalidArgumentError(f"{op}: compact diagonals must be [..., 3, M], got {d.shape}",
                                       op)
        sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    elif diagonals_format == "matrix":
        mat = _as_tensor(diagonals)
        m, n = _matrix_dims(mat, op, square=True)
        if m is None:
            raise InvalidArgumentError(f"{op}: the matrix size must be known", op)
        dt = mat.dtype.as_numpy_dtype
        # row i of each mask picks mat[i, i + k]: the superdiagonal ends, the subdiagonal starts, with 0
        sup, main, sub = (reduce_sum(_ops.mul(mat, np.eye(m, k=k, dtype=dt)), -1) for k in (1, 0, -1))
    else:
        raise InvalidArgumentError(f"{op}: unknown diagonals_format {diagonals_format!r}",
                                   op)
    return sup, main, sub


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """A tridiagonal matrix times rhs (tf.linalg.tridiagonal_matmul). diagonals: "compact"
    [..., 3, M] (superdiagonal, diagonal, subdiagonal; the superdiagonal's last and the
    subdiagonal's first element are ignored), "sequence" (the three [..., M] tensors) or
    "matrix" ([..., M, M], its three diagonals used)."""
    sup, main, sub = _three_diagonals(diagonals, diagonals_format, "TridiagonalMatMul")
    b = _as_tensor(rhs, main.dtype)
    zero_row = _ops.zeros_like(b[..., :1, :])
    up = concat([b[..., 1:, :], zero_row], -2)  # row i: rhs[i + 1]
    down = concat([zero_row, b[..., :-1, :]], -2)  # row i: rhs[i - 1]
    col = lambda v: expand_dims(v, -1)  # noqa: E731
    out = _ops.add_v2(_ops.add_v2(_ops.mul(col(main), b), _ops.mul(col(sup), up)), _ops.mul(col(sub), down))
    return _ops.identity(out, name=name)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False, name=None,
                      partial_pivoting=True, perturb_singular=False):
    """x with tridiagonal(diagonals) @ x = rhs (tf.linalg.tridiagonal_solve); rhs is [..., M, K]
    (or [..., K, M] with transpose_rhs, the result then transposed alike) or a vector [..., M].
    The system is solved densely by MatrixSolve (LU with partial pivoting, whatever
    partial_pivoting says); a singular system is an error (perturb_singular is not offered;
    conjugate_rhs does nothing for real dtypes)."""
    del partial_pivoting, conjugate_rhs
    if perturb_singular:
        raise InvalidArgumentError("TridiagonalSolve: perturb_singular=True is not supported", "TridiagonalSolve")
    sup, main, sub = _three_diagonals(diagonals, diagonals_format, "TridiagonalSolve")
    m = main.shape[-1] if main.shape.rank is not None else None
    if m is None:
        raise InvalidArgumentError("TridiagonalSolve: the matrix size must be known", "TridiagonalSolve")
    dt = main.dtype.as_numpy_dtype
    col = lambda v: expand_dims(v, -1)  # noqa: E731
    mat = _ops.add_v2(_ops.add_v2(_ops.mul(col(main), np.eye(m, dtype=dt)), _ops.mul(col(sup), np.eye(m, k=1, dtype=dt))),
                      _ops.mul(col(sub), np.eye(m, k=-1, dtype=dt)))
    b = _as_tensor(rhs, main.dtype)
    vector = b.shape.rank is not None and b.shape.rank == main.shape.rank
    if vector:
        b = expand_dims(b, -1)
    elif transpose_rhs:
        b = _ops.transpose(b, _last_two_swapped(b))
    x = solve(mat, b)
    if vector:
        return squeeze(x, [-1], name=name)
    if transpose_rhs:
        x = _ops.transpose(x, _last_two_swapped(x))
    return _ops.identity(x, name=name)


def _last_two_swapped(x):
    r = x.shape.rank
    return np.array(list(range(r - 2)) + [r - 1, r - 2], np.int32)


def lu(input, output_idx_type="int32", name=None):  # noqa: A002 (TensorFlow's names)
    """(lu, p): the LU factorization with partial pivoting of each matrix (tf.linalg.lu, the op
    Lu): input[..., p, :] = L @ U, L unit lower triangular, both packed in lu."""
    return tuple(_ops.lu(_as_tensor(input), output_idx_type=output_idx_type, name=name))


def _lu_parts(lower_upper, perm, op):
    """L, U and the permutation matrix P (P a = L U) of lu's output."""
    lu_ = _as_tensor(lower_upper)
    _, n = _matrix_dims(lu_, op, square=True)
    if n is None:
        raise InvalidArgumentError(f"{op}: the matrix size must be known", op)
    dt = lu_.dtype.as_numpy_dtype
    lower = _ops.add_v2(_ops.mul(lu_, np.tril(np.ones((n, n)), -1).astype(dt)), np.eye(n, dtype=dt))
    upper = _ops.mul(lu_, np.triu(np.ones((n, n))).astype(dt))
    p = _as_tensor(perm)
    if p.dtype.is_floating:
        raise InvalidArgumentError(f"{op}: perm must be an integer tensor, got {p.dtype.name}", op)
    pmat = _ops.one_hot(p, np.int32(n), np.asarray(1, dt), np.asarray(0, dt))  # pmat[i, j] = [j == perm[i]]
    return lower, upper, pmat


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix whose LU factorization is (lower_upper, perm) (tf.linalg.lu_reconstruct):
    P^T L U."""
    del validate_args
    lower, upper, pmat = _lu_parts(lower_upper, perm, "lu_reconstruct")
    return matmul(pmat, matmul(lower, upper), adjoint_a=True, name=name)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """x with a @ x = rhs, a given by its LU factorization (tf.linalg.lu_solve): two triangular
    solves of L U x = P rhs."""
    del validate_args
    lower, upper, pmat = _lu_parts(lower_upper, perm, "lu_solve")
    b = matmul(pmat, _as_tensor(rhs, lower.dtype))
    y = triangular_solve(lower, b, lower=True)
    return triangular_solve(upper, y, lower=False, name=name)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix with LU factorization (lower_upper, perm)
    (tf.linalg.lu_matrix_inverse)."""
    del validate_args
    lu_ = _as_tensor(lower_upper)
    _, n = _matrix_dims(lu_, "lu_matrix_inverse", square=True)
    ident = _ops.add_v2(_ops.zeros_like(lu_), np.eye(n or 0, dtype=lu_.dtype.as_numpy_dtype))
    return lu_solve(lu_, perm, ident, name=name)
