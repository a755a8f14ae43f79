"""tf.ragged's operations, composed (as TensorFlow composes most of them) from opforge's dense ops:
constant, range, stack, boolean_mask, gather, map_flat_values, to_tensor / to_sparse, placeholder,
and the RaggedFillEmptyRows pair."""

from __future__ import annotations

import numpy as np

import opforge as _of
from opforge.framework import dtypes as _dtypes
from opforge.framework.graph import GraphTensor
from opforge.framework.sparse_tensor import SparseTensor
from opforge.framework.tensor import Tensor as EagerTensor
from opforge.framework.tensor import TensorShape
from opforge.generated import gen_ragged_ops as _gen_ragged
from opforge.ragged.ragged_tensor import (
    RaggedTensor,
    RaggedTensorValue,
    _tensor,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__ = [
    "constant", "constant_value", "range", "stack", "boolean_mask", "gather", "map_flat_values", "placeholder",
    "row_splits_to_segment_ids", "segment_ids_to_row_splits", "fill_empty_rows", "fill_empty_rows_grad",
    "ragged_to_dense", "ragged_to_sparse", "ragged_getitem", "convert_to_tensor_or_ragged_tensor",
]

_py_range = range


def _take(params, index):
    """gather(params, index) on axis 0."""
    if params.dtype == _dtypes.string:
        raise TypeError("ragged: selecting rows of string values needs a string Gather, which opforge lacks "
                        "(to_tensor, to_list and row indexing work)")
    return _of.gather(params, index)


def _string_range(values, start, limit):
    """values[start:limit] of a string vector, through SparseSlice (which takes strings)."""
    n = _of.shape(values, out_type=_dtypes.int64)[0]
    sp = SparseTensor(_of.expand_dims(_of.range(n), 1), values, _of.reshape(n, [1]))
    return _of.sparse.slice(sp, _of.reshape(start, [1]), _of.reshape(limit - start, [1])).values


def _error(op, message):
    return _of.errors.InvalidArgumentError(message, op)


# ---- building from Python lists
def _depth(x):
    if isinstance(x, (list, tuple)):
        depths = [_depth(e) for e in x]
        return 1 + (max(depths) if depths else 0)
    return np.ndim(x)


def _nested_splits(pylist, ragged_rank):
    """(flat list of inner values, [row_splits per ragged level])."""
    splits, level = [], [pylist]
    for _ in _py_range(ragged_rank + 1):
        s, nxt = [0], []
        for row in level:
            if not isinstance(row, (list, tuple)):
                raise ValueError(f"ragged.constant: all scalar values must have the same nesting depth, got {row!r}")
            nxt.extend(row)
            s.append(len(nxt))
        splits.append(s)
        level = nxt
    return level, splits[1:]


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None, row_splits_dtype="int64"):
    """A RaggedTensorValue (NumPy) of a nested Python list."""
    if isinstance(pylist, np.ndarray) or not isinstance(pylist, (list, tuple)):
        raise TypeError("ragged.constant: expected a nested list, got " + type(pylist).__name__)
    depth = _depth(pylist)
    inner_rank = 0 if inner_shape is None else len(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - inner_rank)
    if not 0 < ragged_rank < max(depth, 1) + (depth == 1):
        raise ValueError(f"ragged.constant: ragged_rank {ragged_rank} is invalid for a list of depth {depth}")
    np_dtype = None if dtype is None else _dtypes.as_dtype(dtype).as_numpy_dtype
    outer = [0]
    for row in pylist:
        if not isinstance(row, (list, tuple)):
            raise ValueError(f"ragged.constant: all scalar values must have the same nesting depth, got {row!r}")
        outer.append(outer[-1] + len(row))
    nested = [outer]
    level = [e for row in pylist for e in row]
    for _ in _py_range(ragged_rank - 1):
        s = [0]
        nxt = []
        for row in level:
            if not isinstance(row, (list, tuple)):
                raise ValueError(f"ragged.constant: all scalar values must have the same nesting depth, got {row!r}")
            nxt.extend(row)
            s.append(len(nxt))
        nested.append(s)
        level = nxt
    flat = level
    if flat:
        arr = np.asarray(flat, dtype=np_dtype)
    else:
        arr = np.zeros([0] + list(inner_shape or []), dtype=np_dtype or np.float32)
    if arr.dtype.kind in "US":
        arr = np.asarray([x.encode() if isinstance(x, str) else x for x in np.asarray(flat, object).reshape(-1)],
                         object).reshape(arr.shape)
    elif arr.dtype == np.float64 and dtype is None:
        arr = arr.astype(np.float32)
    elif arr.dtype == np.int64 and dtype is None:
        arr = arr.astype(np.int32)
    if inner_shape is not None and tuple(arr.shape[1:]) != tuple(inner_shape):
        raise ValueError(f"ragged.constant: inner values have shape {arr.shape[1:]}, expected inner_shape {inner_shape}")
    value = arr
    for s in reversed(nested):
        value = RaggedTensorValue(value, np.asarray(s, np.dtype(str(_dtypes.as_dtype(row_splits_dtype).name))))
    return value


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dtypes.int64):
    """A RaggedTensor of constants from a nested Python list (tf.ragged.constant)."""
    value = constant_value(pylist, dtype, ragged_rank, inner_shape, row_splits_dtype)
    flat = _of.constant(value.flat_values, dtype=dtype)
    return RaggedTensor.from_nested_row_splits(flat, [_of.constant(s, _dtypes.int64) for s in value.nested_row_splits],
                                               validate=False)


