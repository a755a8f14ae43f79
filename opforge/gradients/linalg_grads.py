"""Gradients of the linear-algebra ops whose formulas do not fit one expression (their opdefs
name them with ``gradient_fn``): TensorFlow's formulas from its linalg_grad.py, built from the
generated wrappers only, so they work eagerly and in graphs.

The matrices are the last two dims of each tensor; the helpers below give TensorFlow's matrix
functions (band_part, matrix_diag, matrix_set_diag, eye) over opforge's elementwise ops, with
static masks where the matrix size is known and masks computed at run time where it is not.
"""

from __future__ import annotations

import numpy as np

from ..framework.errors import UnimplementedError
from .helpers import unbroadcast


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


# ------------------------------------------------------------------------------ matrix helpers


def _np_dtype(x):
    return x.dtype.as_numpy_dtype


def _last_dim(x):
    """The size of x's last dim: an int when known when the graph is built, else a scalar
    int32 tensor."""
    dims = x.shape.dims if hasattr(x.shape, "dims") else list(x.shape)
    if dims is not None and dims[-1] is not None:
        return int(dims[-1])
    ops = _ops()
    return ops.reshape(ops.strided_slice(ops.shape(x, out_type="int32"), np.array([-1], np.int32),
                                         np.array([0], np.int32), np.array([1], np.int32), end_mask=1),
                       np.array([], np.int32))


def _index_mask(n, compare):
    """The bool [n, n] mask compare(i, j) (i the row, j the column; compare the name of a NumPy
    function and of the op wrapper alike: "greater_equal", "less_equal", "equal"), from NumPy
    when n is an int, else computed when the graph runs."""
    if isinstance(n, int):
        i, j = np.indices((n, n))
        return getattr(np, compare)(i, j)
    ops = _ops()
    r = ops.range(np.int32(0), n, np.int32(1))
    return getattr(ops, compare)(ops.expand_dims(r, np.int32(-1)), ops.expand_dims(r, np.int32(0)))


def _lower_mask(n):
    return _index_mask(n, "greater_equal")


def _upper_mask(n):
    return _index_mask(n, "less_equal")


def _eye_mask(n):
    return _index_mask(n, "equal")


def _where(mask, x, y):
    return _ops().select_v2(mask, x, y)


def band_lower(x):
    """tf.linalg.band_part(x, -1, 0): the lower triangle of each matrix, zeros above."""
    return _where(_lower_mask(_last_dim(x)), x, _ops().zeros_like(x))


def band_upper(x):
    """tf.linalg.band_part(x, 0, -1): the upper triangle of each matrix, zeros below."""
    return _where(_upper_mask(_last_dim(x)), x, _ops().zeros_like(x))


def eye_like(x):
    """The identity matrix of x's last dim, in x's dtype."""
    mask = _eye_mask(_last_dim(x))
    if isinstance(mask, np.ndarray):
        return mask.astype(_np_dtype(x))
    return _ops().cast(mask, x.dtype)


def matrix_diag(d):
    """tf.linalg.diag: [..., n] -> [..., n, n] with d on the diagonals."""
    ops = _ops()
    return ops.mul(ops.expand_dims(d, np.int32(-2)), eye_like(d))


def matrix_diag_part(x):
    """tf.linalg.diag_part of square matrices: [..., n, n] -> [..., n]."""
    ops = _ops()
    return ops.sum(ops.mul(x, eye_like(x)), np.int32(-1))


def matrix_set_diag(x, d):
    """tf.linalg.set_diag of square matrices: x with its diagonals replaced by d."""
    return _where(_eye_mask(_last_dim(x)), matrix_diag(d), x)


def adjoint(x):
    """The (conjugate) transpose of each matrix: its last two dims swapped."""
    ops = _ops()
    rank = x.shape.rank if hasattr(x.shape, "rank") else len(x.shape)
    if rank is not None:
        perm = np.array(list(range(rank - 2)) + [rank - 1, rank - 2], np.int32)
    else:
        r = ops.rank(x)
        perm = ops.concat_v2([ops.range(np.int32(0), ops.sub(r, np.int32(2)), np.int32(1)),
                              ops.expand_dims(ops.sub(r, np.int32(1)), np.int32(0)),
                              ops.expand_dims(ops.sub(r, np.int32(2)), np.int32(0))], np.int32(0))
    return ops.transpose(x, perm)


