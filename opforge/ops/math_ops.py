"""TensorFlow's friendly names, as thin aliases over the generated wrappers."""

from __future__ import annotations

import builtins

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor
from ..framework import math_operators
from ..framework.tensor import convert_to_tensor
from .einsum_ops import einsum


# Same signatures as the generated wrappers: plain aliases, no extra call layer.
subtract = _ops.sub


def add(x, y, name=None):
    """x + y (tf.math.add: AddV2, named "Add" by default as TensorFlow names it)."""
    return _ops.add_v2(x, y, name=name or "Add")


multiply = _ops.mul

def truediv(x, y, name=None):
    """x / y with Python 3's semantics, as tf.math.truediv: integer operands are cast to a
    float first (framework/math_operators.py's truediv, which `/` on tensors runs too)."""
    x, y = _operands(x, y)
    return math_operators.truediv(_ops, x, y, name=name or "truediv")


def divide(x, y, name=None):
    """x / y, as tf.math.divide: truediv (named "truediv" by default, as TensorFlow's)."""
    return truediv(x, y, name=name or "truediv")


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
    """a with its axes permuted by perm; reversed when perm is None (computed at run time from
    the rank where the graph does not know it, as TensorFlow: (rank - 1) - range(rank))."""
    if perm is None:
        ndim = _ndim(a)
        if ndim is None:
            rank = _ops.rank(a)
            perm = _ops.sub(_ops.sub(rank, np.int32(1)), _ops.range(np.int32(0), rank, np.int32(1)))
        else:
            perm = np.arange(ndim - 1, -1, -1, dtype=np.int32)
    return _ops.transpose(a, perm, name=name)


def cast(x, dtype, name=None):
    """x as dtype. As TensorFlow's tf.cast, a graph tensor that has the dtype already is returned
    as it is, with no Cast op: tf.cast(strings, tf.string) is valid (Cast itself has no string
    kernel) and adds nothing to the graph."""
    if isinstance(x, GraphTensor) and x.dtype == _dtypes.as_dtype(dtype):
        return x
    return _ops.cast(x, dtype, name=name)


def square(x, name=None):
    return _ops.square(x, name=name)


__all__ = ["add", "subtract", "multiply", "divide", "matmul", "reduce_sum", "reduce_mean",
           "reduce_max", "zeros", "ones", "reshape", "transpose", "cast"]


# ---- composite math functions (TensorFlow keeps them in math_ops.py: tf.range, tf.linspace,
# tf.tensordot, tf.math.cumprod, tf.math.reduce_logsumexp, tf.math.count_nonzero, ...); the
# TF1 spellings in opforge.compat.v1 call these.


def _is_tensor(v) -> bool:
    """An eager or graph tensor, or a variable (anything with a dtype that is not NumPy's)."""
    return hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic))


def _as_tensor(v, dtype=None):
    return v if _is_tensor(v) else convert_to_tensor(v, dtype)


def _operands(x, y):
    """x and y as tensors of one dtype: a tensor's, else a NumPy value's, else x's default."""
    first = next((v for v in (x, y) if _is_tensor(v)), None)
    if first is None:
        first = next((v for v in (x, y) if isinstance(v, (np.ndarray, np.generic))), x)
        first = convert_to_tensor(first)
    x = _as_tensor(x, first.dtype)
    return x, _as_tensor(y, x.dtype)


def _scalar(value, dtype):
    return np.asarray(value, _dtypes.as_dtype(dtype).as_numpy_dtype)


def _static_axis(x, axis, what: str, op: str) -> int:
    """axis as a non-negative int within x's (known) rank."""
    rank = x.shape.rank
    if rank is None:
        raise InvalidArgumentError(f"{what}: the rank of its input must be known", op)
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{what}: axis {axis} is out of range for a tensor of rank {rank}", op)
    return axis % rank


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TensorFlow's name)
    """[start, start + delta, ...) up to limit (tf.range; range(n) counts from 0). Without a
    dtype, the widest of the arguments' dtypes (int32 < int64 < float32 < float64)."""
    if limit is None:
        start, limit = 0, start
    want = _dtypes.as_dtype(dtype) if dtype is not None else None
    args = [_as_tensor(v, want) for v in (start, limit, delta)]
    if want is None:
        want = builtins.max((a.dtype for a in args), key=lambda d: (d.is_floating, d.size))
    args = [a if a.dtype == want else _ops.cast(a, want) for a in args]
    return _ops.range(*args, name=name)