def convert_to_tensor_or_ragged_tensor(value, dtype=None, name=None):
    if isinstance(value, RaggedTensor):
        return value
    if isinstance(value, RaggedTensorValue):
        return RaggedTensor.from_nested_row_splits(_of.constant(value.flat_values, dtype=dtype),
                                                   [_of.constant(s, _dtypes.int64) for s in value.nested_row_splits],
                                                   validate=False)
    return _tensor(value, dtype)


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor fed at Session.run time with a RaggedTensorValue."""
    prefix = name or "RaggedPlaceholder"
    flat = _of.placeholder(dtype, [None] + list(value_shape or []), name=f"{prefix}/flat_values")
    splits = [_of.placeholder(_dtypes.int64, [None], name=f"{prefix}/row_splits_{i}") for i in _py_range(ragged_rank)]
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


# ---- elementwise
def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments (which must share their row
    partition); the result has the first ragged argument's row partition."""
    ragged = []

    def flat(x):
        if isinstance(x, RaggedTensorValue):
            x = convert_to_tensor_or_ragged_tensor(x)
        if isinstance(x, RaggedTensor):
            ragged.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(e) for e in x)
        return x

    args = [flat(a) for a in args]
    kwargs = {k: flat(v) for k, v in kwargs.items()}
    if not ragged:
        return op(*args, **kwargs)
    splits = [len(r.nested_row_splits) for r in ragged]
    if len(set(splits)) != 1:
        raise ValueError("map_flat_values: the RaggedTensor arguments have different ragged ranks")
    return ragged[0].with_flat_values(op(*args, **kwargs))


# ---- dense and sparse conversions
def _row_lengths_and_starts(rt):
    s = rt.row_splits
    return s[1:] - s[:-1], s[:-1]


def ragged_to_dense(rt, default_value=None, shape=None):
    """rt.to_tensor: gathers each cell's value, or the default past a row's end (the index
    len(values) of values with the default appended)."""
    values = rt.values
    inner = ragged_to_dense(values, default_value) if isinstance(values, RaggedTensor) else values
    if inner.dtype == _dtypes.string:
        return _strings_to_dense(rt, inner, default_value, shape)
    if default_value is None:
        default_value = _of.zeros([], inner.dtype)
    default = _tensor(default_value, inner.dtype)
    inner_shape = _of.shape(inner, out_type=_dtypes.int64)[1:]
    one_row = _of.concat([[1], inner_shape], 0)
    # gather, unlike Fill and BroadcastTo, takes every dtype (strings too)
    fill_row = (_of.reshape(_of.gather(_of.reshape(default, [1]), _of.zeros(_of.reduce_prod(one_row, keepdims=True),
                                                                            _dtypes.int64)), one_row)
                if TensorShape(default.shape).rank == 0 else _of.broadcast_to(default, one_row))
    padded = _of.concat([inner, fill_row], 0)
    lengths, starts = _row_lengths_and_starts(rt)
    width = _of.reduce_max(_of.concat([lengths, [0]], 0))
    cols = _of.range(width)[None, :]
    nvals = _of.shape(inner, out_type=_dtypes.int64)[0]
    index = _of.where(cols < lengths[:, None], starts[:, None] + cols, _of.zeros_like(cols) + nvals)
    dense = _of.gather(padded, index)
    if shape is not None:
        dense = _fit_shape(dense, shape, default)
    static = [rt.shape[0]] + [None] * rt.ragged_rank + rt.shape.as_list()[rt.ragged_rank + 1:] \
        if rt.shape.rank is not None else None
    if static is not None and hasattr(dense, "set_shape"):
        try:
            dense.set_shape(static)
        except (ValueError, TypeError):
            pass
    return dense