def matmul(a, b, adjoint_a=False, adjoint_b=False):
    return _ops().batch_mat_mul_v2(a, b, adj_x=adjoint_a, adj_y=adjoint_b)


def _scalar(x, v):
    return np.asarray(v, _np_dtype(x))


def _safe_reciprocal(x, epsilon=1e-20):
    """x / (x^2 + eps): TensorFlow's Lorentz broadening of 1/x near 0 (degenerate spectra)."""
    ops = _ops()
    return ops.mul(x, ops.reciprocal(ops.add_v2(ops.mul(x, x), _scalar(x, epsilon))))


def _or_zeros(g, like):
    return g if g is not None else _ops().zeros_like(like)


def _last_slice(x, begin, end):
    """x[..., begin:end] for ints (x's rank known)."""
    ops = _ops()
    rank = x.shape.rank
    b = np.zeros(rank, np.int64)
    b[-1] = begin
    size = np.full(rank, -1, np.int64)
    size[-1] = end - begin
    return ops.slice(x, b, size)


def _static_matrix_dims(x, what):
    dims = x.shape.dims if hasattr(x.shape, "dims") else list(x.shape)
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise UnimplementedError(f"{what} gradient is not implemented for matrices of unknown size, "
                                 f"got shape {x.shape}", what)
    return int(dims[-2]), int(dims[-1])


# ------------------------------------------------------------------------------ gradients


def cholesky_grad(op, grads):
    """TensorFlow's _CholeskyGrad (Murray, 2016): the gradient w.r.t. a symmetric input."""
    ops = _ops()
    l_ = op.outputs[0]
    grad = _or_zeros(grads[0], l_)
    l_inverse = ops.matrix_triangular_solve(l_, eye_like(l_))  # the batch dims broadcast
    middle = matmul(l_, grad, adjoint_a=True)
    # band_part(set_diag(middle, diag_part(middle) / 2), -1, 0) in one mask
    n = _last_dim(l_)
    half_diagonal = _where(_eye_mask(n), ops.mul(middle, _scalar(middle, 0.5)), middle)
    middle = band_lower(half_diagonal)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    return [ops.mul(ops.add_v2(grad_a, adjoint(grad_a)), _scalar(grad_a, 0.5))]


def matrix_solve_grad(op, grads):
    """TensorFlow's _MatrixSolveGrad."""
    ops = _ops()
    a = op.inputs[0]
    c = op.outputs[0]
    adj = op.attrs["adjoint"]
    grad_b = ops.matrix_solve(a, _or_zeros(grads[0], c), adjoint=not adj)
    grad_a = matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True)
    return [ops.neg(grad_a), grad_b]


def matrix_triangular_solve_grad(op, grads):
    """TensorFlow's _MatrixTriangularSolveGrad: the gradient of the triangle that is read,
    summed over broadcast batch dims."""
    ops = _ops()
    a, b = op.inputs
    c = op.outputs[0]
    adj, lower = op.attrs["adjoint"], op.attrs["lower"]
    grad_b = ops.matrix_triangular_solve(a, _or_zeros(grads[0], c), lower=lower, adjoint=not adj)
    grad_a = ops.neg(matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True))
    grad_a = band_lower(grad_a) if lower else band_upper(grad_a)
    return [unbroadcast(grad_a, a), unbroadcast(grad_b, b)]


