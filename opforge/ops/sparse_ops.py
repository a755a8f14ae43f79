"""``of.sparse``: TensorFlow's tf.sparse namespace as far as opforge has it: SparseTensor, sparse
tensors to dense ones (tf.sparse.to_dense, TF1's tf.sparse_tensor_to_dense) over the
SparseToDense op, and tf.sparse.reorder (TF1's tf.sparse_reorder) over SparseReorder."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.api import constant
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["SparseTensor", "SparseTensorValue", "reorder", "sparse_reorder", "sparse_tensor_to_dense", "to_dense"]


def _sparse(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp_input


def reorder(sp_input, name=None):
    """The same sparse tensor with its indices in row-major (lexicographic) order, as the ops
    that need sorted indices (SparseToDense with validate_indices) expect them."""
    sp_input = _sparse(sp_input)
    indices, values = _ops.sparse_reorder(sp_input.indices, sp_input.values, sp_input.dense_shape, name=name)
    return SparseTensor(indices, values, sp_input.dense_shape)


sparse_reorder = reorder  # TF1's name (tf.sparse_reorder)


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of ``sp_input`` (a SparseTensor or SparseTensorValue): its values at
    its indices, ``default_value`` (zero, or b"" for strings, when None) elsewhere. With
    ``validate_indices`` the indices must be in lexicographic order without repeats."""
    sp_input = _sparse(sp_input)
    dtype = _dtypes.as_dtype(sp_input.dtype)
    if default_value is None:
        default_value = b"" if dtype == _dtypes.string else np.zeros((), dtype.as_numpy_dtype)
    if not hasattr(default_value, "op") and not hasattr(default_value, "numpy"):
        default_value = constant(default_value, dtype=dtype)
    return _ops.sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values, default_value,
                                validate_indices=bool(validate_indices), name=name)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """TensorFlow 2's spelling (tf.sparse.to_dense) of sparse_tensor_to_dense."""
    return sparse_tensor_to_dense(sp_input, default_value, validate_indices, name)
