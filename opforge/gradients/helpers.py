"""Helpers that generated gradient formulas may call (codegen's GRADIENT_HELPERS).

They are built from the generated op wrappers only, so they work for any op whose gradient
is written with them.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _tag(t, name: str, value) -> None:
    """Sets what a gradient tensor is known to be (read back with getattr); a tensor that takes
    no attributes (an eager one) stays untagged, which only loses the shortcut."""
    try:
        setattr(t, name, value)
    except AttributeError:
        pass


def zeros_for_missing_grad(t):
    """zeros_like(t) for an output no gradient reached, tagged as TensorFlow tags the zeros it
    fills in (``_is_zeros_tensor``), so that a gradient function may leave out the terms it
    would only add zeros to (the cross-entropy ops' softmax Jacobian over their backprop)."""
    z = _ops().zeros_like(t)
    _tag(z, "_is_zeros_tensor", True)
    return z


def tag_row_slices(dense, values, indices) -> None:
    """Marks a dense gradient that is values[i] added into row indices[i] of zeros (TensorFlow's
    IndexedSlices, kept beside the dense tensor): an optimizer given it as it is may update only
    those rows (GradientDescentOptimizer: ScatterSub), and whatever else reads the gradient reads
    the dense tensor."""
    _tag(dense, "_row_slices", (values, indices))


def row_slices(grad):
    """(values, indices) of a gradient tagged by tag_row_slices, else None."""
    return getattr(grad, "_row_slices", None)


def known_zero(g) -> bool:
    """Whether a gradient is None or zeros filled in for an output no gradient reached."""
    return g is None or getattr(g, "_is_zeros_tensor", False)


def _partial_dims(x):
    """x's dims with None where unknown, or None when its rank is unknown (a NumPy value or
    Python number: its shape)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return list(np.shape(x))
    dims = getattr(shape, "dims", shape)
    if dims is None:
        return None
    return [None if d is None else int(d) for d in dims]


def _static_dims(x):
    """x's dims as ints when fully known (always in eager mode), else None."""
    dims = _partial_dims(x)
    return None if dims is None or any(d is None for d in dims) else dims


def constant_value(t):
    """The value of t as a NumPy array when known before running (eager tensors, NumPy
    values, Const nodes), else None."""
    if hasattr(t, "numpy") and not hasattr(t, "op"):
        return t.numpy()
    if isinstance(t, (np.ndarray, np.generic, list, tuple, int, float)):
        return np.asarray(t)
    op = getattr(t, "op", None)
    if op is not None and op.type == "Const":
        return op.get_attr("value").numpy()
    return None


def shape_of(x):
    """The shape of x: a list of ints when statically known, else a Shape op's output."""
    dims = _static_dims(x)
    if dims is not None:
        return dims
    return _ops().shape(x)


def dtype_of(x):
    return x.dtype


def _reduction_axes(grad, x, other):
    """The axes of grad (the broadcast result of x and other) that x was stretched along or
    lacks, when the static shapes decide them (unknown dims included), else None. An axis
    where x's dim is unknown needs no sum when the result's dim there is 1, or when other
    lacks the axis or has 1 there (the result's dim is then x's own)."""
    if other is x:  # x * x, x + x: one tensor, the result has its shape
        return []
    gdims, xdims = _partial_dims(grad), _partial_dims(x)
    odims = _partial_dims(other) if other is not None else None
    if gdims is None or xdims is None or len(xdims) > len(gdims):
        return None
    lead = len(gdims) - len(xdims)
    axes = list(range(lead))
    for i, dx in enumerate(xdims):
        dg = gdims[lead + i]
        if dx == 1:
            if dg != 1:  # (a sum over an axis that turns out to be 1 is the identity)
                axes.append(lead + i)
            continue
        if dx is not None or dg == 1:
            continue  # x's size is the result's: nothing to sum
        if odims is None:
            return None
        j = i + len(odims) - len(xdims)  # the same axis of other, right-aligned
        if j < 0 or odims[j] == 1:
            continue
        return None  # x's dim unknown, the result's too: x may have been stretched
    return axes


def unbroadcast(grad, x, other=None):
    """Sums grad over the dimensions that broadcasting added to or stretched in x; other is the
    op's other operand, when there is one (it lets unknown dims be decided without running:
    x + bias, with bias [C] and x [None, H, W, C], needs no sum for x)."""
    ops = _ops()
    axes = _reduction_axes(grad, x, other)
    if axes is not None:  # decided statically (always, for known shapes): sum, keeping x's dims
        if not axes:
            return grad
        lead = len(_partial_dims(grad)) - len(_partial_dims(x))
        g = ops.sum(grad, np.array(axes, dtype=np.int32), keep_dims=True)
        return ops.squeeze(g, list(range(lead))) if lead else g
    # Unknown dims that only a run can decide.
    sx = ops.shape(x)
    rx, _ = ops.broadcast_gradient_args(sx, ops.shape(grad))
    return ops.reshape(ops.sum(grad, rx, keep_dims=False), sx)


def _keep_dims_shape(x, axis):
    """x's shape with the reduced axes set to 1, or None when not known statically (a dim
    that is not reduced must be known; a reduced one need not be)."""
    shape = _partial_dims(x)
    value = constant_value(axis)
    if shape is None or value is None:
        return None
    rank = len(shape)
    axes = np.atleast_1d(value).astype(np.int64)
    out = list(shape)
    for a in axes:
        out[int(a) % rank if rank else 0] = 1
    return None if any(d is None for d in out) else out


def _dynamic_keep_dims_shape(x, axis):
    """Shape(x) with the reduced axes set to 1, computed by ops at run time (graphs whose
    shapes or axes are unknown when built)."""
    ops = _ops()
    i32 = np.int32
    in_shape = ops.shape(x)
    r = ops.rank(x)
    axes = ops.reshape(ops.cast(axis, "int32"), np.array([-1], i32))
    axes = ops.add_v2(axes, ops.mul(r, ops.cast(ops.less(axes, i32(0)), "int32")))  # negatives
    dims = ops.reshape(ops.range(i32(0), r, i32(1)), np.array([-1, 1], i32))
    hits = ops.cast(ops.equal(dims, ops.reshape(axes, np.array([1, -1], i32))), "int32")
    reduced = ops.cast(ops.greater(ops.sum(hits, np.array([1], i32)), i32(0)), "int32")
    return ops.add_v2(ops.mul(in_shape, ops.sub(i32(1), reduced)), reduced)


def reduce_grad(grad, input, axis, keep_dims, mean=False):
    """Gradient of Sum (or Mean): grad broadcast back over the reduced axes."""
    ops = _ops()
    kd = _keep_dims_shape(input, axis)
    if kd is not None:
        dims = _static_dims(input)
        g = ops.reshape(grad, np.array(kd, dtype=np.int64))
        if mean and dims is not None:  # the count is known: divide the small tensor
            n = max(1, int(np.prod(dims)) // max(1, int(np.prod(kd))))
            g = ops.real_div(g, np.array(n).astype(input.dtype.as_numpy_dtype))
        elif mean:
            count = ops.real_div(ops.cast(ops.size(input), input.dtype), ops.cast(ops.size(grad), input.dtype))
            g = ops.real_div(g, count)
        # One pass over the input's size (TensorFlow's BroadcastTo), not ones_like and a Mul.
        return ops.broadcast_to(g, shape_of(input))
    # Shapes known only at run time: compute the kept-dims shape with ops.
    g = ops.mul(ops.reshape(grad, _dynamic_keep_dims_shape(input, axis)), ops.ones_like(input))
    if mean:
        count = ops.real_div(ops.cast(ops.size(input), input.dtype), ops.cast(ops.size(grad), input.dtype))
        g = ops.real_div(g, count)
    return g


def reduce_max_grad(grad, input, output, axis, keep_dims):
    """Gradient of Max: split grad evenly among the elements equal to the maximum."""
    ops = _ops()
    kd = _keep_dims_shape(input, axis)
    if kd is not None:
        kd = np.array(kd, dtype=np.int64)
        out, grad = ops.reshape(output, kd), ops.reshape(grad, kd)
    else:
        kd = _dynamic_keep_dims_shape(input, axis)
        out, grad = ops.reshape(output, kd), ops.reshape(grad, kd)
    mask = ops.cast(ops.equal(input, out), input.dtype)
    count = ops.sum(mask, axis, keep_dims=True)
    return ops.real_div(ops.mul(grad, mask), count)


def conj_of(x):
    """The complex conjugate of a complex tensor, the tensor itself otherwise (TensorFlow's
    math_ops.conj): gradients of complex ops multiply by the conjugate derivative."""
    if _dtypes.as_dtype(x.dtype).is_complex:
        return _ops().conj(x)
    return x


def invert_permutation(perm):
    value = constant_value(perm)
    if value is None:
        from ..framework.errors import UnimplementedError  # noqa: PLC0415
        raise UnimplementedError("the gradient of Transpose needs perm to be a constant")
    p = np.asarray(value).astype(np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    return inv.astype(np.int32)


__all__ = ["conj_of", "unbroadcast", "reduce_grad", "reduce_max_grad", "invert_permutation", "shape_of",
           "dtype_of"]
_ = _dtypes
