"""Array functions TensorFlow has as ops, built here from opforge's ops as TensorFlow's own Python
builds some of them: sort / argsort (TopKV2, as tf.sort), roll (a gather of rotated indices),
space_to_depth / depth_to_space (reshape and transpose), invert_permutation (ScatterNd),
batch_gather, space_to_batch / batch_to_space (the ND ops with a square block).

Static shapes stay known where the input's are: sizes known while building are used as
constants, the others are computed from Shape in the graph.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError, UnimplementedError
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.tensor_shape import TensorShape
from .array_ops import gather


def _scope(name, default):
    return get_default_graph().name_scope(name or default)


def _rank(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return np.ndim(x)
    return shape.rank if hasattr(shape, "rank") else len(shape)


def _dims(x):
    """x's dims: an int where known while building, else a scalar int32 tensor from Shape(x)."""
    rank = _rank(x)
    if rank is None:
        raise InvalidArgumentError("the rank of the input must be known when the graph is built", None)
    shape = getattr(x, "shape", np.shape(x))
    static = list(shape.dims) if hasattr(shape, "dims") else [int(d) for d in shape]
    dyn = None
    out = []
    for i, d in enumerate(static):
        if d is None:
            dyn = _ops.shape(x) if dyn is None else dyn
            out.append(_ops.strided_slice(dyn, np.array([i], np.int32), np.array([i + 1], np.int32),
                                          np.array([1], np.int32), shrink_axis_mask=1))
        else:
            out.append(int(d))
    return out


def _shape_vector(parts):
    """A 1-D int32 shape from ints and scalar tensors (a constant when all are ints)."""
    if all(isinstance(p, (int, np.integer)) for p in parts):
        return np.asarray(parts, np.int32)
    return _ops.pack([np.int32(p) if isinstance(p, (int, np.integer)) else p for p in parts], axis=0)


def _reshaped(x, parts):
    """x reshaped to parts (ints and scalar tensors), its static shape the ints that are known
    (a Reshape whose shape is partly computed would otherwise lose them)."""
    out = _ops.reshape(x, _shape_vector(parts))
    if isinstance(out, GraphTensor):
        known = TensorShape([p if isinstance(p, (int, np.integer)) else None for p in parts])
        if out.shape.is_compatible_with(known):
            out.graph._set_shape(out, known.merge_with(out.shape))
    return out


def _div(a, b):
    return a // b if isinstance(a, (int, np.integer)) else _ops.floor_div(a, np.int32(b))


def _mul(a, b):
    return a * b if isinstance(a, (int, np.integer)) else _ops.mul(a, np.int32(b))


# ---- sorting ----------------------------------------------------------------------------


