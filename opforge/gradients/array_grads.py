"""Hand-written gradients of the array ops whose opdefs name them (``gradient_fn``).

Each function receives the recorded op (inputs and outputs grouped per argument, attrs by
name) and the gradients of its outputs, and returns one gradient per input argument (a list
for a list argument, None for index inputs). They are built from the generated wrappers only,
so they work eagerly and in graphs; where a formula needs a static shape that a graph does not
know, it says so with an UnimplementedError instead of guessing.
"""

from __future__ import annotations

import numpy as np

from ..framework.errors import UnimplementedError
from .helpers import _static_dims, constant_value, tag_row_slices


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _np_dtype(t):
    return np.dtype(t.dtype.as_numpy_dtype)


def _need(value, op_name, what):
    if value is None:
        raise UnimplementedError(f"the gradient of {op_name} needs {what} to be known when the "
                                 f"gradient is built", op_name)
    return value


def _rank(t):
    dims = getattr(t, "shape", None)
    r = getattr(dims, "rank", None) if dims is not None else None
    if r is None and dims is not None and getattr(dims, "dims", None) is not None:
        r = len(list(dims))
    return r


def _axis(op_name, axis, rank):
    a = int(np.reshape(_need(constant_value(axis), op_name, "the axis"), -1)[0])
    return a % rank if rank else 0


def _dim_sizes(tensors, axis):
    """Sizes of `tensors` along `axis`: a NumPy int64 vector when static, else a tensor."""
    ops = _ops()
    dims = [_static_dims(t) for t in tensors]
    if all(d is not None for d in dims):
        return np.array([d[axis] for d in dims], np.int64)
    return ops.concat_v2([ops.slice(ops.shape(t, out_type="int64"), np.array([axis], np.int64),
                                    np.array([1], np.int64)) for t in tensors], np.int32(0))


def space_to_batch_nd_grad(op, grads):
    """The blocks moved back (BatchToSpaceND), the padding cropped off."""
    _, block_shape, paddings = op.inputs
    return _ops().batch_to_space_nd(grads[0], block_shape, paddings), None, None


def batch_to_space_nd_grad(op, grads):
    """The blocks moved to the batch again (SpaceToBatchND), the cropped part padded with 0."""
    _, block_shape, crops = op.inputs
    return _ops().space_to_batch_nd(grads[0], block_shape, crops), None, None


def identity_n_grad(op, grads):
    """Each input's gradient is its output's."""
    return (list(grads),)


# ------------------------------------------------------------------------------ join / split


def concat_v2_grad(op, grads):
    """Each input gets the band of the gradient it occupied (SplitV by the inputs' sizes)."""
    values, axis = op.inputs
    grad = grads[0]
    rank = _need(_rank(grad), "ConcatV2", "the rank of its output")
    ax = _axis("ConcatV2", axis, rank)
    parts = _ops().split_v(grad, _dim_sizes(values, ax), np.int32(ax), num_split=len(values))
    return [list(parts), None]


def _join(grads, axis):
    grads = list(grads)
    return grads[0] if len(grads) == 1 else _ops().concat_v2(grads, axis)


def split_grad(op, grads):
    split_dim, _ = op.inputs
    return [None, _join(grads, split_dim)]


def split_v_grad(op, grads):
    _, _, split_dim = op.inputs
    return [_join(grads, split_dim), None, None]


def pack_grad(op, grads):
    (values,) = op.inputs
    return [list(_ops().unpack(grads[0], num=len(values), axis=op.attrs["axis"]))]


def unpack_grad(op, grads):
    return [_ops().pack(list(grads), axis=op.attrs["axis"])]


# ------------------------------------------------------------------------------ slicing


def slice_grad(op, grads):
    """Pad the gradient back to the input's shape: zeros before `begin` and after the slice."""
    ops = _ops()
    x, begin, _ = op.inputs
    grad = grads[0]
    xd, gd, b = _static_dims(x), _static_dims(grad), constant_value(begin)
    if xd is not None and gd is not None and b is not None:
        b = np.reshape(b, -1).astype(np.int64)
        pads = np.stack([b, np.asarray(xd, np.int64) - b - np.asarray(gd, np.int64)], axis=1)
        return [ops.pad(grad, pads.reshape(len(xd), 2)), None, None]
    b64 = ops.cast(begin, "int64")
    after = ops.sub(ops.sub(ops.shape(x, out_type="int64"), b64), ops.shape(grad, out_type="int64"))
    return [ops.pad(grad, ops.pack([b64, after], axis=1)), None, None]


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _wide_index(t):
    """StridedSliceGrad takes int32/int64 indices; int16 ones are widened."""
    return _ops().cast(t, "int32") if _np_dtype(t) == np.int16 else t


