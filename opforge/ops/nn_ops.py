"""``of.nn``'s wrappers over single generated nn ops, with TensorFlow's ``tf.nn`` names.

Activations, softmaxes and losses, convolutions, pools and batch normalization, with
TensorFlow 2's signatures (``tf.nn.conv2d(input, filters, strides, padding, ...)``: strides,
ksize and dilations may be an int or a list of 1, 2 or 4 values; padding may be "SAME",
"VALID" or explicit [[before, after], ...] pairs). ``opforge.compat.v1.nn`` adds TF1's
spellings (``filter=``, ``value=``, ``dim=``, ``_sentinel``) on top of these.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import ops as _ops
from ..framework.dtypes import as_dtype
from ..framework.errors import InvalidArgumentError

__all__ = [
    "avg_pool", "avg_pool2d", "batch_normalization", "bias_add", "conv2d", "depthwise_conv2d",
    "elu", "fused_batch_norm", "gelu", "l2_loss", "leaky_relu", "log_softmax", "max_pool",
    "max_pool2d", "relu", "relu6", "selu", "sigmoid", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign",
    "sparse_softmax_cross_entropy_with_logits", "tanh", "conv3d", "max_pool3d", "avg_pool3d",
    "top_k", "local_response_normalization", "lrn", "silu", "swish", "conv2d_backprop_filter",
]

# ------------------------------------------------------------------------------ activations


def relu(features, name=None):
    return _ops.relu(features, name=name)


def relu6(features, name=None):
    return _ops.relu6(features, name=name)


def elu(features, name=None):
    return _ops.elu(features, name=name)


def selu(features, name=None):
    return _ops.selu(features, name=name)


def leaky_relu(features, alpha=0.2, name=None):
    return _ops.leaky_relu(features, alpha=float(alpha), name=name)


def gelu(features, approximate=False, name=None):
    return _ops.gelu(features, approximate=bool(approximate), name=name)


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (tf.nn.silu, also called swish)."""
    scaled = features if beta == 1.0 else _ops.mul(features, np.asarray(beta, _np_dtype(features)))
    return _ops.mul(features, _ops.sigmoid(scaled), name=name)


swish = silu


def softplus(features, name=None):
    return _ops.softplus(features, name=name)


def softsign(features, name=None):
    return _ops.softsign(features, name=name)


def sigmoid(x, name=None):
    return _ops.sigmoid(x, name=name)


def tanh(x, name=None):
    return _ops.tanh(x, name=name)


# ------------------------------------------------------------------------------ helpers


def _np_dtype(v):
    """The NumPy dtype of a Tensor, GraphTensor, NumPy array or Python value."""
    d = getattr(v, "dtype", None)
    if d is None:
        return np.asarray(v).dtype
    return np.dtype(as_dtype(d).as_numpy_dtype)


