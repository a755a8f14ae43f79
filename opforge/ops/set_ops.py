"""tf.sets: set operations along the last dimension of dense tensors and SparseTensors
(TensorFlow's python/ops/sets_impl.py): set_size, set_intersection, set_union, set_difference,
over the SetSize and DenseToDense / DenseToSparse / SparseToSparse SetOperation ops
(opdefs/sparse/, kernels/cpu/sparse/set_ops.cc). Results are SparseTensors whose sets are
sorted."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.graph import GraphTensor
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from ..framework.tensor import Tensor as EagerTensor
from ..framework.tensor import convert_to_tensor

__all__ = ["set_difference", "set_intersection", "set_size", "set_union"]

_VALID_DTYPES = frozenset(_dtypes.as_dtype(d) for d in ("int8", "int16", "int32", "int64", "uint8", "string"))


def _convert(value, dtype=None):
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        return value
    if isinstance(value, (GraphTensor, EagerTensor)):
        return value
    if dtype is None and any(isinstance(v, (str, bytes)) for v in np.ravel(np.asarray(value, dtype=object))):
        dtype = _dtypes.string
    return convert_to_tensor(value, dtype=dtype)


def _convert_pair(a, b):
    """(a, b, flipped): both as tensors or SparseTensors of one valid dtype, a dense one first
    when only one is sparse (the ops take Dense,Sparse), as TensorFlow's
    _convert_to_tensors_or_sparse_tensors."""
    a = _convert(a)
    if a.dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype {a.dtype}.")
    b = _convert(b)
    if b.dtype not in _VALID_DTYPES:
        raise TypeError(f"'b' has invalid dtype {b.dtype}.")
    if a.dtype != b.dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    kw = {"set_operation": set_operation, "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your inputs.")
        indices, values, shape = _ops.sparse_to_sparse_set_operation(
            a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, **kw)
    elif isinstance(b, SparseTensor):
        indices, values, shape = _ops.dense_to_sparse_set_operation(a, b.indices, b.values, b.dense_shape, **kw)
    else:
        indices, values, shape = _ops.dense_to_dense_set_operation(a, b, **kw)
    return SparseTensor(indices, values, shape)


def set_size(a, validate_indices=True):
    """The number of distinct values along the last dimension of the SparseTensor a (int32, of
    shape a.dense_shape[:-1]) (tf.sets.size)."""
    a = _convert(a)
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.dtype}`.")
    return _ops.set_size(a.indices, a.values, a.dense_shape, validate_indices=bool(validate_indices))


def set_intersection(a, b, validate_indices=True):
    """The values in both a and b, per set of the last dimension (tf.sets.intersection)."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """The values of a not in b (or, with aminusb=False, of b not in a), per set of the last
    dimension (tf.sets.difference)."""
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a, b, validate_indices=True):
    """The values in a or b, per set of the last dimension (tf.sets.union)."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union", validate_indices)
