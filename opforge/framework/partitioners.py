"""Variable partitioners (TensorFlow's tf.fixed_size_partitioner and siblings): functions of a
variable's shape and dtype giving how many pieces to cut it into along each axis, e.g.
``fixed_size_partitioner(4)(TensorShape([10, 3]), float32) == [4, 1]``. opforge's variable
scopes do not cut variables (their ``partitioner`` argument is not taken); these compute the
partition lists a program may read or pass on, as TensorFlow's do."""

from __future__ import annotations

import math

from . import dtypes as _dtypes
from .tensor_shape import TensorShape

__all__ = ["fixed_size_partitioner", "min_max_variable_partitioner", "variable_axis_size_partitioner"]


def _element_size(dtype, bytes_per_string_element: int) -> int:
    dtype = _dtypes.as_dtype(dtype)
    return bytes_per_string_element if dtype == _dtypes.string else dtype.size


def _dims(shape) -> list:
    return TensorShape(shape).as_list()


def fixed_size_partitioner(num_shards, axis=0):
    """num_shards pieces along axis (fewer if the axis is shorter)."""

    def _partitioner(shape, **unused_args):
        dims = _dims(shape)
        partitions = [1] * len(dims)
        partitions[axis] = min(num_shards, dims[axis])
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10, bytes_per_string_element=16):
    """As many pieces along axis as keep each at least min_slice_size bytes, at most
    max_partitions (and at most the axis' length)."""
    if min_slice_size <= 0:
        raise ValueError(f"min_slice_size must be positive. min_slice_size: {min_slice_size}")

    def _partitioner(shape, dtype):
        dims = _dims(shape)
        if axis >= len(dims):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is only {TensorShape(shape)}")
        total_bytes = TensorShape(shape).num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * len(dims)
        partitions[axis] = max(1, min(dims[axis], max_partitions, int(math.ceil(total_bytes / min_slice_size))))
        return partitions

    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16, max_shards=None):
    """Pieces along axis of at most max_shard_bytes each (a slice of the axis is never cut),
    at most max_shards of them."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(f"Both max_shard_bytes and bytes_per_string_element must be positive. Currently, "
                         f"max_shard_bytes is {max_shard_bytes} and bytes_per_string_element is "
                         f"{bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        dims = shape.as_list()
        partitions = [1] * len(dims)
        bytes_per_slice = 1.0 * (shape.num_elements() / dims[axis]) * _element_size(dtype, bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * dims[axis] / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner
