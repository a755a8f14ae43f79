"""Grouping transformations (tf.data's group_by_window and bucket_by_sequence_length, TF1
seq2seq input code's way to batch sequences of similar lengths), in TensorFlow's order: an
element joins its key's group; a group that reaches its window size is reduced (emitted) at
once; at the end of the input the groups left are reduced in ascending key order."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import TensorShape
from .dataset import Dataset, ScalarArg, grouped_dataset, implements
from .functions import TracedFunction
from .transformations import padded_batch

__all__ = ["group_by_window", "bucket_by_sequence_length"]


def _scalar_int(fn, what, op):
    if fn.dtypes != [_dtypes.int64] or fn.shapes[0].rank not in (None, 0):
        raise InvalidArgumentError(f"{what} must return a scalar int64 tensor, got {fn.dtypes} {fn.shapes}", op)


@implements
def group_by_window(ds, key_func, reduce_func, window_size=None, window_size_func=None):
    """TensorFlow's GroupByWindowDataset: key_func(element) -> int64 key; a key's group is
    reduced with reduce_func(key, window dataset) -> dataset when it holds window_size
    elements (window_size_func(key) of them)."""
    op = "GroupByWindowDataset"
    ds._no_windows("group_by_window")
    if (window_size is None) == (window_size_func is None):
        raise InvalidArgumentError("group_by_window: give either window_size or window_size_func", op)
    key = TracedFunction(key_func, ds, "group_by_window key_func")
    _scalar_int(key, "key_func", op)
    reduce = TracedFunction(reduce_func, ds, "group_by_window reduce_func", grouped=True)
    inner = reduce.dataset
    if inner._window:
        raise InvalidArgumentError("group_by_window: reduce_func's dataset has windows as elements", op)
    fixed = ScalarArg(window_size, "window_size", op, 1) if window_size is not None else None
    sizer = None
    if window_size_func is not None:
        keys = Dataset(None, 0, [_dtypes.int64], [[]])
        sizer = TracedFunction(window_size_func, keys, "group_by_window window_size_func")
        _scalar_int(sizer, "window_size_func", op)

    def size_of(k, values):
        if fixed is not None:
            return fixed.get(values)
        n = int(np.asarray(sizer([np.asarray(k, np.int64)], values)[0]))
        if n < 1:
            raise InvalidArgumentError(f"window_size_func returned {n} for key {k}: window sizes must be positive", op)
        return n

    def emit(k, group, values):
        yield from inner._elements(reduce.dataset_values([np.asarray(k, np.int64), group], values))

    def elements(values):
        groups: dict[int, list] = {}
        sizes: dict[int, int] = {}
        for element in ds._elements(values):
            k = int(np.asarray(key(element, values)[0]))
            group = groups.setdefault(k, [])
            group.append(element)
            if k not in sizes:
                sizes[k] = size_of(k, values)
            if len(group) >= sizes[k]:
                del groups[k]
                yield from emit(k, group, values)
        for k in sorted(groups):
            yield from emit(k, groups[k], values)

    sources = ds._sources + key.captured + reduce.captured + (fixed.sources if fixed else []) + \
        (sizer.captured if sizer else [])
    return Dataset(elements, inner._structure, inner._dtypes, inner._shapes, sources, sparse=inner._sparse)


@implements
def bucket_by_sequence_length(ds, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """TensorFlow's bucket_by_sequence_length: elements grouped by the bucket their length
    (element_length_func) falls in (bucket i: boundaries[i-1] <= length < boundaries[i]), each
    bucket batched (padded unless no_padding) by its batch size."""
    op = "bucket_by_sequence_length"
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise InvalidArgumentError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                                   f"`len(bucket_batch_sizes)={len(sizes)}` and "
                                   f"`len(bucket_boundaries)={len(boundaries)}`.", op)
    length = TracedFunction(element_length_func, ds, "bucket_by_sequence_length element_length_func")
    if length.dtypes[0] not in (_dtypes.int32, _dtypes.int64) or length.shapes[0].rank not in (None, 0):
        raise InvalidArgumentError("element_length_func must return a scalar integer tensor", op)
    edges = np.asarray(boundaries, np.int64)

    def bucket_of(element, values):
        n = int(np.asarray(length(element, values)[0]))
        return int(np.searchsorted(edges, n, side="right"))

    # one batching per bucket, over the bucket's group of elements (values[token]): its batch
    # size, and its padded shapes (the bucket's boundary - 1 for unknown sizes with
    # pad_to_bucket_boundary)
    token = object()
    holder = grouped_dataset(token, ds)
    batchings = []
    for i, size in enumerate(sizes):
        shapes = padded_shapes
        if not no_padding and pad_to_bucket_boundary and i < len(boundaries):
            shapes = _fill_unknown(padded_shapes if padded_shapes is not None else ds.output_shapes, boundaries[i] - 1)
        batchings.append(holder.batch(size, drop_remainder) if no_padding else
                         padded_batch(holder, size, shapes, padding_values, drop_remainder))

    def batches(b, group, values):
        yield from batchings[b]._elements({**values, token: group})

    def elements(values):
        buckets: dict[int, list] = {}
        for element in ds._elements(values):
            b = bucket_of(element, values)
            if pad_to_bucket_boundary and not no_padding and b == len(boundaries):
                raise InvalidArgumentError("When pad_to_bucket_boundary=True, elements must have length < "
                                           "max(bucket_boundaries).", op)
            group = buckets.setdefault(b, [])
            group.append(element)
            if len(group) == sizes[b]:
                del buckets[b]
                yield from batches(b, group, values)
        for b in sorted(buckets):
            yield from batches(b, buckets[b], values)

    shapes = batchings[0]._shapes
    for other in batchings[1:]:
        shapes = [x.most_specific_compatible_shape(y) for x, y in zip(shapes, other._shapes)]
    first = batchings[0]
    return Dataset(elements, first._structure, first._dtypes, shapes, ds._sources + length.captured,
                   sparse=first._sparse)


def _fill_unknown(shapes, size):
    """shapes (nested like the elements) with every unknown size replaced by size."""
    if isinstance(shapes, dict):
        return {k: _fill_unknown(v, size) for k, v in shapes.items()}
    if isinstance(shapes, (tuple, list)) and not all(d is None or isinstance(d, (int, np.integer)) for d in shapes):
        return type(shapes)(_fill_unknown(v, size) for v in shapes)
    ts = TensorShape(shapes)
    return [size if d is None else d for d in ts.as_list()] if ts.rank is not None else shapes