def strided_slice_grad(op, grads):
    ops = _ops()
    x, begin, end, strides = op.inputs
    masks = {m: op.attrs[m] for m in _MASKS}
    begin, end, strides = (_wide_index(t) for t in (begin, end, strides))
    dims = _static_dims(x)
    shape = np.asarray(dims, _np_dtype(begin)) if dims is not None else \
        ops.shape(x, out_type=_np_dtype(begin).name)
    return [ops.strided_slice_grad(shape, begin, end, strides, grads[0], **masks), None, None, None]


def strided_slice_grad_grad(op, grads):
    _, begin, end, strides, _ = op.inputs
    masks = {m: op.attrs[m] for m in _MASKS}
    return [None, None, None, None, _ops().strided_slice(grads[0], begin, end, strides, **masks)]


def _pad_begin_and_slice(op_name, x, paddings, grad):
    ops = _ops()
    xd, p = _static_dims(x), constant_value(paddings)
    if xd is not None and p is not None:
        begin = np.asarray(p, np.int64).reshape(-1, 2)[:, 0]
        return ops.slice(grad, begin, np.asarray(xd, np.int64))
    first = ops.reshape(ops.slice(paddings, np.array([0, 0], np.int64), np.array([-1, 1], np.int64)),
                        np.array([-1], np.int64))
    return ops.slice(grad, ops.cast(first, "int64"), ops.shape(x, out_type="int64"))


def pad_grad(op, grads):
    x, paddings = op.inputs
    return [_pad_begin_and_slice("Pad", x, paddings, grads[0]), None]


def _sum_all(t):
    ops = _ops()
    r = _need(_rank(t), "PadV2", "the rank of its input")
    return ops.sum(t, np.arange(r, dtype=np.int32))


def pad_v2_grad(op, grads):
    """The input gets the interior; constant_values the sum of the padding."""
    x, paddings, _ = op.inputs
    grad = grads[0]
    inner = _pad_begin_and_slice("PadV2", x, paddings, grad)
    return [inner, None, _ops().sub(_sum_all(grad), _sum_all(inner))]


def tile_grad(op, grads):
    """Sum the copies: view the gradient as [m0, d0, m1, d1, ...] and reduce the m axes."""
    ops = _ops()
    x, multiples = op.inputs
    grad = grads[0]
    xd = _need(_static_dims(x), "Tile", "the input's shape")
    m = np.reshape(_need(constant_value(multiples), "Tile", "multiples"), -1).astype(np.int64)
    if not xd:
        return [grad, None]
    view = np.stack([m, np.asarray(xd, np.int64)], axis=1).reshape(-1)
    summed = ops.sum(ops.reshape(grad, view), np.arange(0, 2 * len(xd), 2, dtype=np.int32))
    return [ops.reshape(summed, np.asarray(xd, np.int64)), None]


# ------------------------------------------------------------------------------ gather / scatter


def gather_v2_grad(op, grads):
    """A dense gradient: UnsortedSegmentSum of the gradient rows by (batch, index).

    params [B.., O.., A, I..] -> gradient viewed as [B, O, N, I], transposed to [B, N, O, I],
    summed into B * A segments (segment b * A + index), then laid back out as params."""
    ops = _ops()
    params, indices, axis = op.inputs
    grad = grads[0]
    pd = _static_dims(params)
    if pd is None or any(d is None or d < 0 for d in pd):
        return _gather_axis0_grad_dynamic(op, grad)
    pd = _need(pd, "GatherV2", "the shape of params")
    irank = _need(_rank(indices), "GatherV2", "the rank of indices")
    ax = _axis("GatherV2", axis, len(pd))
    bd = op.attrs["batch_dims"]
    bd = bd + irank if bd < 0 else bd
    B = int(np.prod(pd[:bd], dtype=np.int64))
    O = int(np.prod(pd[bd:ax], dtype=np.int64))
    A = pd[ax]
    inner = int(np.prod(pd[ax + 1:], dtype=np.int64))
    idims = _static_dims(indices)
    N = int(np.prod(idims[bd:], dtype=np.int64)) if idims is not None else -1
    g = ops.reshape(grad, np.array([B, O, N, inner], np.int64))
    if O > 1:  # (with O == 1 the transposes only move an axis of size 1: reshapes do)
        g = ops.transpose(g, np.array([0, 2, 1, 3], np.int32))
    g = ops.reshape(g, np.array([-1, O * inner], np.int64))
    ids = ops.reshape(ops.cast(indices, "int64"), np.array([B, N], np.int64))
    if B > 1:
        ids = ops.add_v2(ids, (np.arange(B, dtype=np.int64) * A).reshape(B, 1))
    flat_ids = ops.reshape(ids, np.array([-1], np.int64))
    summed = ops.unsorted_segment_sum(g, flat_ids, np.int64(B * A))
    out = ops.reshape(summed, np.array([B, A, O, inner], np.int64))
    if O > 1:
        out = ops.transpose(out, np.array([0, 2, 1, 3], np.int32))
    dense = ops.reshape(out, np.asarray(pd, np.int64))
    if B == 1 and O == 1:  # rows of params along axis 0: the gradient's rows, for a sparse update
        rows = ops.reshape(g, np.asarray([-1] + list(pd[1:]), np.int64))
        tag_row_slices(dense, rows, flat_ids)
    return [dense, None, None]


