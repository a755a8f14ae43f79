"""Embedding lookups of SparseTensor ids, composed as TensorFlow composes them
(tensorflow/python/ops/embedding_ops.py): embedding_lookup_sparse and
safe_embedding_lookup_sparse."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from . import sparse_ops as _sparse
from .nn_impl import embedding_lookup

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _as_sparse(x, what):
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{what} must be a SparseTensor, got {type(x).__name__}")
    return x


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None, allow_fast_lookup=False):
    """Per row of sp_ids (its first index), the combination of the embeddings of its ids:
    "sum", "mean" (weighted mean, the default) or "sqrtn" (sum over the square root of the
    summed squared weights); sp_weights None weighs each id 1. The output has one row per row
    up to the last non-empty one (TensorFlow's shape)."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    sp_ids = _as_sparse(sp_ids, "sp_ids")
    segment_ids = _ops.cast(_ops.gather_v2(sp_ids.indices, np.int64(0), np.int32(1)), "int32")
    ids = sp_ids.values
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    if sp_weights is None:
        if len(shards) == 1 and max_norm is None:
            table, idx = shards[0], ids
        else:
            table = embedding_lookup(shards, ids, partition_strategy=partition_strategy, max_norm=max_norm)
            idx = _ops.range(np.int32(0), _ops.size(ids, out_type="int32"), np.int32(1))
        fn = {"sum": _sparse.segment_sum, "mean": _sparse.segment_mean, "sqrtn": _sparse.segment_sqrt_n}[combiner]
        return fn(table, idx, segment_ids, name=name)
    sp_weights = _as_sparse(sp_weights, "sp_weights")
    embeddings = embedding_lookup(shards, ids, partition_strategy=partition_strategy, max_norm=max_norm)
    weights = _ops.cast(sp_weights.values, embeddings.dtype)
    # weights [n] -> [n, 1, ...] to scale each embedding row.
    rank = _ops.rank(embeddings)
    ones = _ops.fill(_ops.reshape(_ops.sub(rank, np.int32(1)), np.array([1], np.int64)), np.int32(1))
    weights = _ops.reshape(weights, _ops.concat_v2([_ops.shape(weights, out_type="int32"), ones], np.int32(0)))
    everything = _ops.range(np.int32(0), _ops.size(ids, out_type="int32"), np.int32(1))
    total = _sparse.segment_sum(_ops.mul(embeddings, weights), everything, segment_ids)
    if combiner == "sum":
        return _ops.identity(total, name=name) if name else total
    scale = weights if combiner == "mean" else _ops.square(weights)
    weight_sum = _sparse.segment_sum(scale, everything, segment_ids)
    if combiner == "sqrtn":
        weight_sum = _ops.sqrt(weight_sum)
    # div_no_nan: a row whose weights sum to zero gives zeros.
    zero = _ops.equal(weight_sum, _ops.zeros_like(weight_sum))
    safe = _ops.select_v2(zero, _ops.ones_like(weight_sum), weight_sum)
    return _ops.select_v2(zero, _ops.zeros_like(total), _ops.real_div(total, safe), name=name)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """embedding_lookup_sparse that tolerates invalid ids (< 0, dropped), non-positive weights
    (dropped unless combiner is "sum") and empty rows (zeros, or default_id's embedding), and
    ids of any rank >= 2: the output has sparse_ids' dense shape[:-1] + the embedding's shape."""
    sparse_ids = _as_sparse(sparse_ids, "sparse_ids")
    original_shape = sparse_ids.dense_shape
    # ids of any rank >= 2 (known or not) as a matrix: [prod(shape[:-1]), shape[-1]]
    last = _ops.sub(_ops.size(original_shape, out_type="int64"), np.int64(1))
    outer = _ops.slice(original_shape, np.array([0], np.int64), _ops.reshape(last, np.array([1], np.int64)))
    flat_shape = _ops.pack([_ops.prod(outer, np.int32(0), keep_dims=False),
                            _ops.gather_v2(original_shape, last, np.int32(0))], axis=0)
    sparse_ids = _sparse.reshape(sparse_ids, flat_shape)
    if sparse_weights is not None:
        sparse_weights = SparseTensor(sparse_ids.indices, _as_sparse(sparse_weights, "sparse_weights").values,
                                      sparse_ids.dense_shape)
    keep = _ops.greater_equal(sparse_ids.values, _ops.zeros_like(sparse_ids.values))
    if sparse_weights is not None and combiner != "sum":
        keep = _ops.logical_and(keep, _ops.greater(sparse_weights.values, _ops.zeros_like(sparse_weights.values)))
    sparse_ids = _sparse.retain(sparse_ids, keep)
    if sparse_weights is not None:
        sparse_weights = _sparse.retain(sparse_weights, keep)
    sparse_ids, is_row_empty = _sparse.fill_empty_rows(sparse_ids, np.asarray(default_id or 0).astype(
        sparse_ids.dtype.as_numpy_dtype))
    if sparse_weights is not None:
        sparse_weights, _ = _sparse.fill_empty_rows(sparse_weights, np.asarray(1.0).astype(
            sparse_weights.dtype.as_numpy_dtype))
    result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                     partition_strategy=partition_strategy, max_norm=max_norm)
    if default_id is None:
        cols = _ops.gather_v2(_ops.shape(result, out_type="int32"), np.int32(1), np.int32(0))
        mask = _ops.tile(_ops.reshape(is_row_empty, np.array([-1, 1], np.int64)),
                         _ops.pack([np.int32(1), cols], axis=0))
        result = _ops.select_v2(mask, _ops.zeros_like(result), result)
    out_shape = _ops.concat_v2([_ops.cast(outer, "int32"),
                                _ops.slice(_ops.shape(result, out_type="int32"), np.array([1], np.int32),
                                           np.array([-1], np.int32))], np.int32(0))
    return _ops.reshape(result, out_shape, name=name)
