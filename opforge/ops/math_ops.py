"""TensorFlow's friendly names, as thin aliases over the generated wrappers."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor
from ..framework.tensor import convert_to_tensor


# Same signatures as the generated wrappers: plain aliases, no extra call layer.
add = _ops.add_v2
subtract = _ops.sub
multiply = _ops.mul
divide = _ops.real_div


def _ndim(x):
    if isinstance(x, GraphTensor) or hasattr(x, "_graph_for_dispatch"):
        return x.shape.rank
    return np.ndim(x) if not hasattr(x, "ndim") else x.ndim


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None):
    """Multiplies matrix a by matrix b (TensorFlow's tf.matmul): the op MatMul for matrices,
    BatchMatMulV2 (batch dims broadcast) when either has rank > 2. For real types the adjoint
    is the transpose."""
    ta, tb = transpose_a or adjoint_a, transpose_b or adjoint_b
    ra, rb = _ndim(a), _ndim(b)
    if (ra is not None and ra > 2) or (rb is not None and rb > 2):
        return _ops.batch_mat_mul_v2(a, b, adj_x=ta, adj_y=tb, name=name)
    return _ops.mat_mul(a, b, transpose_a=ta, transpose_b=tb, name=name)


def _axes(input_tensor, axis):
    """axis=None means every axis: a constant when the rank is known, else Range(0, Rank(x))."""
    if axis is not None:
        return input_tensor, axis
    if isinstance(input_tensor, GraphTensor) or hasattr(input_tensor, "_graph_for_dispatch"):
        rank = input_tensor.shape.rank
        if rank is None:
            return input_tensor, _ops.range(np.int32(0), _ops.rank(input_tensor), np.int32(1))
        return input_tensor, np.arange(rank, dtype=np.int32)
    t = convert_to_tensor(input_tensor)
    return t, np.arange(t.ndim, dtype=np.int32)


def _reduce(op, input_tensor, axis, keepdims, name):
    x, axes = _axes(input_tensor, axis)
    out = op(x, axes, keep_dims=keepdims, name=name)
    if axis is None and not keepdims and isinstance(out, GraphTensor) and out.shape.rank is None:
        # Reducing every axis of a tensor of unknown rank still gives a scalar: say so, as
        # TensorFlow does, so shape inference (and gradients) downstream know it.
        out = _ops.reshape(out, np.zeros(0, np.int32))
    return out


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over axis (all axes when None), as tf.reduce_sum."""
    return _reduce(_ops.sum, input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over axis (all axes when None), as tf.reduce_mean."""
    return _reduce(_ops.mean, input_tensor, axis, keepdims, name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over axis (all axes when None), as tf.reduce_max."""
    return _reduce(_ops.max, input_tensor, axis, keepdims, name)


def _shape_vector(shape, op):
    """A shape given as Python ints: int32 as TensorFlow when every dim fits, else int64; a dim
    beyond int64 is an InvalidArgumentError naming `op`. Tensors and arrays pass unchanged."""
    if not isinstance(shape, (list, tuple)) or any(hasattr(d, "dtype") for d in shape):
        return shape
    try:
        dims = [int(d) for d in shape]
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"{op}: shape must be a list of integers, got {shape!r}: {e}", op) from None
    if any(not -(2**63) <= d < 2**63 for d in dims):
        raise InvalidArgumentError(f"{op}: shape {dims} has a dimension that does not fit in int64", op)
    small = all(-(2**31) <= d < 2**31 for d in dims)
    return np.asarray(dims, dtype=np.int32 if small else np.int64)


def zeros(shape, dtype="float32", name=None):
    from ..framework.dtypes import as_dtype  # noqa: PLC0415
    return _ops.fill(_shape_vector(shape, "Fill"), np.zeros((), as_dtype(dtype).as_numpy_dtype), name=name)


def ones(shape, dtype="float32", name=None):
    from ..framework.dtypes import as_dtype  # noqa: PLC0415
    return _ops.fill(_shape_vector(shape, "Fill"), np.ones((), as_dtype(dtype).as_numpy_dtype), name=name)


def reshape(tensor, shape, name=None):
    return _ops.reshape(tensor, _shape_vector(shape, "Reshape"), name=name)


def transpose(a, perm=None, name=None):
    if perm is None:
        ndim = _ndim(a)
        if ndim is None:
            raise ValueError("transpose without perm needs the input's rank to be known")
        perm = np.arange(ndim - 1, -1, -1, dtype=np.int32)
    return _ops.transpose(a, perm, name=name)


def cast(x, dtype, name=None):
    return _ops.cast(x, dtype, name=name)


def square(x, name=None):
    return _ops.square(x, name=name)


__all__ = ["add", "subtract", "multiply", "divide", "matmul", "reduce_sum", "reduce_mean",
           "reduce_max", "zeros", "ones", "reshape", "transpose", "cast"]