def linspace(start, stop, num, name=None, axis=0):
    """num evenly spaced values from start to stop, both included (tf.linspace). start and stop
    may be tensors of one shape: the values run along a new dimension at ``axis``."""
    start = _as_tensor(start, _dtypes.float32 if isinstance(start, (int, float)) else None)
    if not start.dtype.is_floating:
        raise InvalidArgumentError(f"linspace: start must be a floating-point tensor, got {start.dtype.name}",
                                   "LinSpace")
    dt = start.dtype
    stop = _as_tensor(stop, dt)
    rank = builtins.max(start.shape.rank, stop.shape.rank) if start.shape.rank is not None and \
        stop.shape.rank is not None else None
    if rank is None:
        raise InvalidArgumentError("linspace: the ranks of start and stop must be known", "LinSpace")
    if not -(rank + 1) <= axis <= rank:
        raise InvalidArgumentError(f"linspace: axis {axis} is out of range for a result of rank {rank + 1}",
                                   "LinSpace")
    axis = axis % (rank + 1)
    idx_shape = [1] * (rank + 1)
    idx_shape[axis] = -1
    if isinstance(num, (int, np.integer)):
        if num < 1:
            raise InvalidArgumentError(f"linspace: num must be positive, got {num}", "LinSpace")
        idx = np.arange(num, dtype=dt.as_numpy_dtype).reshape(idx_shape)
        steps = _scalar(builtins.max(int(num) - 1, 1), dt)
    else:
        num = _as_tensor(num)
        idx = _ops.reshape(_ops.cast(_ops.range(_scalar(0, num.dtype), num, _scalar(1, num.dtype)), dt),
                           np.asarray(idx_shape, np.int32))
        steps = _ops.cast(_ops.maximum(_ops.sub(num, _scalar(1, num.dtype)), _scalar(1, num.dtype)), dt)
    lo, hi = start, stop
    if rank:  # start and stop broadcast against each other, then get the new axis
        lo = _ops.expand_dims(_ops.add_v2(start, _ops.zeros_like(stop)), np.int32(axis))
        hi = _ops.expand_dims(_ops.add_v2(stop, _ops.zeros_like(start)), np.int32(axis))
    values = _ops.add_v2(lo, _ops.mul(idx, _ops.real_div(_ops.sub(hi, lo), steps)))
    # the last value is stop itself, as NumPy's and TensorFlow's (not start + (num-1) * delta)
    return _ops.select_v2(_ops.equal(idx, steps), hi, values, name=name)


def tensordot(a, b, axes, name=None):
    """Contracts axes of a with axes of b (tf.tensordot): an int n contracts a's last n axes
    with b's first n; a pair lists the axes of each (an int or a list each)."""
    a, b = _as_tensor(a), _as_tensor(b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise InvalidArgumentError("tensordot: the ranks of a and b must be known", "Einsum")
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= builtins.min(ra, rb):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {builtins.min(ra, rb)}] for ranks {ra} and {rb}")
        ax_a, ax_b = list(builtins.range(ra - axes, ra)), list(builtins.range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}")
        ax_a, ax_b = ([int(x)] if np.ndim(x) == 0 else [int(i) for i in x] for x in axes)
        if len(ax_a) != len(ax_b):
            raise ValueError(f"tensordot: {len(ax_a)} axes of a cannot be contracted with {len(ax_b)} of b")
        if not builtins.all(-ra <= i < ra for i in ax_a) or not builtins.all(-rb <= j < rb for j in ax_b):
            raise ValueError(f"tensordot: axes {axes!r} are out of range for ranks {ra} and {rb}")
        ax_a, ax_b = [i % ra for i in ax_a], [j % rb for j in ax_b]
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    sa, sb = list(letters[:ra]), list(letters[ra:ra + rb])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in ax_a] + [c for j, c in enumerate(sb) if j not in ax_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along axis (tf.math.cumprod): [a, b, c] gives [a, a*b, a*b*c];
    exclusive starts from 1 ([1, a, a*b]), reverse runs from the end. A log-step scan of
    multiplications: exact for integers, zeros and signs, differentiable; the length of the
    axis must be known when a graph is built."""
    x = _as_tensor(x)
    axis = _static_axis(x, axis, "cumprod", "Cumprod")
    n = x.shape[axis]
    if n is None:
        raise InvalidArgumentError("cumprod: the length of the axis must be known when the graph is built",
                                   "Cumprod")
    if n == 0:
        return _ops.identity(x, name=name)
    along = np.asarray([axis], np.int32)
    if reverse:
        x = _ops.reverse_v2(x, along)
    if exclusive:
        x = _shift_in_ones(x, 1, axis, n)
    k = 1
    while k < n:
        x = _ops.mul(x, _shift_in_ones(x, k, axis, n))
        k *= 2
    if reverse:
        x = _ops.reverse_v2(x, along)
    return _ops.identity(x, name=name)


def _shift_in_ones(x, k, axis, n):
    """x moved k places along axis: k ones in front, its last k entries dropped."""
    rank = x.shape.rank
    begin = np.zeros(rank, np.int64)
    size = np.full(rank, -1, np.int64)
    size[axis] = k
    ones = _ops.ones_like(_ops.slice(x, begin, size.copy()))
    size[axis] = n - k
    return _ops.concat_v2([ones, _ops.slice(x, begin, size)], np.int32(axis))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over axis (tf.math.reduce_logsumexp), computed around the maximum so
    that large values do not overflow; -inf for an empty reduction."""
    x = _as_tensor(input_tensor)
    peak = _ops.stop_gradient(reduce_max(x, axis, keepdims=True))
    peak = _ops.select_v2(_ops.is_finite(peak), peak, _ops.zeros_like(peak))
    out = _ops.add_v2(_ops.log(reduce_sum(_ops.exp(_ops.sub(x, peak)), axis, keepdims=True)), peak)
    if not keepdims:  # drop the reduced (size-1) dimensions
        out = reduce_sum(out, axis)
    return _ops.identity(out, name=name)


def count_nonzero(input, axis=None, keepdims=None, dtype="int64", name=None):  # noqa: A002 (TensorFlow's names)
    """The number of non-zero (true) elements over axis (tf.math.count_nonzero)."""
    x = _as_tensor(input)
    nonzero = _ops.cast(_ops.not_equal(x, _scalar(0, x.dtype)), "int64")
    return _ops.cast(reduce_sum(nonzero, axis, keepdims=bool(keepdims)), dtype, name=name)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x) (tf.math.log_sigmoid), without overflow."""
    return _ops.neg(_ops.softplus(_ops.neg(x)), name=name)


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of data with equal segment ids (tf.math.segment_sum; ids sorted, from 0)."""
    ids = _as_tensor(segment_ids)
    count = _ops.add_v2(reduce_max(ids), _scalar(1, ids.dtype))
    return _ops.unsorted_segment_sum(data, ids, count, name=name)


