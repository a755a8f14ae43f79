"""tf.metrics beyond the basic ones (opforge/layers/metrics_more.py), each fed three random
batches and compared after every update with a NumPy computation over all batches so far;
and the bad calls each one refuses."""

import numpy as np
import pytest

import opforge.compat.v1 as tf

BATCHES = 3


def _stream(build, feeds_per_batch, placeholders):
    """Runs update then value for each batch; returns [(update_result, value_result)]."""
    with tf.Graph().as_default():
        phs = [tf.placeholder(dt, shape) for dt, shape in placeholders]
        value, update = build(*phs)
        out = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for feeds in feeds_per_batch:
                fd = dict(zip(phs, feeds))
                up = sess.run(update, fd)
                out.append((up, sess.run(value)))
    return out


def _batches(make, seed):
    rng = np.random.default_rng(seed)
    return [make(rng) for _ in range(BATCHES)]


def _check(results, batches, reference, rtol=1e-5):
    for i, (up, val) in enumerate(results):
        want = reference(batches[: i + 1])
        np.testing.assert_allclose(up, want, rtol=rtol, atol=1e-6, err_msg=f"update after batch {i}")
        np.testing.assert_allclose(val, want, rtol=rtol, atol=1e-6, err_msg=f"value after batch {i}")


def _cat(batches, j):
    return np.concatenate([b[j] for b in batches])


def test_mean_tensor():
    batches = _batches(lambda r: (r.normal(size=(2, 3)).astype(np.float32), r.random((2, 3)).astype(np.float32)), 0)
    res = _stream(lambda v, w: tf.metrics.mean_tensor(v, w), batches, [(tf.float32, [2, 3])] * 2)
    _check(res, batches, lambda bs: sum(v * w for v, w in bs) / sum(w for _, w in bs))


def test_mean_relative_error_and_percentage_below():
    def make(r):
        norm = r.normal(size=6).astype(np.float32)
        norm[0] = 0
        return r.normal(size=6).astype(np.float32), r.normal(size=6).astype(np.float32), norm

    batches = _batches(make, 1)
    res = _stream(lambda lab, pred, n: tf.metrics.mean_relative_error(lab, pred, n), batches,
                  [(tf.float32, [6])] * 3)

    def rel(bs):
        lab, pred, n = _cat(bs, 0), _cat(bs, 1), _cat(bs, 2)
        return np.mean(np.where(n == 0, 0, np.abs(lab - pred) / np.where(n == 0, 1, n)))

    _check(res, batches, rel)
    res = _stream(lambda v: tf.metrics.percentage_below(v, 0.3), [(b[0],) for b in batches], [(tf.float32, [6])])
    _check(res, [(b[0],) for b in batches], lambda bs: np.mean(_cat(bs, 0) < 0.3))


def test_mean_cosine_distance():
    def unit(r):
        x = r.normal(size=(4, 3))
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    batches = _batches(lambda r: (unit(r), unit(r)), 2)
    res = _stream(lambda a, b: tf.metrics.mean_cosine_distance(a, b, dim=1), batches, [(tf.float32, [4, 3])] * 2)
    _check(res, batches, lambda bs: 1 - np.mean(np.sum(_cat(bs, 0) * _cat(bs, 1), axis=1)))


def _confusion(labels, preds, n, w=None):
    cm = np.zeros((n, n))
    np.add.at(cm, (labels, preds), 1 if w is None else w)
    return cm