def qr_grad(op, grads):
    """TensorFlow's _QrGrad: full_matrices false (any shape), or M <= N."""
    ops = _ops()
    a = op.inputs[0]
    q, r = op.outputs
    dq, dr = _or_zeros(grads[0], q), _or_zeros(grads[1], r)
    m, n = _static_matrix_dims(a, "Qr")
    if m > n and op.attrs["full_matrices"]:
        raise UnimplementedError("QrGrad not implemented when nrows > ncols and full_matrices is true "
                                 f"(got a {m} x {n} input)", "Qr")

    def triangular_solve(x, r_):  # x r^-1: solve r^H y = x^H
        return adjoint(ops.matrix_triangular_solve(r_, adjoint(x), lower=False, adjoint=False))

    def square_and_deep(q_, r_, dq_, dr_):
        qdq = matmul(q_, dq_, adjoint_a=True)
        qdq_ = ops.sub(qdq, adjoint(qdq))
        rdr = matmul(r_, dr_, adjoint_b=True)
        rdr_ = ops.sub(rdr, adjoint(rdr))
        tril = band_lower(ops.add_v2(qdq_, rdr_))
        grad_a = matmul(q_, ops.add_v2(dr_, triangular_solve(tril, r_)))
        grad_b = triangular_solve(ops.sub(dq_, matmul(q_, qdq)), r_)
        return ops.add_v2(grad_a, grad_b)

    if m >= n:
        return [square_and_deep(q, r, dq, dr)]
    # a = [x, y], r = [u, v]: the square case for x, and y's part through q.
    y = _last_slice(a, m, n)
    u = _last_slice(r, 0, m)
    dv = _last_slice(dr, m, n)
    du = _last_slice(dr, 0, m)
    dy = matmul(q, dv)
    dx = square_and_deep(q, u, ops.add_v2(dq, matmul(y, dv, adjoint_b=True)), du)
    return [ops.concat_v2([dx, dy], np.int32(-1))]


def self_adjoint_eig_v2_grad(op, grads):
    """TensorFlow's _SelfAdjointEigV2Grad: the gradient of the lower triangle that is read."""
    ops = _ops()
    a = op.inputs[0]
    e = op.outputs[0]
    grad_e = _or_zeros(grads[0], e)
    if op.attrs["compute_v"]:
        v = op.outputs[1]
        grad_v = _or_zeros(grads[1], v)
        # f[i, j] = 1 / (e_j - e_i) off the diagonal, 0 on it
        f = matrix_set_diag(_safe_reciprocal(ops.sub(ops.expand_dims(e, np.int32(-2)),
                                                     ops.expand_dims(e, np.int32(-1)))),
                            ops.zeros_like(e))
        inner = ops.add_v2(matrix_diag(grad_e), ops.mul(f, matmul(v, grad_v, adjoint_a=True)))
        grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
    else:
        _, v = ops.self_adjoint_eig_v2(a, compute_v=True)
        grad_a = matmul(v, matmul(matrix_diag(grad_e), v, adjoint_b=True))
    grad_a = band_lower(ops.add_v2(grad_a, adjoint(grad_a)))
    return [matrix_set_diag(grad_a, ops.mul(matrix_diag_part(grad_a), _scalar(grad_a, 0.5)))]


def svd_grad(op, grads):
    """TensorFlow's _SvdGrad: compute_uv false, full_matrices false, or |M - N| <= 1."""
    ops = _ops()
    a = op.inputs[0]
    s = op.outputs[0]
    grad_s = _or_zeros(grads[0], s)
    grad_s_mat = matrix_diag(grad_s)
    if not op.attrs["compute_uv"]:
        _, u, v = ops.svd(a, compute_uv=True)
        return [matmul(u, matmul(grad_s_mat, v, adjoint_b=True))]
    full = op.attrs["full_matrices"]
    m, n = _static_matrix_dims(a, "Svd")
    u, v = op.outputs[1], op.outputs[2]
    grad_u, grad_v = _or_zeros(grads[1], u), _or_zeros(grads[2], v)
    use_adjoint = m > n
    if use_adjoint:  # the gradient of a^H = v s u^H, transposed at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full and abs(m - n) > 1:
        raise UnimplementedError("svd gradient is not implemented for abs(m - n) > 1 when full_matrices is "
                                 f"True (got m={m}, n={n})", "Svd")
    s_mat = matrix_diag(s)
    s2 = ops.mul(s, s)
    f = matrix_set_diag(_safe_reciprocal(ops.sub(ops.expand_dims(s2, np.int32(-2)),
                                                  ops.expand_dims(s2, np.int32(-1)))),
                        ops.zeros_like(s))
    s_inv_mat = matrix_diag(_safe_reciprocal(s))
    v1 = _last_slice(v, 0, m)
    grad_v1 = _last_slice(grad_v, 0, m)
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u = ops.mul(f, u_gu)
    f_v = ops.mul(f, v_gv)
    term1_nouv = ops.add_v2(ops.add_v2(grad_s_mat, matmul(ops.add_v2(f_u, adjoint(f_u)), s_mat)),
                            matmul(s_mat, ops.add_v2(f_v, adjoint(f_v))))
    grad_a = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        term2_nous = ops.sub(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full:
            v2 = _last_slice(v, m, n)
            grad_v2 = _last_slice(grad_v, m, n)
            term2_nous = ops.sub(term2_nous, matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True))
        grad_a = ops.add_v2(grad_a, matmul(matmul(u, s_inv_mat), term2_nous))
    return [adjoint(grad_a) if use_adjoint else grad_a]


