"""What the ``of.image`` modules share: converting inputs, static dims, rank checks that raise
opforge's typed errors naming the function, batching 3-D images, and convert_image_dtype
(TensorFlow's scaling between integer and float image dtypes)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor
from ..framework.tensor import convert_to_tensor
from . import array_ops as _array
from . import math as _math


def is_tensor(v) -> bool:
    """An eager or graph tensor, or a variable (anything with a dtype that is not NumPy's)."""
    return hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic))


def tensor(x, dtype=None):
    """x as a tensor: tensors and variables pass (cast to dtype if it differs), Python and NumPy
    values are converted."""
    if is_tensor(x):
        if dtype is not None and x.dtype != _dtypes.as_dtype(dtype):
            return _ops.cast(x, DstT=dtype)
        return x
    return convert_to_tensor(x, dtype=dtype)


def dims(x):
    """x's static dims (None where unknown), or None when its rank is unknown."""
    shape = x.shape
    if not hasattr(shape, "as_list"):  # a NumPy-like shape tuple
        return [int(d) for d in shape]
    if shape.ndims is None:
        return None
    return [None if d is None else int(d) for d in shape.as_list()]


def error(fn: str, message: str):
    return InvalidArgumentError(f"image.{fn}: {message}", fn)


def check_rank(image, fn: str, ranks=(3, 4), what="image"):
    """The static rank of image, which must be one of ranks (InvalidArgumentError naming fn;
    an unknown rank is an error too: these functions need to know it)."""
    d = dims(image)
    if d is None:
        want = "at least 3" if ranks == "3+" else " or ".join(map(str, ranks))
        raise error(fn, f"'{what}' must have a known rank ({want}), got an unknown shape")
    ok = len(d) >= 3 if ranks == "3+" else len(d) in ranks
    if not ok:
        want = "at least 3" if ranks == "3+" else " or ".join(map(str, ranks))
        raise error(fn, f"'{what}' (shape {tuple(d)}) must have {want} dimensions")
    return len(d)


def set_static(t, shape):
    """Refines a graph tensor's static shape with what the caller knows (TF's set_shape)."""
    if isinstance(t, GraphTensor):
        t.set_shape(shape)
    return t


def with_batch(image, fn):
    """fn over a 4-D batch: a 3-D image gets a batch of one and loses it again."""
    if len(dims(image)) == 3:
        return _ops.squeeze(fn(_ops.expand_dims(image, np.int32(0))), axis=[0])
    return fn(image)


def image_dims(image, rank):
    """The dims of an image of the given rank: Python ints where static, else scalar tensors."""
    static = dims(image)
    dynamic = None
    out = []
    for i, d in enumerate(static):
        if d is None:
            if dynamic is None:
                dynamic = _array.unstack(_ops.shape(image, out_type="int32"), num=rank)
            out.append(dynamic[i])
        else:
            out.append(d)
    return out


def scalar_int(v):
    """A Python int if v is one (or a NumPy integer), else v (a tensor)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    return v


def _max(dt):
    return np.iinfo(dt.as_numpy_dtype).max


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """tf.image.convert_image_dtype: integer images span [0, MAX], float images [0, 1]; scales
    between them (integer to integer by the ratio of the ranges), casting as TensorFlow does."""
    image = tensor(image)
    dtype = _dtypes.as_dtype(dtype)
    for d, what in ((dtype, "dtype"), (image.dtype, "image dtype")):
        if not (d.is_floating or d.is_integer):
            raise AttributeError(f"image.convert_image_dtype: {what} must be either floating point or integer")
    if dtype == image.dtype:
        return _ops.identity(image, name=name)
    cast = _math.saturate_cast if saturate else (lambda x, dt, name=None: _ops.cast(x, DstT=dt, name=name))
    if image.dtype.is_integer and dtype.is_integer:
        scale_in, scale_out = _max(image.dtype), _max(dtype)
        if scale_in > scale_out:
            scale = (scale_in + 1) // (scale_out + 1)
            return cast(_ops.floor_div(image, np.asarray(scale, image.dtype.as_numpy_dtype)), dtype, name=name)
        scale = (scale_out + 1) // (scale_in + 1)
        return _ops.mul(cast(image, dtype), np.asarray(scale, dtype.as_numpy_dtype), name=name)
    if image.dtype.is_floating and dtype.is_floating:
        return _ops.cast(image, DstT=dtype, name=name)
    if image.dtype.is_integer:
        return _ops.mul(_ops.cast(image, DstT=dtype), np.asarray(1.0 / _max(image.dtype), dtype.as_numpy_dtype),
                        name=name)
    scaled = _ops.mul(image, np.asarray(_max(dtype) + 0.5, image.dtype.as_numpy_dtype))
    return cast(scaled, dtype, name=name)


def as_float(image):
    """image in float32 unless it is float16 or float32 already (the adjust_* functions)."""
    return image if image.dtype.name in ("float16", "float32") else convert_image_dtype(image, "float32")
