"""TensorFlow's friendly names for the array ops, and tensor indexing (``x[1:, ..., None]``).

Thin functions over the generated wrappers: they only translate TensorFlow's Python
signatures (``of.split(x, 3, axis=1)``, ``of.gather(p, i, axis=1)``, ``of.where(c)``) into op
calls, so eager execution, graph building and gradients are those of the ops themselves.
"""

from __future__ import annotations

import builtins
import collections
import numbers

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError, UnimplementedError
from ..framework.graph import GraphTensor
from ..framework.tensor import Tensor, convert_to_tensor


def _is_graph(x) -> bool:
    return isinstance(x, GraphTensor) or hasattr(x, "_graph_for_dispatch")


def _rank_of(x):
    if _is_graph(x):
        return x.shape.rank
    return convert_to_tensor(x).ndim


def _int_vector(v):
    """Python lists/tuples of ints become int32 (int64 if needed) arrays; tensors pass."""
    if isinstance(v, (list, tuple)) and not any(isinstance(e, (Tensor, GraphTensor)) for e in v):
        a = np.asarray(v, dtype=np.int64)
        small = a.size == 0 or (a.min() >= -(2**31) and a.max() < 2**31)
        return a.astype(np.int32) if small else a
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return np.int32(v) if -(2**31) <= v < 2**31 else np.int64(v)
    return v


def concat(values, axis, name=None):
    """Concatenates tensors along axis (tf.concat, the op ConcatV2)."""
    values = list(values)
    if len(values) == 1:
        return _ops.identity(values[0], name=name or "concat")
    return _ops.concat_v2(values, _int_vector(axis), name=name or "concat")


def stack(values, axis=0, name=None):
    """Stacks tensors of one shape along a new dimension (tf.stack, the op Pack)."""
    return _ops.pack(list(values), axis=axis, name=name or "stack")


def unstack(value, num=None, axis=0, name=None):
    """Unpacks a tensor along axis into a list (tf.unstack, the op Unpack)."""
    if num is None:
        shape = value.shape if _is_graph(value) else convert_to_tensor(value).shape
        dims = list(shape) if shape.rank is not None else None
        if dims is None or dims[axis] is None:
            raise ValueError(f"cannot infer num from shape {shape}")
        num = int(dims[axis])
    return _ops.unpack(value, num=num, axis=axis, name=name)


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Splits into num_or_size_splits equal pieces (an int), or pieces of the given sizes
    (a list; at most one -1), along axis (tf.split: the ops Split and SplitV)."""
    if isinstance(num_or_size_splits, numbers.Integral) and not isinstance(num_or_size_splits, bool):
        return _ops.split(np.int32(axis), value, num_split=int(num_or_size_splits), name=name)
    sizes = _int_vector(num_or_size_splits)
    if num is None:
        n = np.shape(sizes) if not isinstance(sizes, (Tensor, GraphTensor)) else tuple(sizes.shape)
        if len(n) != 1 or n[0] is None:
            raise ValueError("cannot infer num from num_or_size_splits; pass num")
        num = int(n[0])
    return _ops.split_v(value, sizes, np.int32(axis), num_split=num, name=name)


def slice(input_, begin, size, name=None):  # noqa: A001 (TensorFlow's name)
    """Extracts a slice of `size` starting at `begin` (tf.slice)."""
    return _ops.slice(input_, _int_vector(begin), _int_vector(size), name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Python-style extended slicing with TensorFlow's masks (tf.strided_slice)."""
    begin, end = _int_vector(begin), _int_vector(end)
    if strides is None:
        strides = np.ones(np.shape(begin), np.asarray(begin).dtype) if not hasattr(begin, "dtype") or \
            isinstance(begin, np.ndarray) else _ops.ones_like(begin)
    return _ops.strided_slice(input_, begin, end, _int_vector(strides), begin_mask=begin_mask,
                              end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                              new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
                              name=name or "strided_slice")


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices of params along axis (default: batch_dims) (tf.gather, the op GatherV2)."""
    if axis is None:
        axis = batch_dims
    return _ops.gather_v2(params, _int_vector(indices), _int_vector(axis), batch_dims=batch_dims, name=name)


def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices at multi-dimensional indices (tf.gather_nd)."""
    if batch_dims != 0:
        raise UnimplementedError("gather_nd: batch_dims other than 0 is not supported", "GatherNd")
    return _ops.gather_nd(params, _int_vector(indices), name=name)


