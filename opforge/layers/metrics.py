"""Streaming metrics (TensorFlow 1's tf.metrics): each returns ``(value, update_op)``.

A metric keeps its running state in local variables (the LOCAL_VARIABLES and METRIC_VARIABLES
collections, initialized by ``local_variables_initializer``); ``update_op`` folds one batch in
and returns the updated value, ``value`` reads the current one. Ratios are 0 while their
denominator is 0, as TensorFlow's are.
"""

from __future__ import annotations

import numpy as np

from . import initializers as _init
from ..ops import math_ops as _m
from .. import ops as _ops
from ..framework.graph import get_default_graph
from ..framework.tensor import convert_to_tensor
from ..framework.variable_scope import get_variable, variable_scope

from ..framework.collections import LOCAL_VARIABLES, METRIC_VARIABLES

__all__ = ["mean", "accuracy", "precision", "recall", "true_positives", "false_positives", "false_negatives",
           "true_negatives", "mean_squared_error", "root_mean_squared_error", "mean_absolute_error", "auc"]


def _tensor(x, dtype=None):
    if not (hasattr(x, "graph") or hasattr(x, "_graph_for_dispatch")):
        x = _ops.identity(convert_to_tensor(x, dtype))
    return x if dtype is None or x.dtype == dtype else _ops.cast(x, dtype)


def _local(name, shape=(), dtype="float32"):
    return get_variable(name, list(shape), dtype, initializer=_init.zeros_initializer(), trainable=False,
                        collections=[LOCAL_VARIABLES, METRIC_VARIABLES])


def _ratio(num, den, name=None):
    zero = np.asarray(0, num.dtype.as_numpy_dtype)
    return _ops.select_v2(_ops.greater(den, zero), _ops.real_div(num, _ops.maximum(den, np.asarray(
        1e-30, num.dtype.as_numpy_dtype))), zero, name=name)


def _collect(metrics_collections, updates_collections, value, update):
    g = get_default_graph()
    for c in metrics_collections or []:
        g.add_to_collection(c, value)
    for c in updates_collections or []:
        g.add_to_collection(c, update)


