"""tf.compat.v1.nn: TensorFlow 1's spellings of of.nn's functions (``filter=`` beside
``filters=``, ``value=``/``input=``, ``dim=``, ``rate=`` for dilations, ``keep_prob=``,
``_sentinel``, ``use_cudnn_on_gpu``). Every function here maps its arguments and calls of.nn;
the behaviour lives there."""

from __future__ import annotations

from opforge.ops import math as _math
from opforge.ops import nn as _nn
from opforge import ops as _ops
from opforge.compat._namespace import legacy_argument
from opforge.framework.errors import InvalidArgumentError


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """tf.compat.v1.nn.conv2d: of.nn.conv2d, the filter as filter= or filters=."""
    del use_cudnn_on_gpu
    return _nn.conv2d(input, legacy_argument("filters", filters, "filter", filter), strides, padding,
                      data_format, dilations, name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None,
                          filters=None):
    """tf.compat.v1.nn.conv2d_backprop_input: of.nn.conv2d_transpose of out_backprop."""
    del use_cudnn_on_gpu
    return _nn.conv2d_transpose(out_backprop, legacy_argument("filters", filters, "filter", filter), input_sizes,
                                strides, padding, data_format, dilations, name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """tf.compat.v1.nn.conv2d_backprop_filter: of.nn.conv2d_backprop_filter."""
    del use_cudnn_on_gpu
    return _nn.conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format, dilations,
                                      name)


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """tf.compat.v1.nn.conv3d: of.nn.conv3d, the filter as filter= or filters=."""
    return _nn.conv3d(input, legacy_argument("filters", filters, "filter", filter), strides, padding, data_format,
                      dilations, name)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    """tf.compat.v1.nn.depthwise_conv2d: of.nn.depthwise_conv2d, dilations as rate=."""
    return _nn.depthwise_conv2d(input, filter, strides, padding, data_format,
                                legacy_argument("dilations", dilations, "rate", rate), name)


def avg_pool2d(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None,
               input=None):  # noqa: A002
    """tf.compat.v1.nn.avg_pool2d: of.nn.avg_pool2d, the input as value= or input=."""
    return _nn.avg_pool2d(legacy_argument("value", value, "input", input), ksize, strides, padding, data_format,
                          name)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None, name=None,
           input=None, dilations=None):  # noqa: A002
    """tf.compat.v1.nn.conv1d: of.nn.conv1d, the input as value= or input=."""
    del use_cudnn_on_gpu
    return _nn.conv1d(legacy_argument("value", value, "input", input), filters, stride, padding,
                      data_format or "NWC", dilations, name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):  # noqa: A002
    """tf.compat.v1.nn.conv2d_transpose: of.nn.conv2d_transpose, TF1's value=/filter= or input=/filters=."""
    return _nn.conv2d_transpose(legacy_argument("value", value, "input", input),
                                legacy_argument("filter", filter, "filters", filters), output_shape, strides,
                                padding, data_format, dilations, name)


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None):  # noqa: A002
    """tf.compat.v1.nn.conv3d_transpose: of.nn.conv3d_transpose, TF1's value=/filter= or input=/filters=."""
    return _nn.conv3d_transpose(legacy_argument("value", value, "input", input),
                                legacy_argument("filter", filter, "filters", filters), output_shape, strides,
                                padding, data_format, dilations, name)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None,  # noqa: A002
                data_format=None, filters=None, dilations=None):
    """tf.compat.v1.nn.convolution: of.nn.convolution, TF1's filter=/dilation_rate= or filters=/dilations=."""
    return _nn.convolution(input, legacy_argument("filters", filters, "filter", filter), strides, padding,
                           data_format, legacy_argument("dilations", dilations, "dilation_rate", dilation_rate), name)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None, dilations=None):
    """tf.compat.v1.nn.pool: of.nn.pool, TF1's argument order and dilation_rate=."""
    return _nn.pool(input, window_shape, pooling_type, strides, padding, data_format,
                    legacy_argument("dilations", dilations, "dilation_rate", dilation_rate), name)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None,  # noqa: A002
                                         mean=None, variance=None):
    """TF1's batch normalization with given moments: of.nn.batch_normalization, gamma used
    only with scale_after_normalization."""
    return _nn.batch_normalization(legacy_argument("input", input, "t", t), legacy_argument("mean", mean, "m", m),
                                   legacy_argument("variance", variance, "v", v), beta,
                                   gamma if scale_after_normalization else None, variance_epsilon, name)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None, input=None):  # noqa: A002
    """tf.compat.v1.nn.max_pool: of.nn.max_pool2d, the input as value= or input=."""
    return _nn.max_pool2d(legacy_argument("value", value, "input", input), ksize, strides, padding, data_format,
                          name)


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None, input=None):  # noqa: A002
    """tf.compat.v1.nn.avg_pool: of.nn.avg_pool2d, the input as value= or input=."""
    return _nn.avg_pool2d(legacy_argument("value", value, "input", input), ksize, strides, padding, data_format,
                          name)


