"""``of.nn``'s composite functions: dropout, the cross entropies and normalizations built from
several ops, embedding lookups, conv1d and conv2d_transpose over conv2d, and the sampled
losses (nce_loss, sampled_softmax_loss). The single-op wrappers are in nn_ops."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import InvalidArgumentError
from .nn_ops import _data_format, _padding, _spatial_list, conv2d, softmax_cross_entropy_with_logits
from .random_ops import log_uniform_candidate_sampler

__all__ = [
    "dropout", "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "l2_normalize",
    "moments", "embedding_lookup", "in_top_k", "xw_plus_b", "relu_layer", "zero_fraction", "conv2d_transpose",
    "conv1d", "nce_loss", "sampled_softmax_loss",
]

# ------------------------------------------------------------------------------ dropout


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability ``rate`` and scales the others by 1 / (1 - rate)
    (tf.nn.dropout). ``noise_shape`` broadcasts one draw over some dimensions."""
    from . import random_ops as random_api  # noqa: PLC0415
    from ..framework.graph import GraphTensor  # noqa: PLC0415
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
    out = _ops.mul(_ops.mul(x, scale), keep, name=name)
    if isinstance(out, GraphTensor) and noise_shape is None:
        out.set_shape(x.shape)  # rate is a scalar (TensorFlow's rule), even a placeholder of unknown shape
    return out


# ------------------------------------------------------------------------------ more losses, normalization, lookups


def _f(x, v):
    """v as a NumPy value of x's dtype (x a tensor or a NumPy array)."""
    dtype = getattr(x, "dtype", None)
    return np.asarray(v, getattr(dtype, "as_numpy_dtype", dtype))


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
    from .math_ops import reduce_sum  # noqa: PLC0415
    axis = dim if axis is None else axis
    sq = reduce_sum(_ops.square(x), axis, keepdims=True)
    return _ops.mul(x, _ops.rsqrt(_ops.maximum(sq, _f(x, epsilon))), name=name)


