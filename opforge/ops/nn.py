"""``of.nn``: TensorFlow's ``tf.nn`` namespace.

It defines nothing itself: the single-op wrappers are in nn_ops, the composite functions in
nn_impl, the recurrent-network drivers in layers/rnn, the candidate sampler in random_ops.
``opforge.compat.v1.nn`` (compat/v1/_tf1_nn.py) spells these with TF1's arguments
(``filter=``, ``value=``, ``dim=``, ``keep_prob=``, ``_sentinel``).
"""

from __future__ import annotations

from ..layers.rnn import bidirectional_dynamic_rnn, dynamic_rnn, rnn_cell, static_bidirectional_rnn, static_rnn
from .nn_impl import (
    atrous_conv2d_transpose, avg_pool1d, conv1d, conv1d_transpose, conv_transpose, convolution, pool, conv2d_transpose, conv3d_transpose, separable_conv2d, dropout, embedding_lookup, in_top_k, l2_normalize, log_poisson_loss,
    max_pool1d, moments, nce_loss, normalize_moments, relu_layer, sampled_softmax_loss,
    sigmoid_cross_entropy_with_logits, sufficient_statistics, weighted_cross_entropy_with_logits, weighted_moments,
    xw_plus_b, zero_fraction,
)
from .nn_ops import (
    avg_pool, avg_pool2d, avg_pool3d, batch_normalization, bias_add, conv2d, conv3d,
    conv2d_backprop_filter, depthwise_conv2d, elu, fused_batch_norm, gelu, l2_loss, leaky_relu,
    local_response_normalization, log_softmax, lrn, max_pool, max_pool2d, max_pool3d, relu, relu6, selu,
    sigmoid, silu, softmax, softmax_cross_entropy_with_logits, softplus, softsign,
    sparse_softmax_cross_entropy_with_logits, swish, tanh, top_k,
)
from .random_ops import log_uniform_candidate_sampler
from .manip_ops import depth_to_space, space_to_batch, space_to_depth

__all__ = [
    "avg_pool", "avg_pool2d", "avg_pool3d", "batch_normalization", "bias_add", "bidirectional_dynamic_rnn",
    "conv1d", "conv2d", "conv2d_backprop_filter", "conv2d_transpose", "conv3d", "depthwise_conv2d", "dropout", "dynamic_rnn", "elu",
    "embedding_lookup", "fused_batch_norm", "gelu", "in_top_k", "l2_loss", "l2_normalize", "leaky_relu",
    "local_response_normalization", "log_softmax", "log_uniform_candidate_sampler", "lrn", "max_pool",
    "max_pool2d", "max_pool3d", "moments", "nce_loss", "relu", "relu6", "relu_layer", "rnn_cell",
    "sampled_softmax_loss", "selu", "sigmoid", "sigmoid_cross_entropy_with_logits", "silu", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign", "sparse_softmax_cross_entropy_with_logits",
    "static_rnn", "swish", "tanh", "top_k", "weighted_cross_entropy_with_logits", "xw_plus_b", "zero_fraction",
    "avg_pool1d", "max_pool1d", "log_poisson_loss", "conv1d_transpose", "conv3d_transpose", "separable_conv2d",
    "depth_to_space", "space_to_batch", "space_to_depth", "convolution", "pool", "static_bidirectional_rnn",
    "conv_transpose", "atrous_conv2d_transpose", "normalize_moments", "sufficient_statistics", "weighted_moments",
]
