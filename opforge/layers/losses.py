"""Losses with weights and reductions, and the graph's loss collections (TensorFlow 1's
tf.losses).

Each loss computes per-element losses, multiplies them by ``weights`` (broadcast to the
losses' shape), reduces them as ``reduction`` says (by default: the sum divided by the number
of non-zero weights) and adds the result to the ``LOSSES`` collection, where
``get_total_loss`` finds it together with the regularization losses.
"""

from __future__ import annotations

import numpy as np

from ..ops import math_ops as _m
from ..ops import nn_impl as _nn_impl
from ..ops import nn_ops as _nn_ops
from .. import ops as _ops
from ..framework.graph import get_default_graph
from ..framework.tensor import convert_to_tensor

from ..framework.collections import LOSSES, REGULARIZATION_LOSSES


class Reduction:
    """How a weighted loss is reduced (tf.losses.Reduction)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _tensor(x, dtype=None):
    """x as a tensor (of dtype, cast if need be); variables and graph tensors as they are."""
    if not (hasattr(x, "graph") or hasattr(x, "_graph_for_dispatch")):
        x = _ops.identity(convert_to_tensor(x, dtype))
    return x if dtype is None or x.dtype == dtype else _ops.cast(x, dtype)


def _c(x, v):
    return np.asarray(v, x.dtype.as_numpy_dtype)


def _num_elements(losses):
    return _ops.cast(_ops.size(losses), losses.dtype)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """losses * weights reduced as `reduction` says; added to loss_collection."""
    Reduction.validate(reduction)
    g = get_default_graph()
    with g.name_scope(scope or "weighted_loss"):
        losses = _tensor(losses)
        if not losses.dtype.is_floating:
            raise ValueError(f"losses must be floating point, not {losses.dtype.name}")
        weights = _tensor(weights, losses.dtype) if not isinstance(weights, (int, float)) else _c(losses, weights)
        weighted = _ops.mul(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            total = _m.reduce_sum(weighted)
            if reduction == Reduction.SUM:
                loss = total
            elif reduction == Reduction.MEAN:
                denom = _m.reduce_sum(_ops.mul(_ops.ones_like(losses), weights))
                loss = _safe_div(total, denom)
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_div(total, _num_elements(losses))
            else:
                nonzero = _ops.cast(_ops.not_equal(_ops.mul(_ops.ones_like(losses), weights), _c(losses, 0)),
                                    losses.dtype)
                loss = _safe_div(total, _m.reduce_sum(nonzero))
        loss = _ops.identity(loss, name="value")
    if loss_collection:
        g.add_to_collection(loss_collection, loss)
    return loss


def _safe_div(num, den):
    """num / den, and 0 where den is 0 (a weighted loss with no weight is 0)."""
    zero = _c(den, 0)
    return _ops.select_v2(_ops.greater(den, zero), _ops.real_div(num, _ops.maximum(den, _c(den, 1e-30))), zero)


def _check_shapes(labels, predictions, what):
    ls, ps = getattr(labels, "shape", None), getattr(predictions, "shape", None)
    if ls is not None and ps is not None and ls.rank is not None and ps.rank is not None:
        if not ls.is_compatible_with(ps):
            raise ValueError(f"{what}: the shapes of labels {ls} and predictions {ps} are incompatible")


def _pair(labels, predictions, what):
    predictions = _tensor(predictions)
    labels = _tensor(labels, predictions.dtype)
    _check_shapes(labels, predictions, what)
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    labels, predictions = _pair(labels, predictions, "absolute_difference")
    return compute_weighted_loss(_ops.abs(_ops.sub(predictions, labels)), weights, scope or "absolute_difference",
                                 loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    labels, predictions = _pair(labels, predictions, "mean_squared_error")
    return compute_weighted_loss(_ops.squared_difference(predictions, labels), weights,
                                 scope or "mean_squared_error", loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 * e^2 where |e| <= delta, else delta * (|e| - 0.5 * delta)."""
    labels, predictions = _pair(labels, predictions, "huber_loss")
    err = _ops.abs(_ops.sub(predictions, labels))
    quad = _ops.minimum(err, _c(err, delta))
    lin = _ops.sub(err, quad)
    losses = _ops.add_v2(_ops.mul(_ops.square(quad), _c(err, 0.5)), _ops.mul(lin, _c(err, delta)))
    return compute_weighted_loss(losses, weights, scope or "huber_loss", loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-y log(p + eps) - (1 - y) log(1 - p + eps)."""
    labels, predictions = _pair(labels, predictions, "log_loss")
    one, eps = _c(predictions, 1), _c(predictions, epsilon)
    losses = _ops.sub(_ops.neg(_ops.mul(labels, _ops.log(_ops.add_v2(predictions, eps)))),
                      _ops.mul(_ops.sub(one, labels), _ops.log(_ops.add_v2(_ops.sub(one, predictions), eps))))
    return compute_weighted_loss(losses, weights, scope or "log_loss", loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """max(0, 1 - (2y - 1) * logits) for labels y in {0, 1}."""
    labels, logits = _pair(labels, logits, "hinge_loss")
    signs = _ops.sub(_ops.mul(labels, _c(logits, 2)), _c(logits, 1))
    losses = _ops.relu(_ops.sub(_c(logits, 1), _ops.mul(signs, logits)))
    return compute_weighted_loss(losses, weights, scope or "hinge_loss", loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions, axis) for unit-normalized inputs."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    labels, predictions = _pair(labels, predictions, "cosine_distance")
    losses = _ops.sub(_c(predictions, 1), _m.reduce_sum(_ops.mul(labels, predictions), axis, keepdims=True))
    return compute_weighted_loss(losses, weights, scope or "cosine_distance_loss", loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    labels, logits = _pair(multi_class_labels, logits, "sigmoid_cross_entropy")
    if label_smoothing > 0:
        labels = _ops.add_v2(_ops.mul(labels, _c(logits, 1 - label_smoothing)), _c(logits, 0.5 * label_smoothing))
    losses = _nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope or "sigmoid_cross_entropy_loss", loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross entropy per example (weights broadcast over the batch)."""
    labels, logits = _pair(onehot_labels, logits, "softmax_cross_entropy")
    if label_smoothing > 0:
        classes = _ops.cast(_ops.strided_slice(_ops.shape(logits), np.array([-1], np.int32),
                                               np.array([0], np.int32), np.array([1], np.int32),
                                               end_mask=1, shrink_axis_mask=1), logits.dtype)
        labels = _ops.add_v2(_ops.mul(labels, _c(logits, 1 - label_smoothing)),
                             _ops.real_div(_c(logits, label_smoothing), classes))
    losses = _nn_ops.softmax_cross_entropy_with_logits(labels=_ops.stop_gradient(labels), logits=logits)
    return compute_weighted_loss(losses, _squeeze_weights(weights), scope or "softmax_cross_entropy_loss",
                                 loss_collection, reduction)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross entropy with class-index labels ([batch] or [batch, 1])."""
    logits = _tensor(logits)
    labels = _tensor(labels)
    ls = getattr(labels, "shape", None)
    if ls is not None and ls.rank is not None and logits.shape.rank is not None and ls.rank == logits.shape.rank:
        labels = _ops.squeeze(labels, axis=[-1])
    losses = _nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, _squeeze_weights(weights), scope or "sparse_softmax_cross_entropy_loss",
                                 loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES):
    """The mean over pairs of elements within each example of the squared difference between
    the pair's prediction difference and label difference, weighted per example and summed
    (TensorFlow's formula: 2 * (sum(d^2) / (n - 1) - sum(d)^2 / (n (n - 1))) with d the
    prediction - label differences and n the example's elements with a non-zero weight)."""
    if labels is None or predictions is None:
        raise ValueError("mean_pairwise_squared_error: labels and predictions must not be None")
    g = get_default_graph()
    with g.name_scope(scope or "mean_pairwise_squared_error"):
        labels, predictions = _tensor(labels, "float32"), _tensor(predictions, "float32")
        _check_shapes(labels, predictions, "mean_pairwise_squared_error")
        weights = _tensor(weights, "float32")
        diffs = _ops.sub(predictions, labels)
        axis = _ops.range(np.int32(1), _ops.rank(diffs), np.int32(1))
        present = _ops.mul(_ops.ones_like(diffs), _ops.cast(_ops.not_equal(weights, np.float32(0)), "float32"))
        n = _m.reduce_sum(present, axis=axis, keepdims=True)
        n1 = _ops.maximum(_ops.sub(n, np.float32(1)), np.float32(0))
        term1 = _ops.mul(np.float32(2), _safe_div(_m.reduce_sum(_ops.square(diffs), axis=axis, keepdims=True), n1))
        sum_diff = _m.reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = _ops.mul(np.float32(2), _safe_div(_ops.square(sum_diff), _ops.maximum(_ops.mul(n, n1), np.float32(0))))
        loss = _m.reduce_sum(_ops.mul(_ops.sub(term1, term2), weights))
        loss = _ops.select_v2(_ops.greater(_m.reduce_sum(n), np.float32(0)), loss, _ops.zeros_like(loss),
                              name="value")
    if loss_collection:
        g.add_to_collection(loss_collection, loss)
    return loss


def _squeeze_weights(weights):
    """Per-example weights given as [batch, 1] apply to the [batch] losses."""
    shape = getattr(weights, "shape", None)
    if shape is not None and shape.rank == 2 and shape.dims[-1] == 1:
        return _ops.squeeze(weights, axis=[-1])
    if isinstance(weights, np.ndarray) and weights.ndim == 2 and weights.shape[-1] == 1:
        return weights[:, 0]
    return weights


def add_loss(loss, loss_collection=LOSSES):
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=LOSSES):
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return get_default_graph().get_collection(REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    losses = get_regularization_losses(scope)
    if losses:
        return _ops.add_n(losses, name=name)
    return _ops.identity(np.float32(0), name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the LOSSES collection and (by default) the regularization losses."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the graph: add them with the tf.losses functions or add_loss")
    return _ops.add_n(losses, name=name)


# ---- regularizers (tf.contrib.layers / tf.keras.regularizers style callables)


def l2_regularizer(scale, scope=None):
    """A function w -> scale * sum(w^2) / 2 (None when scale is 0)."""
    if scale < 0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")

    def l2(weights):
        if scale == 0:
            return None
        return _ops.mul(_ops.l2_loss(weights), _c(weights, scale), name="l2_regularizer")
    return l2


def l1_regularizer(scale, scope=None):
    if scale < 0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")

    def l1(weights):
        if scale == 0:
            return None
        return _ops.mul(_m.reduce_sum(_ops.abs(weights)), _c(weights, scale), name="l1_regularizer")
    return l1