def _gather_axis0_grad_dynamic(op, grad):
    """GatherV2 along axis 0 (no batch dims) of params whose shape is only known at run time:
    the gradient rows summed into shape(params)[0] segments by index."""
    ops = _ops()
    params, indices, axis = op.inputs
    ax = constant_value(axis)
    if ax is None or int(np.reshape(ax, -1)[0]) != 0 or op.attrs["batch_dims"] != 0:
        raise UnimplementedError("the gradient of GatherV2 needs the shape of params to be known when the "
                                 "gradient is built (except along axis 0 without batch_dims)", "GatherV2")
    shape = ops.shape(params, out_type="int64")
    rows = ops.strided_slice(shape, np.array([0], np.int64), np.array([1], np.int64), np.array([1], np.int64))
    inner = ops.strided_slice(shape, np.array([1], np.int64), np.array([0], np.int64), np.array([1], np.int64),
                              end_mask=1)
    values = ops.reshape(grad, ops.concat_v2([np.array([-1], np.int64), inner], np.int32(0)))
    ids = ops.reshape(ops.cast(indices, "int64"), np.array([-1], np.int64))
    dense = ops.unsorted_segment_sum(values, ids, ops.reshape(rows, np.array([], np.int64)))
    tag_row_slices(dense, values, ids)
    return [dense, None, None]


def _index32(indices):
    return _ops().cast(indices, "int32") if _np_dtype(indices) == np.int16 else indices


def gather_nd_grad(op, grads):
    ops = _ops()
    params, indices = op.inputs
    indices = _index32(indices)
    pd = _static_dims(params)
    shape = np.asarray(pd, _np_dtype(indices)) if pd is not None else \
        ops.shape(params, out_type=_np_dtype(indices).name)
    # An ignored bad index (bad_indices_policy "IGNORE") read zeros: it gets no gradient.
    policy = op.attrs.get("bad_indices_policy", "")
    return [ops.scatter_nd(indices, grads[0], shape, bad_indices_policy=policy), None]


def scatter_nd_grad(op, grads):
    indices, _, _ = op.inputs
    policy = op.attrs.get("bad_indices_policy", "")  # a dropped update gets a zero gradient
    return [None, _ops().gather_nd(grads[0], indices, bad_indices_policy=policy), None]


def unsorted_segment_sum_grad(op, grads):
    """data[j] gets grad[segment_ids[j]]; rows with a negative (dropped) id get zero."""
    ops = _ops()
    data, ids, _ = op.inputs
    grad = grads[0]
    ids64 = ops.cast(ids, "int64")
    valid = ops.greater(ids64, np.int64(-1))
    gathered = ops.gather_v2(grad, ops.maximum(ids64, np.int64(0)), np.int32(0))
    idd = _need(_static_dims(ids), "UnsortedSegmentSum", "the shape of segment_ids")
    dd = _need(_static_dims(data), "UnsortedSegmentSum", "the shape of data")
    mask = ops.reshape(ops.cast(valid, grad.dtype),
                       np.array(list(idd) + [1] * (len(dd) - len(idd)), np.int64))
    return [ops.mul(gathered, mask), None, None]


