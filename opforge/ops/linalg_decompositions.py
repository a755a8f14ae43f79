"""TensorFlow 2's tf.linalg functions over the linear-algebra ops (opdefs/linalg/): inverses,
determinants, solves, Cholesky, QR, eigen and singular value decompositions, with TF's names
and signatures (``of.linalg.inv``, ``of.linalg.svd`` ...), plus the few tf.linalg functions
built from them (logdet, cholesky_solve, adjoint, band_part).

The ops themselves are the generated wrappers (``of.ops.matrix_inverse``, ``of.ops.svd`` ...);
these functions only spell them as TensorFlow's Python API does (tf.linalg.svd returns s alone
without compute_uv, eigh returns the pair, eigvalsh the values)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.tensor import convert_to_tensor
from .math_ops import reduce_sum
from .matrix_diag_band import matrix_band_part


def _as_tensor(v):
    return v if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)) else convert_to_tensor(v)


def inv(input, adjoint=False, name=None):  # noqa: A002 (TensorFlow's names)
    """The inverse of each square matrix of input, or of its adjoint (tf.linalg.inv; TF1's
    tf.matrix_inverse). An exactly singular matrix is an InvalidArgumentError."""
    return _ops.matrix_inverse(input, adjoint=adjoint, name=name)


def det(input, name=None):  # noqa: A002
    """The determinant of each square matrix of input (tf.linalg.det; tf.matrix_determinant)."""
    return _ops.matrix_determinant(input, name=name)


def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of each square matrix of input (tf.linalg.slogdet;
    tf.log_matrix_determinant): det = sign * exp(log_abs_determinant), without overflow."""
    return _ops.log_matrix_determinant(input, name=name)


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor L (input = L L^T) of each symmetric positive-definite
    matrix; only the lower triangle is read (tf.linalg.cholesky; tf.cholesky)."""
    return _ops.cholesky(input, name=name)


def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix X = rhs (adjoint(matrix) X = rhs with adjoint) for each matrix of the batch
    (tf.linalg.solve; tf.matrix_solve)."""
    return _ops.matrix_solve(matrix, rhs, adjoint=adjoint, name=name)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix X = rhs for triangular matrices (the other triangle is not read); the batch
    dims broadcast (tf.linalg.triangular_solve; tf.matrix_triangular_solve)."""
    return _ops.matrix_triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint, name=name)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """(q, r) with input = q r, q orthonormal and r upper triangular (tf.linalg.qr; tf.qr)."""
    return _ops.qr(input, full_matrices=full_matrices, name=name)


def eigh(tensor, name=None):
    """(e, v): the eigenvalues (ascending) and eigenvectors (columns of v) of each self-adjoint
    matrix; only the lower triangle is read (tf.linalg.eigh; tf.self_adjoint_eig)."""
    return _ops.self_adjoint_eig_v2(tensor, compute_v=True, name=name)


def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of each self-adjoint matrix (tf.linalg.eigvalsh;
    tf.self_adjoint_eigvals)."""
    e, _ = _ops.self_adjoint_eig_v2(tensor, compute_v=False, name=name)
    return e


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular value decomposition tensor = u diag(s) v^T (tf.linalg.svd; tf.svd): (s, u, v)
    with compute_uv, else s alone. s is in decreasing order."""
    s, u, v = _ops.svd(tensor, compute_uv=compute_uv, full_matrices=full_matrices, name=name)
    return (s, u, v) if compute_uv else s


def adjoint(matrix, name=None):
    """The (conjugate) transpose of each matrix: its last two dims swapped (tf.linalg.adjoint)."""
    from .array_ops import matrix_transpose  # noqa: PLC0415 (array_ops imports this package)
    return matrix_transpose(matrix, name=name or "adjoint")


def logdet(matrix, name=None):
    """log(det(matrix)) of each Hermitian positive-definite matrix, from its Cholesky factor:
    2 * sum(log(diag(L))) (tf.linalg.logdet)."""
    chol = _ops.cholesky(matrix)
    from .linalg_ops import diag_part  # noqa: PLC0415
    two = np.asarray(2, chol.dtype.as_numpy_dtype)
    return _ops.mul(two, reduce_sum(_ops.log(diag_part(chol)), -1), name=name)


def cholesky_solve(chol, rhs, name=None):
    """X with A X = rhs, given A's Cholesky factor chol (tf.linalg.cholesky_solve;
    tf.cholesky_solve): two triangular solves, L y = rhs and L^T X = y."""
    y = _ops.matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
    return _ops.matrix_triangular_solve(chol, y, lower=True, adjoint=True, name=name)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Each matrix with everything outside a band set to 0 (tf.linalg.band_part;
    tf.matrix_band_part): the MatrixBandPart op (matrix_diag_band.py)."""
    return matrix_band_part(input, num_lower, num_upper, name=name)


__all__ = ["adjoint", "band_part", "cholesky", "cholesky_solve", "det", "eigh", "eigvalsh", "inv", "logdet",
           "qr", "slogdet", "solve", "svd", "triangular_solve"]
