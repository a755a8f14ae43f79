"""TensorFlow's friendly names, as thin aliases over the generated wrappers."""

from __future__ import annotations

import numpy as np

from . import ops as _ops
from .framework.tensor import convert_to_tensor


# Same signatures as the generated wrappers: plain aliases, no extra call layer.
add = _ops.add_v2
subtract = _ops.sub
multiply = _ops.mul
divide = _ops.real_div


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Multiplies matrix a by matrix b (TensorFlow's tf.matmul, the op MatMul)."""
    return _ops.mat_mul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name)


def _axes(input_tensor, axis):
    if axis is None:
        t = convert_to_tensor(input_tensor)
        return t, np.arange(t.ndim, dtype=np.int32)
    return input_tensor, axis


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over axis (all axes when None), as tf.reduce_sum."""
    x, axes = _axes(input_tensor, axis)
    return _ops.sum(x, axes, keep_dims=keepdims, name=name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over axis (all axes when None), as tf.reduce_mean."""
    x, axes = _axes(input_tensor, axis)
    return _ops.mean(x, axes, keep_dims=keepdims, name=name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over axis (all axes when None), as tf.reduce_max."""
    x, axes = _axes(input_tensor, axis)
    return _ops.max(x, axes, keep_dims=keepdims, name=name)


def zeros(shape, dtype="float32", name=None):
    from .dtypes import as_dtype  # noqa: PLC0415
    return _ops.fill(np.asarray(shape, dtype=np.int32), np.zeros((), as_dtype(dtype).as_numpy_dtype), name=name)


def ones(shape, dtype="float32", name=None):
    from .dtypes import as_dtype  # noqa: PLC0415
    return _ops.fill(np.asarray(shape, dtype=np.int32), np.ones((), as_dtype(dtype).as_numpy_dtype), name=name)


def reshape(tensor, shape, name=None):
    return _ops.reshape(tensor, np.asarray(shape, dtype=np.int64) if not hasattr(shape, "_dims") else shape, name=name)


def transpose(a, perm=None, name=None):
    if perm is None:
        a = convert_to_tensor(a)
        perm = np.arange(a.ndim - 1, -1, -1, dtype=np.int32)
    return _ops.transpose(a, perm, name=name)


def cast(x, dtype, name=None):
    return _ops.cast(x, dtype, name=name)


__all__ = ["add", "subtract", "multiply", "divide", "matmul", "reduce_sum", "reduce_mean",
           "reduce_max", "zeros", "ones", "reshape", "transpose", "cast"]