def _strings_to_dense(rt, inner, default_value, shape):
    """to_tensor of strings: SparseToDense (which takes strings; Gather does not)."""
    if TensorShape(inner.shape).rank != 1:
        raise ValueError("to_tensor: string values of rank > 1 are not supported in opforge")
    if shape is not None:
        raise ValueError("to_tensor: shape is not supported for string RaggedTensors in opforge")
    lengths, _ = _row_lengths_and_starts(rt)
    ids = row_splits_to_segment_ids(rt.row_splits)
    pos = _of.range(_of.shape(ids, out_type=_dtypes.int64)[0]) - _of.gather(rt.row_splits, ids)
    width = _of.reduce_max(_of.concat([lengths, [0]], 0))
    dense_shape = _of.concat([_of.stack([rt.nrows(), width]), _of.shape(inner, out_type=_dtypes.int64)[1:]], 0)
    default = _tensor(b"" if default_value is None else default_value, _dtypes.string)
    return _of.sparse.to_dense(SparseTensor(_of.stack([ids, pos], axis=1), inner, dense_shape), default)


def _fit_shape(dense, shape, default):
    """Truncates or pads (with default) each dimension of dense whose size `shape` fixes."""
    shape = TensorShape(shape)
    if shape.rank is None:
        return dense
    cur = _of.shape(dense, out_type=_dtypes.int64)
    for d, size in enumerate(shape.as_list()):
        if size is None:
            continue
        begin = [0] * shape.rank
        sizes = [-1] * shape.rank
        sizes[d] = -1
        dense = _of.slice(dense, begin, _of.concat([cur[:d], [_of.minimum(cur[d], size)], cur[d + 1:]], 0)
                          if d > 0 or shape.rank > 1 else _of.reshape(_of.minimum(cur[d], size), [1]))
        cur = _of.shape(dense, out_type=_dtypes.int64)
        pad = _of.scatter_nd([[d, 1]], _of.reshape(_of.maximum(size - cur[d], 0), [1]),
                             _of.constant([shape.rank, 2], _dtypes.int64))
        dense = _of.pad(dense, pad, constant_values=default)
        cur = _of.shape(dense, out_type=_dtypes.int64)
    dense.set_shape(shape) if hasattr(dense, "set_shape") else None
    return dense


def ragged_to_sparse(rt):
    """rt.to_sparse: a SparseTensor with the value at [row, col, ...] for each flat value."""
    cols, level = [], rt
    rowids = None
    index_cols = []
    while isinstance(level, RaggedTensor):
        ids = row_splits_to_segment_ids(level.row_splits)
        pos = _of.range(_of.shape(ids, out_type=_dtypes.int64)[0]) - _of.gather(level.row_splits, ids)
        if rowids is None:
            index_cols = [ids, pos]
        else:
            index_cols = [_of.gather(c, ids) for c in index_cols] + [pos]
        rowids = ids
        level = level.values
    del cols
    flat = level
    rank = TensorShape(flat.shape).rank
    if rank is not None and rank > 1:
        raise ValueError("to_sparse: flat_values of rank > 1 are not supported; ragged_rank must be rank - 1")
    indices = _of.stack(index_cols, axis=1)
    return SparseTensor(indices, flat, rt.bounding_shape())


