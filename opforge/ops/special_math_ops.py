"""tf.math's special functions: the generated Lgamma, Digamma, Polygamma, Zeta, Igamma, Igammac,
Betainc, Erfinv, Ndtri, BesselI0e, BesselI1e and NextAfter wrappers with TensorFlow's argument
conversion (a Python number takes the other operand's dtype), and the functions TensorFlow
composes from them in Python: lbeta, erfcinv, bessel_i0, bessel_i1."""

from __future__ import annotations

from .. import ops as _ops
from .math_ops import _as_tensor, _operands, reduce_sum

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "igamma", "igammac", "betainc", "lbeta", "erfinv", "erfcinv",
           "ndtri", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "nextafter", "cumulative_logsumexp"]


def lgamma(x, name=None):
    """log|Gamma(x)| element-wise (tf.math.lgamma)."""
    return _ops.lgamma(x, name=name)


def digamma(x, name=None):
    """Psi(x) = d/dx lgamma(x) element-wise (tf.math.digamma)."""
    return _ops.digamma(x, name=name)


def polygamma(a, x, name=None):
    """The a-th derivative of digamma at x (tf.math.polygamma); a holds non-negative integers."""
    a, x = _operands(a, x)
    return _ops.polygamma(a, x, name=name)


def zeta(x, q, name=None):
    """The Hurwitz zeta function sum_n (q + n)^-x (tf.math.zeta)."""
    x, q = _operands(x, q)
    return _ops.zeta(x, q, name=name)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (tf.math.igamma)."""
    a, x = _operands(a, x)
    return _ops.igamma(a, x, name=name)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (tf.math.igammac)."""
    a, x = _operands(a, x)
    return _ops.igammac(a, x, name=name)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (tf.math.betainc): a, b and x have one
    shape, or are scalars."""
    a, b = _operands(a, b)
    x, a = _operands(x, a)  # a tensor (or array) among the three sets the dtype of the others
    b = _as_tensor(b, x.dtype)
    return _ops.betainc(a, b, x, name=name)


def lbeta(x, name=None):
    """log|Beta(x)| over the last dimension (tf.math.lbeta): sum(lgamma(x)) - lgamma(sum(x)),
    as TensorFlow computes it (an empty last dimension gives -inf)."""
    x = _as_tensor(x)
    return _ops.sub(reduce_sum(_ops.lgamma(x), -1), _ops.lgamma(reduce_sum(x, -1)), name=name)


def erfinv(x, name=None):
    """The inverse of erf element-wise (tf.math.erfinv)."""
    return _ops.erfinv(x, name=name)


def ndtri(x, name=None):
    """The inverse of the standard normal CDF element-wise (tf.math.ndtri)."""
    return _ops.ndtri(x, name=name)


def erfcinv(x, name=None):
    """The inverse of erfc element-wise (tf.math.erfcinv): -ndtri(x / 2) / sqrt(2)."""
    x = _as_tensor(x)
    half, root = _operands(0.5, x)[0], _operands(-0.70710678118654752440, x)[0]
    return _ops.mul(_ops.ndtri(_ops.mul(x, half)), root, name=name)


def bessel_i0e(x, name=None):
    """I0(x) * exp(-|x|) element-wise (tf.math.bessel_i0e)."""
    return _ops.bessel_i0e(x, name=name)


def bessel_i1e(x, name=None):
    """I1(x) * exp(-|x|) element-wise (tf.math.bessel_i1e)."""
    return _ops.bessel_i1e(x, name=name)


def bessel_i0(x, name=None):
    """The modified Bessel function I0 (tf.math.bessel_i0): exp(|x|) * bessel_i0e(x)."""
    x = _as_tensor(x)
    return _ops.mul(_ops.exp(_ops.abs(x)), _ops.bessel_i0e(x), name=name)


def bessel_i1(x, name=None):
    """The modified Bessel function I1 (tf.math.bessel_i1): exp(|x|) * bessel_i1e(x)."""
    x = _as_tensor(x)
    return _ops.mul(_ops.exp(_ops.abs(x)), _ops.bessel_i1e(x), name=name)


def nextafter(x1, x2, name=None):
    """The next representable value of x1 toward x2 element-wise (tf.math.nextafter)."""
    x1, x2 = _operands(x1, x2)
    return _ops.next_after(x1, x2, name=name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along axis without overflow (tf.math.cumulative_logsumexp); exclusive
    leaves each element out of its own sum (the first is -inf), reverse runs from the end."""
    return _ops.cumulative_logsumexp(x, axis, exclusive=exclusive, reverse=reverse, name=name)


# TensorFlow 1's top-level spellings (tf.lgamma, tf.betainc, ...)
TF1_TOP_LEVEL = ("lgamma", "digamma", "polygamma", "zeta", "igamma", "igammac", "betainc", "lbeta")
