"""``of.linalg``: TensorFlow's tf.linalg namespace over opforge's functions (matrix products,
norms, diagonals, identity matrices)."""

from __future__ import annotations

from .array_ops import matrix_transpose
from .clip_ops import global_norm
from .einsum_ops import einsum
from .linalg_ops import diag, diag_part, eye, norm, tensor_diag, tensor_diag_part, trace
from .math_ops import matmul, tensordot

__all__ = ["diag", "diag_part", "einsum", "eye", "global_norm", "matmul", "matrix_transpose", "norm",
           "tensor_diag", "tensor_diag_part", "tensordot", "trace"]