# ---- row selection
def gather(params, indices, validate_indices=None, axis=0, batch_dims=0, name=None):
    """The rows ``indices`` of ragged ``params`` (axis 0)."""
    if not isinstance(params, RaggedTensor):
        return _of.gather(params, indices, axis=axis)
    if axis != 0 or batch_dims != 0:
        raise ValueError("ragged.gather: only axis=0, batch_dims=0 is supported on RaggedTensor params")
    indices = _of.cast(_tensor(indices), _dtypes.int64)
    if TensorShape(indices.shape).rank != 1:
        raise ValueError(f"ragged.gather: indices must be a vector, got shape {indices.shape}")
    lengths, starts = _row_lengths_and_starts(params)
    new_lengths = _of.gather(lengths, indices)
    new_splits = _of.concat([_of.zeros([1], _dtypes.int64), _of.cumsum(new_lengths)], 0)
    ids = row_splits_to_segment_ids(new_splits)
    value_index = _of.gather(_of.gather(starts, indices), ids) + _of.range(_of.shape(ids, out_type=_dtypes.int64)[0]) \
        - _of.gather(new_splits, ids)
    values = gather(params.values, value_index) if isinstance(params.values, RaggedTensor) else \
        _take(params.values, value_index)
    return RaggedTensor.from_row_splits(values, new_splits, validate=False)


def ragged_getitem(rt, key):
    """rt[i] (row i: a tensor or RaggedTensor), rt[i:j] (rows i..j-1) and rt[i, j]."""
    if isinstance(key, tuple):
        if not key:
            return rt
        head = ragged_getitem(rt, key[0])
        if len(key) == 1:
            return head
        if isinstance(key[0], slice):
            raise ValueError("RaggedTensor indexing: a slice followed by more indices is not supported")
        return head[key[1:]] if isinstance(head, RaggedTensor) else head.__getitem__(key[1:])
    if isinstance(key, slice):
        n = rt.nrows()
        idx = _of.range(n)[key]
        return gather(rt, idx)
    i = _tensor(key, _dtypes.int64)
    n = rt.nrows()
    i = _of.where(i < 0, i + n, i)
    start, limit = rt.row_splits[i], rt.row_splits[i + 1]
    if isinstance(rt.values, RaggedTensor):
        return gather(rt.values, _of.range(start, limit))
    if rt.values.dtype == _dtypes.string and TensorShape(rt.values.shape).rank == 1:
        return _string_range(rt.values, start, limit)
    return _take(rt.values, _of.range(start, limit))


def boolean_mask(data, mask, name=None):
    """tf.ragged.boolean_mask: a 1-D mask keeps rows; a mask of rank >= 2 (dense or ragged, the
    shape of data's outer dims) keeps values within each row, giving a RaggedTensor."""
    from opforge.ragged.ragged_tensor import is_ragged  # noqa: PLC0415
    if isinstance(mask, RaggedTensorValue) or isinstance(data, RaggedTensorValue):
        return boolean_mask(convert_to_tensor_or_ragged_tensor(data), convert_to_tensor_or_ragged_tensor(mask))
    mask_rank = mask.ragged_rank + 1 if isinstance(mask, RaggedTensor) else TensorShape(_tensor(mask).shape).rank
    if not is_ragged(mask):
        mask = _tensor(mask, _dtypes.bool_)
    if mask.dtype != _dtypes.bool_:
        raise TypeError(f"boolean_mask: mask must be bool, got {mask.dtype.name}")
    if mask_rank == 1:
        keep = _of.reshape(_of.where(mask), [-1])
        return gather(data, keep) if isinstance(data, RaggedTensor) else _take(data, keep)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(data, ragged_rank=mask_rank - 1)
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask, ragged_rank=mask_rank - 1)
    inner = boolean_mask(data.values, mask.values)
    counts = _of.unsorted_segment_sum(_of.cast(mask.values if not isinstance(mask.values, RaggedTensor)
                                               else _of.ones_like(mask.values.row_splits[1:]), _dtypes.int64),
                                      mask.value_rowids(), mask.nrows()) if not isinstance(mask.values, RaggedTensor) \
        else mask.row_lengths()
    return RaggedTensor.from_row_lengths(inner, counts, validate=False)