def softmax(logits, axis=None, name=None, dim=None):
    """tf.compat.v1.nn.softmax: of.nn.softmax, the axis as axis= or dim=."""
    return _nn.softmax(logits, legacy_argument("axis", axis, "dim", dim), name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """tf.compat.v1.nn.log_softmax: of.nn.log_softmax, the axis as axis= or dim=."""
    return _nn.log_softmax(logits, legacy_argument("axis", axis, "dim", dim), name)


def _keywords_only(sentinel, fn_name):
    if sentinel is not None:
        raise InvalidArgumentError(f"{fn_name} takes keyword arguments (labels=..., logits=...)", None)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """tf.compat.v1.nn.softmax_cross_entropy_with_logits: keyword arguments only, dim= or axis=."""
    _keywords_only(_sentinel, "softmax_cross_entropy_with_logits")
    return _nn.softmax_cross_entropy_with_logits(labels, logits, axis if axis is not None else dim, name)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """tf.compat.v1.nn.softmax_cross_entropy_with_logits_v2: of.nn's, dim= or axis=."""
    axis = legacy_argument("axis", axis, "dim", dim)
    return _nn.softmax_cross_entropy_with_logits(labels, logits, -1 if axis is None else axis, name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """tf.compat.v1.nn.sparse_softmax_cross_entropy_with_logits: keyword arguments only."""
    _keywords_only(_sentinel, "sparse_softmax_cross_entropy_with_logits")
    return _nn.sparse_softmax_cross_entropy_with_logits(labels, logits, name)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """tf.compat.v1.nn.dropout: of.nn.dropout, given rate or (deprecated) keep_prob = 1 - rate."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
    if keep_prob is not None:
        if isinstance(keep_prob, (int, float)) and not 0 < keep_prob <= 1:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range (0, 1], got {keep_prob}")
        rate = 1 - keep_prob if isinstance(keep_prob, (int, float)) else _ops.sub(1.0, keep_prob)
    if rate is None:
        raise ValueError("dropout: give rate (or keep_prob)")
    return _nn.dropout(x, rate, noise_shape, seed, name)


# of.nn's functions that tf.compat.v1.nn has under the same name and signature.
_SAME = (
    "relu", "relu6", "elu", "selu", "leaky_relu", "gelu", "softplus", "softsign", "sigmoid", "tanh", "silu",
    "swish", "bias_add", "l2_loss", "max_pool2d", "avg_pool2d", "fused_batch_norm", "batch_normalization",
    "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "rnn_cell", "max_pool3d", "avg_pool3d", "nce_loss",
    "sampled_softmax_loss", "top_k", "lrn", "local_response_normalization", "log_uniform_candidate_sampler",
    "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "l2_normalize", "moments",
    "embedding_lookup", "in_top_k", "xw_plus_b", "relu_layer", "zero_fraction",
    "sufficient_statistics", "normalize_moments", "weighted_moments", "log_poisson_loss", "max_pool1d", "avg_pool1d",
    "conv1d_transpose", "separable_conv2d", "depth_to_space", "space_to_batch", "space_to_depth",
    "static_bidirectional_rnn", "conv_transpose", "atrous_conv2d_transpose",
)


def names() -> dict:
    """The names of tf.compat.v1.nn: of.nn's, with the TF1 spellings above in place of theirs."""
    out = {n: getattr(_nn, n) for n in _SAME}
    out.update(
        conv2d=conv2d, conv2d_backprop_input=conv2d_backprop_input, conv2d_backprop_filter=conv2d_backprop_filter,
        conv3d=conv3d, depthwise_conv2d=depthwise_conv2d, depthwise_conv2d_native=_ops.depthwise_conv2d_native,
        max_pool=max_pool, avg_pool=avg_pool, softmax=softmax, log_softmax=log_softmax, softmax_v2=_nn.softmax,
        softmax_cross_entropy_with_logits=softmax_cross_entropy_with_logits,
        softmax_cross_entropy_with_logits_v2=softmax_cross_entropy_with_logits_v2,
        sparse_softmax_cross_entropy_with_logits=sparse_softmax_cross_entropy_with_logits, dropout=dropout,
        log_sigmoid=_math.log_sigmoid, avg_pool2d=avg_pool2d, conv1d=conv1d, conv2d_transpose=conv2d_transpose,
        conv3d_transpose=conv3d_transpose, convolution=convolution, pool=pool,
        batch_norm_with_global_normalization=batch_norm_with_global_normalization,
    )
    return out