def _sorted(values, axis, direction, return_indices):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"direction must be ASCENDING or DESCENDING, got {direction!r}")
    rank = _rank(values)
    if rank is None:
        raise InvalidArgumentError("sort: the rank of values must be known when the graph is built", "TopKV2")
    if rank == 0:
        raise ValueError("sort: values must have rank >= 1")
    axis = int(axis) % rank
    perm = None
    if axis != rank - 1:
        perm = list(range(rank))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        values = _ops.transpose(values, np.asarray(perm, np.int32))
    n = _dims(values)[-1]
    n = np.int32(n) if isinstance(n, int) else n
    flip = direction == "ASCENDING"
    top = _ops.top_kv2(_ops.neg(values) if flip else values, n, sorted=True)
    out = top[1] if return_indices else (_ops.neg(top[0]) if flip else top[0])
    if perm is not None:
        out = _ops.transpose(out, np.asarray(perm, np.int32))
    return out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """values sorted along axis (tf.sort), by TopKV2 over all of the axis as TensorFlow does."""
    with _scope(name, "sort"):
        return _sorted(values, axis, direction, return_indices=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort values along axis (tf.argsort). Equal values keep their
    order (TopKV2 breaks ties by index), so the sort is stable either way."""
    del stable
    with _scope(name, "argsort"):
        return _sorted(values, axis, direction, return_indices=True)


# ---- rearranging --------------------------------------------------------------------------


def roll(input, shift, axis, name=None):  # noqa: A002 (TensorFlow's names)
    """input with its elements rotated by shift along axis (tf.roll): element i moves to
    (i + shift) mod n. shift and axis may be lists (shifts on the same axis add up); axis
    must be known while building, shift may be a tensor."""
    with _scope(name, "Roll"):
        axes = [int(a) for a in np.ravel(axis)]
        shifts = list(shift) if isinstance(shift, (list, tuple)) or np.ndim(shift) == 1 and not hasattr(
            shift, "op") else [shift] * len(axes) if len(axes) > 1 and np.ndim(shift) == 0 else [shift]
        if len(shifts) != len(axes):
            raise InvalidArgumentError(f"roll: shift and axis must have the same size, got {len(shifts)} and "
                                       f"{len(axes)}", "Roll")
        rank = _rank(input)
        dims = _dims(input)
        out = input
        for s, a in zip(shifts, axes):
            a = a % rank
            n = dims[a]
            n_t = np.int32(n) if isinstance(n, int) else n
            if isinstance(n, int) and n == 0:
                continue
            idx = _ops.floor_mod(_ops.sub(_ops.range(np.int32(0), n_t, np.int32(1)), _ops.cast(s, "int32")), n_t)
            out = gather(out, idx, axis=a)
        return _ops.identity(out)


def _nhwc_only(data_format, what):
    if data_format not in (None, "NHWC"):
        raise UnimplementedError(f"{what}: only data_format NHWC is supported", what)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves each block_size x block_size spatial block into the depth dimension
    (tf.space_to_depth): [b, h, w, c] to [b, h/bs, w/bs, bs*bs*c], NHWC."""
    _nhwc_only(data_format, "SpaceToDepth")
    bs = int(block_size)
    if bs < 2:
        raise InvalidArgumentError(f"block_size must be at least 2, got {bs}", "SpaceToDepth")
    with _scope(name, "SpaceToDepth"):
        b, h, w, c = _dims(input) if _rank(input) == 4 else _rank_error("SpaceToDepth", input)
        for d, what in ((h, "height"), (w, "width")):
            if isinstance(d, int) and d % bs:
                raise InvalidArgumentError(f"SpaceToDepth: the {what} {d} must be divisible by block_size {bs}",
                                           "SpaceToDepth")
        x = _ops.reshape(input, _shape_vector([b, _div(h, bs), bs, _div(w, bs), bs, c]))
        x = _ops.transpose(x, np.array([0, 1, 3, 2, 4, 5], np.int32))
        return _reshaped(x, [b, _div(h, bs), _div(w, bs), _mul(c, bs * bs)])


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """The inverse of space_to_depth (tf.depth_to_space): [b, h, w, c] to
    [b, h*bs, w*bs, c/(bs*bs)], NHWC."""
    _nhwc_only(data_format, "DepthToSpace")
    bs = int(block_size)
    if bs < 2:
        raise InvalidArgumentError(f"block_size must be at least 2, got {bs}", "DepthToSpace")
    with _scope(name, "DepthToSpace"):
        b, h, w, c = _dims(input) if _rank(input) == 4 else _rank_error("DepthToSpace", input)
        if isinstance(c, int) and c % (bs * bs):
            raise InvalidArgumentError(f"DepthToSpace: the depth {c} must be divisible by block_size^2 = {bs * bs}",
                                       "DepthToSpace")
        x = _ops.reshape(input, _shape_vector([b, h, w, bs, bs, _div(c, bs * bs)]))
        x = _ops.transpose(x, np.array([0, 1, 3, 2, 4, 5], np.int32))
        return _reshaped(x, [b, _mul(h, bs), _mul(w, bs), _div(c, bs * bs)])


def _rank_error(what, x):
    raise InvalidArgumentError(f"{what}: input must be 4-D, got rank {_rank(x)}", what)


def invert_permutation(x, name=None):
    """y with y[x[i]] = i (tf.invert_permutation); fails the run unless x is a permutation of
    0..n-1."""
    with _scope(name, "InvertPermutation"):
        n = _ops.size(x, out_type=x.dtype.name if hasattr(x, "dtype") and not isinstance(x, np.ndarray)
                      else "int32")
        x = _ops.identity(x)
        idx = _ops.expand_dims(x, np.int32(-1))
        valid = _ops.logical_and(_ops.greater_equal(x, _ops.zeros_like(x)), _ops.less(x, n))
        hits = _ops.scatter_nd(_ops.select_v2(_ops.expand_dims(valid, np.int32(-1)), idx, _ops.zeros_like(idx)),
                               _ops.ones_like(x),
                               _ops.reshape(n, np.array([1], np.int32)))
        ok = _ops.logical_and(_ops.all(valid, np.int32(0)), _ops.all(_ops.equal(hits, _ops.ones_like(hits)),
                                                                    np.int32(0)))
        check = _ops.assert_(ok, ["invert_permutation: x is not a permutation of 0..n-1: ", x], summarize=10)
        with get_default_graph().control_dependencies([check]):
            return _ops.scatter_nd(idx, _ops.range(_ops.zeros_like(n), n, _ops.ones_like(n)),
                                   _ops.reshape(n, np.array([1], np.int32)))


def batch_gather(params, indices, name=None):
    """Gathers from each batch row its own indices (tf.batch_gather): gather with batch_dims
    = rank(indices) - 1."""
    rank = _rank(indices)
    if rank is None:
        raise InvalidArgumentError("batch_gather: the rank of indices must be known", "GatherV2")
    return gather(params, indices, batch_dims=rank - 1, name=name)


def _square_block(block_size, block_shape):
    if block_shape is not None:
        if block_size is not None:
            raise ValueError("Cannot specify both 'block_size' and 'block_shape'")
        return block_shape
    return np.asarray([int(block_size)] * 2, np.int32)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """tf.space_to_batch: SpaceToBatchND with a block_size x block_size block."""
    return _ops.space_to_batch_nd(input, _square_block(block_size, block_shape), paddings, name=name)


def batch_to_space(input, crops, block_size=None, name=None, block_shape=None):  # noqa: A002
    """tf.batch_to_space: BatchToSpaceND with a block_size x block_size block."""
    return _ops.batch_to_space_nd(input, _square_block(block_size, block_shape), crops, name=name)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) for SpaceToBatchND / BatchToSpaceND so that input_shape (the spatial
    dims) plus base_paddings becomes divisible by block_shape: the extra padding goes at the end
    of each dim and is cropped again (tf.required_space_to_batch_paddings, TensorFlow's
    composition)."""
    input_shape = _ops.cast(input_shape, "int32")
    block_shape = _ops.cast(block_shape, "int32")
    n = block_shape.shape.as_list()[0] if block_shape.shape.rank == 1 else None
    if n is None:
        raise ValueError("required_space_to_batch_paddings: block_shape must be a vector of known length")
    if input_shape.shape.rank is not None and not input_shape.shape.is_compatible_with([n]):
        raise ValueError(f"required_space_to_batch_paddings: input_shape must have shape [{n}], got "
                         f"{input_shape.shape}")
    base = (np.zeros((n, 2), np.int32) if base_paddings is None else base_paddings)
    base = _ops.cast(base, "int32")
    pad_start, orig_pad_end = _ops.unpack(base, num=2, axis=1)
    full = _ops.add_v2(_ops.add_v2(input_shape, pad_start), orig_pad_end)
    extra = _ops.floor_mod(_ops.sub(block_shape, _ops.floor_mod(full, block_shape)), block_shape)
    paddings = _ops.pack([pad_start, _ops.add_v2(orig_pad_end, extra)], axis=1, name=name)
    crops = _ops.pack([_ops.zeros_like(extra), extra], axis=1)
    return paddings, crops


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """input with, for each batch entry b, its first seq_lengths[b] elements along seq_axis
    reversed and the rest kept (tf.reverse_sequence; seq_dim/batch_dim are TF1's names)."""
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = 0 if batch_axis is None and batch_dim is None else (batch_dim if batch_axis is None else batch_axis)
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    rank = _rank(input)
    if rank is None:
        raise InvalidArgumentError("reverse_sequence: the rank of input must be known", "ReverseSequence")
    seq_axis, batch_axis = int(seq_axis) % rank, int(batch_axis) % rank
    if seq_axis == batch_axis:
        raise InvalidArgumentError("reverse_sequence: seq_axis and batch_axis must differ", "ReverseSequence")
    with _scope(name, "ReverseSequence"):
        perm = [seq_axis, batch_axis] + [a for a in range(rank) if a not in (seq_axis, batch_axis)]
        x = _ops.transpose(input, np.asarray(perm, np.int32))
        dims = _dims(x)
        n_t = np.int32(dims[0]) if isinstance(dims[0], int) else dims[0]
        n_b = np.int32(dims[1]) if isinstance(dims[1], int) else dims[1]
        t = _ops.expand_dims(_ops.range(np.int32(0), n_t, np.int32(1)), np.int32(1))  # [time, 1]
        s = _ops.expand_dims(_ops.cast(seq_lengths, "int32"), np.int32(0))            # [1, batch]
        src = _ops.select_v2(_ops.less(t, s), _ops.sub(_ops.sub(s, t), np.int32(1)), t)
        b = _ops.expand_dims(_ops.range(np.int32(0), n_b, np.int32(1)), np.int32(0))  # [1, batch]
        idx = _ops.pack([src, _ops.add_v2(_ops.mul(t, np.int32(0)), b)], axis=2)
        inverse = list(np.argsort(perm))
        return _ops.transpose(_ops.gather_nd(x, idx), np.asarray(inverse, np.int32))


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape of broadcasting shapes shape_x and shape_y (1-D int tensors) against each other
    (tf.broadcast_dynamic_shape); fails the run when they do not broadcast."""
    with _scope(None, "BroadcastArgs"):
        x, y = _ops.identity(shape_x), _ops.identity(shape_y)
        dtype = x.dtype.name
        nx, ny = _ops.size(x, out_type=dtype), _ops.size(y, out_type=dtype)
        n = _ops.maximum(nx, ny)
        one = np.ones((), x.dtype.as_numpy_dtype)

        def padded(s, k):
            return _ops.concat_v2([_ops.fill(_ops.reshape(_ops.sub(n, k), np.array([1], np.int32)), one), s],
                                  np.int32(0))

        px, py = padded(x, nx), padded(y, ny)
        ok = _ops.logical_or(_ops.logical_or(_ops.equal(px, py), _ops.equal(px, one)), _ops.equal(py, one))
        check = _ops.assert_(_ops.all(ok, np.int32(0)), ["Incompatible shapes: ", x, " vs. ", y], summarize=10)
        with get_default_graph().control_dependencies([check]):
            return _ops.select_v2(_ops.equal(px, one), py, px)
