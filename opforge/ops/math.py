"""``of.math``: TensorFlow's tf.math names over the generated wrappers (and the friendly
functions of ops/math_ops.py). Plain aliases where TensorFlow's signature is the wrapper's;
small functions where TensorFlow's defaults differ (axis=None reductions, argmax's axis)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from .nn_ops import top_k  # noqa: F401 (tf.math.top_k is tf.nn.top_k)
from .math_ops import (  # noqa: F401
    add, cast, divide, matmul, truediv, multiply, reduce_max, reduce_mean, reduce_sum, square, subtract,
    _reduce,
)
from .math_ops import reduce_mean as _reduce_mean
from .histogram_ops import (  # noqa: F401 (tf.math's names for them)
    bincount, confusion_matrix, is_inf, rint, segment_mean, unsorted_segment_mean, unsorted_segment_sqrt_n,
)
from .manip_ops import invert_permutation  # noqa: F401
from .complex_ops import angle, conj, imag, real  # noqa: F401 (tf.math's complex functions)
from .special_math_ops import (  # noqa: F401 (tf.math's special functions)
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, betainc, cumulative_logsumexp, digamma, erfcinv, erfinv, igamma, igammac, lbeta, lgamma,
    ndtri, nextafter, polygamma, zeta,
)
from .math_ops import (  # noqa: F401 (composite functions: tf.math's names for them)
    count_nonzero, cumprod, log_sigmoid, reduce_logsumexp, segment_max, segment_min, segment_prod, segment_sum,
    truncatediv, truncatemod,
)
unsorted_segment_max, unsorted_segment_min = _ops.unsorted_segment_max, _ops.unsorted_segment_min
unsorted_segment_prod, unsorted_segment_sum = _ops.unsorted_segment_prod, _ops.unsorted_segment_sum
from .nn_ops import log_softmax, softmax  # noqa: F401,E402 (tf.math's names for the nn functions)
from .nn_impl import l2_normalize, zero_fraction  # noqa: F401,E402
from .search_ops import approx_max_k, approx_min_k  # noqa: F401,E402
from .quasi_random import sobol_sample  # noqa: F401,E402

# Unary, element-wise.
abs = _ops.abs  # noqa: A001
negative, reciprocal, rsqrt, sqrt, exp, expm1 = _ops.neg, _ops.reciprocal, _ops.rsqrt, _ops.sqrt, _ops.exp, _ops.expm1
log, log1p, sigmoid, tanh = _ops.log, _ops.log1p, _ops.sigmoid, _ops.tanh
sin, cos, tan, asin, acos, atan = _ops.sin, _ops.cos, _ops.tan, _ops.asin, _ops.acos, _ops.atan
sinh, cosh, asinh, acosh, atanh = _ops.sinh, _ops.cosh, _ops.asinh, _ops.acosh, _ops.atanh
erf, erfc, floor, ceil, round, sign = _ops.erf, _ops.erfc, _ops.floor, _ops.ceil, _ops.round, _ops.sign  # noqa: A001
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


# ---- compositions where TensorFlow has an op opforge does not (DivNoNan, Xlogy, ...): the
# "safe" operand trick keeps the gradient finite where the result is masked to 0.


def _zero_mask(t):
    return _ops.equal(t, _ops.zeros_like(t))


def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (tf.math.divide_no_nan)."""
    mask = _zero_mask(y)
    safe_y = _ops.select_v2(mask, _ops.ones_like(y), y)
    return _ops.select_v2(mask, _ops.zeros_like(_ops.real_div(x, safe_y)), _ops.real_div(x, safe_y), name=name)


def multiply_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 even if x is NaN or infinite (tf.math.multiply_no_nan)."""
    mask = _zero_mask(y)
    safe_x = _ops.select_v2(mask, _ops.zeros_like(x), x)
    return _ops.select_v2(mask, _ops.zeros_like(_ops.mul(safe_x, y)), _ops.mul(safe_x, y), name=name)


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0 (tf.math.reciprocal_no_nan)."""
    return divide_no_nan(_ops.ones_like(x), x, name=name)