def test_mean_iou_and_mean_per_class_accuracy():
    n = 4
    batches = _batches(lambda r: (r.integers(0, n, 8), r.integers(0, n, 8), r.random(8)), 3)

    def iou(bs):
        cm = _confusion(_cat(bs, 0), _cat(bs, 1), n, _cat(bs, 2))
        den = cm.sum(0) + cm.sum(1) - np.diag(cm)
        valid = den > 0
        return np.sum(np.diag(cm)[valid] / den[valid]) / valid.sum()

    with tf.Graph().as_default():
        lab, pred, w = tf.placeholder(tf.int64, [8]), tf.placeholder(tf.int64, [8]), tf.placeholder(tf.float32, [8])
        value, update = tf.metrics.mean_iou(lab, pred, n, weights=w)
        acc, acc_update = tf.metrics.mean_per_class_accuracy(lab, pred, n)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for i, (a, b, c) in enumerate(batches):
                cm, per_class = sess.run([update, acc_update], {lab: a, pred: b, w: c})
                seen = batches[: i + 1]
                np.testing.assert_allclose(cm, _confusion(_cat(seen, 0), _cat(seen, 1), n, _cat(seen, 2)))
                np.testing.assert_allclose(sess.run(value), iou(seen), rtol=1e-5)
                counts = _confusion(_cat(seen, 0), _cat(seen, 1), n)
                want = np.diag(counts) / np.maximum(counts.sum(1), 1e-30)
                np.testing.assert_allclose(per_class, np.where(counts.sum(1) > 0, want, 0), rtol=1e-5)
                np.testing.assert_allclose(sess.run(acc), np.mean(np.where(counts.sum(1) > 0, want, 0)), rtol=1e-5)


THRESHOLDS = [0.2, 0.5, 0.8]


def _counts(bs):
    lab, pred, w = _cat(bs, 0).astype(bool), _cat(bs, 1), _cat(bs, 2)
    above = pred[None, :] > np.asarray(THRESHOLDS)[:, None]
    return {"tp": ((lab & above) * w).sum(1), "fp": ((~lab & above) * w).sum(1),
            "tn": ((~lab & ~above) * w).sum(1), "fn": ((lab & ~above) * w).sum(1)}


@pytest.mark.parametrize("metric, reference", [
    ("true_positives_at_thresholds", lambda c: c["tp"]),
    ("false_positives_at_thresholds", lambda c: c["fp"]),
    ("true_negatives_at_thresholds", lambda c: c["tn"]),
    ("false_negatives_at_thresholds", lambda c: c["fn"]),
    ("precision_at_thresholds", lambda c: c["tp"] / (c["tp"] + c["fp"] + 1e-7)),
    ("recall_at_thresholds", lambda c: c["tp"] / (c["tp"] + c["fn"] + 1e-7)),
])
def test_at_thresholds(metric, reference):
    batches = _batches(lambda r: (r.random(10) < 0.5, r.random(10).astype(np.float32),
                                  r.random(10).astype(np.float32)), 4)
    res = _stream(lambda lab, p, w: getattr(tf.metrics, metric)(lab, p, THRESHOLDS, weights=w), batches,
                  [(tf.bool, [10]), (tf.float32, [10]), (tf.float32, [10])])
    _check(res, batches, lambda bs: reference(_counts(bs)))


def test_sensitivity_at_specificity_and_specificity_at_sensitivity():
    batches = _batches(lambda r: (r.random(12) < 0.5, r.random(12).astype(np.float32)), 5)
    th = np.array([-1e-7] + [(i + 1) / 9 for i in range(8)] + [1 + 1e-7])

    def counts(bs):
        lab, pred = _cat(bs, 0), _cat(bs, 1)
        above = pred[None, :] > th[:, None]
        return ((lab & above).sum(1), (~lab & ~above).sum(1), (~lab & above).sum(1), (lab & ~above).sum(1))

    def sens(bs):
        tp, tn, fp, fn = counts(bs)
        i = np.argmin(np.abs(tn / (tn + fp + 1e-7) - 0.7))
        return tp[i] / (tp[i] + fn[i] + 1e-7)

    def spec(bs):
        tp, tn, fp, fn = counts(bs)
        d = np.abs(tp / (tp + fn + 1e-7) - 0.6)
        i = np.flatnonzero(d == d.min())[-1]
        return tn[i] / (tn[i] + fp[i] + 1e-7)

    phs = [(tf.bool, [12]), (tf.float32, [12])]
    _check(_stream(lambda lab, p: tf.metrics.sensitivity_at_specificity(lab, p, 0.7, num_thresholds=10), batches,
                   phs), batches, sens)
    _check(_stream(lambda lab, p: tf.metrics.specificity_at_sensitivity(lab, p, 0.6, num_thresholds=10), batches,
                   phs), batches, spec)


