"""``of.nn``: TensorFlow's ``tf.nn`` namespace.

It defines nothing itself: the single-op wrappers are in nn_ops, the composite functions in
nn_impl, the recurrent-network drivers in layers/rnn, the candidate sampler in random_ops.
``opforge.compat.v1.nn`` adds TF1's spellings (``filter=``, ``value=``, ``dim=``,
``_sentinel``) on top of these.
"""

from __future__ import annotations

from ..layers.rnn import bidirectional_dynamic_rnn, dynamic_rnn, rnn_cell, static_rnn
from .nn_impl import (
    _v1_dropout, conv1d, conv2d_transpose, dropout, embedding_lookup, in_top_k, l2_normalize, moments,
    nce_loss, relu_layer, sampled_softmax_loss, sigmoid_cross_entropy_with_logits,
    weighted_cross_entropy_with_logits, xw_plus_b, zero_fraction,
)
from .nn_ops import (
    avg_pool, avg_pool2d, avg_pool3d, batch_normalization, bias_add, conv2d, conv3d,
    depthwise_conv2d, elu, fused_batch_norm, gelu, l2_loss, leaky_relu, local_response_normalization,
    log_softmax, lrn, max_pool, max_pool2d, max_pool3d, relu, relu6, selu, sigmoid, softmax,
    softmax_cross_entropy_with_logits, softplus, softsign, sparse_softmax_cross_entropy_with_logits, tanh,
    top_k, _v1_avg_pool, _v1_conv2d, _v1_conv2d_backprop_filter, _v1_conv2d_backprop_input, _v1_conv3d,
    _v1_depthwise_conv2d, _v1_log_softmax, _v1_max_pool, _v1_softmax, _v1_softmax_cross_entropy_with_logits,
    _v1_softmax_cross_entropy_with_logits_v2, _v1_sparse_softmax_cross_entropy_with_logits,
)
from .random_ops import log_uniform_candidate_sampler
from .. import ops as _ops

__all__ = [
    "avg_pool", "avg_pool2d", "avg_pool3d", "batch_normalization", "bias_add", "bidirectional_dynamic_rnn",
    "conv1d", "conv2d", "conv2d_transpose", "conv3d", "depthwise_conv2d", "dropout", "dynamic_rnn", "elu",
    "embedding_lookup", "fused_batch_norm", "gelu", "in_top_k", "l2_loss", "l2_normalize", "leaky_relu",
    "local_response_normalization", "log_softmax", "log_uniform_candidate_sampler", "lrn", "max_pool",
    "max_pool2d", "max_pool3d", "moments", "nce_loss", "relu", "relu6", "relu_layer", "rnn_cell",
    "sampled_softmax_loss", "selu", "sigmoid", "sigmoid_cross_entropy_with_logits", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign", "sparse_softmax_cross_entropy_with_logits",
    "static_rnn", "tanh", "top_k", "weighted_cross_entropy_with_logits", "xw_plus_b", "zero_fraction",
]


def compat_v1_namespace():
    """The names of tf.compat.v1.nn (TF1 signatures where they differ from TF2's)."""
    import types  # noqa: PLC0415

    return types.SimpleNamespace(
        relu=relu, relu6=relu6, elu=elu, selu=selu, leaky_relu=leaky_relu, gelu=gelu,
        softplus=softplus, softsign=softsign, sigmoid=sigmoid, tanh=tanh,
        softmax=_v1_softmax, log_softmax=_v1_log_softmax,
        softmax_cross_entropy_with_logits=_v1_softmax_cross_entropy_with_logits,
        softmax_cross_entropy_with_logits_v2=_v1_softmax_cross_entropy_with_logits_v2,
        sparse_softmax_cross_entropy_with_logits=_v1_sparse_softmax_cross_entropy_with_logits,
        bias_add=bias_add, l2_loss=l2_loss,
        conv2d=_v1_conv2d, conv2d_backprop_input=_v1_conv2d_backprop_input,
        conv2d_backprop_filter=_v1_conv2d_backprop_filter,
        depthwise_conv2d=_v1_depthwise_conv2d, depthwise_conv2d_native=_ops.depthwise_conv2d_native,
        max_pool=_v1_max_pool, max_pool2d=max_pool2d, avg_pool=_v1_avg_pool, avg_pool2d=avg_pool2d,
        fused_batch_norm=fused_batch_norm, batch_normalization=batch_normalization,
        dropout=_v1_dropout, dynamic_rnn=dynamic_rnn, static_rnn=static_rnn,
        bidirectional_dynamic_rnn=bidirectional_dynamic_rnn, rnn_cell=rnn_cell,
        conv3d=_v1_conv3d, max_pool3d=max_pool3d, avg_pool3d=avg_pool3d,
        nce_loss=nce_loss, sampled_softmax_loss=sampled_softmax_loss, top_k=top_k, lrn=lrn,
        local_response_normalization=local_response_normalization,
        log_uniform_candidate_sampler=log_uniform_candidate_sampler,
    )
