"""TensorFlow's ScaleAndTranslate resampling (tf.raw_ops.ScaleAndTranslate; tf.image.resize
with lanczos3/5, gaussian, mitchellcubic, or antialias=True; Keras's Resizing with them) as two
matrix products: each spatial dim is resampled by a [out, in] weight matrix built in NumPy from
TensorFlow's sampling kernels and spans (its scale_and_translate_op.cc's ComputeSpansCore), so the
result is differentiable through the products. The input's height and width, the size, scale
and translation must be known when the graph is built (as in a frozen graph); the output is
float32, as TensorFlow's."""

from __future__ import annotations

import math

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError, UnimplementedError
from ..framework.static_value import static_value

_OP = "ScaleAndTranslate"
_MAX_WEIGHTS = 1 << 26  # entries of one dim's [out, in] weight matrix (256 MiB of float32)


def _lanczos(radius):
    def f(x):
        x = np.abs(x)
        px = np.pi * x
        with np.errstate(divide="ignore", invalid="ignore"):
            v = radius * np.sin(px) * np.sin(px / radius) / (px * px)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))
    return f, float(radius)


def _gaussian(x, radius=1.5, sigma=0.5):
    x = np.abs(x)
    return np.where(x >= radius, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


def _box(x):
    x = np.abs(x)
    return np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x):
    x = np.abs(x)
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                            ((1.5 * x - 2.5) * x) * x + 1.0))


def _mitchell_cubic(x):
    x = np.abs(x)
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
                                            (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0))


KERNELS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5), "gaussian": (_gaussian, 1.5),
           "box": (_box, 1.0), "triangle": (_triangle, 1.0), "keyscubic": (_keys_cubic, 2.0),
           "mitchellcubic": (_mitchell_cubic, 2.0)}


def weights(kernel_type, out_size, in_size, scale, translate, antialias):
    """The [out_size, in_size] resampling matrix of one dim: row o holds the normalized kernel
    weights of the input samples around o's source position (TensorFlow's spans)."""
    if kernel_type not in KERNELS:
        raise InvalidArgumentError(f"{_OP}: unknown kernel type {kernel_type!r} (one of {sorted(KERNELS)})", _OP)
    if scale <= 0:
        raise InvalidArgumentError(f"{_OP}: scale must be positive, got {scale}", _OP)
    if out_size * max(in_size, 1) > _MAX_WEIGHTS:
        raise InvalidArgumentError(f"{_OP}: resampling {in_size} samples to {out_size} needs a weight matrix of "
                                   f"{out_size * in_size} entries, more than {_MAX_WEIGHTS}", _OP)
    if in_size == 0:
        return np.zeros((out_size, 0), np.float32)
    kernel, radius = KERNELS[kernel_type]
    f32 = np.float32  # in float32, as TensorFlow computes them: sample positions on a kernel's
    inv_scale = f32(1) / f32(scale)  # edges (the box's 0.5) must fall on the same side
    inv_translate = -inv_scale * f32(translate)
    kernel_scale = max(inv_scale, f32(1)) if antialias else f32(1)
    reach = f32(radius) * kernel_scale
    w = np.zeros((out_size, in_size), np.float32)
    for o in range(out_size):
        sample = (f32(o) + f32(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > in_size:  # a sample outside the input: zero weights
            continue
        start = int(math.ceil(sample - reach - f32(0.5)))
        end = int(math.floor(sample + reach - f32(0.5)))
        start = min(max(start, 0), in_size - 1)
        end = min(max(end, 0), in_size - 1) + 1
        pos = (np.arange(start, end, dtype=np.float32) + f32(0.5) - sample) * (f32(1) / kernel_scale)
        vals = kernel(pos.astype(np.float32)).astype(np.float32)
        total = f32(vals.sum(dtype=np.float32))
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            vals = vals * (f32(1) / total)
        w[o, start:end] = vals
    return w


def _static(v, what, n, dtype):
    value = static_value(v)
    if value is None:
        raise UnimplementedError(f"{_OP}: opforge needs {what} when the graph is built", _OP)
    arr = np.asarray(value, dtype).reshape(-1)
    if arr.size != n:
        raise InvalidArgumentError(f"{_OP}: {what} must have {n} elements, got {arr.size}", _OP)
    return arr


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True, name=None):
    """images [batch, height, width, channels] resampled to size (out_height, out_width): output
    pixel (y, x) reads around input position ((y + 0.5) / scale_y - translation_y / scale_y, ...)."""
    x = images if hasattr(images, "dtype") and not isinstance(images, np.ndarray) else _ops.identity(images)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != 4:
        raise InvalidArgumentError(f"{_OP}: images must be 4-D, got shape {x.shape}", _OP)
    if dims[1] is None or dims[2] is None:
        raise UnimplementedError(f"{_OP}: opforge needs the images' height and width when the graph is built, got "
                                 f"{x.shape}", _OP)
    out_h, out_w = (int(v) for v in _static(size, "size", 2, np.int64))
    sy, sx = (float(v) for v in _static(scale, "scale", 2, np.float32))
    ty, tx = (float(v) for v in _static(translation, "translation", 2, np.float32))
    if out_h <= 0 or out_w <= 0:
        raise InvalidArgumentError(f"{_OP}: size must be positive, got [{out_h}, {out_w}]", _OP)
    wy = weights(kernel_type, out_h, dims[1], sy, ty, antialias)
    wx = weights(kernel_type, out_w, dims[2], sx, tx, antialias)
    from .einsum_ops import einsum  # noqa: PLC0415
    xf = x if x.dtype.name == "float32" else _ops.cast(x, "float32")
    rows = einsum("oh,bhwc->bowc", wy, xf)
    return _ops.identity(einsum("pw,bowc->bopc", wx, rows), name=name)
