"""TensorFlow's composite feature specs for tf.io.parse_example: ``SparseFeature`` (a SparseTensor
whose indices and values are read from separate features) and ``RaggedFeature`` (a RaggedTensor,
optionally with more ragged dimensions read from partition features). parsing_ops turns them
into the plain requests of the ParseExampleV2 op (VarLen and ragged keys) with ``expand`` and
builds the composite values from its outputs with ``combine``."""

from __future__ import annotations

import collections

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.sparse_tensor import SparseTensor

__all__ = ["SparseFeature", "RaggedFeature"]


class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A SparseTensor of dense shape [size] (or [size0, size1, ...] with one index feature per
    dimension): the values of feature ``value_key`` at the indices in feature(s) ``index_key``
    (int64), one index per value in each Example. parse_example prepends the batch dimension;
    the entries are sorted unless ``already_sorted``."""

    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple("RaggedFeature",
                                           ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A RaggedTensor of the values of feature ``value_key`` (default: the feature's own key),
    each Example a row; ``partitions`` (outermost first) split each Example's values further, by
    an int64 feature of the Example (``RowSplits``, ``RowLengths``, ``RowStarts``, ``RowLimits``,
    ``ValueRowIds``: as the RaggedTensor factories of those names read them) or into rows of a
    fixed length (``UniformRowLength(n)``)."""

    __slots__ = ()
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=_dtypes.int32, validate=False):
        return super().__new__(cls, dtype, value_key, tuple(partitions), _dtypes.as_dtype(row_splits_dtype),
                               bool(validate))


def expand(features, var_len_feature):
    """(plain specs, ragged requests {key: (dtype, splits dtype)}, composites) for a feature dict:
    a SparseFeature's index and value features become VarLen features, a RaggedFeature's value
    and partition features ragged requests."""
    plain, ragged, composite = {}, {}, {}

    def add(table, key, spec):
        if key in table and table[key] != spec:
            raise ValueError(f"Conflicting specs for feature {key}: {table[key]} and {spec}")
        table[key] = spec

    for key, spec in features.items():
        if isinstance(spec, SparseFeature):
            index_keys = [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)
            sizes = [spec.size] if isinstance(spec.size, int) else list(spec.size)
            if len(sizes) != len(index_keys):
                raise ValueError(f"SparseFeature {key}: {len(index_keys)} index keys but {len(sizes)} sizes")
            for k in index_keys:
                add(plain, k, var_len_feature(_dtypes.int64))
            add(plain, spec.value_key, var_len_feature(spec.dtype))
            composite[key] = spec
        elif isinstance(spec, RaggedFeature):
            add(ragged, spec.value_key or key, (_dtypes.as_dtype(spec.dtype), spec.row_splits_dtype))
            for p in spec.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    add(ragged, p.key, (_dtypes.int64, spec.row_splits_dtype))
            composite[key] = spec
        else:
            add(plain, key, spec)
    return plain, ragged, composite


def _sparse_feature(spec, parsed):
    index_keys = [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)
    sizes = [spec.size] if isinstance(spec.size, int) else list(spec.size)
    values = parsed[spec.value_key]
    # the Example (batch) columns of the value indices, then one column per index feature
    columns = [_ops.strided_slice(values.indices, np.array([0, 0], np.int32), np.array([0, -1], np.int32),
                                  np.array([1, 1], np.int32), begin_mask=3, end_mask=1)]
    columns += [_ops.expand_dims(parsed[k].values, np.int32(-1)) for k in index_keys]
    outer = _ops.strided_slice(values.dense_shape, np.array([0], np.int32), np.array([-1], np.int32),
                               np.array([1], np.int32), begin_mask=1)
    result = SparseTensor(_ops.concat_v2(columns, np.int32(1)), values.values,
                          _ops.concat_v2([outer, np.asarray(sizes, np.int64)], np.int32(0)))
    if spec.already_sorted:
        return result
    from . import sparse_ops  # noqa: PLC0415  (imports opforge's top level)

    return sparse_ops.reorder(result)


def _partitioned(rt, p, ragged, validate):
    """rt ([batch, ...], a RaggedTensor) with each Example's values split further by partition p,
    whose feature (a RaggedTensor [batch, None]) holds positions relative to the Example's own values."""
    import opforge as of  # noqa: PLC0415  (imports opforge's top level)
    from ..ragged.ragged_tensor import RaggedTensor  # noqa: PLC0415

    if isinstance(p, RaggedFeature.UniformRowLength):
        n = np.int64(p.length)
        if isinstance(rt.values, RaggedTensor):
            inner = RaggedTensor.from_uniform_row_length(rt.values, n, validate=validate)
        else:
            inner = of.reshape(rt.values, of.concat([np.array([-1, p.length], np.int32),
                                                     of.shape(rt.values)[1:]], 0))
        return RaggedTensor.from_row_splits(inner, of.floor_div(rt.row_splits, n), validate=validate)
    part = ragged[p.key]
    vals, lengths = part.values, part.row_lengths()
    if isinstance(p, RaggedFeature.RowLengths):
        inner = RaggedTensor.from_row_lengths(rt.values, vals, validate=validate)
    elif isinstance(p, RaggedFeature.ValueRowIds):
        row_of = of.repeat(of.range(of.size(lengths, out_type="int64")), lengths)
        nrows = of.maximum(of.unsorted_segment_max(vals + 1, row_of, of.size(lengths, out_type="int64")),
                           np.int64(0))  # rows in each Example (an Example without ids: none)
        ids = vals + of.repeat(of.cumsum(nrows, exclusive=True), lengths)
        inner = RaggedTensor.from_value_rowids(rt.values, ids, nrows=of.reduce_sum(nrows), validate=validate)
        return RaggedTensor.from_row_lengths(inner, nrows, validate=validate)
    else:  # RowSplits, RowStarts, RowLimits: offsets into the Example, moved to the batch's values
        shifted = vals + of.repeat(rt.row_starts(), lengths)
        splits = part.row_splits
        if isinstance(p, RaggedFeature.RowSplits):  # each Example's leading 0 goes
            first = of.repeat(splits[:-1], lengths)
            shifted = of.boolean_mask(shifted, of.not_equal(of.range(of.size(vals, out_type="int64")), first))
            splits = splits - of.range(of.size(splits, out_type="int64"))
        make = RaggedTensor.from_row_starts if isinstance(p, RaggedFeature.RowStarts) else RaggedTensor.from_row_limits
        inner = make(rt.values, shifted, validate=validate)
        return RaggedTensor.from_row_splits(inner, splits, validate=validate)
    return RaggedTensor.from_row_splits(inner, part.row_splits, validate=validate)


def _ragged_feature(spec, key, ragged):
    """The feature's values (one row per Example) split by its partitions, innermost first."""
    rt = ragged[spec.value_key or key]
    for p in reversed(spec.partitions):
        rt = _partitioned(rt, p, ragged, spec.validate)
    return rt


def combine(features, parsed, ragged, composite):
    """The requested features: plain ones as parsed, composite ones built from their parts."""
    out = {}
    for key in features:
        if key in composite:
            spec = composite[key]
            out[key] = _sparse_feature(spec, parsed) if isinstance(spec, SparseFeature) else \
                _ragged_feature(spec, key, ragged)
        else:
            out[key] = parsed[key]
    return out
