"""TensorFlow's generic N-d convolution API (tf.conv, the Conv op: several batch dims, channels
first or last, grouped, explicit padding) and the TF2 spellings of Conv2D's gradients that take
the filter / input tensor instead of its sizes (tf.conv2d_backprop_filter_v2 / _input_v2).
All compose opforge's Conv2D / Conv3D ops and their gradient ops."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from .array_ops import concat, split
from .math_ops import _as_tensor

__all__ = ["conv", "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]


def _ints(values, what, length):
    out = [int(v) for v in np.ravel(values)]
    if len(out) != length:
        raise InvalidArgumentError(f"Conv: {what} must have {length} values, got {out}", "Conv")
    return out


def _static(x, what):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        raise InvalidArgumentError(f"Conv: the rank of {what} must be known", "Conv")
    return dims


def conv(input, filter, strides, padding, explicit_paddings=(), data_format="CHANNELS_LAST",  # noqa: A002
         dilations=(), batch_dims=1, groups=1, name=None):
    """An N-d convolution (N = 2 or 3 from the filter's rank N + 2) of an input with
    ``batch_dims`` leading batch dims (tf.conv, TensorFlow's Conv op). ``strides``/``dilations``:
    N + 2 values in the input's dimension order (1 for the batch and channel places; dilations
    default to ones); padding "SAME", "VALID" or "EXPLICIT" with 2 (N + 2) ``explicit_paddings``;
    ``groups`` splits the channels into groups convolved separately (the filter's in_channels is
    in_channels / groups)."""
    from .nn_ops import conv2d, conv3d  # noqa: PLC0415
    x = _as_tensor(input)
    f = _as_tensor(filter, x.dtype)
    fdims = _static(f, "filter")
    n = len(fdims) - 2
    if n not in (2, 3):
        raise InvalidArgumentError(f"Conv: the input must have 2 or 3 spatial dimensions (a filter of rank 4 or 5), "
                                   f"got a filter of shape {f.shape}", "Conv")
    if data_format not in ("CHANNELS_LAST", "CHANNELS_FIRST"):
        raise InvalidArgumentError(f"Conv: data_format must be CHANNELS_LAST or CHANNELS_FIRST, got {data_format!r}",
                                   "Conv")
    xdims = _static(x, "input")
    batch_dims = int(batch_dims)
    if batch_dims < 1 or len(xdims) != n + 1 + batch_dims:
        raise InvalidArgumentError(f"Conv: an input of rank N + 1 + batch_dims = {n + 1 + batch_dims} was expected "
                                   f"for a {n}-d filter, got shape {x.shape}", "Conv")
    first = data_format == "CHANNELS_FIRST"
    spatial = slice(2, n + 2) if first else slice(1, n + 1)
    strides = _ints(strides, "strides", n + 2)[spatial]
    dilations = [1] * n if len(np.ravel(dilations)) == 0 else _ints(dilations, "dilations", n + 2)[spatial]
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise InvalidArgumentError(f"Conv: padding must be SAME, VALID or EXPLICIT, got {padding!r}", "Conv")
    # One batch dim, channels last.
    batch = xdims[:batch_dims]
    x = _ops.reshape(x, np.asarray([-1] + xdims[batch_dims:], np.int64))
    if first:
        x = _ops.transpose(x, np.asarray([0] + list(range(2, n + 2)) + [1], np.int32))
    if padding == "EXPLICIT":
        pads = np.asarray(_ints(explicit_paddings, "explicit_paddings", 2 * (n + 2)), np.int64).reshape(n + 2, 2)
        pads = np.concatenate([pads[:1], pads[spatial], pads[1:2] if first else pads[-1:]])
        pads[0] = pads[-1] = 0
        x = _ops.pad(x, pads)
        padding = "VALID"
    groups = int(groups)
    xs = split(x, groups, axis=-1) if groups > 1 else [x]
    fs = split(f, groups, axis=-1) if groups > 1 else [f]
    if n == 3:
        ys = [conv3d(a, b, [1] + strides + [1], padding, "NDHWC", [1] + dilations + [1]) for a, b in zip(xs, fs)]
    else:
        ys = [conv2d(a, b, strides, padding, "NHWC", dilations) for a, b in zip(xs, fs)]
    y = concat(ys, -1) if groups > 1 else ys[0]
    if first:
        y = _ops.transpose(y, np.asarray([0, n + 1] + list(range(1, n + 1)), np.int32))
    ydims = y.shape.as_list()
    out_shape = [-1 if d is None else d for d in batch] + [-1 if d is None else d for d in ydims[1:]]
    if out_shape.count(-1) > 1:
        out_shape = _ops.concat_v2([_ops.shape(input)[:batch_dims], _ops.shape(y)[1:]], np.int32(0))
    else:
        out_shape = np.asarray(out_shape, np.int64)
    return _ops.reshape(y, out_shape, name=name)


def _sizes(t):
    """t's shape as a constant when known, else its Shape."""
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is not None and all(d is not None for d in dims):
        return np.asarray(dims, np.int32)
    return _ops.shape(t)


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                              explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of Conv2D with respect to its filter, the filter given as a tensor of its
    shape (tf.conv2d_backprop_filter_v2; Conv2DBackpropFilter takes its sizes)."""
    f = _as_tensor(filter)
    return _ops.conv2d_backprop_filter(input, _sizes(f), out_backprop, strides=list(strides), padding=padding,
                                       use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=list(explicit_paddings),
                                       data_format=data_format, dilations=list(dilations), name=name)


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                             explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of Conv2D with respect to its input, the input given as a tensor of its shape
    (tf.conv2d_backprop_input_v2; Conv2DBackpropInput takes its sizes)."""
    x = _as_tensor(input)
    return _ops.conv2d_backprop_input(_sizes(x), filter, out_backprop, strides=list(strides), padding=padding,
                                      use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=list(explicit_paddings),
                                      data_format=data_format, dilations=list(dilations), name=name)
