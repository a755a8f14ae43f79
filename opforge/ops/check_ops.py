"""Run-time and build-time checks with TensorFlow's names (tf.assert_equal, tf.assert_rank,
tf.check_numerics, ...), built from the Assert op and comparisons.

As TensorFlow's: when both sides' values are known while the graph is built (constants, NumPy
values, eager tensors) a failed comparison raises InvalidArgumentError at once; otherwise the
Assert op fails the run. Rank and dtype checks that can be decided from static shapes and
dtypes raise ValueError/TypeError when building.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.api import no_op
from ..framework.errors import InvalidArgumentError
from ..framework.graph import get_default_graph
from ..gradients.helpers import constant_value
from . import math as _math


def _scope(name, default):
    return get_default_graph().name_scope(name or default)


def _rank(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return np.ndim(x)
    return shape.rank if hasattr(shape, "rank") else len(shape)


def _binary_assert(symbol, np_fn, op_fn, default_name, x, y, data, summarize, message, name):
    with _scope(name, default_name):
        xs, ys = constant_value(x), constant_value(y)
        if xs is not None and ys is not None and not np.all(np_fn(xs, ys)):
            raise InvalidArgumentError(
                f"{message + ' ' if message else ''}Condition x {symbol} y did not hold element-wise: "
                f"x = {xs}, y = {ys}", default_name)
        if data is None:
            data = [message or "", f"Condition x {symbol} y did not hold element-wise:", "x = ", x, "y = ", y]
        condition = _math.reduce_all(op_fn(x, y))
        return _ops.assert_(condition, list(data), summarize=3 if summarize is None else int(summarize))


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x == y everywhere (broadcasting)."""
    return _binary_assert("==", np.equal, _ops.equal, "assert_equal", x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x != y everywhere."""
    return _binary_assert("!=", np.not_equal, _ops.not_equal, "assert_none_equal", x, y, data, summarize, message,
                          name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x < y everywhere."""
    return _binary_assert("<", np.less, _ops.less, "assert_less", x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x <= y everywhere."""
    return _binary_assert("<=", np.less_equal, _ops.less_equal, "assert_less_equal", x, y, data, summarize,
                          message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x > y everywhere."""
    return _binary_assert(">", np.greater, _ops.greater, "assert_greater", x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless x >= y everywhere."""
    return _binary_assert(">=", np.greater_equal, _ops.greater_equal, "assert_greater_equal", x, y, data, summarize,
                          message, name)


def _zero(x):
    dtype = getattr(x, "dtype", None)
    dtype = getattr(dtype, "as_numpy_dtype", dtype) or np.asarray(x).dtype
    return np.zeros((), dtype)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless every element of x is > 0."""
    return assert_less(_zero(x), x, data, summarize, message, name or "assert_positive")


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless every element of x is < 0."""
    return assert_less(x, _zero(x), data, summarize, message, name or "assert_negative")


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless every element of x is >= 0."""
    return assert_less_equal(_zero(x), x, data, summarize, message, name or "assert_non_negative")


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless every element of x is <= 0."""
    return assert_less_equal(x, _zero(x), data, summarize, message, name or "assert_non_positive")


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An Assert op that fails the run unless |x - y| <= atol + rtol * |y| everywhere; the
    tolerances default to 10 * the dtype's machine epsilon, as TensorFlow's."""
    dtype = getattr(x, "dtype", None)
    np_dtype = np.dtype(getattr(dtype, "as_numpy_dtype", dtype) or np.asarray(x).dtype)
    eps = np.finfo(np_dtype).eps if np.issubdtype(np_dtype, np.floating) else 0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    rtol, atol = np.asarray(rtol, np_dtype), np.asarray(atol, np_dtype)
    with _scope(name, "assert_near"):
        xs, ys = constant_value(x), constant_value(y)
        if xs is not None and ys is not None and not np.all(np.abs(xs - ys) <= atol + rtol * np.abs(ys)):
            raise InvalidArgumentError(f"{message + ' ' if message else ''}x and y not equal to tolerance "
                                       f"rtol = {rtol}, atol = {atol}: x = {xs}, y = {ys}", "assert_near")
        tol = _ops.add_v2(atol, _ops.mul(rtol, _ops.abs(y)))
        diff = _ops.abs(_ops.sub(x, y))
        if data is None:
            data = [message or "", f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}", "x = ", x,
                    "y = ", y]
        return _ops.assert_(_math.reduce_all(_ops.less_equal(diff, tol)), list(data),
                            summarize=3 if summarize is None else int(summarize))


def _rank_assert(x, ok, describe, data, summarize, message, name, default_name):
    """ValueError now when x's rank is known and not ok(rank); else an Assert on Rank(x)."""
    with _scope(name, default_name):
        rank = _rank(x)
        if rank is not None:
            if not ok(rank):
                raise ValueError(f"{message + ' ' if message else ''}Tensor must have {describe}, got rank {rank}")
            return no_op()
        dyn = _ops.rank(x)
        if data is None:
            data = [message or "", f"Tensor must have {describe}; rank is ", dyn]
        return _ops.assert_(ok(dyn), list(data), summarize=3 if summarize is None else int(summarize))


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks x has rank `rank`: ValueError when that is known to fail while building, else
    an Assert op on x's run-time rank."""
    return _rank_assert(x, lambda r: r == rank if isinstance(r, int) else _ops.equal(r, np.int32(rank)),
                        f"rank {rank}", data, summarize, message, name, "assert_rank")


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks x has rank >= `rank` (statically when known, else at run time)."""
    return _rank_assert(x, lambda r: r >= rank if isinstance(r, int) else _ops.greater_equal(r, np.int32(rank)),
                        f"rank at least {rank}", data, summarize, message, name, "assert_rank_at_least")


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Checks x's rank is one of `ranks` (statically when known, else at run time)."""
    ranks = [int(r) for r in ranks]

    def ok(r):
        if isinstance(r, int):
            return r in ranks
        return _math.reduce_any(_ops.equal(_ops.reshape(r, np.array([1], np.int32)), np.asarray(ranks, np.int32)))
    return _rank_assert(x, ok, f"rank in {ranks}", data, summarize, message, name, "assert_rank_in")


def assert_integer(x, message=None, name=None):
    """TypeError unless x has an integer dtype; else a no-op."""
    if not _dtypes.as_dtype(x.dtype).is_integer:
        raise TypeError(f"{message + ' ' if message else ''}Expected integer type for {getattr(x, 'name', x)}, "
                        f"got {_dtypes.as_dtype(x.dtype).name}")
    with _scope(name, "assert_integer"):
        return no_op()


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless tensor's dtype is tf_type; else a no-op."""
    if _dtypes.as_dtype(tensor.dtype) != _dtypes.as_dtype(tf_type):
        raise TypeError(f"{message + ' ' if message else ''}{getattr(tensor, 'name', 'tensor')} must be of type "
                        f"{_dtypes.as_dtype(tf_type).name}, got {_dtypes.as_dtype(tensor.dtype).name}")
    with _scope(name, "assert_type"):
        return no_op()


def assert_scalar(tensor, name=None, message=None):
    """tensor itself, after checking it has rank 0 (ValueError if its rank is known otherwise)."""
    rank = _rank(tensor)
    if rank is not None and rank != 0:
        raise ValueError(f"{message + ' ' if message else ''}Expected scalar shape, saw rank {rank}")
    return tensor


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of tensors (and dtype, if given; float32 if neither says):
    ValueError when they differ or are not floating."""
    dtypes = {_dtypes.as_dtype(t.dtype) for t in (tensors or []) if t is not None}
    if dtype is not None:
        dtypes.add(_dtypes.as_dtype(dtype))
    if len(dtypes) > 1:
        raise ValueError(f"Expected the same float dtype, got {sorted(d.name for d in dtypes)}")
    found = dtypes.pop() if dtypes else _dtypes.float32
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found.name}")
    return found


def assert_proper_iterable(values):
    """TypeError when values is a tensor, an array or a string (iterating them is a mistake
    where a list of values is meant) or not iterable at all."""
    if isinstance(values, (str, bytes, np.ndarray)) or hasattr(values, "op") or hasattr(values, "numpy"):
        raise TypeError(f"Expected argument 'values' to be a \"proper\" iterable, found {type(values).__name__}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be iterable, found {type(values).__name__}")


def check_numerics(tensor, message, name=None):
    """tensor, checked when run: InvalidArgumentError naming message if it has a NaN or an
    infinity (TensorFlow's CheckNumerics, as Assert + IsFinite)."""
    with _scope(name, "CheckNumerics"):
        finite = _math.reduce_all(_ops.is_finite(tensor))
        check = _ops.assert_(finite, [f"{message} : Tensor had NaN or Inf values"], summarize=3)
        with get_default_graph().control_dependencies([check]):
            return _ops.identity(tensor)


def _increasing(x, strict, default_name, name):
    with _scope(name, default_name):
        flat = _ops.reshape(x, np.array([-1], np.int32))
        head = _ops.strided_slice(flat, np.array([0], np.int32), np.array([-1], np.int32), np.array([1], np.int32))
        tail = _ops.strided_slice(flat, np.array([1], np.int32), np.array([0], np.int32), np.array([1], np.int32),
                                  end_mask=1)
        return _math.reduce_all((_ops.less if strict else _ops.less_equal)(head, tail))


def is_non_decreasing(x, name=None):
    """True when x, flattened, never decreases (vacuously true for fewer than 2 elements)."""
    return _increasing(x, False, "is_non_decreasing", name)


def is_strictly_increasing(x, name=None):
    """True when x, flattened, always increases (vacuously true for fewer than 2 elements)."""
    return _increasing(x, True, "is_strictly_increasing", name)


def ensure_shape(x, shape, name=None):
    """x, with static shape merged with shape; ValueError when they cannot agree while
    building, and a run that feeds another shape fails (tf.ensure_shape)."""
    from ..framework.tensor_shape import TensorShape  # noqa: PLC0415
    want = TensorShape(shape)
    have = TensorShape(x.shape.dims if hasattr(x.shape, "dims") else np.shape(x))
    if not have.is_compatible_with(want):
        raise ValueError(f"Shape of tensor {getattr(x, 'name', 'x')} {have} is not compatible with expected shape "
                         f"{want}")
    with _scope(name, "EnsureShape"):
        if want.rank is None:
            return _ops.identity(x)
        known = [(i, d) for i, d in enumerate(want.dims) if d is not None]
        checks = [_ops.equal(_ops.rank(x), np.int32(want.rank))]
        if known:
            dims = _ops.gather_v2(_ops.shape(x), np.asarray([i for i, _ in known], np.int32), np.int32(0))
            checks.append(_math.reduce_all(_ops.equal(dims, np.asarray([d for _, d in known], np.int32))))
        ok = checks[0] if len(checks) == 1 else _ops.logical_and(*checks)
        check = _ops.assert_(ok, [f"Shape of tensor is not compatible with expected shape {want}; got ",
                                  _ops.shape(x)], summarize=10)
        with get_default_graph().control_dependencies([check]):
            out = _ops.identity(x)
        graph = getattr(out, "graph", None)
        if graph is not None and hasattr(out, "op"):
            graph._set_shape(out, have.merge_with(want))
        return out


def add_check_numerics_ops():
    """One op that checks, when run, every floating-point output of the default graph's ops for
    NaN and infinity (tf.add_check_numerics_ops)."""
    g = get_default_graph()
    checks = []
    for op in list(g.get_operations()):
        for out in op.outputs:
            if _dtypes.as_dtype(out.dtype).is_floating:
                message = out.name
                finite = _math.reduce_all(_ops.is_finite(out))
                checks.append(_ops.assert_(finite, [f"{message} : Tensor had NaN or Inf values"], summarize=3))
    with g.control_dependencies(checks):
        return no_op(name="CheckNumerics")