def _x_times(f, x, y, safe_fill, name):
    mask = _zero_mask(x)
    safe_y = _ops.select_v2(mask, _ops.add_v2(_ops.zeros_like(y), safe_fill), y)
    value = f(x, safe_y)
    return _ops.select_v2(mask, _ops.zeros_like(value), value, name=name)


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0 (tf.math.xlogy)."""
    return _x_times(lambda a, b: _ops.mul(a, _ops.log(b)), x, y, np.ones((), _np_dtype(y)), name)


def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 where x is 0 (tf.math.xlog1py)."""
    return _x_times(lambda a, b: _ops.mul(a, _ops.log1p(b)), x, y, np.zeros((), _np_dtype(y)), name)


def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0 (tf.math.xdivy)."""
    return _x_times(_ops.real_div, x, y, np.ones((), _np_dtype(y)), name)


def _np_dtype(t):
    dtype = getattr(t, "dtype", None)
    return getattr(dtype, "as_numpy_dtype", dtype) or np.asarray(t).dtype


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance (mean squared deviation) over axis, all axes when None (tf.math.reduce_variance)."""
    mean = _reduce_mean(input_tensor, axis, keepdims=True)
    return _reduce_mean(_ops.squared_difference(input_tensor, mean), axis, keepdims=keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over axis, all axes when None (tf.math.reduce_std)."""
    return _ops.sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x ** 2)) over axis, all axes when None (tf.math.reduce_euclidean_norm); for
    integers the root is truncated, as TensorFlow's."""
    x = input_tensor
    dtype = getattr(getattr(x, "dtype", None), "name", None) or np.asarray(x).dtype.name
    if np.issubdtype(np.dtype(dtype), np.integer):
        total = _reduce(_ops.sum, _ops.cast(_ops.mul(x, x), "float64"), axis, keepdims, None)
        return _ops.cast(_ops.floor(_ops.sqrt(total)), dtype, name=name)
    return _ops.sqrt(_reduce(_ops.sum, _ops.mul(x, x), axis, keepdims, None), name=name)


def saturate_cast(value, dtype, name=None):
    """value cast to dtype, first clipped to the values dtype can hold, so nothing wraps around
    (tf.saturate_cast). The bounds are the largest of value's dtype that the cast keeps in range."""
    from ..framework.dtypes import as_dtype  # noqa: PLC0415
    value = value if hasattr(value, "dtype") and not isinstance(value, np.ndarray) else _ops.identity(np.asarray(value))
    src, dst = np.dtype(as_dtype(value.dtype).as_numpy_dtype), np.dtype(as_dtype(dtype).as_numpy_dtype)

    def limits(t):
        if t == np.bool_:
            return 0, 1
        return (np.iinfo(t).min, np.iinfo(t).max) if np.issubdtype(t, np.integer) else (np.finfo(t).min, np.finfo(t).max)

    (smin, smax), (dmin, dmax) = limits(src), limits(dst)
    lo, hi = np.asarray(max(smin, dmin), src) if dmin > smin else None, np.asarray(min(smax, dmax), src) \
        if dmax < smax else None
    if hi is not None and np.issubdtype(src, np.floating) and float(hi) > float(dmax):
        hi = np.nextafter(hi, np.asarray(-np.inf, src))  # dmax rounded up in src: step below it
    if lo is not None and np.issubdtype(src, np.floating) and float(lo) < float(dmin):
        lo = np.nextafter(lo, np.asarray(np.inf, src))
    if lo is not None:
        value = _ops.maximum(value, lo)
    if hi is not None:
        value = _ops.minimum(value, hi)
    return _ops.cast(value, as_dtype(dtype).name, name=name)


def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1] by Horner's rule (tf.math.polyval); no
    coefficients give 0."""
    if not coeffs:
        return _ops.zeros_like(x, name=name)
    p = _ops.add_v2(_ops.zeros_like(x), coeffs[0])
    for c in coeffs[1:]:
        p = _ops.add_v2(_ops.mul(p, x), c)
    return _ops.identity(p, name=name)


# TensorFlow's top-level names for some of the above (re-exported by opforge/__init__.py).
TOP_LEVEL = ("reduce_prod", "reduce_min", "reduce_all", "reduce_any", "argmax", "argmin", "cumsum",
             "clip_by_value", "floordiv", "logical_xor", "truediv")