def _weights_like(values, weights):
    if weights is None:
        return _ops.ones_like(values)
    return _ops.mul(_ops.ones_like(values), _tensor(weights, values.dtype))


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The weighted mean of every value seen."""
    with variable_scope(name, default_name="mean"):
        values = _tensor(values)
        if not values.dtype.is_floating:
            values = _ops.cast(values, "float32")
        total = _local("total", dtype=values.dtype)
        count = _local("count", dtype=values.dtype)
        w = _weights_like(values, weights)
        update_total = _ops.assign_add(total, _m.reduce_sum(_ops.mul(values, w)))
        update_count = _ops.assign_add(count, _m.reduce_sum(w))
        value = _ratio(total, count, name="value")
        update = _ratio(update_total, update_count, name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often predictions equal labels (weighted)."""
    predictions = _tensor(predictions)
    labels = _tensor(labels, predictions.dtype)
    with get_default_graph().name_scope(name or "accuracy"):
        correct = _ops.cast(_ops.equal(predictions, labels), "float32")
    return mean(correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _confusion(kind, labels, predictions, weights):
    labels = _ops.cast(_tensor(labels), "bool")
    predictions = _ops.cast(_tensor(predictions), "bool")
    want_label, want_pred = {"tp": (True, True), "fp": (False, True), "fn": (True, False),
                             "tn": (False, False)}[kind]
    lab = labels if want_label else _ops.logical_not(labels)
    pred = predictions if want_pred else _ops.logical_not(predictions)
    hits = _ops.cast(_ops.logical_and(lab, pred), "float32")
    return _ops.mul(hits, _weights_like(hits, weights)) if weights is not None else hits


def _counter(kind, default_name, labels, predictions, weights, metrics_collections, updates_collections, name):
    with variable_scope(name, default_name=default_name):
        count = _local("count")
        update = _ops.assign_add(count, _m.reduce_sum(_confusion(kind, labels, predictions, weights)))
        value = _ops.identity(count)
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def true_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _counter("tp", "true_positives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _counter("fp", "false_positives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _counter("fn", "false_negatives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _counter("tn", "true_negatives", labels, predictions, weights, metrics_collections,
                    updates_collections, name)


def _two_counter_ratio(first, second, default_name, labels, predictions, weights, metrics_collections,
                       updates_collections, name):
    """first / (first + second) over the batches seen (precision: tp / (tp + fp))."""
    with variable_scope(name, default_name=default_name):
        a, a_up = _counter(first, first, labels, predictions, weights, None, None, None)
        b, b_up = _counter(second, second, labels, predictions, weights, None, None, None)
        value = _ratio(a, _ops.add_v2(a, b), name="value")
        update = _ratio(a_up, _ops.add_v2(a_up, b_up), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _two_counter_ratio("tp", "fp", "precision", labels, predictions, weights, metrics_collections,
                              updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    return _two_counter_ratio("tp", "fn", "recall", labels, predictions, weights, metrics_collections,
                              updates_collections, name)


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    predictions = _tensor(predictions)
    sq = _ops.squared_difference(predictions, _tensor(labels, predictions.dtype))
    return mean(sq, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    predictions = _tensor(predictions)
    err = _ops.abs(_ops.sub(predictions, _tensor(labels, predictions.dtype)))
    return mean(err, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    value, update = mean_squared_error(labels, predictions, weights, None, None, name or "root_mean_squared_error")
    value, update = _ops.sqrt(value), _ops.sqrt(update)
    _collect(metrics_collections, updates_collections, value, update)
    return value, update


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """Area under the ROC (or PR) curve from confusion counts at num_thresholds thresholds
    evenly spaced in [0, 1] (TensorFlow's trapezoidal approximation)."""
    if curve not in ("ROC", "PR"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    if summation_method not in ("trapezoidal", "careful_interpolation"):
        raise ValueError(f"summation_method {summation_method} is not supported by opforge yet")
    eps = 1e-7
    if thresholds is None:
        th = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        th = [0.0 - eps] + th + [1.0 + eps]
    else:
        th = [0.0 - eps] + list(thresholds) + [1.0 + eps]
    th = np.asarray(th, np.float32)
    n = len(th)
    with variable_scope(name, default_name="auc"):
        predictions = _ops.reshape(_tensor(predictions, "float32"), np.array([1, -1], np.int64))
        labels = _ops.reshape(_ops.cast(_tensor(labels), "bool"), np.array([1, -1], np.int64))
        w = None if weights is None else _ops.reshape(_ops.mul(_ops.ones_like(predictions),
                                                               _tensor(weights, "float32")), np.array([1, -1], np.int64))
        above = _ops.greater(predictions, th.reshape(-1, 1))  # [n, batch]
        pos = _ops.tile(labels, np.array([n, 1], np.int64))
        counts = {}
        for key, lab, pred in (("tp", pos, above), ("fn", pos, _ops.logical_not(above)),
                               ("tn", _ops.logical_not(pos), _ops.logical_not(above)),
                               ("fp", _ops.logical_not(pos), above)):
            hits = _ops.cast(_ops.logical_and(lab, pred), "float32")
            if w is not None:
                hits = _ops.mul(hits, w)
            var = _local({"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                          "fp": "false_positives"}[key], (n,))
            counts[key] = (var, _ops.assign_add(var, _m.reduce_sum(hits, 1)))

        def area(tp, fn, tn, fp):
            e = np.float32(eps)
            if curve == "ROC":
                x = _ops.real_div(fp, _ops.add_v2(fp, tn) + e)
                y = _ops.real_div(_ops.add_v2(tp, e), _ops.add_v2(tp, fn) + e)
            else:
                x = _ops.real_div(_ops.add_v2(tp, e), _ops.add_v2(tp, fn) + e)
                y = _ops.real_div(_ops.add_v2(tp, e), _ops.add_v2(tp, fp) + e)
            dx = _ops.sub(_ops.strided_slice(x, np.array([0], np.int32), np.array([n - 1], np.int32),
                                             np.array([1], np.int32)),
                          _ops.strided_slice(x, np.array([1], np.int32), np.array([n], np.int32),
                                             np.array([1], np.int32)))
            ym = _ops.mul(_ops.add_v2(_ops.strided_slice(y, np.array([0], np.int32), np.array([n - 1], np.int32),
                                                         np.array([1], np.int32)),
                                      _ops.strided_slice(y, np.array([1], np.int32), np.array([n], np.int32),
                                                         np.array([1], np.int32))), np.float32(0.5))
            return _m.reduce_sum(_ops.mul(dx, ym))
        value = _ops.identity(area(*(counts[k][0] for k in ("tp", "fn", "tn", "fp"))), name="value")
        update = _ops.identity(area(*(counts[k][1] for k in ("tp", "fn", "tn", "fp"))), name="update_op")
    _collect(metrics_collections, updates_collections, value, update)
    return value, update