# ---- ranges and stacking
def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dtypes.int64):  # noqa: A001
    """Row i is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast); one argument is
    the limits, with starts 0 (tf.ragged.range: the op RaggedRange)."""
    if limits is None:
        starts, limits = 0, starts
    known = [x.dtype for x in (starts, limits, deltas) if isinstance(x, (GraphTensor, EagerTensor))]
    if dtype is None:
        floats = any(np.asarray(x).dtype.kind == "f" for x in (starts, limits, deltas)
                     if not isinstance(x, (GraphTensor, EagerTensor)))
        dtype = known[0] if known else (_dtypes.float32 if floats else _dtypes.int32)
    dtype = _dtypes.as_dtype(dtype)
    starts, limits, deltas = (_tensor(x, dtype) for x in (starts, limits, deltas))
    splits, values = _gen_ragged.ragged_range(starts, limits, deltas, Tsplits=_dtypes.as_dtype(row_splits_dtype).name,
                                              name=name)
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _concat_rows(rts):
    """The rows of several RaggedTensors of one ragged_rank, one after the other."""
    if not isinstance(rts[0], RaggedTensor):
        return _of.concat(list(rts), 0)
    values = _concat_rows([r.values for r in rts])
    lengths = _of.concat([r.row_lengths() for r in rts], 0)
    return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def stack(values, axis=0, name=None):
    """Stacks RaggedTensors (or dense tensors) of one rank along axis 0 into a RaggedTensor with
    one more ragged dimension (tf.ragged.stack)."""
    from opforge.ragged.ragged_tensor import is_ragged  # noqa: PLC0415
    values = [convert_to_tensor_or_ragged_tensor(v) for v in values]
    if not values:
        raise ValueError("ragged.stack: values must not be empty")
    if axis != 0:
        raise ValueError("ragged.stack: only axis=0 is supported")
    ranks = {v.ragged_rank if isinstance(v, RaggedTensor) else 0 for v in values}
    ragged_rank = max(ranks)
    if ragged_rank == 0:
        ragged_rank = 1
    conv = [v if is_ragged(v) and v.ragged_rank == ragged_rank else RaggedTensor.from_tensor(v, ragged_rank=ragged_rank)
            for v in values]
    rows = _concat_rows(conv)
    counts = _of.stack([v.nrows() for v in conv])
    return RaggedTensor.from_row_lengths(rows, counts, validate=False)


# ---- RaggedFillEmptyRows
def fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """Gives every empty row one value, ``default_value`` (the op RaggedFillEmptyRows): returns
    (output_value_rowids, output_values, empty_row_indicator, reverse_index_map)."""
    values = _tensor(values)
    return _gen_ragged.ragged_fill_empty_rows(_tensor(value_rowids, _dtypes.int64), values,
                                              _tensor(nrows, _dtypes.int64), _tensor(default_value, values.dtype),
                                              name=name)


def fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The gradient of fill_empty_rows (the op RaggedFillEmptyRowsGrad): (d_values, d_default_value)."""
    return _gen_ragged.ragged_fill_empty_rows_grad(_tensor(reverse_index_map, _dtypes.int64), _tensor(grad_values),
                                                   name=name)


# ---- RaggedTensor's methods that are tf.ragged operations (attached here, as TensorFlow does,
# so that ragged_tensor need not import this module)
def _to_tensor(self, default_value=None, name=None, shape=None):
    """The dense tensor: each row padded with ``default_value`` (zero) to the longest row;
    ``shape`` (optional) pads or truncates each dimension to a given size."""
    return ragged_to_dense(self, default_value, shape)


def _to_sparse(self, name=None):
    """A SparseTensor with the value at [row, col, ...] for each flat value."""
    return ragged_to_sparse(self)


RaggedTensor.to_tensor = _to_tensor
RaggedTensor.to_sparse = _to_sparse
RaggedTensor.__getitem__ = ragged_getitem


def _elementwise(fn, reverse=False):
    def method(self, other):
        return map_flat_values(lambda a, b: fn(b, a) if reverse else fn(a, b), self, other)
    return method


for _name, _fn in (("add", _of.add), ("sub", _of.subtract), ("mul", _of.multiply), ("truediv", _of.truediv),
                   ("floordiv", _of.floordiv), ("mod", _of.math.floormod), ("pow", _of.pow)):
    setattr(RaggedTensor, f"__{_name}__", _elementwise(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _elementwise(_fn, reverse=True))
for _name, _fn in (("lt", _of.less), ("le", _of.less_equal), ("gt", _of.greater), ("ge", _of.greater_equal),
                   ("and", _of.logical_and), ("or", _of.logical_or)):
    setattr(RaggedTensor, f"__{_name}__", _elementwise(_fn))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(_of.math.negative(self.flat_values))
RaggedTensor.__abs__ = lambda self: self.with_flat_values(_of.abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(_of.logical_not(self.flat_values))