def moments(x, axes, shift=None, keepdims=False, name=None, keep_dims=None):
    """(mean, variance) of x over axes (the variance as the mean squared deviation)."""
    from .math_ops import reduce_mean  # noqa: PLC0415
    keepdims = bool(keep_dims) if keep_dims is not None else keepdims
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(_ops.squared_difference(x, _ops.stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        from .array_ops import squeeze  # noqa: PLC0415
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
    from .array_ops import concat  # noqa: PLC0415
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
    from .array_ops import gather_nd, stack  # noqa: PLC0415
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
    shape = getattr(value, "shape", np.shape(value))  # a tensor's TensorShape or an array's tuple
    rank = shape.rank if hasattr(shape, "rank") else len(shape)
    return _ops.mean(zeros, np.arange(rank, dtype=np.int32) if rank is not None
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


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The gradient of conv1d with respect to its input (tf.nn.conv1d_transpose), as
    conv2d_transpose over a height of 1: filters [width, out_channels, in_channels]."""
    if data_format not in ("NWC", None):
        raise ValueError(f"conv1d_transpose: data_format must be NWC, not {data_format}")
    x = _ops.expand_dims(input, np.int32(1))
    f = _ops.expand_dims(filters, np.int32(0))
    if hasattr(output_shape, "dtype") and not isinstance(output_shape, np.ndarray):
        os_ = _ops.cast(output_shape, "int32")
        shape = _ops.concat_v2([_ops.slice(os_, np.array([0], np.int32), np.array([1], np.int32)),
                                np.array([1], np.int32),
                                _ops.slice(os_, np.array([1], np.int32), np.array([2], np.int32))], np.int32(0))
    else:
        o = [int(d) for d in output_shape]
        shape = np.asarray([o[0], 1, o[1], o[2]], np.int32)
    stride = int(np.ravel(strides)[1 if np.size(strides) == 3 else 0])
    dil = 1 if dilations is None else int(np.ravel(dilations)[1 if np.size(dilations) == 3 else 0])
    y = conv2d_transpose(x, f, shape, [1, stride], padding, "NHWC", [1, dil])
    return _ops.squeeze(y, axis=[1], name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """The transposed convolution of rank 1, 2 or 3, by output_shape's length (tf.nn.conv_transpose)."""
    n = int(np.size(output_shape)) - 2 if not hasattr(output_shape, "shape") or isinstance(output_shape, np.ndarray) \
        else int(output_shape.shape.dims[0]) - 2
    if n == 1:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations, name)
    if n == 2:
        return conv2d_transpose(input, filters, output_shape, strides, padding, data_format or "NHWC", dilations,
                                name)
    if n == 3:
        return conv3d_transpose(input, filters, output_shape, strides, padding, data_format or "NDHWC", dilations,
                                name)
    raise ValueError(f"conv_transpose: output_shape must have 3, 4 or 5 elements, got {n + 2}")


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with stride 1 and dilations rate
    (tf.nn.atrous_conv2d_transpose)."""
    return conv2d_transpose(value, filters, output_shape, [1, 1, 1, 1], padding, "NHWC", [1, rate, rate, 1], name)


def _spatial3(value, data_format):
    """An int or 1, 3 or 5 values -> 5 values in data_format order (1 on batch and channels)."""
    v = [int(x) for x in np.ravel(value)]
    if len(v) == 1:
        v = v * 3
    if len(v) == 3:
        return [1, 1] + v if data_format == "NCDHW" else [1] + v + [1]
    if len(v) == 5:
        return v
    raise ValueError(f"expected 1, 3 or 5 values, got {len(v)}")


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The gradient of conv3d with respect to its input (tf.nn.conv3d_transpose): filters
    [depth, height, width, out_channels, in_channels]."""
    fmt = data_format or "NDHWC"
    shape = _ops.cast(output_shape, "int32") if hasattr(output_shape, "dtype") and \
        not isinstance(output_shape, np.ndarray) else np.asarray(output_shape, np.int32)
    return _ops.conv3d_backprop_input_v2(shape, filters, input, _spatial3(strides, fmt), padding, data_format=fmt,
                                         dilations=_spatial3(1 if dilations is None else dilations, fmt), name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 convolution mixing channels
    (tf.nn.separable_conv2d, as TensorFlow builds it)."""
    from .nn_ops import depthwise_conv2d  # noqa: PLC0415
    if rate is not None and dilations is not None:
        raise ValueError("Cannot specify both 'rate' and 'dilations'")
    dilations = rate if dilations is None else dilations
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format or "NHWC", name=name)


def _n_spatial(x, what):
    rank = x.shape.rank if hasattr(x.shape, "rank") else len(np.shape(x))
    if rank is None or rank not in (3, 4, 5):
        raise ValueError(f"{what}: the input must have rank 3, 4 or 5 (known when the graph is built), got {rank}")
    return rank - 2


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """An N-D convolution, N = 1, 2 or 3 from the input's rank (tf.nn.convolution): conv1d,
    conv2d or conv3d."""
    from .nn_ops import conv3d  # noqa: PLC0415
    n = _n_spatial(input, "convolution")
    strides = [1] * n if strides is None else [int(s) for s in np.ravel(strides)]
    dilations = [1] * n if dilations is None else [int(d) for d in np.ravel(dilations)]
    if n == 1:
        return conv1d(input, filters, strides, padding, data_format or "NWC", dilations, name)
    if n == 2:
        return conv2d(input, filters, strides, padding, data_format or "NHWC", dilations, name)
    channels_first = (data_format or "NDHWC") == "NCDHW"
    wrap = (lambda v: [1, 1] + v) if channels_first else (lambda v: [1] + v + [1])
    return conv3d(input, filters, wrap(strides), padding, data_format or "NDHWC", wrap(dilations), name)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """N-D max or average pooling, N = 1, 2 or 3 from the input's rank (tf.nn.pool); dilated
    pooling is not supported yet."""
    from .nn_ops import avg_pool2d, avg_pool3d, max_pool2d, max_pool3d  # noqa: PLC0415
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"pooling_type must be MAX or AVG, got {pooling_type!r}")
    if dilations is not None and any(int(d) != 1 for d in np.ravel(dilations)):
        raise InvalidArgumentError("pool: dilations other than 1 are not supported yet", "MaxPool")
    n = _n_spatial(input, "pool")
    window = [int(w) for w in np.ravel(window_shape)]
    strides = window if strides is None else [int(s) for s in np.ravel(strides)]
    if len(window) != n or len(strides) != n:
        raise ValueError(f"pool: window_shape and strides must have {n} values for a rank-{n + 2} input")
    if n == 1:
        return (max_pool1d if pooling_type == "MAX" else avg_pool1d)(input, window, strides, padding,
                                                                      data_format or "NWC", name)
    if n == 2:
        return (max_pool2d if pooling_type == "MAX" else avg_pool2d)(input, window, strides, padding,
                                                                      data_format or "NHWC", name)
    fmt = data_format or "NDHWC"
    wrap = (lambda v: [1, 1] + v) if fmt == "NCDHW" else (lambda v: [1] + v + [1])
    return (max_pool3d if pooling_type == "MAX" else avg_pool3d)(input, wrap(window), wrap(strides), padding, fmt,
                                                                  name)


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


# ---- moments helpers, Poisson loss, 1-D pooling (TensorFlow's nn_impl compositions)


def _keep(keepdims, keep_dims):
    return bool(keep_dims) if keep_dims is not None else bool(keepdims)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift)**2, shift) over axes: what normalize_moments
    turns into a mean and a variance (tf.nn.sufficient_statistics)."""
    from .math_ops import reduce_sum  # noqa: PLC0415
    keep = _keep(keepdims, keep_dims)
    axes = [int(a) for a in axes]
    dims = getattr(x.shape, "dims", None) if hasattr(x, "shape") else None
    if dims is not None and all(dims[a] is not None for a in axes):
        count = np.asarray(np.prod([dims[a] for a in axes]), _f(x, 0).dtype)
    else:
        shape = _ops.cast(_ops.shape(x), _f(x, 0).dtype.name)
        count = _ops.prod(_ops.gather_v2(shape, np.asarray(axes, np.int32), np.int32(0)), np.int32(0))
    centred = x if shift is None else _ops.sub(x, shift)
    m_ss = reduce_sum(centred, axes, keepdims=keep)
    v_ss = reduce_sum(_ops.square(centred), axes, keepdims=keep)
    return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics (tf.nn.normalize_moments)."""
    divisor = _ops.reciprocal(counts)
    shifted_mean = _ops.mul(mean_ss, divisor)
    mean = shifted_mean if shift is None else _ops.add_v2(shifted_mean, shift)
    variance = _ops.sub(_ops.mul(variance_ss, divisor), _ops.square(shifted_mean))
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The frequency-weighted (mean, variance) of x over axes (tf.nn.weighted_moments)."""
    from .math_ops import reduce_sum  # noqa: PLC0415
    keep = _keep(keepdims, keep_dims)
    x = _ops.identity(x)
    if getattr(frequency_weights, "dtype", None) != x.dtype:  # TensorFlow casts the weights to x's dtype
        frequency_weights = _ops.cast(frequency_weights, x.dtype.name)
    weighted_sum = reduce_sum(_ops.mul(frequency_weights, x), axes, keepdims=True)
    weights = _ops.add_v2(frequency_weights, _ops.zeros_like(x))
    divisor = _ops.reciprocal(reduce_sum(weights, axes, keepdims=True))
    mean = _ops.mul(weighted_sum, divisor)
    variance = _ops.mul(reduce_sum(_ops.mul(frequency_weights, _ops.squared_difference(x, mean)), axes,
                                   keepdims=True), divisor)
    if not keep:
        from .array_ops import squeeze  # noqa: PLC0415
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, plus with compute_full_loss Stirling's term
    targets * log(targets) - targets + 0.5 * log(2 pi targets) where targets > 1
    (tf.nn.log_poisson_loss)."""
    loss = _ops.sub(_ops.exp(log_input), _ops.mul(log_input, targets))
    if not compute_full_loss:
        return _ops.identity(loss, name=name)
    one = _f(targets, 1)
    safe = _ops.select_v2(_ops.greater(targets, one), targets, _ops.ones_like(targets))
    stirling = _ops.add_v2(_ops.sub(_ops.mul(safe, _ops.log(safe)), safe),
                           _ops.mul(_f(targets, 0.5), _ops.log(_ops.mul(_f(targets, 2 * np.pi), safe))))
    stirling = _ops.select_v2(_ops.greater(targets, one), stirling, _ops.zeros_like(targets))
    return _ops.add_v2(loss, stirling, name=name)


def _pool1d(pool2d, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """A 1-D pooling as the 2-D one over a height of 1."""
    from .array_ops import expand_dims, squeeze  # noqa: PLC0415
    channels_last = data_format in (None, "NWC")
    axis = 1 if channels_last else 2
    ks = [int(k) for k in np.ravel(ksize)]
    st = [int(s) for s in np.ravel(strides)]
    ks, st = ks[axis] if len(ks) == 3 else ks[0], st[axis] if len(st) == 3 else st[0]
    fmt = "NHWC" if channels_last else "NCHW"
    out = pool2d(expand_dims(input, axis), [1, ks], [1, st], padding, fmt)
    return squeeze(out, [axis], name=name)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Max pooling over the width of a [batch, width, channels] input (tf.nn.max_pool1d)."""
    from .nn_ops import max_pool2d  # noqa: PLC0415
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Average pooling over the width of a [batch, width, channels] input (tf.nn.avg_pool1d)."""
    from .nn_ops import avg_pool2d  # noqa: PLC0415
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (tf.nn.compute_average_loss);
    the global batch is this batch's size by default (one replica: opforge runs no replicas)."""
    from . import math_ops  # noqa: PLC0415
    from ..framework.tensor import convert_to_tensor  # noqa: PLC0415

    loss = per_example_loss if hasattr(per_example_loss, "dtype") else convert_to_tensor(per_example_loss)
    if not loss.dtype.is_floating:
        raise InvalidArgumentError(f"compute_average_loss: per_example_loss must be floating, got {loss.dtype.name}",
                                   "compute_average_loss")
    if sample_weight is not None:
        loss = _ops.mul(loss, _ops.cast(sample_weight, loss.dtype) if hasattr(sample_weight, "dtype")
                        else np.asarray(sample_weight, loss.dtype.as_numpy_dtype))
    if global_batch_size is None:
        batch = _ops.cast(_ops.gather_v2(_ops.shape(loss), np.int32(0), np.int32(0)), loss.dtype)
    elif isinstance(global_batch_size, (int, np.integer)):
        if global_batch_size <= 0:
            raise ValueError(f"compute_average_loss: global_batch_size must be positive, got {global_batch_size}")
        batch = np.asarray(global_batch_size, loss.dtype.as_numpy_dtype)
    else:
        batch = _ops.cast(global_batch_size, loss.dtype)
    total = math_ops.reduce_sum(loss)
    zero = np.asarray(0, loss.dtype.as_numpy_dtype)
    return _ops.select_v2(_ops.equal(batch, zero), zero, _ops.real_div(total, _ops.select_v2(
        _ops.equal(batch, zero), np.asarray(1, loss.dtype.as_numpy_dtype), batch)))


def scale_regularization_loss(regularization_loss):
    """The summed regularization loss over the number of replicas (tf.nn.scale_regularization_loss):
    one replica in opforge, so the sum itself."""
    from . import math_ops  # noqa: PLC0415

    if isinstance(regularization_loss, (list, tuple)):
        regularization_loss = _ops.add_n(list(regularization_loss))
    return math_ops.reduce_sum(regularization_loss)
