"""``of.linalg``: TensorFlow's tf.linalg namespace over opforge's functions (matrix products,
norms, diagonals, identity matrices, inverses, solves and decompositions)."""

from __future__ import annotations

from .array_ops import matrix_transpose
from .clip_ops import global_norm
from .einsum_ops import einsum
from .linalg_decompositions import (
    adjoint, band_part, cholesky, cholesky_solve, det, eigh, eigvalsh, inv, logdet, qr, slogdet, solve, svd,
    triangular_solve,
)
from .linalg_compositions import (
    cross, expm, lstsq, lu, lu_matrix_inverse, lu_reconstruct, lu_solve, matrix_rank, matvec, normalize, pinv,
    tridiagonal_matmul, tridiagonal_solve,
)
from .linalg_ops import diag, diag_part, eye, norm, set_diag, tensor_diag, tensor_diag_part, trace
from .math_ops import matmul, tensordot

__all__ = ["adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag", "diag_part", "eigh", "eigvalsh",
           "expm", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matrix_rank", "matvec", "normalize", "pinv", "tridiagonal_matmul", "tridiagonal_solve",
           "einsum", "eye", "global_norm", "inv", "logdet", "matmul", "matrix_transpose", "norm", "qr", "slogdet",
           "set_diag", "solve", "svd", "tensor_diag", "tensor_diag_part", "tensordot", "trace", "triangular_solve"]

# tf.linalg.LinearOperator and its subclasses (opforge/ops/linear_operator*.py)
from .linear_operator import LinearOperator  # noqa: E402
from .linear_operator_basic import *  # noqa: E402,F401,F403
from .linear_operator_composite import *  # noqa: E402,F401,F403
from .linear_operator_structured import *  # noqa: E402,F401,F403
from . import linear_operator_basic as _lob, linear_operator_composite as _loc, linear_operator_structured as _los  # noqa: E402

__all__ += ["LinearOperator"] + _lob.__all__ + _loc.__all__ + _los.__all__
from .linalg_functions import eigh_tridiagonal, sqrtm  # noqa: E402

__all__ += ["eigh_tridiagonal", "sqrtm"]