def _sorted_segments(reduce, data, segment_ids, name):
    """A reduction over sorted segment ids 0..max: the unsorted op with max + 1 segments, an empty
    segment 0 (TensorFlow's Segment* rule, where the unsorted ops hold the identity)."""
    ids = _as_tensor(segment_ids)
    data = _as_tensor(data)
    count = _ops.add_v2(reduce_max(ids), _scalar(1, ids.dtype))
    out = reduce(data, ids, count)
    present = _ops.unsorted_segment_sum(_ops.ones_like(ids), ids, count)  # rows per segment
    present = _ops.reshape(_ops.greater(present, _scalar(0, ids.dtype)),
                           _ops.concat_v2([_ops.reshape(_ops.cast(count, "int32"), np.array([1], np.int32)),
                                           _ops.ones_like(_ops.shape(out)[1:])], np.int32(0)))
    return _ops.select_v2(present, out, _ops.zeros_like(out), name=name)


def segment_max(data, segment_ids, name=None):
    """Per sorted segment id, the max of its rows (tf.math.segment_max); an empty segment is 0."""
    return _sorted_segments(_ops.unsorted_segment_max, data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    """Per sorted segment id, the min of its rows (tf.math.segment_min); an empty segment is 0."""
    return _sorted_segments(_ops.unsorted_segment_min, data, segment_ids, name)


def segment_prod(data, segment_ids, name=None):
    """Per sorted segment id, the product of its rows (tf.math.segment_prod); an empty segment is 1."""
    ids = _as_tensor(segment_ids)
    return _ops.unsorted_segment_prod(data, ids, _ops.add_v2(reduce_max(ids), _scalar(1, ids.dtype)), name=name)


def truncatediv(x, y, name=None):
    """x / y rounded toward zero, as C divides integers (tf.math.truncatediv)."""
    x, y = _operands(x, y)
    q = _ops.floor_div(_ops.abs(x), _ops.abs(y))
    zero = _scalar(0, x.dtype)
    negative = _ops.not_equal(_ops.less(x, zero), _ops.less(y, zero))
    return _ops.select_v2(negative, _ops.neg(q), q, name=name)


def truncatemod(x, y, name=None):
    """The remainder of truncatediv: x - truncatediv(x, y) * y, the sign of x (C's %, fmod)."""
    x, y = _operands(x, y)
    return _ops.sub(x, _ops.mul(truncatediv(x, y), y), name=name)


def div(x, y, name=None):
    """Python 2's division (TensorFlow 1's tf.div, kept in math_ops): floor division for
    integers, true division for floats."""
    x, y = _operands(x, y)
    if x.dtype.is_integer:
        return _ops.floor_div(x, y, name=name)
    return _ops.real_div(x, y, name=name)


__all__ += ["range", "linspace", "tensordot", "reduce_logsumexp", "truncatediv", "truncatemod"]