def scatter_nd(indices, updates, shape, name=None):
    """Scatters updates into zeros of `shape`, adding duplicates (tf.scatter_nd)."""
    indices = _int_vector(indices)
    shape = _int_vector(shape)
    if isinstance(shape, np.ndarray) and hasattr(indices, "dtype"):
        shape = shape.astype(np.dtype(getattr(indices.dtype, "as_numpy_dtype", indices.dtype)))
    return _ops.scatter_nd(indices, updates, shape, name=name)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads with a constant (tf.pad; the ops Pad and PadV2), or with the input's mirror image
    (mode "REFLECT": the edge not repeated, "SYMMETRIC": repeated; TensorFlow's MirrorPad)."""
    mode = str(mode).upper()
    if mode in ("REFLECT", "SYMMETRIC"):
        return _mirror_pad(tensor, paddings, mode, name)
    if mode != "CONSTANT":
        raise InvalidArgumentError(f"pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}", "Pad")
    paddings = _int_vector(paddings)
    if isinstance(constant_values, numbers.Number) and constant_values == 0:
        return _ops.pad(tensor, paddings, name=name)
    return _ops.pad_v2(tensor, paddings, constant_values, name=name)


def _slice_axis(x, rank, axis, start, stop):
    """x[..., start:stop, ...] on one axis (stop None: to the end), any size of the others."""
    begin, end = np.zeros(rank, np.int32), np.zeros(rank, np.int32)
    begin[axis] = start
    end_mask = (1 << rank) - 1 if stop is None else ((1 << rank) - 1) & ~(1 << axis)
    if stop is not None:
        end[axis] = stop
    return _ops.strided_slice(x, begin, end, np.ones(rank, np.int32), begin_mask=((1 << rank) - 1) & ~(1 << axis),
                              end_mask=end_mask)


def _mirror_pad(tensor, paddings, mode, name):
    """MirrorPad as slices, reversals and concatenations of the input (so its gradient is theirs).
    REFLECT pads axis i by up to size-1 elements, SYMMETRIC by up to size; paddings must be
    constant, as TF1 programs write them."""
    if isinstance(paddings, (Tensor, GraphTensor)):
        raise UnimplementedError(f"pad: mode={mode!r} needs constant paddings, got a tensor", "MirrorPad")
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2 or not np.issubdtype(p.dtype, np.integer) or (p < 0).any():
        raise InvalidArgumentError(f"pad: paddings must be non-negative integers of shape [rank, 2], got {p.tolist()}",
                                   "MirrorPad")
    x = tensor if _is_graph(tensor) else convert_to_tensor(tensor)
    rank = _rank_of(x)
    if rank is not None and rank != p.shape[0]:
        raise InvalidArgumentError(f"pad: paddings has {p.shape[0]} rows for an input of rank {rank}", "MirrorPad")
    rank, offset = p.shape[0], 1 if mode == "REFLECT" else 0
    dims = x.shape.as_list() if _is_graph(x) else list(x.shape)
    for axis, (before, after) in enumerate(p.tolist()):
        size = dims[axis] if dims is not None else None
        if size is not None and max(before, after) > size - offset:
            raise InvalidArgumentError(
                f"pad: {mode} paddings must be at most {size - offset} on dimension {axis} of size {size}, "
                f"got [{before}, {after}]", "MirrorPad")
        pieces = [x]
        if before:
            pieces.insert(0, reverse(_slice_axis(x, rank, axis, offset, before + offset), [axis]))
        if after:
            pieces.append(reverse(_slice_axis(x, rank, axis, -after - offset, -offset or None), [axis]))
        if len(pieces) > 1:
            x = _ops.concat_v2(pieces, np.int32(axis))
    return _ops.identity(x, name=name)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeats input multiples[i] times along dimension i (tf.tile)."""
    return _ops.tile(input, _int_vector(multiples), name=name)


def expand_dims(input, axis, name=None):  # noqa: A002
    """Inserts a dimension of size 1 at axis (tf.expand_dims)."""
    return _ops.expand_dims(input, _int_vector(axis), name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes dimensions of size 1: all of them, or those in axis (tf.squeeze)."""
    axis = squeeze_dims if axis is None else axis
    if axis is None:
        axis = []
    elif isinstance(axis, numbers.Integral):
        axis = [int(axis)]
    return _ops.squeeze(input, axis=[int(a) for a in axis], name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor (tf.one_hot): dtype from on/off values, else float32."""
    from ..framework.dtypes import as_dtype  # noqa: PLC0415
    if dtype is None:
        for v in (on_value, off_value):
            if isinstance(v, (Tensor, GraphTensor, np.ndarray, np.generic)):
                dtype = v.dtype
                break
    dt = as_dtype(dtype if dtype is not None else "float32")
    npdt = dt.as_numpy_dtype
    on = np.asarray(1 if on_value is None else on_value).astype(npdt) \
        if not isinstance(on_value, (Tensor, GraphTensor)) else on_value
    off = np.asarray(0 if off_value is None else off_value).astype(npdt) \
        if not isinstance(off_value, (Tensor, GraphTensor)) else off_value
    if isinstance(indices, (list, tuple, numbers.Integral)):
        indices = np.asarray(indices, np.int64)
    depth = np.int32(depth) if isinstance(depth, numbers.Integral) else depth
    return _ops.one_hot(indices, depth, on, off, axis=-1 if axis is None else axis, name=name or "one_hot")


def reverse(tensor, axis, name=None):
    """Reverses the given dimensions (tf.reverse, the op ReverseV2)."""
    return _ops.reverse_v2(tensor, _int_vector(axis), name=name)


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts input to shape (tf.broadcast_to)."""
    return _ops.broadcast_to(input, _int_vector(shape), name=name)


def where(condition, x=None, y=None, name=None):
    """One argument: the coordinates of the true elements, an int64 [n, rank] tensor (the op
    Where). Three: elementwise condition ? x : y with broadcasting (the op SelectV2)."""
    if x is None and y is None:
        return _ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither")
    return _ops.select_v2(condition, x, y, name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """The identity; gradients do not flow through it (tf.stop_gradient)."""
    return _ops.stop_gradient(input, name=name)


def shape(input, out_type="int32", name=None):  # noqa: A002
    return _ops.shape(input, out_type=out_type, name=name)


def size(input, out_type="int32", name=None):  # noqa: A002
    return _ops.size(input, out_type=out_type, name=name)


def rank(input, name=None):  # noqa: A002
    return _ops.rank(input, name=name)


# ------------------------------------------------------------------------------ indexing


def _index_value(v, what):
    """An int (or an integer scalar tensor) used as a slice bound or index."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"tensor indices must be integers, slices, Ellipsis or None, got {what} {v!r}")
    if isinstance(v, (numbers.Integral, np.integer)):
        return int(v)
    if isinstance(v, GraphTensor):
        return v
    if isinstance(v, Tensor):
        if not v.dtype.is_integer or v.ndim != 0:
            raise TypeError(f"tensor indices must be integer scalars, got a {v.dtype.name} tensor "
                            f"of shape {v.shape}")
        return int(v)
    raise TypeError(f"tensor indices must be integers, slices, Ellipsis or None, got {what} "
                    f"{type(v).__name__} (use of.gather / of.gather_nd / of.boolean masks "
                    f"through of.where for array indices)")


def slice_spec(key):
    """begin, end, strides and masks for ``tensor[key]`` (TensorFlow's _slice_helper)."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    seen_ellipsis = False
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, builtins.slice):
            step = 1 if k.step is None else _index_value(k.step, "step")
            if isinstance(step, int) and step == 0:
                raise ValueError("slice step cannot be zero")
            if k.start is None:
                masks["begin_mask"] |= bit
                begin.append(0)
            else:
                begin.append(_index_value(k.start, "start"))
            if k.stop is None:
                masks["end_mask"] |= bit
                end.append(0)
            else:
                end.append(_index_value(k.stop, "stop"))
            strides.append(step)
        else:
            v = _index_value(k, "index")
            masks["shrink_axis_mask"] |= bit
            begin.append(v)
            end.append(v + 1 if isinstance(v, int) else _ops.add_v2(v, 1))
            strides.append(1)
    return begin, end, strides, masks


def _pack_bounds(values):
    if all(isinstance(v, int) for v in values):
        return _int_vector(list(values)) if values else np.zeros(0, np.int32)
    return _ops.pack([_ops.cast(v, "int64") if isinstance(v, GraphTensor) else np.int64(v) for v in values])


def getitem(tensor, key):
    """``tensor[key]`` through StridedSlice: ints, slices (any step, negative included),
    Ellipsis and None/newaxis, as NumPy basic indexing; differentiable."""
    begin, end, strides, masks = slice_spec(key)
    b, e, s = (_pack_bounds(v) for v in (begin, end, strides))
    if isinstance(b, np.ndarray) and isinstance(e, np.ndarray) and isinstance(s, np.ndarray):
        dt = np.result_type(b.dtype, e.dtype, s.dtype)
        b, e, s = b.astype(dt), e.astype(dt), s.astype(dt)
    return _ops.strided_slice(tensor, b, e, s, name="strided_slice", **masks)


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(self.shape[0]):
        yield getitem(self, i)


def install_tensor_indexing() -> None:
    """Gives eager and graph tensors ``__getitem__``; eager tensors iterate over their first
    dimension."""
    Tensor.__getitem__ = getitem
    Tensor.__iter__ = _iter
    GraphTensor.__getitem__ = getitem


newaxis = None

__all__ = ["concat", "stack", "unstack", "split", "slice", "strided_slice", "gather", "gather_nd",
           "scatter_nd", "pad", "tile", "expand_dims", "squeeze", "one_hot", "reverse",
           "broadcast_to", "where", "stop_gradient", "shape", "size", "rank", "newaxis"]
_ = InvalidArgumentError


# ---- composite array functions (TensorFlow keeps them in array_ops.py); the TF1 spellings in
# opforge.compat.v1 call these.


def _is_tensor(v) -> bool:
    return hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic))


def _as_tensor(v, dtype=None):
    return v if _is_tensor(v) else convert_to_tensor(v, dtype)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of tensor where mask is true (tf.boolean_mask): mask's k dimensions match
    tensor's dimensions axis .. axis+k-1, which become one dimension of the selected entries."""
    tensor, mask = _as_tensor(tensor), _as_tensor(mask, _dtypes.bool_)
    axis = 0 if axis is None else int(axis)
    k, rank = mask.shape.rank, tensor.shape.rank
    if k is None or rank is None:
        raise ValueError("boolean_mask: the ranks of tensor and mask must be known")
    if k == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar")
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank - k:
        raise ValueError(f"boolean_mask: a mask of rank {k} at axis {axis} does not fit a tensor of rank {rank}")
    if not tensor.shape[axis:axis + k].is_compatible_with(mask.shape):
        raise ValueError(f"boolean_mask: the mask's shape {mask.shape} does not match the tensor's dimensions "
                         f"{tensor.shape[axis:axis + k]}")
    outer = tensor.shape.dims[:axis] + tensor.shape.dims[axis + k:]
    if None not in outer:  # a constant target shape keeps the static shape (the gradient needs it)
        target = np.array(list(tensor.shape.dims[:axis]) + [-1] + list(tensor.shape.dims[axis + k:]), np.int64)
    else:
        shape = _ops.shape(tensor, out_type="int64")
        one = np.array([1], np.int32)
        lead = _ops.strided_slice(shape, np.array([0], np.int32), np.array([axis], np.int32), one)
        rest = _ops.strided_slice(shape, np.array([axis + k], np.int32), np.array([0], np.int32), one, end_mask=1)
        target = _ops.concat_v2([lead, np.array([-1], np.int64), rest], np.int32(0))
    flat = _ops.reshape(tensor, target)
    keep = _ops.reshape(_ops.where(_ops.reshape(mask, np.array([-1], np.int64))), np.array([-1], np.int64))
    return _ops.gather_v2(flat, keep, np.int32(axis), name=name)


def sequence_mask(lengths, maxlen=None, dtype="bool", name=None):
    """mask[..., j] = j < lengths[...] (tf.sequence_mask); maxlen defaults to max(lengths)."""
    lengths = _as_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise InvalidArgumentError(f"sequence_mask: lengths must be integers, got {lengths.dtype.name}",
                                   "SequenceMask")
    lt = lengths.dtype.as_numpy_dtype
    maxlen = _ops.max(lengths, np.arange(lengths.shape.rank or 0, dtype=np.int32)) if maxlen is None \
        else _as_tensor(maxlen, lengths.dtype) if not _is_tensor(maxlen) else _ops.cast(maxlen, lengths.dtype)
    columns = _ops.range(np.asarray(0, lt), maxlen, np.asarray(1, lt))
    mask = _ops.less(columns, _ops.expand_dims(lengths, np.int32(-1)))
    return mask if _dtypes.as_dtype(dtype) == _dtypes.bool_ else _ops.cast(mask, dtype, name=name)


def meshgrid(*args, **kwargs):
    """Coordinate grids of the 1-D args (tf.meshgrid): indexing="xy" (the default, as NumPy's)
    swaps the first two dimensions of the outputs, "ij" keeps them in argument order."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    del name
    flat = [_ops.reshape(_as_tensor(a), np.array([-1], np.int64)) for a in args]
    n = len(flat)
    sizes = [_ops.size(t, out_type="int64") for t in flat]
    swap = indexing == "xy" and n >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    target = _ops.pack(sizes, axis=0)
    grids = []
    for i, t in enumerate(flat):
        shape = [1] * n
        shape[(1 - i if i < 2 else i) if swap else i] = -1
        column = _ops.reshape(t, np.array(shape, np.int64))
        grids.append(_ops.mul(column, _ops.fill(target, np.ones((), t.dtype.as_numpy_dtype))))
    return grids


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """a with its last two dimensions swapped (tf.linalg.matrix_transpose)."""
    del conjugate  # opforge has no complex dtypes: the conjugate is the tensor itself
    a = _as_tensor(a)
    rank = a.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"matrix_transpose: a must have a known rank of at least 2, got shape {a.shape}")
    perm = list(builtins.range(rank - 2)) + [rank - 1, rank - 2]
    return _ops.transpose(a, np.array(perm, np.int32), name=name)


__all__ += ["boolean_mask", "sequence_mask", "meshgrid"]


def repeat(input, repeats, axis=None, name=None):  # noqa: A002  (TensorFlow's argument name)
    """Repeats each element of `input` along `axis` (tf.repeat, np.repeat): `repeats` is a scalar
    or one count per element along `axis`; with axis=None the input is flattened first. Built as
    TensorFlow builds it, from ops: a sequence mask of the counts picks the gather indices."""
    x = _as_tensor(input)
    if axis is None:
        x = _ops.reshape(x, np.asarray([-1], np.int32))
        axis = 0
    repeats = _as_tensor(repeats) if _is_tensor(repeats) else _as_tensor(np.asarray(repeats))
    if not repeats.dtype.is_integer:
        raise InvalidArgumentError(f"repeat: repeats must be integers, got {repeats.dtype.name}", "Repeat")
    if repeats.shape.rank is not None and repeats.shape.rank > 1:
        raise InvalidArgumentError(f"repeat: repeats must be a scalar or a vector, got rank {repeats.shape.rank}",
                                   "Repeat")
    axis_index = np.int32(axis) if axis >= 0 else _ops.floor_mod(np.int32(axis), _ops.rank(x))
    axis_size = _ops.gather_v2(_ops.shape(x, out_type=repeats.dtype), axis_index, np.int32(0))
    repeats = _ops.broadcast_to(repeats, _ops.expand_dims(axis_size, np.int32(0)))
    picked = _ops.where(sequence_mask(repeats))  # [total, 2]: (element, copy) of each output row
    return _ops.gather_v2(x, _ops.gather_v2(picked, np.int64(0), np.int32(1)), np.int32(axis), name=name)


__all__ += ["repeat"]


UniqueResult = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCountsResult = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def unique(x, out_idx=_dtypes.int32, name=None):
    """The distinct elements of the vector x in first-occurrence order, and for each element of
    x the index of its value: (y, idx) with x[i] == y[idx[i]] (tf.unique)."""
    return UniqueResult(*_ops.unique(x, out_idx=out_idx, name=name))


def unique_with_counts(x, out_idx=_dtypes.int32, name=None):
    """As unique, with count[j] the number of elements equal to y[j] (tf.unique_with_counts)."""
    return UniqueWithCountsResult(*_ops.unique_with_counts(x, out_idx=out_idx, name=name))
