"""Python operators of the math ops (issue 4) on eager and graph tensors, as TensorFlow's:
``//`` FloorDiv, ``%`` FloorMod, ``<=`` LessEqual, ``>=`` GreaterEqual, and on bool tensors
``~`` LogicalNot, ``&`` LogicalAnd, ``|`` LogicalOr, ``^`` logical xor."""

from __future__ import annotations


def install(T, ops, *, with_not_equal: bool = False, is_tensor_like=None) -> None:
    """Adds the operators to the tensor class T. ``with_not_equal`` also makes ``!=`` the
    elementwise NotEqual (eager tensors, where ``==`` is Equal, as in TensorFlow 2)."""
    T.__floordiv__ = ops.floor_div
    T.__rfloordiv__ = lambda a, b: ops.floor_div(b, a)
    T.__mod__ = ops.floor_mod
    T.__rmod__ = lambda a, b: ops.floor_mod(b, a)
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
    for name, fn in (("add", ops.add_v2), ("sub", ops.sub), ("mul", ops.mul),
                     ("truediv", ops.real_div), ("pow", ops.pow)):
        setattr(T, f"__{name}__", fn)
        setattr(T, f"__r{name}__", lambda a, b, fn=fn: fn(b, a))
    T.__matmul__ = ops.mat_mul
    T.__rmatmul__ = lambda a, b: ops.mat_mul(b, a)
    T.__neg__ = lambda a: ops.neg(a)
    T.__abs__ = lambda a: ops.abs(a)
    T.__lt__ = lambda a, b: ops.less(a, b)
    T.__gt__ = lambda a, b: ops.greater(a, b)
    install(T, ops)  # //, %, <=, >=, ~, &, |, ^
