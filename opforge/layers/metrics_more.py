"""The rest of TensorFlow 1's tf.metrics, built as TensorFlow builds them: local variables
(LOCAL_VARIABLES and METRIC_VARIABLES) accumulated by an update op, and a value read from them.

Elementwise means (mean_tensor, mean_relative_error, mean_cosine_distance, percentage_below);
confusion-matrix metrics (mean_iou, mean_per_class_accuracy); counts at thresholds and the
ratios over them (precision/recall_at_thresholds, sensitivity_at_specificity,
specificity_at_sensitivity); and the top-k retrieval metrics (precision/recall_at_k,
*_at_top_k, average_precision_at_k), which count in float64 as TensorFlow's do. Labels of the
at-k metrics are class ids, [batch] or [batch, n] (ids outside [0, num_classes) are ignored, so
-1 pads), or a SparseTensor of them.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.sparse_tensor import SparseTensor
from ..framework.variable_scope import variable_scope
from ..ops import math_ops as _m
from .metrics import _collect, _local, _tensor, mean

__all__ = ["mean_tensor", "mean_relative_error", "mean_cosine_distance", "percentage_below", "mean_iou",
           "mean_per_class_accuracy", "true_positives_at_thresholds", "false_positives_at_thresholds",
           "true_negatives_at_thresholds", "false_negatives_at_thresholds", "precision_at_thresholds",
           "recall_at_thresholds", "sensitivity_at_specificity", "specificity_at_sensitivity", "precision_at_k",
           "recall_at_k", "precision_at_top_k", "recall_at_top_k", "sparse_precision_at_k",
           "average_precision_at_k", "sparse_average_precision_at_k"]

_EPSILON = 1e-7


def _float(x):
    x = _tensor(x)
    return x if x.dtype.is_floating else _ops.cast(x, "float32")


def _safe_div(num, den):
    zero = np.asarray(0, num.dtype.as_numpy_dtype)
    one = np.asarray(1, num.dtype.as_numpy_dtype)
    return _ops.select_v2(_ops.greater(den, zero), _ops.real_div(num, _ops.select_v2(
        _ops.greater(den, zero), den, one)), zero)


# ------------------------------------------------------------------------------ elementwise means


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The elementwise weighted mean of every `values` tensor seen (all of one static shape)."""
    with variable_scope(name, default_name="mean"):
        values = _float(values)
        shape = values.shape.as_list() if values.shape.rank is not None else None
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"mean_tensor: the shape of values must be fully known, got {values.shape}")
        w = _ops.ones_like(values) if weights is None else _ops.mul(_ops.ones_like(values),
                                                                     _tensor(weights, values.dtype))
        total = _local("total_tensor", shape, values.dtype)
        count = _local("count_tensor", shape, values.dtype)
        update_total = _ops.assign_add(total, _ops.mul(values, w))
        update_count = _ops.assign_add(count, w)
        value = _ops.identity(_safe_div(total, count), name="mean")
        update = _ops.identity(_safe_div(update_total, update_count), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    predictions = _float(predictions)
    labels = _tensor(labels, predictions.dtype)
    normalizer = _tensor(normalizer, predictions.dtype)
    zero = np.asarray(0, predictions.dtype.as_numpy_dtype)
    err = _ops.abs(_ops.sub(labels, predictions))
    relative = _ops.select_v2(_ops.equal(normalizer, zero), _ops.zeros_like(err),
                              _ops.real_div(err, _ops.select_v2(_ops.equal(normalizer, zero),
                                                                _ops.ones_like(normalizer), normalizer)))
    return mean(relative, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """1 - the mean of sum(labels * predictions, dim) (unit-normalized inputs: the cosine distance)."""
    predictions = _float(predictions)
    labels = _tensor(labels, predictions.dtype)
    radial = _m.reduce_sum(_ops.mul(labels, predictions), axis=dim, keepdims=True)
    value, update = mean(radial, weights, None, None, name or "mean_cosine_distance")
    one = np.asarray(1, value.dtype.as_numpy_dtype)
    value, update = _ops.sub(one, value), _ops.sub(one, update)
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None,
                     name=None):
    """The (weighted) share of values below threshold."""
    values = _tensor(values)
    below = _ops.cast(_ops.less(values, _tensor(threshold, values.dtype)), "float32")
    return mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


# ------------------------------------------------------------------------------ confusion matrices


def _flat(x):
    return _ops.reshape(x, np.array([-1], np.int64))


def _class_hits(labels, num_classes, weights, like):
    """[n, num_classes]: one row per flattened label, its weight at its class."""
    hot = _ops.one_hot(_ops.cast(_flat(_tensor(labels)), "int64"), np.int32(num_classes), np.float64(1),
                       np.float64(0))
    if weights is not None:
        w = _flat(_ops.mul(_ops.ones_like(_ops.cast(like, "float64")), _tensor(weights, "float64")))
        hot = _ops.mul(hot, _ops.expand_dims(w, np.int32(1)))
    return hot


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """The mean over classes of intersection / union from a running confusion matrix; the update
    op returns the matrix (rows: labels, columns: predictions), as TensorFlow's."""
    _check_classes("mean_iou", num_classes)
    with variable_scope(name, default_name="mean_iou"):
        predictions = _tensor(predictions)
        rows = _class_hits(labels, num_classes, weights, predictions)
        cols = _class_hits(predictions, num_classes, None, predictions)
        total_cm = _local("total_confusion_matrix", (num_classes, num_classes), "float64")
        update = _ops.assign_add(total_cm, _ops.mat_mul(rows, cols, transpose_a=True))

        def iou(cm):
            over_rows = _m.reduce_sum(cm, axis=0)
            over_cols = _m.reduce_sum(cm, axis=1)
            diag = _m.reduce_sum(_ops.mul(cm, np.eye(num_classes)), axis=1)
            den = _ops.sub(_ops.add_v2(over_rows, over_cols), diag)
            valid = _m.reduce_sum(_ops.cast(_ops.not_equal(den, np.float64(0)), "float64"))
            ious = _safe_div(diag, den)
            return _ops.cast(_safe_div(_m.reduce_sum(ious), valid), "float32")

        value = _ops.identity(iou(total_cm), name="mean_iou")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The mean over classes of the share of each class's labels predicted right; the update op
    returns the per-class accuracies."""
    _check_classes("mean_per_class_accuracy", num_classes)
    with variable_scope(name, default_name="mean_accuracy"):
        predictions = _tensor(predictions)
        labels = _ops.cast(_tensor(labels), predictions.dtype)
        hits = _class_hits(labels, num_classes, weights, predictions)
        correct = _ops.expand_dims(_flat(_ops.cast(_ops.equal(predictions, labels), "float64")), np.int32(1))
        total = _local("total", (num_classes,), "float32")
        count = _local("count", (num_classes,), "float32")
        update_total = _ops.assign_add(total, _ops.cast(_m.reduce_sum(hits, axis=0), "float32"))
        update_count = _ops.assign_add(count, _ops.cast(_m.reduce_sum(_ops.mul(hits, correct), axis=0), "float32"))
        value = _ops.identity(_m.reduce_mean(_safe_div(count, total)), name="mean_accuracy")
        update = _ops.identity(_safe_div(update_count, update_total), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def _check_classes(where, num_classes):
    if not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
        raise ValueError(f"{where}: num_classes must be a positive int, got {num_classes!r}")


# ------------------------------------------------------------------------------ counts at thresholds

_COUNT_NAMES = {"tp": "true_positives", "fp": "false_positives", "tn": "true_negatives", "fn": "false_negatives"}


def _counts_at_thresholds(labels, predictions, thresholds, weights, includes):
    """{kind: (variable, update)} of the confusion counts at each threshold (prediction >
    threshold is positive), each of shape [len(thresholds)]."""
    th = np.asarray(thresholds, np.float32).reshape(-1, 1)
    n = th.shape[0]
    predictions = _ops.reshape(_tensor(predictions, "float32"), np.array([1, -1], np.int64))
    labels = _ops.reshape(_ops.cast(_tensor(labels), "bool"), np.array([1, -1], np.int64))
    above = _ops.greater(predictions, th)
    pos = _ops.tile(labels, np.array([n, 1], np.int64))
    w = None
    if weights is not None:
        w = _ops.reshape(_ops.mul(_ops.ones_like(predictions), _tensor(weights, "float32")),
                         np.array([1, -1], np.int64))
    out = {}
    for kind in includes:
        lab = pos if kind in ("tp", "fn") else _ops.logical_not(pos)
        pred = above if kind in ("tp", "fp") else _ops.logical_not(above)
        hits = _ops.cast(_ops.logical_and(lab, pred), "float32")
        if w is not None:
            hits = _ops.mul(hits, w)
        var = _local(_COUNT_NAMES[kind], (n,))
        out[kind] = (var, _ops.assign_add(var, _m.reduce_sum(hits, axis=1)))
    return out


def _at_thresholds(kind, default_name, labels, predictions, thresholds, weights, metrics_collections,
                   updates_collections, name):
    with variable_scope(name, default_name=default_name):
        var, update = _counts_at_thresholds(labels, predictions, thresholds, weights, (kind,))[kind]
        value = _ops.identity(var)
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _at_thresholds("tp", "true_positives", labels, predictions, thresholds, weights, metrics_collections,
                          updates_collections, name)


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _at_thresholds("fp", "false_positives", labels, predictions, thresholds, weights, metrics_collections,
                          updates_collections, name)


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _at_thresholds("tn", "true_negatives", labels, predictions, thresholds, weights, metrics_collections,
                          updates_collections, name)


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _at_thresholds("fn", "false_negatives", labels, predictions, thresholds, weights, metrics_collections,
                          updates_collections, name)


def _ratio_at_thresholds(other, default_name, labels, predictions, thresholds, weights, metrics_collections,
                         updates_collections, name):
    """tp / (tp + other + 1e-7) at each threshold (precision: other = fp; recall: fn)."""
    with variable_scope(name, default_name=default_name):
        c = _counts_at_thresholds(labels, predictions, thresholds, weights, ("tp", other))

        def ratio(tp, o):
            return _ops.real_div(tp, _ops.add_v2(_ops.add_v2(tp, o), np.float32(_EPSILON)))

        value = _ops.identity(ratio(c["tp"][0], c[other][0]), name="value")
        update = _ops.identity(ratio(c["tp"][1], c[other][1]), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def precision_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    return _ratio_at_thresholds("fp", "precision_at_thresholds", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    return _ratio_at_thresholds("fn", "recall_at_thresholds", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def _even_thresholds(num_thresholds):
    th = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _EPSILON] + th + [1.0 + _EPSILON]


def _at_rate(compute, default_name, labels, predictions, rate, rate_name, weights, num_thresholds,
             metrics_collections, updates_collections, name):
    if not 0 <= rate <= 1:
        raise ValueError(f"`{rate_name}` must be in the range [0, 1]. Currently, `{rate_name}` is {rate}.")
    if num_thresholds < 2:  # noqa: PLR2004
        raise ValueError(f"num_thresholds must be > 1, got {num_thresholds}")
    with variable_scope(name, default_name=default_name):
        c = _counts_at_thresholds(labels, predictions, _even_thresholds(num_thresholds), weights,
                                  ("tp", "fn", "tn", "fp"))
        value = _ops.identity(compute(*(c[k][0] for k in ("tp", "tn", "fp", "fn"))), name="value")
        update = _ops.identity(compute(*(c[k][1] for k in ("tp", "tn", "fp", "fn"))), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def _rate(a, b):
    return _ops.real_div(a, _ops.add_v2(_ops.add_v2(a, b), np.float32(_EPSILON)))


def _at(v, i):
    return _ops.gather_v2(v, i, np.int32(0))


def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The sensitivity (recall) at the threshold whose specificity is nearest `specificity`."""
    def compute(tp, tn, fp, fn):
        spec = _rate(tn, fp)
        i = _ops.arg_min(_ops.abs(_ops.sub(spec, np.float32(specificity))), np.int32(0), output_type="int32")
        return _rate(_at(tp, i), _at(fn, i))

    return _at_rate(compute, "sensitivity_at_specificity", labels, predictions, specificity, "specificity",
                    weights, num_thresholds, metrics_collections, updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the threshold whose sensitivity is nearest `sensitivity` (the last such
    threshold, as TensorFlow picks it)."""
    def compute(tp, tn, fp, fn):
        dist = _ops.abs(_ops.sub(_rate(tp, fn), np.float32(sensitivity)))
        at_min = _ops.cast(_ops.equal(dist, _ops.min(dist, np.int32(0))), "int64")
        i = _ops.arg_max(_ops.cumsum(at_min, np.int32(0)), np.int32(0), output_type="int32")
        return _rate(_at(tn, i), _at(fp, i))

    return _at_rate(compute, "specificity_at_sensitivity", labels, predictions, sensitivity, "sensitivity",
                    weights, num_thresholds, metrics_collections, updates_collections, name)


# ------------------------------------------------------------------------------ top-k retrieval


def _dense_labels(labels):
    """Labels as int64 [batch, n] (a SparseTensor's missing entries -1: no class)."""
    if isinstance(labels, SparseTensor):
        from ..ops.sparse_ops import sparse_tensor_to_dense  # noqa: PLC0415
        labels = sparse_tensor_to_dense(labels, default_value=-1)
    labels = _ops.cast(_tensor(labels), "int64")
    if labels.shape.rank == 1:
        labels = _ops.expand_dims(labels, np.int32(1))
    elif labels.shape.rank != 2:  # noqa: PLR2004
        raise ValueError(f"labels must be [batch] or [batch, num_labels], got shape {labels.shape}")
    return labels


def _set_of(ids, depth):
    """[batch, depth] float64: 1 where the class is among the row's ids (ids outside: none)."""
    return _m.reduce_max(_ops.one_hot(_ops.cast(ids, "int64"), depth, np.float64(1), np.float64(0)), axis=1)


def _top_k_args(predictions, k):
    predictions = _tensor(predictions)
    num_classes = predictions.shape.as_list()[-1] if predictions.shape.rank == 2 else None  # noqa: PLR2004
    if num_classes is None:
        raise ValueError(f"predictions must be [batch, num_classes] with num_classes known, got {predictions.shape}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    _, idx = _ops.top_kv2(predictions, np.int32(k))
    return idx, num_classes


def _retrieval_counts(labels, predictions_idx, depth, class_id, weights):
    """Per-example tp, fp and fn of the top-k predictions against the label sets (float64);
    depth: the number of classes (an int, or an int32 tensor)."""
    labels = _dense_labels(labels)
    truth = _set_of(labels, depth)
    pred = _set_of(predictions_idx, depth)
    if class_id is not None:
        mask = _ops.one_hot(np.int64(class_id), depth, np.float64(1), np.float64(0))
        truth, pred = _ops.mul(truth, mask), _ops.mul(pred, mask)
    one = np.float64(1)
    counts = {"tp": _m.reduce_sum(_ops.mul(truth, pred), axis=1),
              "fp": _m.reduce_sum(_ops.mul(_ops.sub(one, truth), pred), axis=1),
              "fn": _m.reduce_sum(_ops.mul(truth, _ops.sub(one, pred)), axis=1)}
    if weights is not None:
        w = _ops.reshape(_ops.mul(_ops.ones_like(_ops.expand_dims(counts["tp"], np.int32(1))),
                                  _tensor(weights, "float64")), np.array([-1], np.int64))
        counts = {key: _ops.mul(v, w) for key, v in counts.items()}
    return counts


def _retrieval_ratio(other, default_name, labels, predictions_idx, num_classes, class_id, weights,
                     metrics_collections, updates_collections, name):
    if class_id is not None and isinstance(num_classes, int) and not 0 <= class_id < num_classes:
        raise ValueError(f"class_id {class_id} is not in [0, {num_classes})")
    """tp / (tp + other) over the batches seen (precision: other = fp; recall: fn); NaN while
    nothing is counted, as TensorFlow's."""
    with variable_scope(name, default_name=default_name):
        counts = _retrieval_counts(labels, predictions_idx, num_classes, class_id, weights)
        tp = _local("true_positive_at_k", (), "float64")
        ot = _local(("false_positive" if other == "fp" else "false_negative") + "_at_k", (), "float64")
        tp_up = _ops.assign_add(tp, _m.reduce_sum(counts["tp"]))
        ot_up = _ops.assign_add(ot, _m.reduce_sum(counts[other]))
        value = _ops.real_div(tp, _ops.add_v2(tp, ot), name="value")
        update = _ops.real_div(tp_up, _ops.add_v2(tp_up, ot_up), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The share of the top-k predicted classes that are labels (of class_id's predictions only,
    when given)."""
    idx, num_classes = _top_k_args(predictions, k)
    return _retrieval_ratio("fp", f"precision_at_{k}", labels, idx, num_classes, class_id, weights,
                            metrics_collections, updates_collections, name)


sparse_precision_at_k = precision_at_k


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """The share of labels among the top-k predicted classes."""
    idx, num_classes = _top_k_args(predictions, k)
    return _retrieval_ratio("fn", f"recall_at_{k}", labels, idx, num_classes, class_id, weights,
                            metrics_collections, updates_collections, name)


def _given_top_k(predictions_idx, k):
    predictions_idx = _tensor(predictions_idx)
    if predictions_idx.shape.rank != 2:  # noqa: PLR2004
        raise ValueError(f"predictions_idx must be [batch, k], got shape {predictions_idx.shape}")
    if k is not None:
        predictions_idx = _ops.strided_slice(predictions_idx, np.array([0, 0], np.int32),
                                             np.array([0, k], np.int32), np.array([1, 1], np.int32),
                                             begin_mask=1, end_mask=1)
    return predictions_idx


def _depth_of(labels, predictions_idx, class_id):
    """The number of classes the ids name (largest id + 1), for ids given without their scores."""
    labels = _dense_labels(labels)
    top = _ops.maximum(_m.reduce_max(labels), _m.reduce_max(_ops.cast(predictions_idx, "int64")))
    if class_id is not None:
        top = _ops.maximum(top, np.int64(class_id))
    return _ops.cast(_ops.maximum(_ops.add_v2(top, np.int64(1)), np.int64(1)), "int32")


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """precision_at_k from the top-k class ids already chosen ([batch, k]; the first k if k is given)."""
    idx = _given_top_k(predictions_idx, k)
    return _retrieval_ratio("fp", "precision_at_top_k", labels, idx, _depth_of(labels, idx, class_id), class_id,
                            weights, metrics_collections, updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """recall_at_k from the top-k class ids already chosen."""
    idx = _given_top_k(predictions_idx, k)
    return _retrieval_ratio("fn", "recall_at_top_k", labels, idx, _depth_of(labels, idx, class_id), class_id,
                            weights, metrics_collections, updates_collections, name)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over examples of AP@k: the sum of precision@i at each rank i <= k that retrieves
    a label, over min(k, number of labels) (dense labels: their width, as TensorFlow counts)."""
    idx, num_classes = _top_k_args(predictions, k)
    with variable_scope(name, default_name=f"average_precision_at_{k}"):
        sparse = isinstance(labels, SparseTensor)
        dense = _dense_labels(labels)
        truth = _set_of(dense, num_classes)  # [batch, classes]
        hot = _ops.one_hot(_ops.cast(idx, "int64"), np.int32(num_classes), np.float64(1), np.float64(0))
        relevant = _m.reduce_sum(_ops.mul(hot, _ops.expand_dims(truth, np.int32(1))), axis=2)  # [batch, k]
        precision = _ops.real_div(_ops.cumsum(relevant, np.int32(1)), np.arange(1, k + 1, dtype=np.float64))
        precision_sum = _m.reduce_sum(_ops.mul(relevant, precision), axis=1)
        if sparse:
            n_relevant = _ops.minimum(_m.reduce_sum(truth, axis=1), np.float64(k))
        else:
            width = dense.shape.as_list()[1]
            if width is None:
                width = _ops.cast(_ops.gather_v2(_ops.shape(dense), np.int32(1), np.int32(0)), "float64")
            n_relevant = _ops.mul(_ops.ones_like(precision_sum), _ops.minimum(np.float64(width) if isinstance(
                width, int) else width, np.float64(k)))
        ap = _ops.real_div(precision_sum, n_relevant)
        if weights is None:
            batch_max = _ops.cast(_ops.size(ap), "float64")
        else:
            w = _ops.mul(_ops.ones_like(ap), _ops.reshape(_tensor(weights, "float64"), np.array([-1], np.int64)))
            ap = _ops.mul(ap, w)
            batch_max = _m.reduce_sum(w)
        max_var = _local("max", (), "float64")
        total_var = _local("total", (), "float64")
        max_up = _ops.assign_add(max_var, batch_max)
        total_up = _ops.assign_add(total_var, _m.reduce_sum(ap))
        value = _ops.identity(_safe_div(total_var, max_var), name="mean")
        update = _ops.identity(_safe_div(total_up, max_up), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


sparse_average_precision_at_k = average_precision_at_k