def _segment_extreme_grad(op, grads):
    """UnsortedSegmentMax/Min: the gradient goes to the rows equal to their segment's result,
    shared equally among ties (TensorFlow's rule); rows with a negative id get zero."""
    ops = _ops()
    data, ids, num = op.inputs
    out, grad = op.outputs[0], grads[0]
    ids64 = ops.cast(ids, "int64")
    clipped = ops.maximum(ids64, np.int64(0))
    dd = _need(_static_dims(data), op.type, "the shape of data")
    idd = _need(_static_dims(ids), op.type, "the shape of segment_ids")
    valid = ops.reshape(ops.greater(ids64, np.int64(-1)), np.array(list(idd) + [1] * (len(dd) - len(idd)), np.int64))
    selected = ops.logical_and(ops.equal(data, ops.gather_v2(out, clipped, np.int32(0))), valid)
    count = ops.unsorted_segment_sum(ops.cast(selected, grad.dtype), ids, num)
    share = ops.real_div(grad, ops.maximum(count, ops.ones_like(count)))
    picked = ops.gather_v2(share, clipped, np.int32(0))
    return [ops.select_v2(selected, picked, ops.zeros_like(picked)), None, None]


unsorted_segment_max_grad = unsorted_segment_min_grad = _segment_extreme_grad


def unsorted_segment_prod_grad(op, grads):
    """UnsortedSegmentProd: d out[s] / d data[j] is the product of the segment's other rows,
    computed without dividing where data[j] is 0 (TensorFlow's rule)."""
    ops = _ops()
    data, ids, num = op.inputs
    out, grad = op.outputs[0], grads[0]
    ids64 = ops.cast(ids, "int64")
    clipped = ops.maximum(ids64, np.int64(0))
    dd = _need(_static_dims(data), op.type, "the shape of data")
    idd = _need(_static_dims(ids), op.type, "the shape of segment_ids")
    valid = ops.reshape(ops.greater(ids64, np.int64(-1)), np.array(list(idd) + [1] * (len(dd) - len(idd)), np.int64))
    zero = ops.equal(data, ops.zeros_like(data))
    zeros_in_segment = ops.unsorted_segment_sum(ops.cast(zero, "int32"), ids, num)
    non_zero = ops.select_v2(zero, ops.ones_like(data), data)
    non_zero_prod = ops.unsorted_segment_prod(non_zero, ids, num)
    # a segment with two zeros has a zero gradient everywhere
    non_zero_prod = ops.select_v2(ops.greater(zeros_in_segment, np.int32(1)), ops.zeros_like(non_zero_prod),
                                  non_zero_prod)
    others = ops.select_v2(zero, ops.gather_v2(non_zero_prod, clipped, np.int32(0)),
                           ops.real_div(ops.gather_v2(out, clipped, np.int32(0)), non_zero))
    g = ops.mul(ops.gather_v2(grad, clipped, np.int32(0)), others)
    return [ops.select_v2(valid, g, ops.zeros_like(g)), None, None]


def tensor_scatter_min_max_grad(op, grads):
    """TensorScatterMin/Max: the gradient goes to the elements of tensor and updates equal to
    the result, shared equally among ties (TensorFlow's _TensorScatterMinOrMaxGrad)."""
    ops = _ops()
    tensor, indices, updates = op.inputs
    output = op.outputs[0]
    grad = grads[0]
    policy = op.attrs.get("bad_indices_policy", "")
    t_ind = ops.cast(ops.equal(tensor, output), grad.dtype)
    u_ind = ops.cast(ops.equal(updates, ops.gather_nd(output, indices, bad_indices_policy=policy)), grad.dtype)
    shape = ops.cast(ops.shape(tensor, out_type=indices.dtype), indices.dtype)
    count = ops.add_v2(t_ind, ops.scatter_nd(indices, u_ind, shape, bad_indices_policy=policy))
    return [ops.real_div(ops.mul(grad, t_ind), count), None,
            ops.mul(ops.gather_nd(ops.real_div(grad, count), indices, bad_indices_policy=policy), u_ind)]


def dynamic_partition_grad(op, grads):
    """DynamicPartition: the partitions' gradients stitched back to the positions they came from
    (TensorFlow's _DynamicPartitionGrads)."""
    ops = _ops()
    data, partitions = op.inputs
    prefix = ops.shape(partitions, out_type="int32")
    positions = ops.reshape(ops.range(np.int32(0), ops.prod(prefix, np.int32(0)), np.int32(1)), prefix)
    pieces = ops.dynamic_partition(positions, partitions, num_partitions=len(grads))
    stitched = ops.dynamic_stitch(list(pieces), list(grads))
    return [ops.reshape(stitched, ops.shape(data, out_type="int32")), None]


def dynamic_stitch_grad(op, grads):
    """DynamicStitch: data[m] gets grad[indices[m]] (TensorFlow's _DynamicStitchGrads; with
    duplicate indices every duplicate gets the gradient, as there)."""
    ops = _ops()
    indices, _ = op.inputs
    return [None, [ops.gather_v2(grads[0], i, np.int32(0)) for i in indices]]
