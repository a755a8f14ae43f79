"""Python operators of the math ops (issue 4) on eager and graph tensors, as TensorFlow's:
``/`` true division (integers cast to a float first), ``//`` FloorDiv, ``%`` FloorMod, ``<=``
LessEqual, ``>=`` GreaterEqual, and on bool tensors ``~`` LogicalNot, ``&`` LogicalAnd, ``|``
LogicalOr, ``^`` logical xor."""

from __future__ import annotations

import numpy as np

# tf.math.truediv's float type for each integer dtype (TensorFlow's _TRUEDIV_TABLE).
TRUEDIV_FLOAT = {"int8": "float32", "uint8": "float32", "int16": "float32", "uint16": "float32",
                 "int32": "float64", "uint32": "float64", "int64": "float64", "uint64": "float64"}


def _float_of(x):
    """The float dtype true division of tensor x's dtype computes in; None for non-integers."""
    dtype = getattr(x.dtype, "base_dtype", x.dtype)  # (a TF1 variable's may be a _ref type)
    return TRUEDIV_FLOAT.get(dtype.name)


def _as(ops, v, dtype):
    if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)):
        return ops.cast(v, dtype)
    return np.asarray(v, dtype=dtype)


def truediv(ops, x, y, name=None):
    """x / y for a tensor x and a tensor or value y, with Python 3's semantics, as
    tf.math.truediv: integer operands are cast to a float first (8- and 16-bit ones to float32,
    32- and 64-bit ones to float64), so [1, 3] / 2 is [0.5, 1.5] (RealDiv itself divides
    integers as C does)."""
    to = _float_of(x)
    if to is None:
        return ops.real_div(x, y, name=name)
    return ops.real_div(ops.cast(x, to), _as(ops, y, to), name=name)


def rtruediv(ops, x, y, name=None):
    """y / x for a tensor x (its __rtruediv__)."""
    to = _float_of(x)
    if to is None:
        return ops.real_div(y, x, name=name)
    return ops.real_div(_as(ops, y, to), ops.cast(x, to), name=name)


def install(T, ops, *, with_not_equal: bool = False, is_tensor_like=None) -> None:
    """Adds the operators to the tensor class T. ``with_not_equal`` also makes ``!=`` the
    elementwise NotEqual (eager tensors, where ``==`` is Equal, as in TensorFlow 2)."""
    T.__truediv__ = lambda a, b: truediv(ops, a, b, name="truediv")
    T.__rtruediv__ = lambda a, b: rtruediv(ops, a, b, name="truediv")
    T.__floordiv__ = lambda a, b: ops.floor_div(a, b, name="floordiv")
    T.__rfloordiv__ = lambda a, b: ops.floor_div(b, a, name="floordiv")
    T.__mod__ = lambda a, b: ops.floor_mod(a, b, name="mod")
    T.__rmod__ = lambda a, b: ops.floor_mod(b, a, name="mod")
    T.__le__ = ops.less_equal
    T.__ge__ = ops.greater_equal
    T.__invert__ = ops.logical_not
    T.__and__ = ops.logical_and
    T.__rand__ = lambda a, b: ops.logical_and(b, a)
    T.__or__ = ops.logical_or
    T.__ror__ = lambda a, b: ops.logical_or(b, a)
    T.__xor__ = _logical_xor(ops)
    T.__rxor__ = lambda a, b, xor=_logical_xor(ops): xor(b, a)
    if with_not_equal:
        T.__ne__ = lambda a, b: ops.not_equal(a, b) if is_tensor_like(b) else NotImplemented


def _logical_xor(ops):
    def xor(x, y):
        """(x | y) & ~(x & y), as tf.math.logical_xor."""
        return ops.logical_and(ops.logical_or(x, y), ops.logical_not(ops.logical_and(x, y)))
    return xor


def install_graph_tensor_api(T, ops) -> None:  # noqa: N803
    """Operators on graph tensors (T: GraphTensor) build nodes through the same generated wrappers."""
    # Named as TensorFlow 1 names them ("add", "add_1", ...), so get_tensor_by_name("add:0") finds
    # what `x + y` made.
    for name, fn in (("add", ops.add_v2), ("sub", ops.sub), ("mul", ops.mul), ("pow", ops.pow)):
        setattr(T, f"__{name}__", lambda a, b, fn=fn, n=name: fn(a, b, name=n))
        setattr(T, f"__r{name}__", lambda a, b, fn=fn, n=name: fn(b, a, name=n))
    T.__matmul__ = ops.mat_mul
    T.__rmatmul__ = lambda a, b: ops.mat_mul(b, a)
    T.__neg__ = lambda a: ops.neg(a)
    T.__abs__ = lambda a: ops.abs(a)
    T.__lt__ = lambda a, b: ops.less(a, b)
    T.__gt__ = lambda a, b: ops.greater(a, b)
    install(T, ops)  # //, %, <=, >=, ~, &, |, ^
