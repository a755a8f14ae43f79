"""``of.nn``: TensorFlow's ``tf.nn`` names over the generated nn ops.

Activations, softmaxes and losses, convolutions, pools and batch normalization, with
TensorFlow 2's signatures (``tf.nn.conv2d(input, filters, strides, padding, ...)``: strides,
ksize and dilations may be an int or a list of 1, 2 or 4 values; padding may be "SAME",
"VALID" or explicit [[before, after], ...] pairs). ``opforge.compat.v1.nn`` adds TF1's
spellings (``filter=``, ``value=``, ``dim=``, ``_sentinel``) on top of these.
"""

from __future__ import annotations

import collections

import numpy as np

from . import ops as _ops
from .dtypes import as_dtype
from .errors import InvalidArgumentError

__all__ = [
    "avg_pool", "avg_pool2d", "batch_normalization", "bias_add", "conv2d", "depthwise_conv2d",
    "elu", "fused_batch_norm", "gelu", "l2_loss", "leaky_relu", "log_softmax", "max_pool",
    "max_pool2d", "relu", "relu6", "selu", "sigmoid", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign",
    "sparse_softmax_cross_entropy_with_logits", "tanh", "dropout", "dynamic_rnn", "static_rnn",
    "bidirectional_dynamic_rnn", "rnn_cell", "conv3d", "max_pool3d", "avg_pool3d", "silu", "swish",
    "conv2d_backprop_filter",
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
    return _ops.reshape(x, np.array([-1, shape[-1]], np.int64)), shape[:-1]


def _lead_shape(lead):
    if isinstance(lead, (list, tuple)):
        return np.array([-1 if d is None else d for d in lead], np.int64)
    return lead


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example softmax cross entropy (the loss output of SoftmaxCrossEntropyWithLogits)."""
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


# ------------------------------------------------------------------------------ dropout


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability ``rate`` and scales the others by 1 / (1 - rate)
    (tf.nn.dropout). ``noise_shape`` broadcasts one draw over some dimensions."""
    from . import random_api  # noqa: PLC0415
    from .framework.graph import GraphTensor  # noqa: PLC0415
    if isinstance(rate, (int, float)) and not 0 <= rate < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}")
    if isinstance(rate, (int, float)) and rate == 0:
        return _ops.identity(x, name=name)
    if not hasattr(x, "dtype") or isinstance(x, (np.ndarray, np.generic)):
        x = _ops.identity(x)  # a tensor (or a graph node) of the value's dtype
    dt = x.dtype
    shape = _ops.shape(x) if noise_shape is None else np.asarray(noise_shape, np.int32)
    r = np.asarray(rate, dt.as_numpy_dtype) if isinstance(rate, (int, float)) else _ops.cast(rate, dt)
    u = random_api.uniform(shape, dtype=dt, seed=seed, _graph=x.graph if isinstance(x, GraphTensor) else None)
    keep = _ops.cast(_ops.greater_equal(u, r), dt)
    scale = _ops.real_div(np.asarray(1, dt.as_numpy_dtype), _ops.sub(np.asarray(1, dt.as_numpy_dtype), r))
    return _ops.mul(_ops.mul(x, scale), keep, name=name)


# ------------------------------------------------------------------------------ more losses, normalization, lookups


def _f(x, v):
    return np.asarray(v, x.dtype.as_numpy_dtype)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None, _sentinel=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z: the logistic loss,
    computed without overflow for any x."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: give labels= and logits=")
    labels = _ops.cast(labels, logits.dtype) if getattr(labels, "dtype", logits.dtype) != logits.dtype else labels
    return _ops.add_v2(_ops.sub(_ops.relu(logits), _ops.mul(logits, labels)),
                       _ops.log1p(_ops.exp(_ops.neg(_ops.abs(logits)))), name=name)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """The logistic loss with the positive term weighted by pos_weight:
    (1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))."""
    labels = targets if labels is None else labels
    lw = _ops.add_v2(_f(logits, 1), _ops.mul(_ops.sub(pos_weight, _f(logits, 1)), labels))
    soft = _ops.add_v2(_ops.log1p(_ops.exp(_ops.neg(_ops.abs(logits)))), _ops.relu(_ops.neg(logits)))
    return _ops.add_v2(_ops.mul(_ops.sub(_f(logits, 1), labels), logits), _ops.mul(lw, soft), name=name)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    from .math_api import reduce_sum  # noqa: PLC0415
    axis = dim if axis is None else axis
    sq = reduce_sum(_ops.square(x), axis, keepdims=True)
    return _ops.mul(x, _ops.rsqrt(_ops.maximum(sq, _f(x, epsilon))), name=name)


