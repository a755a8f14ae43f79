"""``of.math``: TensorFlow's tf.math names over the generated wrappers (and the friendly
functions of ops/math_ops.py). Plain aliases where TensorFlow's signature is the wrapper's;
small functions where TensorFlow's defaults differ (axis=None reductions, argmax's axis)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from .nn_ops import top_k  # noqa: F401 (tf.math.top_k is tf.nn.top_k)
from .math_ops import (  # noqa: F401
    add, cast, divide, matmul, multiply, reduce_max, reduce_mean, reduce_sum, square, subtract,
    _reduce,
)
from .math_ops import (  # noqa: F401 (composite functions: tf.math's names for them)
    count_nonzero, cumprod, log_sigmoid, reduce_logsumexp, segment_sum, truncatediv, truncatemod,
)

# Unary, element-wise.
abs = _ops.abs  # noqa: A001
negative, reciprocal, rsqrt, sqrt, exp, expm1 = _ops.neg, _ops.reciprocal, _ops.rsqrt, _ops.sqrt, _ops.exp, _ops.expm1
log, log1p, sigmoid, tanh = _ops.log, _ops.log1p, _ops.sigmoid, _ops.tanh
sin, cos, tan, asin, acos, atan = _ops.sin, _ops.cos, _ops.tan, _ops.asin, _ops.acos, _ops.atan
sinh, cosh, asinh, acosh, atanh = _ops.sinh, _ops.cosh, _ops.asinh, _ops.acosh, _ops.atanh
erf, floor, ceil, round, sign = _ops.erf, _ops.floor, _ops.ceil, _ops.round, _ops.sign  # noqa: A001
is_nan, is_finite = _ops.is_nan, _ops.is_finite
logical_not = _ops.logical_not
softplus, softsign = _ops.softplus, _ops.softsign  # tf.math.softplus (the nn ops)

# Binary, element-wise with broadcasting.
floordiv, floormod, mod = _ops.floor_div, _ops.floor_mod, _ops.floor_mod
squared_difference, atan2, pow = _ops.squared_difference, _ops.atan2, _ops.pow  # noqa: A001
maximum, minimum = _ops.maximum, _ops.minimum
logical_and, logical_or = _ops.logical_and, _ops.logical_or
equal, not_equal = _ops.equal, _ops.not_equal
less, less_equal, greater, greater_equal = _ops.less, _ops.less_equal, _ops.greater, _ops.greater_equal
truediv = _ops.real_div
add_n = _ops.add_n


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y element-wise: (x | y) & ~(x & y), as tf.math.logical_xor."""
    return _ops.logical_and(_ops.logical_or(x, y), _ops.logical_not(_ops.logical_and(x, y)))


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over axis (all axes when None), as tf.reduce_prod."""
    return _reduce(_ops.prod, input_tensor, axis, keepdims, name)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum over axis (all axes when None), as tf.reduce_min."""
    return _reduce(_ops.min, input_tensor, axis, keepdims, name)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """Logical and over axis (all axes when None), as tf.reduce_all."""
    return _reduce(_ops.all, input_tensor, axis, keepdims, name)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """Logical or over axis (all axes when None), as tf.reduce_any."""
    return _reduce(_ops.any, input_tensor, axis, keepdims, name)


def argmax(input, axis=None, output_type="int64", name=None):  # noqa: A002
    """Index of the largest value along axis (0 when None), as tf.math.argmax."""
    return _ops.arg_max(input, np.int32(0) if axis is None else axis, output_type=output_type, name=name)


def argmin(input, axis=None, output_type="int64", name=None):  # noqa: A002
    """Index of the smallest value along axis (0 when None), as tf.math.argmin."""
    return _ops.arg_min(input, np.int32(0) if axis is None else axis, output_type=output_type, name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along axis, as tf.math.cumsum."""
    return _ops.cumsum(x, axis, exclusive=exclusive, reverse=reverse, name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """min(max(t, clip_value_min), clip_value_max), as tf.clip_by_value."""
    return _ops.clip_by_value(t, clip_value_min, clip_value_max, name=name)


# TensorFlow's top-level names for some of the above (re-exported by opforge/__init__.py).
TOP_LEVEL = ("reduce_prod", "reduce_min", "reduce_all", "reduce_any", "argmax", "argmin", "cumsum",
             "clip_by_value", "floordiv", "logical_xor", "truediv")
