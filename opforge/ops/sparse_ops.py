"""``of.sparse``: TensorFlow's tf.sparse namespace as far as opforge has it: SparseTensor, and
sparse tensors to dense ones (tf.sparse.to_dense, TF1's tf.sparse_tensor_to_dense) over the
SparseToDense op."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.api import constant
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["SparseTensor", "SparseTensorValue", "sparse_tensor_to_dense", "to_dense"]


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of ``sp_input`` (a SparseTensor or SparseTensorValue): its values at
    its indices, ``default_value`` (zero, or b"" for strings, when None) elsewhere. With
    ``validate_indices`` the indices must be in lexicographic order without repeats."""
    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
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