def _retrieval(bs, k, class_id=None):
    tp = fp = fn = 0.0
    for labels, scores in bs:
        for lab, s in zip(labels, scores):
            truth = {int(v) for v in np.atleast_1d(lab) if 0 <= v < s.size}
            top = set(np.argsort(-s, kind="stable")[:k].tolist())
            if class_id is not None:
                truth, top = truth & {class_id}, top & {class_id}
            tp += len(truth & top)
            fp += len(top - truth)
            fn += len(truth - top)
    return tp, fp, fn


def _ap(bs, k):
    total = count = 0.0
    for labels, scores in bs:
        for lab, s in zip(labels, scores):
            truth = {int(v) for v in lab if v >= 0}
            top = np.argsort(-s, kind="stable")[:k]
            hits = np.array([t in truth for t in top], float)
            prec = np.cumsum(hits) / np.arange(1, k + 1)
            total += np.sum(hits * prec) / min(k, len(lab))
            count += 1
    return total / count


@pytest.mark.parametrize("class_id", [None, 2])
def test_top_k_retrieval_metrics(class_id):
    k, n = 2, 5
    batches = _batches(lambda r: (r.integers(-1, n, (4, 2)), r.normal(size=(4, n)).astype(np.float32)), 6)
    phs = [(tf.int64, [4, 2]), (tf.float32, [4, n])]
    prec = _stream(lambda lab, s: tf.metrics.precision_at_k(lab, s, k, class_id=class_id), batches, phs)
    rec = _stream(lambda lab, s: tf.metrics.recall_at_k(lab, s, k, class_id=class_id), batches, phs)
    top_prec = _stream(lambda lab, s: tf.metrics.precision_at_top_k(lab, tf.nn.top_k(s, k)[1], class_id=class_id),
                       batches, phs)
    top_rec = _stream(lambda lab, s: tf.metrics.recall_at_top_k(lab, tf.nn.top_k(s, k + 1)[1], k=k,
                                                                class_id=class_id), batches, phs)

    def p(bs):
        tp, fp, _ = _retrieval(bs, k, class_id)
        return tp / (tp + fp) if tp + fp else np.nan

    def r(bs):
        tp, _, fn = _retrieval(bs, k, class_id)
        return tp / (tp + fn) if tp + fn else np.nan

    _check(prec, batches, p)
    _check(top_prec, batches, p)
    _check(rec, batches, r)
    _check(top_rec, batches, r)
    if class_id is None:
        ap = _stream(lambda lab, s: tf.metrics.average_precision_at_k(lab, s, 3), batches, phs)
        _check(ap, batches, lambda bs: _ap(bs, 3))


def test_bad_calls():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 5])
        lab = tf.placeholder(tf.int64, [4])
        with pytest.raises(ValueError, match="must be in the range"):
            tf.metrics.sensitivity_at_specificity(lab, x, 1.5)
        with pytest.raises(ValueError, match="num_classes must be a positive int"):
            tf.metrics.mean_iou(lab, lab, 0)
        with pytest.raises(ValueError, match="k must be a positive int"):
            tf.metrics.precision_at_k(lab, x, 0)
        with pytest.raises(ValueError, match=r"class_id 7 is not in \[0, 5\)"):
            tf.metrics.recall_at_k(lab, x, 2, class_id=7)
        with pytest.raises(ValueError, match="num_classes known"):
            tf.metrics.recall_at_k(lab, tf.placeholder(tf.float32, [4, None]), 2)
        with pytest.raises(ValueError, match="must be fully known"):
            tf.metrics.mean_tensor(tf.placeholder(tf.float32, [None]))
