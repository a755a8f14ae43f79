"""TensorFlow's FFT functions (tf.signal.fft ... irfft3d, fftnd family, fftshift) over the
FFT ops (opdefs/spectral, kissfft kernels). The real transforms take fft_length as TensorFlow
does: by default the input's inner-most dims (irfft: 2 * (last - 1))."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.api import constant as _to_tensor

_COMPLEX_OF = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}


def _tensor(x, dtype=None):
    if hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray):
        return x
    arr = np.asarray(x)
    if dtype is None and arr.dtype.kind == "c":
        dtype = _dtypes.complex64 if arr.dtype == np.complex64 else _dtypes.complex128
    return _to_tensor(arr if dtype is None else arr.astype(_dtypes.as_dtype(dtype).as_numpy_dtype))


def _dims(t):
    dims = getattr(t.shape, "dims", t.shape)
    return None if dims is None else [None if d is None else int(d) for d in dims]


def _default_lengths(op: str, x, rank: int, inverse_real: bool):
    """fft_length from x's static inner-most dims (TensorFlow's default)."""
    dims = _dims(x)
    if dims is None or len(dims) < rank or any(d is None for d in dims[-rank:]):
        raise InvalidArgumentError(f"{op}: fft_length is needed when the input's inner-most {rank} dims are not known",
                                   op)
    lengths = list(dims[-rank:])
    if inverse_real:
        lengths[-1] = 2 * (lengths[-1] - 1)
    return np.asarray(lengths, np.int32)


def _lengths(fft_length, op, x, rank, inverse_real=False):
    if fft_length is None:
        return _default_lengths(op, x, rank, inverse_real)
    if isinstance(fft_length, (list, tuple, int, np.ndarray, np.integer)):
        return np.asarray(fft_length, np.int32).reshape(-1)
    return fft_length


def _complex_input(op, x):
    x = _tensor(x)
    if not _dtypes.as_dtype(x.dtype).is_complex:
        raise InvalidArgumentError(f"{op}: input must be complex64 or complex128, got {_dtypes.as_dtype(x.dtype).name}",
                                   op)
    return x


def _real_input(op, x):
    x = _tensor(x)
    dt = _dtypes.as_dtype(x.dtype)
    if dt.name not in _COMPLEX_OF:
        raise InvalidArgumentError(f"{op}: input must be float32 or float64, got {dt.name}", op)
    return x, _COMPLEX_OF[dt.name]


def fft(input, name=None):  # noqa: A002
    """The 1-D discrete Fourier transform over the inner-most dimension."""
    return _ops.fft(_complex_input("FFT", input), name=name)


def ifft(input, name=None):  # noqa: A002
    """The inverse 1-D discrete Fourier transform over the inner-most dimension (scaled by 1/n)."""
    return _ops.ifft(_complex_input("IFFT", input), name=name)


def fft2d(input, name=None):  # noqa: A002
    return _ops.fft2d(_complex_input("FFT2D", input), name=name)


def ifft2d(input, name=None):  # noqa: A002
    return _ops.ifft2d(_complex_input("IFFT2D", input), name=name)


def fft3d(input, name=None):  # noqa: A002
    return _ops.fft3d(_complex_input("FFT3D", input), name=name)


def ifft3d(input, name=None):  # noqa: A002
    return _ops.ifft3d(_complex_input("IFFT3D", input), name=name)


def _rfft(op, wrapper, rank):
    def rfft_fn(input_tensor, fft_length=None, name=None):
        x, cdt = _real_input(op, input_tensor)
        return wrapper(x, _lengths(fft_length, op, x, rank), Tcomplex=cdt, name=name)

    rfft_fn.__name__ = op.lower()
    rfft_fn.__doc__ = (f"The {rank}-D real-input FFT over the inner-most {rank} dims (cropped or zero-padded to "
                       "fft_length, by default their sizes): the fft_length[-1] // 2 + 1 unique components.")
    return rfft_fn


def _irfft(op, wrapper, rank):
    def irfft_fn(input_tensor, fft_length=None, name=None):
        x = _complex_input(op, input_tensor)
        real = _dtypes.as_dtype(x.dtype).real_dtype
        return wrapper(x, _lengths(fft_length, op, x, rank, inverse_real=True), Treal=real, name=name)

    irfft_fn.__name__ = op.lower()
    irfft_fn.__doc__ = (f"The inverse of rfft{'' if rank == 1 else f'{rank}d'}: a real signal of fft_length (by default "
                        "2 * (the inner-most dim - 1)) from the half spectrum.")
    return irfft_fn


rfft, irfft = _rfft("RFFT", _ops.rfft, 1), _irfft("IRFFT", _ops.irfft, 1)
rfft2d, irfft2d = _rfft("RFFT2D", _ops.rfft2d, 2), _irfft("IRFFT2D", _ops.irfft2d, 2)
rfft3d, irfft3d = _rfft("RFFT3D", _ops.rfft3d, 3), _irfft("IRFFT3D", _ops.irfft3d, 3)


def _nd_args(op, x, fft_length, axes, inverse_real=False):
    dims = _dims(x)
    if axes is None:
        n = len(fft_length) if fft_length is not None and not hasattr(fft_length, "op") else None
        if n is None:
            if dims is None:
                raise InvalidArgumentError(f"{op}: axes are needed when the input's rank is not known", op)
            n = len(dims)
        axes = np.arange(-n, 0, dtype=np.int32)
    axes = np.asarray(axes, np.int32).reshape(-1) if not hasattr(axes, "op") else axes
    if fft_length is None:
        if dims is None or hasattr(axes, "op") or any(dims[a] is None for a in axes):
            raise InvalidArgumentError(f"{op}: fft_length is needed when the transformed dims are not known", op)
        fft_length = np.asarray([dims[a] for a in axes], np.int32)
        if inverse_real:
            fft_length[-1] = 2 * (fft_length[-1] - 1)
    elif not hasattr(fft_length, "op"):
        fft_length = np.asarray(fft_length, np.int32).reshape(-1)
    return fft_length, axes


def _norm_scale(op, t, fft_length, norm, inverse):
    """TensorFlow's norm argument: "backward" (the default: 1/n on the inverse), "ortho" (1/sqrt(n)
    both ways) or "forward" (1/n on the forward transform)."""
    if norm in (None, "backward"):
        return t
    n = float(np.prod(np.asarray(fft_length, np.float64)))
    if norm == "ortho":
        s = np.sqrt(n) if inverse else 1 / np.sqrt(n)
    elif norm == "forward":
        s = n if inverse else 1 / n
    else:
        raise InvalidArgumentError(f"{op}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}", op)
    dt = _dtypes.as_dtype(t.dtype)
    return _ops.mul(t, np.asarray(s, dt.as_numpy_dtype))


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The n-D FFT over `axes` (default: all, or the last len(fft_length) dims), each cropped or
    zero-padded to its fft_length."""
    x = _complex_input("FFTND", input_tensor)
    fft_length, axes = _nd_args("FFTND", x, fft_length, axes)
    return _norm_scale("FFTND", _ops.fftnd(x, fft_length, axes, name=name), fft_length, norm, False)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse n-D FFT over `axes` (scaled by 1/n with the default norm)."""
    x = _complex_input("IFFTND", input_tensor)
    fft_length, axes = _nd_args("IFFTND", x, fft_length, axes)
    return _norm_scale("IFFTND", _ops.ifftnd(x, fft_length, axes, name=name), fft_length, norm, True)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The n-D real-input FFT over `axes`; the last of them keeps fft_length[-1] // 2 + 1 terms."""
    x, cdt = _real_input("RFFTND", input_tensor)
    fft_length, axes = _nd_args("RFFTND", x, fft_length, axes)
    return _norm_scale("RFFTND", _ops.rfftnd(x, fft_length, axes, Tcomplex=cdt, name=name), fft_length, norm, False)


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of rfftnd: a real signal of fft_length over `axes`."""
    x = _complex_input("IRFFTND", input_tensor)
    fft_length, axes = _nd_args("IRFFTND", x, fft_length, axes, inverse_real=True)
    real = _dtypes.as_dtype(x.dtype).real_dtype
    return _norm_scale("IRFFTND", _ops.irfftnd(x, fft_length, axes, Treal=real, name=name), fft_length, norm, True)


def _shift(x, axes, sign):
    """x rolled by sign * n // 2 along each of axes (n static): two slices concatenated."""
    x = _tensor(x)
    dims = _dims(x)
    if dims is None:
        raise InvalidArgumentError("fftshift: the input's rank must be known", "ConcatV2")
    axes = list(range(len(dims))) if axes is None else [int(a) % len(dims) for a in np.atleast_1d(axes)]
    for a in axes:
        n = dims[a]
        if n is None:
            raise InvalidArgumentError(f"fftshift: dim {a} of the input must be known", "ConcatV2")
        k = (-(sign * (n // 2))) % n if n else 0  # the first index of the result
        if k == 0:
            continue
        begin = np.zeros(len(dims), np.int32)
        size = np.full(len(dims), -1, np.int32)
        begin[a] = k
        tail = _ops.slice(x, begin, size)
        begin[a], size[a] = 0, k
        head = _ops.slice(x, begin, size)
        x = _ops.concat_v2([tail, head], np.int32(a))
    return x


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre (NumPy's np.fft.fftshift)."""
    del name
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift."""
    del name
    return _shift(x, axes, -1)


# tf.compat.v1's raw spellings (tf.fftnd, tf.rfftnd, tf.irfftnd take the op's arguments).
def raw_fftnd(input, fft_length, axes, name=None):  # noqa: A002
    return _ops.fftnd(_complex_input("FFTND", input), fft_length, axes, name=name)


def raw_ifftnd(input, fft_length, axes, name=None):  # noqa: A002
    return _ops.ifftnd(_complex_input("IFFTND", input), fft_length, axes, name=name)


def raw_rfftnd(input, fft_length, axes, Tcomplex=_dtypes.complex64, name=None):  # noqa: A002,N803
    return _ops.rfftnd(_tensor(input), fft_length, axes, Tcomplex=Tcomplex, name=name)


def raw_irfftnd(input, fft_length, axes, Treal=_dtypes.float32, name=None):  # noqa: A002,N803
    return _ops.irfftnd(_complex_input("IRFFTND", input), fft_length, axes, Treal=Treal, name=name)


__all__ = ["fft", "fft2d", "fft3d", "fftnd", "fftshift", "ifft", "ifft2d", "ifft3d", "ifftnd", "ifftshift", "irfft",
           "irfft2d", "irfft3d", "irfftnd", "rfft", "rfft2d", "rfft3d", "rfftnd"]
