"""tf.searchsorted, tf.setdiff1d, tf.unravel_index and tf.edit_distance over the
LowerBound/UpperBound, ListDiff, UnravelIndex and EditDistance ops.

    tf.searchsorted([1, 3, 5], [0, 3, 6])              # [0, 1, 3]
    tf.setdiff1d([1, 2, 3, 4], [2, 4])                 # out [1, 3], idx [0, 2]
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes


def searchsorted(sorted_sequence, values, side="left", out_type="int32", name=None):
    """For each value, the index in the innermost dimension of sorted_sequence where it would be
    inserted to keep it sorted (side "left": before equal values, "right": after them). The
    leading dims of both inputs must agree; the result has values' shape."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    seq = _ops.identity(sorted_sequence)
    vals = _ops.identity(values)
    seq_shape = _ops.shape(seq, out_type="int64")
    vals_shape = _ops.shape(vals, out_type="int64")
    last = np.array([-1], np.int64)
    seq2 = _ops.reshape(seq, _ops.concat_v2([last, _ops.strided_slice(seq_shape, last, np.array([0], np.int64),
                                                                       np.array([1], np.int64), end_mask=1)], 0))
    vals2 = _ops.reshape(vals, _ops.concat_v2([last, _ops.strided_slice(vals_shape, last, np.array([0], np.int64),
                                                                         np.array([1], np.int64), end_mask=1)], 0))
    op = _ops.lower_bound if side == "left" else _ops.upper_bound
    out = op(seq2, vals2, out_type=_dtypes.as_dtype(out_type).name)
    return _ops.reshape(out, vals_shape, name=name)


def setdiff1d(x, y, index_dtype="int32", name=None):
    """The values of vector x that are not in vector y, in order, and their positions in x."""
    return _ops.list_diff(x, y, out_idx=_dtypes.as_dtype(index_dtype).name, name=name)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat indices in an array of shape dims: [len(dims)] for a scalar,
    [len(dims), N] for a vector of N."""
    return _ops.unravel_index(indices, dims, name=name)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences (last dimension) of two SparseTensors, per
    position of their other dimensions; with normalize, divided by the truth's length
    (tf.edit_distance over the EditDistance op). Indices must be in row-major order."""
    from .sparse_ops import _sparse  # noqa: PLC0415 (sparse_ops is the heavier module)
    hypothesis, truth = _sparse(hypothesis), _sparse(truth)
    return _ops.edit_distance(hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices,
                              truth.values, truth.dense_shape, normalize=normalize, name=name)


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, int32 indices) of the k largest (is_max_k) or smallest entries along
    reduction_dimension (tf.approx_top_k). TensorFlow's CPU kernel computes them exactly, and so
    does this one (TopKV2, sorted): recall_target, reduction_input_size_override and
    aggregate_to_topk, which tune the TPU's approximation, do not change the result. Unlike
    TensorFlow's CPU kernel (last dimension, largest only), any dimension and the smallest work."""
    from .nn_ops import top_k  # noqa: PLC0415
    x = _ops.identity(input)
    if not is_max_k and not x.dtype.is_floating:  # the smallest are the largest of -x
        raise TypeError(f"approx_min_k: operand must be a floating-point tensor, got {x.dtype.name}")
    rank = x.shape.rank
    if rank is None or rank == 0:
        raise ValueError("approx_top_k: the rank of the input must be known and at least 1")
    dim = int(reduction_dimension)
    if not -rank <= dim < rank:
        raise ValueError(f"approx_top_k: reduction_dimension {dim} is out of range for rank {rank}")
    dim %= rank
    perm = list(range(rank))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    perm = np.array(perm, np.int32)
    if dim != rank - 1:
        x = _ops.transpose(x, perm)
    values, indices = top_k(x if is_max_k else _ops.neg(x), k=k, sorted=True)
    if not is_max_k:
        values = _ops.neg(values)
    if dim != rank - 1:
        values, indices = _ops.transpose(values, perm), _ops.transpose(indices, perm)
    return _ops.identity(values, name=name), indices


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k largest entries along reduction_dimension and their indices (tf.math.approx_max_k;
    exact here, as on TensorFlow's CPU)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                        aggregate_to_topk, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k smallest entries along reduction_dimension and their indices (tf.math.approx_min_k;
    exact here, as on TensorFlow's CPU)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                        aggregate_to_topk, name)
