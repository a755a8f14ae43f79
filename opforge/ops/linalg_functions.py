"""Matrix functions of tf.linalg: sqrtm (the MatrixSquareRoot op: real Schur decomposition and a
blockwise triangular square root, opdefs/linalg/matrix_square_root.pbtxt) and eigh_tridiagonal.

eigh_tridiagonal forms the symmetric tridiagonal matrix and takes its eigen decomposition with
SelfAdjointEigV2 (LAPACK syevd), then selects the eigenvalues asked for. TensorFlow instead
bisects on Sturm sequences and finds the vectors by inverse iteration, O(n^2) against O(n^3)
here; the eigenvalues agree to rounding, the eigenvectors up to their signs (defined up to sign
in both)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from .array_ops import boolean_mask, expand_dims
from .linalg_decompositions import eigh, eigvalsh
from .math_ops import _as_tensor

__all__ = ["sqrtm", "eigh_tridiagonal"]


def sqrtm(input, name=None):  # noqa: A002 (TensorFlow's name)
    """The principal square root of each square matrix of input (tf.linalg.sqrtm; TF1's
    tf.matrix_square_root): matmul(sqrtm(A), sqrtm(A)) = A. A real negative eigenvalue gives NaNs."""
    return _ops.matrix_square_root(input, name=name)


def _check_select(select, select_range, n):
    if select not in ("a", "v", "i"):
        raise ValueError(f"eigh_tridiagonal: select must be 'a', 'v' or 'i', got {select!r}")
    if select == "a":
        return None
    lo, hi = np.ravel(np.asarray(select_range.numpy() if hasattr(select_range, "numpy") else select_range))[:2] \
        if select_range is not None else (None, None)
    if lo is None or len(np.ravel(select_range)) != 2:
        raise ValueError(f"eigh_tridiagonal: select={select!r} needs a select_range of two values, got "
                         f"{select_range!r}")
    if select == "i":
        lo, hi = int(lo), int(hi)
        if not 0 <= lo <= hi < n:
            raise ValueError(f"eigh_tridiagonal: select_range must be indices 0 <= lo <= hi < {n}, got "
                             f"{[lo, hi]}")
    return lo, hi


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """The eigenvalues (ascending), and with eigvals_only=False the eigenvectors (as columns), of
    the real symmetric tridiagonal matrix with diagonal alpha [n] and off-diagonal beta [n - 1]
    (tf.linalg.eigh_tridiagonal). select: "a" all, "v" those in the interval (lo, hi] of
    select_range, "i" those with indices lo..hi (inclusive). tol is accepted for TensorFlow's
    bisection and not needed by the direct decomposition."""
    del tol
    a = _as_tensor(alpha)
    b = _as_tensor(beta, a.dtype)
    if a.dtype.name not in ("float32", "float64"):
        raise InvalidArgumentError(f"eigh_tridiagonal: alpha must be float32 or float64, got {a.dtype.name}",
                                   "EighTridiagonal")
    if a.shape.rank != 1 or b.shape.rank != 1:
        raise ValueError(f"eigh_tridiagonal: alpha and beta must be vectors, got shapes {a.shape} and {b.shape}")
    n = a.shape[0]
    if n is None or b.shape[0] not in (None, n - 1):
        raise ValueError(f"eigh_tridiagonal: beta must have n - 1 = {None if n is None else n - 1} elements "
                         f"for an alpha of {n}, got shape {b.shape}")
    picked = _check_select(select, select_range, n)
    dt = a.dtype.as_numpy_dtype
    off = _ops.pad(b, np.asarray([[0, 1]], np.int64))  # beta[i] at (i, i + 1) and (i + 1, i)
    col = lambda v: expand_dims(v, -1)  # noqa: E731
    upper = _ops.mul(col(off), np.eye(n, k=1, dtype=dt))
    t = _ops.add_v2(_ops.add_v2(_ops.mul(col(a), np.eye(n, dtype=dt)), upper), _ops.transpose(upper, [1, 0]))
    if eigvals_only:
        values, vectors = eigvalsh(t), None
    else:
        values, vectors = eigh(t)
    if picked is not None:
        if select == "i":
            idx = np.arange(picked[0], picked[1] + 1, dtype=np.int32)
            values = _ops.gather_v2(values, idx, np.int32(0))
            vectors = None if vectors is None else _ops.gather_v2(vectors, idx, np.int32(1))
        else:
            inside = _ops.logical_and(_ops.greater(values, np.asarray(picked[0], dt)),
                                      _ops.less_equal(values, np.asarray(picked[1], dt)))
            values = boolean_mask(values, inside)
            vectors = None if vectors is None else boolean_mask(vectors, inside, axis=1)
    if eigvals_only:
        return _ops.identity(values, name=name)
    return _ops.identity(values, name=name), vectors
