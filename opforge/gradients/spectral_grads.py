"""Gradients of the FFT family (FFT/IFFT/RFFT/IRFFT in 1, 2, 3 and n dimensions), as
TensorFlow's spectral_grad.py defines them, generalized to inputs cropped or padded to
fft_length (the gradient is cropped or zero-padded back to the input's shape).

For the linear maps here the gradient of a real loss is the adjoint applied to the incoming
gradient: a forward DFT's adjoint is n times the inverse DFT, an inverse DFT's is 1/n times
the forward one. RFFT's adjoint is the real part of n * IFFT of the half spectrum zero-padded
to full length; IRFFT's is RFFT of the gradient weighted 1 for the DC (and, for even lengths,
Nyquist) term and 2 for the others, over n (TensorFlow's mask)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import UnimplementedError
from .helpers import _static_dims, constant_value


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


_FIXED_RANK = {"FFT": 1, "IFFT": 1, "RFFT": 1, "IRFFT": 1, "FFT2D": 2, "IFFT2D": 2, "RFFT2D": 2,
               "IRFFT2D": 2, "FFT3D": 3, "IFFT3D": 3, "RFFT3D": 3, "IRFFT3D": 3}


def _axes(op) -> np.ndarray:
    """The transformed axes (negative, counted from the end) of op, as an int32 vector."""
    x = op.inputs[0]
    if op.type in _FIXED_RANK:
        return np.arange(-_FIXED_RANK[op.type], 0, dtype=np.int32)
    axes = constant_value(op.inputs[2])
    rank = x.shape.rank if hasattr(x.shape, "rank") else len(x.shape)
    if axes is None or rank is None:
        raise UnimplementedError(f"the gradient of {op.type} needs constant axes and a known input rank", op.type)
    return np.asarray([a - rank if a >= 0 else a for a in np.asarray(axes).reshape(-1)], np.int32)


def _lengths(op, like, axes):
    """fft_length of op (an input of the real and ND ops), else the dims of `like` at axes."""
    ops = _ops()
    if op.type in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D"):
        dims = _static_dims(like)
        if dims is not None:
            return np.asarray([dims[a] for a in axes], np.int32)
        return ops.gather_v2(ops.shape(like), axes, 0)
    return op.inputs[1]


def _count(lengths, real_dtype):
    """The number of points transformed (the product of lengths), as a real scalar."""
    ops = _ops()
    value = constant_value(lengths)
    if value is not None:
        return np.asarray(np.prod(np.asarray(value, np.float64)), real_dtype.as_numpy_dtype)
    return ops.cast(ops.prod(lengths, 0), real_dtype)


def _scale(t, s, real_dtype):
    """t (complex) times the real scalar s."""
    ops = _ops()
    s = ops.cast(s, real_dtype) if not isinstance(s, np.ndarray) else s
    return ops.mul(t, ops.complex(s, ops.zeros_like(s), Tout=t.dtype))


def _resize_like(t, x):
    """t cropped or zero-padded (at the end of each dim) to x's shape."""
    ops = _ops()
    st, sx = _static_dims(t), _static_dims(x)
    if st is not None and st == sx:
        return t
    shape_t, shape_x = ops.shape(t), ops.shape(x)
    keep = ops.minimum(shape_t, shape_x)
    cut = ops.slice(t, ops.zeros_like(keep), keep)
    return ops.pad(cut, ops.pack([ops.zeros_like(keep), ops.sub(shape_x, keep)], axis=1))


def fft_grad(op, grads):
    """FFT*, IFFT*: the inverse (forward) transform of the gradient times n (over n)."""
    ops = _ops()
    x, g = op.inputs[0], grads[0]
    axes = _axes(op)
    lengths = _lengths(op, g, axes)
    real = _dtypes.as_dtype(g.dtype).real_dtype
    n = _count(lengths, real)
    if op.type.startswith("I"):
        inv = np.asarray(1 / n, n.dtype) if isinstance(n, np.ndarray) else ops.reciprocal(n)
        dx = _scale(ops.fftnd(g, lengths, axes), inv, real)
    else:
        dx = _scale(ops.ifftnd(g, lengths, axes), n, real)
    return [_resize_like(dx, x)] + [None] * (len(op.inputs) - 1)


def rfft_grad(op, grads):
    """RFFT*: Re(n * IFFT(g zero-padded to the full spectrum)), cropped or padded back to x."""
    ops = _ops()
    x, g = op.inputs[0], grads[0]
    axes = _axes(op)
    lengths = op.inputs[1]
    real = _dtypes.as_dtype(x.dtype)
    n = _count(lengths, real)
    full = _scale(ops.ifftnd(g, lengths, axes), n, real)  # IFFTND zero-pads the half spectrum
    return [_resize_like(ops.real(full, Tout=real), x), None] + [None] * (len(op.inputs) - 2)


def irfft_grad(op, grads):
    """IRFFT*: RFFT(g) weighted [1, 2, ..., 2, 1 (even n) or 2 (odd n)] along the last
    transformed axis, over n; cropped or padded back to x's shape."""
    ops = _ops()
    x, g = op.inputs[0], grads[0]
    axes = _axes(op)
    lengths = op.inputs[1]
    real = _dtypes.as_dtype(g.dtype)
    n = _count(lengths, real)
    spectrum = ops.rfftnd(g, lengths, axes, Tcomplex=x.dtype)
    known = constant_value(lengths)
    last_n = (np.int32(np.asarray(known).reshape(-1)[-1]) if known is not None
              else ops.gather_v2(lengths, ops.sub(ops.size(lengths), np.int32(1)), 0))
    half = ops.add_v2(ops.floor_div(last_n, np.int32(2)), np.int32(1))
    k = ops.range(np.int32(0), half, np.int32(1))
    even = ops.equal(ops.floor_mod(last_n, np.int32(2)), np.int32(0))
    one = ops.logical_or(ops.equal(k, np.int32(0)),
                         ops.logical_and(ops.equal(k, ops.sub(half, np.int32(1))), even))
    mask = ops.select_v2(one, np.asarray(1, real.as_numpy_dtype), np.asarray(2, real.as_numpy_dtype))
    trailing = -int(axes[-1]) - 1  # dims after the last transformed axis
    if trailing:
        mask = ops.reshape(mask, ops.concat_v2([ops.reshape(half, [1]), np.ones(trailing, np.int32)], 0))
    weight = ops.real_div(mask, n) if not isinstance(n, np.ndarray) else ops.mul(mask, np.asarray(1 / n, n.dtype))
    dx = ops.mul(spectrum, ops.complex(weight, ops.zeros_like(weight), Tout=x.dtype))
    return [_resize_like(dx, x), None] + [None] * (len(op.inputs) - 2)
