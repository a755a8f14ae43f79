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


def _static_dims(x):
    """x's dims as ints when fully known (always in eager mode), else None."""
    shape = x.shape
    if getattr(shape, "dims", None) is None and not isinstance(shape, (tuple, list)):
        return None
    dims = list(shape)
    return None if any(d is None for d in dims) else [int(d) for d in dims]


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


def unbroadcast(grad, x):
    """Sums grad over the dimensions that broadcasting added to or stretched in x."""
    ops = _ops()
    gshape, xshape = _static_dims(grad), _static_dims(x)
    if gshape is None or xshape is None:  # graph with unknown dims: reduce at run time
        sx = ops.shape(x)
        rx, _ = ops.broadcast_gradient_args(sx, ops.shape(grad))
        return ops.reshape(ops.sum(grad, rx, keep_dims=False), sx)
    if gshape == xshape:
        return grad
    lead = len(gshape) - len(xshape)
    axes = list(range(lead))
    for i, d in enumerate(xshape):
        if d == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    g = ops.sum(grad, np.array(axes, dtype=np.int32), keep_dims=False) if axes else grad
    return ops.reshape(g, np.array(xshape, dtype=np.int64))


def _keep_dims_shape(x, axis):
    """x's shape with the reduced axes set to 1, or None when not known statically."""
    shape = _static_dims(x)
    value = constant_value(axis)
    if shape is None or value is None:
        return None
    rank = len(shape)
    axes = np.atleast_1d(value).astype(np.int64)
    out = list(shape)
    for a in axes:
        out[int(a) % rank if rank else 0] = 1
    return out


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
        g = ops.mul(ops.reshape(grad, np.array(kd, dtype=np.int64)), ops.ones_like(input))
        if mean:
            n = max(1, int(np.prod(_static_dims(input))) // max(1, int(np.prod(kd))))
            g = ops.real_div(g, np.array(n).astype(input.dtype.as_numpy_dtype))
        return g
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


def invert_permutation(perm):
    value = constant_value(perm)
    if value is None:
        from ..framework.errors import UnimplementedError  # noqa: PLC0415
        raise UnimplementedError("the gradient of Transpose needs perm to be a constant")
    p = np.asarray(value).astype(np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    return inv.astype(np.int32)


__all__ = ["unbroadcast", "reduce_grad", "reduce_max_grad", "invert_permutation", "shape_of",
           "dtype_of"]
_ = _dtypes