def _rank(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return np.ndim(x)
    dims = getattr(shape, "dims", shape)
    return None if dims is None else len(list(dims))


def _static_shape(x):
    """x's dims as a list of ints (None for an unknown one), or None for an unknown rank."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return list(np.shape(x))
    dims = getattr(shape, "dims", shape)
    if dims is None:
        return None
    return [None if d is None else int(d) for d in dims]


def _last_axis_apply(fn, logits, axis, name):
    """fn along `axis` (TensorFlow's softmax(axis=)): transposes axis to the end and back."""
    if axis is None or axis == -1:
        return fn(logits, name=name)
    rank = _rank(logits)
    if rank is None:
        raise InvalidArgumentError("softmax over a non-last axis needs a known rank", None)
    axis = int(axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"axis {axis} is out of range for a tensor of rank {rank}", None)
    axis %= rank
    if axis == rank - 1:
        return fn(logits, name=name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    perm = np.array(perm, np.int32)
    return _ops.transpose(fn(_ops.transpose(logits, perm), name=name), perm)


def softmax(logits, axis=None, name=None):
    return _last_axis_apply(_ops.softmax, logits, axis, name)


def log_softmax(logits, axis=None, name=None):
    return _last_axis_apply(_ops.log_softmax, logits, axis, name)


def _as_2d(x, classes_axis_last=True):
    """x reshaped to [-1, classes] and its leading shape (None when x is a matrix already): a
    list of dims when known, else a shape tensor computed in the graph."""
    shape = _static_shape(x)
    if shape is not None and len(shape) == 2:
        return x, None
    if shape is None or shape[-1] is None:
        dyn = _ops.shape(x, out_type="int64")
        classes = _ops.strided_slice(dyn, np.array([-1], np.int32), np.array([0], np.int32), np.array([1], np.int32),
                                     end_mask=1)
        lead = _ops.strided_slice(dyn, np.array([0], np.int32), np.array([-1], np.int32), np.array([1], np.int32))
        return _ops.reshape(x, _ops.concat_v2([np.array([-1], np.int64), classes], np.int32(0))), lead
    lead = shape[:-1]
    if sum(d is None for d in lead) > 1:  # a reshape takes one -1: read the leading dims at run time
        lead = _ops.strided_slice(_ops.shape(x, out_type="int64"), np.array([0], np.int32), np.array([-1], np.int32),
                                  np.array([1], np.int32))
    return _ops.reshape(x, np.array([-1, shape[-1]], np.int64)), lead


def _lead_shape(lead):
    if isinstance(lead, (list, tuple)):
        return np.array([-1 if d is None else d for d in lead], np.int64)
    return lead


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example softmax cross entropy (the loss output of SoftmaxCrossEntropyWithLogits).
    labels are cast to logits' dtype (TensorFlow's rule: float64 one-hot labels from NumPy
    with float32 logits)."""
    logits_dtype = getattr(logits, "dtype", None)
    if logits_dtype is not None and getattr(labels, "dtype", logits_dtype) != logits_dtype:
        labels = _ops.cast(labels, logits_dtype)
    if axis not in (-1, None):
        rank = _rank(logits)
        if rank is not None and int(axis) % rank != rank - 1:
            perm = list(range(rank))
            a = int(axis) % rank
            perm[a], perm[-1] = perm[-1], perm[a]
            perm = np.array(perm, np.int32)
            labels, logits = _ops.transpose(labels, perm), _ops.transpose(logits, perm)
    logits2, lead = _as_2d(logits)
    labels2, _ = _as_2d(labels)
    loss, _ = _ops.softmax_cross_entropy_with_logits(logits2, labels2, name=name)
    if lead is not None:
        loss = _ops.reshape(loss, _lead_shape(lead))
    return loss


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-example softmax cross entropy with class-index labels (labels out of range raise
    InvalidArgumentError)."""
    logits2, lead = _as_2d(logits)
    labels2 = labels if lead is None else _ops.reshape(labels, np.array([-1], np.int64))
    loss, _ = _ops.sparse_softmax_cross_entropy_with_logits(logits2, labels2, name=name)
    if lead is not None:
        loss = _ops.reshape(loss, _lead_shape(lead))
    return loss


def l2_loss(t, name=None):
    return _ops.l2_loss(t, name=name)


def _data_format(data_format, default="NHWC"):
    if data_format is None:
        return default
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    if data_format.startswith("NC"):
        return "NCHW"
    if data_format.startswith("N") and data_format.endswith("C"):
        return "NHWC"
    raise InvalidArgumentError(f"unsupported data_format {data_format!r}", None)


def bias_add(value, bias, data_format=None, name=None):
    return _ops.bias_add(value, bias, data_format=_data_format(data_format), name=name)


# ------------------------------------------------------------------------------ convolution & pooling


def _spatial_list(value, name, data_format, default=None):
    """TensorFlow's _get_sequence: an int or a list of 1, 2 or 4 values -> 4 values in
    data_format order (1 on the batch and channel dims)."""
    if value is None:
        value = default
    v = [int(value)] if np.ndim(value) == 0 else [int(x) for x in value]
    if len(v) == 1:
        v = v * 2
    if len(v) == 2:
        return [1, 1, v[0], v[1]] if data_format == "NCHW" else [1, v[0], v[1], 1]
    if len(v) == 4:
        return v
    raise InvalidArgumentError(f"{name} should be of length 1, 2 or 4, got {len(v)}", None)


def _padding(padding, data_format):
    """(padding string, explicit_paddings) from "SAME"/"VALID" or explicit pairs."""
    if isinstance(padding, bytes):
        padding = padding.decode()
    if isinstance(padding, str):
        return padding.upper(), []
    pairs = [[int(a), int(b)] for a, b in padding]
    if len(pairs) != 4:
        raise InvalidArgumentError("explicit padding must give [before, after] for all 4 dimensions", None)
    return "EXPLICIT", [p for pair in pairs for p in pair]


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    fmt = _data_format(data_format)
    pad, explicit = _padding(padding, fmt)
    return _ops.conv2d(input, filters, strides=_spatial_list(strides, "strides", fmt),
                       padding=pad, explicit_paddings=explicit, data_format=fmt,
                       dilations=_spatial_list(dilations, "dilations", fmt, 1), name=name)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    fmt = _data_format(data_format)
    pad, explicit = _padding(padding, fmt)
    return _ops.depthwise_conv2d_native(
        input, filter, strides=_spatial_list(strides, "strides", fmt), padding=pad,
        explicit_paddings=explicit, data_format=fmt,
        dilations=_spatial_list(dilations, "dilations", fmt, 1), name=name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = _data_format(data_format)
    pad, explicit = _padding(padding, fmt)
    return _ops.max_pool(input, ksize=_spatial_list(ksize, "ksize", fmt),
                         strides=_spatial_list(strides, "strides", fmt), padding=pad,
                         explicit_paddings=explicit, data_format=fmt, name=name)


def _list5(value, name, default=None):
    """An int or a list of 1, 3 or 5 values -> 5 values in NDHWC order (1 on batch and channels)."""
    if value is None:
        value = default
    v = [int(value)] if np.ndim(value) == 0 else [int(x) for x in value]
    if len(v) == 1:
        v = v * 3
    if len(v) == 3:
        return [1, *v, 1]
    if len(v) == 5:
        return v
    raise InvalidArgumentError(f"{name} should be of length 1, 3 or 5, got {len(v)}", None)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """tf.nn.conv3d: 5-D input [batch, depth, height, width, channels] and filters
    [depth, height, width, in_channels, out_channels]."""
    return _ops.conv3d(input, filters, strides=_list5(strides, "strides"), padding=padding.upper(),
                       data_format=data_format, dilations=_list5(dilations, "dilations", 1), name=name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _ops.max_pool3d(input, ksize=_list5(ksize, "ksize"), strides=_list5(strides, "strides"),
                           padding=padding.upper(), data_format=data_format, name=name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _ops.avg_pool3d(input, ksize=_list5(ksize, "ksize"), strides=_list5(strides, "strides"),
                           padding=padding.upper(), data_format=data_format, name=name)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """tf.nn.max_pool for 4-D inputs (the 2-D pooling op)."""
    return max_pool2d(input, ksize, strides, padding, _data_format(data_format), name)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None, name=None,  # noqa: N803
                         output_dtype=None, include_batch_in_index=False):
    """Max pooling (NHWC) with the flattened index of each maximum (tf.nn.max_pool_with_argmax):
    ``(output, argmax)``; argmax is ((b * height + y) * width + x) * channels + c with
    include_batch_in_index, else without the batch term."""
    from ..framework.arguments import legacy_argument  # noqa: PLC0415

    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported currently")
    targmax = legacy_argument("output_dtype", output_dtype, "Targmax", Targmax) or "int64"
    return tuple(_ops.max_pool_with_argmax(input, ksize=_spatial_list(ksize, "ksize", "NHWC"),
                                           strides=_spatial_list(strides, "strides", "NHWC"),
                                           Targmax=as_dtype(targmax), padding=padding,
                                           include_batch_in_index=include_batch_in_index, name=name))


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = _data_format(data_format)
    return _ops.avg_pool(input, ksize=_spatial_list(ksize, "ksize", fmt),
                         strides=_spatial_list(strides, "strides", fmt),
                         padding=padding.decode() if isinstance(padding, bytes) else padding,
                         data_format=fmt, name=name)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """tf.nn.avg_pool for 4-D inputs (the 2-D pooling op)."""
    return avg_pool2d(input, ksize, strides, padding, _data_format(data_format), name)


# ------------------------------------------------------------------------------ batch normalization


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """tf.compat.v1.nn.fused_batch_norm: (y, running_mean, running_variance).

    mean and variance may be None when training with exponential_avg_factor 1 (they are not
    read); epsilon is raised to 1.001e-5 like TensorFlow's."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise InvalidArgumentError("fused_batch_norm needs mean and variance for inference or "
                                   "with exponential_avg_factor != 1", None)
    empty = np.zeros(0, _np_dtype(scale))
    y, running_mean, running_var, _, _, _ = _ops.fused_batch_norm_v3(
        x, scale, offset, empty if mean is None else mean, empty if variance is None else variance,
        epsilon=max(float(epsilon), 1.001e-5), exponential_avg_factor=float(exponential_avg_factor),
        data_format=data_format, is_training=bool(is_training), name=name)
    return y, running_mean, running_var


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting (offset
    and scale may be None)."""
    np_dtype = _np_dtype(x)
    inv = _ops.real_div(np.asarray(1, np_dtype),
                        _ops.sqrt(_ops.add_v2(variance, np.asarray(variance_epsilon, np_dtype))))
    if scale is not None:
        inv = _ops.mul(inv, scale)
    shift = _ops.neg(_ops.mul(mean, inv))
    if offset is not None:
        shift = _ops.add_v2(shift, offset)
    return _ops.add_v2(_ops.mul(x, inv), shift, name=name)


# ------------------------------------------------------------------------------ compat.v1


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NHWC",  # noqa: A002
                           dilations=None, name=None):
    """The gradient of conv2d with respect to its filters, of shape filter_sizes (TensorFlow's
    nn_ops.conv2d_backprop_filter; the Conv2DBackpropFilter op with TensorFlow's strides,
    padding and dilations spellings)."""
    fmt = _data_format(data_format)
    pad, explicit = _padding(padding, fmt)
    return _ops.conv2d_backprop_filter(
        input, np.asarray(filter_sizes, np.int32) if not hasattr(filter_sizes, "dtype") else filter_sizes,
        out_backprop, strides=_spatial_list(strides, "strides", fmt), padding=pad,
        explicit_paddings=explicit, data_format=fmt,
        dilations=_spatial_list(dilations if dilations is not None else 1, "dilations", fmt), name=name)


TopKV2 = collections.namedtuple("TopKV2", ("values", "indices"))


def top_k(input, k=1, sorted=True, index_type="int32", name=None):  # noqa: A002 (TensorFlow's names)
    """The k largest entries along the last dimension and their indices (tf.math.top_k):
    a (values, indices) named tuple."""
    values, indices = _ops.top_kv2(input, np.int32(k) if isinstance(k, (int, np.integer)) else k,
                                   sorted=sorted, index_type=index_type, name=name)
    return TopKV2(values, indices)


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """Local response normalization across the last dimension of a 4-D input (tf.nn.lrn)."""
    return _ops.lrn(input, depth_radius=int(depth_radius), bias=float(bias), alpha=float(alpha), beta=float(beta),
                    name=name)


lrn = local_response_normalization