def moments(x, axes, shift=None, keepdims=False, name=None, keep_dims=None):
    """(mean, variance) of x over axes (the variance as the mean squared deviation)."""
    from .math_api import reduce_mean  # noqa: PLC0415
    keepdims = bool(keep_dims) if keep_dims is not None else keepdims
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(_ops.squared_difference(x, _ops.stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        from .array_api import squeeze  # noqa: PLC0415
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of params (a tensor, or a list of shards split by partition_strategy) for ids."""
    if isinstance(params, (list, tuple)):
        if len(params) == 1:
            params = params[0]
        else:
            return _sharded_lookup(list(params), ids, partition_strategy, name)
    out = _ops.gather_v2(params, ids, np.int32(0), name=name)
    if max_norm is not None:
        out = _clip_rows(out, max_norm)
    return out


def _sharded_lookup(shards, ids, strategy, name):
    """TF's partitioned lookup: "mod" puts id i in shard i % n at row i // n; "div" splits the
    id range into contiguous blocks (the first ones one row longer)."""
    from .array_api import concat  # noqa: PLC0415
    n = len(shards)
    ids = _ops.cast(ids, "int64")
    if strategy == "mod":
        shard, row = _ops.floor_mod(ids, np.int64(n)), _ops.floor_div(ids, np.int64(n))
    elif strategy == "div":
        sizes = [s.shape[0] for s in shards]
        if any(d is None for d in sizes):
            raise ValueError("embedding_lookup: 'div' partitioning needs shards of known size")
        total = sum(sizes)
        per, extra = divmod(total, n)
        cut = np.int64(extra * (per + 1))
        big = _ops.floor_div(ids, np.int64(per + 1))
        small = _ops.add_v2(_ops.floor_div(_ops.sub(ids, cut), np.int64(max(per, 1))), np.int64(extra))
        shard = _ops.select_v2(_ops.less(ids, cut), big, small)
        row = _ops.select_v2(_ops.less(ids, cut), _ops.floor_mod(ids, np.int64(per + 1)),
                             _ops.floor_mod(_ops.sub(ids, cut), np.int64(max(per, 1))))
    else:
        raise ValueError(f"Unrecognized partition strategy: {strategy}")
    # Gather from the concatenation of the shards at offset(shard) + row.
    offsets = np.cumsum([0] + [s.shape[0] for s in shards[:-1]]).astype(np.int64)
    flat = concat(list(shards), 0)
    index = _ops.add_v2(_ops.gather_v2(offsets, shard, np.int32(0)), row)
    return _ops.gather_v2(flat, index, np.int32(0), name=name)


def _clip_rows(x, max_norm):
    norm = _ops.sqrt(_ops.sum(_ops.square(x), np.int32(-1), keep_dims=True))
    scale = _ops.minimum(_f(x, 1), _ops.real_div(_f(x, max_norm), _ops.maximum(norm, _f(x, 1e-12))))
    return _ops.mul(x, scale)


def in_top_k(predictions, targets, k, name=None):
    """Whether each target's prediction is among the k largest of its row: fewer than k
    predictions are strictly larger (so ties count as in, as in TensorFlow's InTopK), and a
    non-finite target prediction is never in."""
    from .array_api import gather_nd, stack  # noqa: PLC0415
    targets = _ops.cast(targets, "int32")
    batch = _ops.strided_slice(_ops.shape(predictions), np.array([0], np.int32), np.array([1], np.int32),
                               np.array([1], np.int32), shrink_axis_mask=1)
    rows = _ops.range(np.int32(0), batch, np.int32(1))
    target_pred = gather_nd(predictions, stack([rows, targets], axis=1))
    larger = _ops.cast(_ops.greater(predictions, _ops.expand_dims(target_pred, np.int32(1))), "int32")
    count = _ops.sum(larger, np.int32(1))
    return _ops.logical_and(_ops.less(count, np.int32(k)), _ops.is_finite(target_pred), name=name)


def xw_plus_b(x, weights, biases, name=None):
    return _ops.bias_add(_ops.mat_mul(x, weights), biases, name=name)


def relu_layer(x, weights, biases, name=None):
    return _ops.relu(xw_plus_b(x, weights, biases), name=name)


def zero_fraction(value, name=None):
    """The fraction of value's elements that are zero."""
    zeros = _ops.cast(_ops.equal(value, _f(value, 0)), "float32")
    return _ops.mean(zeros, np.arange(len(value.shape), dtype=np.int32) if value.shape.rank is not None
                     else _ops.range(np.int32(0), _ops.rank(value), np.int32(1)), name=name)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The gradient of conv2d with respect to its input (a "deconvolution"): filters are
    [height, width, out_channels, in_channels]."""
    fmt = _data_format(data_format)
    return _ops.conv2d_backprop_input(
        np.asarray(output_shape, np.int32) if not hasattr(output_shape, "dtype") else _ops.cast(output_shape, "int32"),
        filters, input, _spatial_list(strides, "strides", fmt), _padding(padding, fmt)[0],
        explicit_paddings=_padding(padding, fmt)[1], data_format=fmt,
        dilations=_spatial_list(dilations if dilations is not None else 1, "dilations", fmt), name=name)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """A 1-D convolution as a 2-D one over a height of 1: input [batch, width, channels],
    filters [width, in, out]."""
    if data_format not in ("NWC", "NCW", None):
        raise ValueError(f"data_format must be NWC or NCW, not {data_format}")
    ncw = data_format == "NCW"
    axis = np.int32(2 if ncw else 1)
    x = _ops.expand_dims(input, axis)
    f = _ops.expand_dims(filters, np.int32(0))
    stride = stride[0] if isinstance(stride, (list, tuple)) and len(stride) == 1 else stride
    if isinstance(stride, (list, tuple)):
        stride = stride[2 if ncw else 1]
    dil = 1 if dilations is None else (dilations if isinstance(dilations, int) else list(dilations)[-1])
    y = conv2d(x, f, [1, stride] if not ncw else [1, stride], padding, data_format="NCHW" if ncw else "NHWC",
               dilations=[1, dil], name=None)
    return _ops.squeeze(y, axis=[int(axis)], name=name)


# ------------------------------------------------------------------------------ recurrent networks
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, rnn_cell, static_rnn  # noqa: E402


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


# ------------------------------------------------------------------------- sampled losses


def _sum_rows(x):
    """Sum of each row of a matrix (as a matmul with ones, as TensorFlow's _sum_rows)."""
    return _ops.sum(x, np.int32(1))


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                            sampled_values, subtract_log_q, remove_accidental_hits, partition_strategy, seed):
    """Logits and labels of the true classes and of sampled classes (TensorFlow's
    _compute_sampled_logits): returns (out_logits, out_labels), each [batch, num_true +
    num_sampled]."""
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    labels = _ops.cast(labels, "int64") if getattr(labels, "dtype", None) != "int64" else labels
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed,
            _graph=inputs.graph if hasattr(inputs, "graph") else None)
    sampled, true_expected_count, sampled_expected_count = (_ops.stop_gradient(v) for v in sampled_values)
    sampled = _ops.cast(sampled, "int64") if sampled.dtype != "int64" else sampled
    labels_flat = _ops.reshape(labels, np.array([-1], np.int64))
    all_ids = _ops.concat_v2([labels_flat, sampled], np.int32(0))
    all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
    n_true = _ops.shape(labels_flat, out_type="int64")
    true_w = _ops.slice(all_w, np.array([0, 0], np.int64), _ops.concat_v2([n_true, np.array([-1], np.int64)], np.int32(0)))
    sampled_w = _ops.slice(all_w, _ops.concat_v2([n_true, np.array([0], np.int64)], np.int32(0)),
                           np.array([-1, -1], np.int64))
    sampled_logits = _ops.mat_mul(inputs, sampled_w, transpose_b=True)
    all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
    true_b = _ops.slice(all_b, np.array([0], np.int64), n_true)
    sampled_b = _ops.slice(all_b, n_true, np.array([-1], np.int64))
    dim = _ops.slice(_ops.shape(true_w, out_type="int64"), np.array([1], np.int64), np.array([1], np.int64))
    # true_logits[i, j] = <inputs[i], weights[labels[i, j]]> + biases[labels[i, j]]
    row_wise_dots = _ops.mul(_ops.expand_dims(inputs, np.int32(1)),
                             _ops.reshape(true_w, _ops.concat_v2([np.array([-1, num_true], np.int64), dim], np.int32(0))))
    dots = _ops.reshape(row_wise_dots, _ops.concat_v2([np.array([-1], np.int64), dim], np.int32(0)))
    true_logits = _ops.reshape(_sum_rows(dots), np.array([-1, num_true], np.int64))
    true_logits = _ops.add_v2(true_logits, _ops.reshape(true_b, np.array([-1, num_true], np.int64)))
    sampled_logits = _ops.add_v2(sampled_logits, sampled_b)
    if remove_accidental_hits:
        # A sampled class that is one of the row's true classes must not count as a negative:
        # its logit gets -FLT_MAX added (TensorFlow's compute_accidental_hits).
        hits = _ops.any(_ops.equal(_ops.expand_dims(labels, np.int32(2)), sampled), np.int32(1))
        penalty = np.asarray(-np.finfo(np.float32).max, sampled_logits.dtype.as_numpy_dtype)
        sampled_logits = _ops.add_v2(sampled_logits, _ops.mul(_ops.cast(hits, sampled_logits.dtype), penalty))
    if subtract_log_q:  # the logits of the classes the sampler favours are lowered accordingly
        true_logits = _ops.sub(true_logits, _ops.log(_ops.cast(true_expected_count, true_logits.dtype)))
        sampled_logits = _ops.sub(sampled_logits, _ops.log(_ops.cast(sampled_expected_count, sampled_logits.dtype)))
    out_logits = _ops.concat_v2([true_logits, sampled_logits], np.int32(1))
    one = np.asarray(1.0 / num_true, true_logits.dtype.as_numpy_dtype)
    out_labels = _ops.concat_v2([_ops.mul(_ops.ones_like(true_logits), one), _ops.zeros_like(sampled_logits)], np.int32(1))
    return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation loss per example (tf.nn.nce_loss): logistic regression of
    the true classes against ``num_sampled`` classes drawn log-uniformly from
    [0, num_classes). ``weights`` [num_classes, dim] (or a list of shards), ``biases``
    [num_classes], ``labels`` [batch, num_true] int, ``inputs`` [batch, dim]."""
    del name
    logits, labels_out = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                                 sampled_values, True, remove_accidental_hits, partition_strategy, None)
    return _sum_rows(sigmoid_cross_entropy_with_logits(labels=labels_out, logits=logits))


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """Softmax cross entropy over the true class and ``num_sampled`` sampled classes
    (tf.nn.sampled_softmax_loss), per example: a cheap estimate of the full softmax loss
    over many classes, for training."""
    del name
    logits, labels_out = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                                 sampled_values, True, remove_accidental_hits, partition_strategy, seed)
    return softmax_cross_entropy_with_logits(labels=_ops.stop_gradient(labels_out), logits=logits)


from .random_api import log_uniform_candidate_sampler  # noqa: E402 (tf.nn's spelling of tf.random's)
