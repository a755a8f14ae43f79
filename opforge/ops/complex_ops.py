"""TensorFlow's complex-number functions (tf.complex, tf.math.real / imag / conj / angle and
tf.abs of complex) over the Complex, Real, Imag, Conj, Angle and ComplexAbs ops. As in
TensorFlow, real, imag, conj and angle also accept real tensors."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.api import constant as _to_tensor

_COMPLEX_OF = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}


def _tensor(x, name):
    return x if hasattr(x, "dtype") and hasattr(x, "shape") else _to_tensor(x)


def complex(real, imag, name=None):  # noqa: A001 (TensorFlow's name)
    """real + imag * 1j element-wise (broadcasting): float32 parts give complex64, float64 parts
    complex128."""
    real, imag = _tensor(real, "real"), _tensor(imag, "imag")
    dt = _dtypes.as_dtype(real.dtype)
    if dt.name not in _COMPLEX_OF:
        raise InvalidArgumentError(f"Complex: real and imag must be float32 or float64, got {dt.name}", "Complex")
    return _ops.complex(real, imag, Tout=_COMPLEX_OF[dt.name], name=name)


def real(input, name=None):  # noqa: A002
    """The real part of a complex tensor; a real tensor itself."""
    x = _tensor(input, "input")
    dt = _dtypes.as_dtype(x.dtype)
    return _ops.real(x, Tout=dt.real_dtype, name=name) if dt.is_complex else x


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = _tensor(input, "input")
    dt = _dtypes.as_dtype(x.dtype)
    return _ops.imag(x, Tout=dt.real_dtype, name=name) if dt.is_complex else _ops.zeros_like(x)


def conj(x, name=None):
    """The complex conjugate; a real tensor itself."""
    x = _tensor(x, "x")
    return _ops.conj(x, name=name) if _dtypes.as_dtype(x.dtype).is_complex else x


def angle(input, name=None):  # noqa: A002
    """The argument of each element in radians; for a real tensor pi where negative, else 0."""
    x = _tensor(input, "input")
    dt = _dtypes.as_dtype(x.dtype)
    if dt.is_complex:
        return _ops.angle(x, Tout=dt.real_dtype, name=name)
    pi = np.asarray(np.pi, dt.as_numpy_dtype)
    return _ops.select_v2(_ops.less(x, _ops.zeros_like(x)), _ops.mul(_ops.ones_like(x), pi), _ops.zeros_like(x))


def complex_abs(x, name=None):
    """|x| of a complex tensor (a real tensor of its real dtype)."""
    x = _tensor(x, "x")
    return _ops.complex_abs(x, Tout=_dtypes.as_dtype(x.dtype).real_dtype, name=name)


def to_complex64(x, name="ToComplex64"):
    """tf.to_complex64: a cast to complex64."""
    return _ops.cast(_tensor(x, "x"), DstT=_dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """tf.to_complex128: a cast to complex128."""
    return _ops.cast(_tensor(x, "x"), DstT=_dtypes.complex128, name=name)


__all__ = ["angle", "complex", "complex_abs", "conj", "imag", "real", "to_complex128", "to_complex64"]
