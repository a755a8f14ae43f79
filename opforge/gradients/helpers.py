"""Helpers that generated gradient formulas may call (codegen's GRADIENT_HELPERS).

They are built from the generated op wrappers only, so they work for any op whose gradient
is written with them.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def shape_of(x) -> list[int]:
    """The shape of x as a list of ints."""
    return [int(d) for d in x.shape]


def dtype_of(x):
    return x.dtype


def unbroadcast(grad, x):
    """Sums grad over the dimensions that broadcasting added to or stretched in x."""
    ops = _ops()
    gshape, xshape = shape_of(grad), shape_of(x)
    if gshape == xshape:
        return grad
    lead = len(gshape) - len(xshape)
    axes = list(range(lead))
    for i, d in enumerate(xshape):
        if d == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    g = ops.sum(grad, np.array(axes, dtype=np.int32), keep_dims=False) if axes else grad
    return ops.reshape(g, np.array(xshape, dtype=np.int64))


def _keep_dims_shape(x, axis) -> list[int]:
    shape = shape_of(x)
    rank = len(shape)
    axes = np.atleast_1d(np.asarray(axis.numpy() if hasattr(axis, "numpy") else axis)).astype(np.int64)
    out = list(shape)
    for a in axes:
        out[int(a) % rank if rank else 0] = 1
    return out


def reduce_grad(grad, input, axis, keep_dims, mean=False):
    """Gradient of Sum (or Mean): grad broadcast back over the reduced axes."""
    ops = _ops()
    kd = _keep_dims_shape(input, axis)
    g = ops.reshape(grad, np.array(kd, dtype=np.int64))
    g = ops.mul(g, ops.ones_like(input))
    if mean:
        n = max(1, int(np.prod(shape_of(input))) // max(1, int(np.prod(kd))))
        g = ops.real_div(g, np.array(n).astype(input.dtype.as_numpy_dtype))
    return g


def reduce_max_grad(grad, input, output, axis, keep_dims):
    """Gradient of Max: split grad evenly among the elements equal to the maximum."""
    ops = _ops()
    kd = np.array(_keep_dims_shape(input, axis), dtype=np.int64)
    out = ops.reshape(output, kd)
    mask = ops.cast(ops.equal(input, out), input.dtype)
    count = ops.sum(mask, axis, keep_dims=True)
    return ops.real_div(ops.mul(ops.reshape(grad, kd), mask), count)


def invert_permutation(perm):
    p = np.asarray(perm.numpy() if hasattr(perm, "numpy") else perm).astype(np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(len(p))
    return inv.astype(np.int32)


__all__ = ["unbroadcast", "reduce_grad", "reduce_max_grad", "invert_permutation", "shape_of",
           "dtype_of"]
_ = _dtypes
