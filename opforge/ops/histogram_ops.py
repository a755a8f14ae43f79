"""Counting and segment statistics TensorFlow has as ops, built from UnsortedSegmentSum and
ScatterNd: bincount, histogram_fixed_width(_bins), confusion_matrix, segment_mean,
unsorted_segment_mean, unsorted_segment_sqrt_n; and is_inf, rint."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.graph import get_default_graph
from ..framework.tensor import convert_to_tensor
from .math_ops import reduce_max


def _scope(name, default):
    return get_default_graph().name_scope(name or default)


def _tensor(x, dtype=None):
    if hasattr(x, "dtype") and not isinstance(x, np.ndarray):
        return x if dtype is None or _dtypes.as_dtype(x.dtype) == _dtypes.as_dtype(dtype) else _ops.cast(x, dtype)
    return convert_to_tensor(np.asarray(x) if dtype is None else np.asarray(x, _dtypes.as_dtype(dtype).as_numpy_dtype))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype="int32"):
    """out[i] = the number of times i occurs in arr (or the sum of the weights where it does),
    for i < max(max(arr) + 1, minlength), capped at maxlength (tf.math.bincount; arr int32,
    non-negative; values >= maxlength are dropped)."""
    with _scope(None, "bincount"):
        arr = _ops.reshape(_tensor(arr, "int32"), np.array([-1], np.int32))
        size = _ops.add_v2(_ops.maximum(reduce_max(arr), np.int32(-1)), np.int32(1))  # 0 for an empty arr
        if minlength is not None:
            size = _ops.maximum(size, np.int32(minlength))
        if maxlength is not None:
            size = _ops.minimum(size, np.int32(maxlength))
        if weights is None:
            weights = _ops.ones_like(_ops.cast(arr, _dtypes.as_dtype(dtype).name))
        else:
            weights = _ops.reshape(_tensor(weights), np.array([-1], np.int32))
        # values past the end go to one extra segment, dropped below
        ids = _ops.select_v2(_ops.less(arr, size), arr, size)
        counts = _ops.unsorted_segment_sum(weights, ids, _ops.add_v2(size, np.int32(1)))
        return _ops.slice(counts, np.array([0], np.int32), _ops.reshape(size, np.array([1], np.int32)))


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype="int32", name=None):
    """The bin of each value among nbins equal bins over value_range (values outside go to the
    first or last bin), shaped as values (tf.histogram_fixed_width_bins)."""
    with _scope(name, "histogram_fixed_width_bins"):
        values = _tensor(values)
        vr = _tensor(value_range, values.dtype.name)
        lo = _ops.strided_slice(vr, np.array([0], np.int32), np.array([1], np.int32), np.array([1], np.int32),
                                shrink_axis_mask=1)
        hi = _ops.strided_slice(vr, np.array([1], np.int32), np.array([2], np.int32), np.array([1], np.int32),
                                shrink_axis_mask=1)
        scaled = _ops.real_div(_ops.sub(values, lo), _ops.sub(hi, lo))
        nb = _ops.cast(_tensor(nbins, "int32"), values.dtype.name)
        idx = _ops.cast(_ops.floor(_ops.mul(scaled, nb)), "int32")
        top = _ops.sub(_tensor(nbins, "int32"), np.int32(1))
        idx = _ops.clip_by_value(idx, np.int32(0), top)
        return _ops.cast(idx, _dtypes.as_dtype(dtype).name)


def histogram_fixed_width(values, value_range, nbins=100, dtype="int32", name=None):
    """How many values fall in each of nbins equal bins over value_range, the outermost bins
    taking the values outside (tf.histogram_fixed_width)."""
    with _scope(name, "histogram_fixed_width"):
        bins = histogram_fixed_width_bins(values, value_range, nbins, "int32")
        flat = _ops.reshape(bins, np.array([-1], np.int32))
        ones = _ops.ones_like(_ops.cast(flat, _dtypes.as_dtype(dtype).name))
        return _ops.unsorted_segment_sum(ones, flat, _tensor(nbins, "int32"))


def confusion_matrix(labels, predictions, num_classes=None, dtype="int32", name=None, weights=None):
    """m[i, j] = how many (or the total weight of the) examples with label i were predicted j
    (tf.math.confusion_matrix); num_classes defaults to the largest label or prediction + 1."""
    with _scope(name, "confusion_matrix"):
        labels = _ops.cast(_tensor(labels), "int64")
        predictions = _ops.cast(_tensor(predictions), "int64")
        if num_classes is None:
            n = _ops.add_v2(_ops.maximum(reduce_max(labels), reduce_max(predictions)), np.int64(1))
        else:
            n = _tensor(num_classes, "int64")
        indices = _ops.pack([labels, predictions], axis=1)
        updates = _ops.ones_like(_ops.cast(labels, _dtypes.as_dtype(dtype).name)) if weights is None else \
            _ops.cast(_tensor(weights), _dtypes.as_dtype(dtype).name)
        return _ops.scatter_nd(indices, updates, _ops.pack([n, n], axis=0))


def _divide(total, count):
    if _dtypes.as_dtype(total.dtype).is_integer:
        from .math_ops import truncatediv  # noqa: PLC0415
        return truncatediv(total, count)
    return _ops.real_div(total, count)


def segment_mean(data, segment_ids, name=None):
    """The mean of the rows of data with equal (sorted) segment ids (tf.math.segment_mean)."""
    from .math_ops import segment_sum  # noqa: PLC0415
    with _scope(name, "SegmentMean"):
        data = _tensor(data)
        total = segment_sum(data, segment_ids)
        count = segment_sum(_ops.ones_like(data), segment_ids)
        return _divide(total, _ops.maximum(count, _ops.ones_like(count)))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the entries of data with each segment id; 0 for an empty segment
    (tf.math.unsorted_segment_mean)."""
    with _scope(name, "UnsortedSegmentMean"):
        data = _tensor(data)
        total = _ops.unsorted_segment_sum(data, segment_ids, num_segments)
        count = _ops.unsorted_segment_sum(_ops.ones_like(data), segment_ids, num_segments)
        return _divide(total, _ops.maximum(count, _ops.ones_like(count)))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of each segment divided by the square root of its size; 0 for an empty segment
    (tf.math.unsorted_segment_sqrt_n, floating types)."""
    with _scope(name, "UnsortedSegmentSqrtN"):
        data = _tensor(data)
        total = _ops.unsorted_segment_sum(data, segment_ids, num_segments)
        count = _ops.unsorted_segment_sum(_ops.ones_like(data), segment_ids, num_segments)
        return _ops.real_div(total, _ops.sqrt(_ops.maximum(count, _ops.ones_like(count))))


def is_inf(x, name=None):
    """Whether each element of x is +inf or -inf (tf.math.is_inf)."""
    x = _tensor(x)
    return _ops.equal(_ops.abs(x), np.asarray(np.inf, _dtypes.as_dtype(x.dtype).as_numpy_dtype), name=name)


def rint(x, name=None):
    """The nearest integer, halves to even (tf.math.rint: TensorFlow's Round rounds so too)."""
    return _ops.round(x, name=name)