__all__ = ["cholesky_grad", "matrix_solve_grad", "matrix_triangular_solve_grad", "qr_grad",
           "self_adjoint_eig_v2_grad", "svd_grad"]


def lu_grad(op, grads):
    """The LU backpropagation for square matrices (TensorFlow's _LuGrad): with P a = L U,
    a_bar = P^T L^-H (tril_strict(L^H L_bar) + triu(U_bar U^H)) U^-H, L_bar and U_bar the strictly
    lower and the upper parts of lu's gradient. p has no gradient."""
    ops = _ops()
    a = op.inputs[0]
    lu, p = op.outputs
    dlu = _or_zeros(grads[0], lu)
    n = _static_matrix_dims(a, "Lu")[1]
    dt = _np_dtype(a)
    strict = np.tril(np.ones((n, n)), -1).astype(dt)
    upper = np.triu(np.ones((n, n))).astype(dt)
    lower = ops.add_v2(ops.mul(lu, strict), np.eye(n, dtype=dt))
    upp = ops.mul(lu, upper)
    middle = ops.add_v2(ops.mul(matmul(lower, ops.mul(dlu, strict), adjoint_a=True), strict),
                        ops.mul(matmul(ops.mul(dlu, upper), upp, adjoint_b=True), upper))
    x = ops.matrix_triangular_solve(lower, middle, lower=True, adjoint=True)  # L^-H middle
    perm_grad = adjoint(ops.matrix_triangular_solve(upp, adjoint(x), lower=False, adjoint=False))  # x U^-H
    perm = ops.one_hot(p, np.int32(n), np.asarray(1, dt), np.asarray(0, dt))  # perm[i, j] = [j == p[i]]
    return [matmul(perm, perm_grad, adjoint_a=True)]


def matrix_square_root_grad(op, grads):
    """TensorFlow's _MatrixSquareRootGrad: with R = sqrtm(A), dA = R dR + dR R, so the gradient
    G of A solves the Sylvester equation R^T G + G R^T = grad, solved as the Kronecker system
    (R^T (x) I + I (x) R) vec(G) = vec(grad) (vec row by row)."""
    ops = _ops()
    r = op.outputs[0]
    g = _or_zeros(grads[0], r)
    n = _static_matrix_dims(r, "MatrixSquareRoot")[1]
    dt = _np_dtype(r)
    batch = r.shape.as_list()[:-2] if r.shape.rank is not None else None
    if batch is None or any(d is None for d in batch):
        raise UnimplementedError("MatrixSquareRoot's gradient needs the batch shape when the graph is built",
                                 "MatrixSquareRoot")
    eye = np.eye(n, dtype=dt)

    def kron(a, b):
        prod = ops.mul(ops.reshape(a, np.asarray(batch + [n, 1, n, 1], np.int64)),
                       ops.reshape(b, np.asarray(batch + [1, n, 1, n], np.int64)))
        return ops.reshape(prod, np.asarray(batch + [n * n, n * n], np.int64))

    k = ops.add_v2(kron(adjoint(r), ops.broadcast_to(eye, np.asarray(batch + [n, n], np.int64))),
                   kron(ops.broadcast_to(eye, np.asarray(batch + [n, n], np.int64)), r))
    vec = ops.matrix_solve(k, ops.reshape(g, np.asarray(batch + [n * n, 1], np.int64)))
    return [ops.reshape(vec, np.asarray(batch + [n, n], np.int64))]
