"""CTCLoss and CTCGreedyDecoder (tf.nn.ctc_loss, ctc_loss_v2, ctc_greedy_decoder) against NumPy:
the loss by enumerating every alignment path of a small problem, its gradient by central
differences in float64, the decoder by argmax; and each bad input's typed error naming the op.
(On random inputs every variant here also equals TensorFlow 2.21's answer, checked by hand.)"""

import itertools

import numpy as np
import pytest

import opforge.compat.v1 as tf
from opforge.framework.errors import InvalidArgumentError

T, B, C = 4, 3, 4  # blank = 3
LABELS = [[0, 0], [1, 2], [2]]
SEQ = [4, 4, 3]


def _sparse(labels):
    idx = [[b, t] for b, row in enumerate(labels) for t in range(len(row))]
    vals = [v for row in labels for v in row]
    return tf.SparseTensor(np.asarray(idx, np.int64).reshape(-1, 2), np.asarray(vals, np.int32),
                           [len(labels), max(len(r) for r in labels)])


def _collapse(path, blank, merge):
    out, prev = [], None
    for p in path:
        if p != blank and not (merge and p == prev):
            out.append(p)
        prev = p
    return out


def _brute_loss(x, labels, seq, merge=True, preprocess=False):
    """-log of the summed probability of every path that collapses to the labels."""
    losses = []
    for b, lab in enumerate(labels):
        if preprocess:
            lab = [v for i, v in enumerate(lab) if i == 0 or v != lab[i - 1]]
        logits = x[: seq[b], b]
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        total = sum(np.prod([p[t, k] for t, k in enumerate(path)])
                    for path in itertools.product(range(C), repeat=seq[b])
                    if _collapse(path, C - 1, merge) == list(lab))
        losses.append(-np.log(total))
    return np.asarray(losses)


@pytest.mark.parametrize("merge, preprocess", [(True, False), (False, False), (True, True)])
def test_ctc_loss_matches_all_paths(merge, preprocess):
    x = np.random.default_rng(0).normal(size=(T, B, C))
    with tf.Graph().as_default():
        loss = tf.nn.ctc_loss(_sparse(LABELS), tf.constant(x), SEQ, preprocess_collapse_repeated=preprocess,
                              ctc_merge_repeated=merge)
        with tf.Session() as sess:
            got = sess.run(loss)
    np.testing.assert_allclose(got, _brute_loss(x, LABELS, SEQ, merge, preprocess), rtol=1e-10)


def test_ctc_loss_gradient_and_batch_major_inputs():
    x = np.random.default_rng(1).normal(size=(B, T, C))  # time_major=False
    w = np.array([1.0, -2.0, 0.5])
    with tf.Graph().as_default():
        xi = tf.placeholder(tf.float64, [B, T, C])
        loss = tf.nn.ctc_loss(_sparse(LABELS), xi, SEQ, time_major=False)
        (g,) = tf.gradients(tf.reduce_sum(loss * w), xi)
        with tf.Session() as sess:
            got = sess.run(g, {xi: x})
            numeric = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                e = np.zeros_like(x)
                e[i] = 1e-6
                hi, lo = sess.run(loss, {xi: x + e}), sess.run(loss, {xi: x - e})
                numeric[i] = np.dot(w, hi - lo) / 2e-6
    np.testing.assert_allclose(got, numeric, atol=1e-6)
    assert np.all(got[2, 3] == 0)  # past entry 2's sequence length


def test_ctc_loss_v2_dense_labels_and_blank_index():
    x = np.random.default_rng(2).normal(size=(T, B, C)).astype(np.float32)
    # the same problem with the blank moved to class 0: classes shift up by one
    moved = np.concatenate([x[:, :, 3:], x[:, :, :3]], axis=2)
    with tf.Graph().as_default():
        dense = tf.constant([[1, 1], [2, 3], [3, 0]])
        loss = tf.nn.ctc_loss_v2(dense, tf.constant(moved), tf.constant([2, 2, 1]), SEQ)
        with tf.Session() as sess:
            got = sess.run(loss)
    np.testing.assert_allclose(got, _brute_loss(x.astype(np.float64), LABELS, SEQ), rtol=1e-5)


def test_ignore_longer_outputs_than_inputs():
    x = np.random.default_rng(3).normal(size=(T, B, C))
    labels = [[0, 0, 0], [1], [2]]  # 0 0 0 needs 5 steps (a blank between the repeats)
    with tf.Graph().as_default():
        xi = tf.constant(x)
        loss = tf.nn.ctc_loss(_sparse(labels), xi, SEQ, ignore_longer_outputs_than_inputs=True)
        (g,) = tf.gradients(tf.reduce_sum(loss), xi)
        with tf.Session() as sess:
            got, grad = sess.run([loss, g])
        with pytest.raises(InvalidArgumentError, match=r"CTCLoss.*Not enough time .*required: 5, available: 4"):
            tf.Session().run(tf.nn.ctc_loss(_sparse(labels), xi, SEQ))
    assert got[0] == 0 and np.all(grad[:, 0] == 0)
    np.testing.assert_allclose(got[1:], _brute_loss(x[:, 1:], labels[1:], SEQ[1:]), rtol=1e-10)


def test_ctc_greedy_decoder_matches_argmax():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(6, 3, 4)).astype(np.float32)
    seq = np.array([6, 3, 0], np.int32)
    for merge in (True, False):
        with tf.Graph().as_default():
            (dec,), logp = tf.nn.ctc_greedy_decoder(tf.constant(x), seq, merge_repeated=merge)
            with tf.Session() as sess:
                d, lp = sess.run([dec, logp])
        want, want_lp = [], []
        for b in range(3):
            path = x[: seq[b], b].argmax(1) if seq[b] else np.zeros(0, int)
            want.append(_collapse(list(path), 3, merge))
            want_lp.append(-x[: seq[b], b].max(1).sum() if seq[b] else 0.0)
        got = [[] for _ in range(3)]
        for (b, t), v in zip(d.indices, d.values):
            assert t == len(got[b])
            got[b].append(int(v))
        assert got == want
        assert list(d.dense_shape) == [3, max(len(w) for w in want)]
        np.testing.assert_allclose(lp[:, 0], want_lp, rtol=1e-6)


def test_bad_calls_raise_typed_errors_naming_the_op():
    x = np.zeros((T, B, C))
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="labels` to be a SparseTensor"):
            tf.nn.ctc_loss([[0]], tf.constant(x), SEQ)
        cases = [
            (lambda: tf.nn.ctc_loss(_sparse([[3], [0], [0]]), tf.constant(x), SEQ), "label values must be in"),
            (lambda: tf.nn.ctc_loss(_sparse(LABELS), tf.constant(x), [5, 4, 4]), r"sequence_length\(0\) = 5"),
            (lambda: tf.nn.ctc_loss(_sparse(LABELS), tf.constant(x), [4, 4]), "batch size 3 but sequence_length has 2"),
            (lambda: tf.nn.ctc_greedy_decoder(tf.constant(x), SEQ, blank_index=7)[1], "blank_index 7"),
            (lambda: tf.nn.ctc_loss(_sparse(LABELS), tf.constant(np.zeros((T, B, 0))), SEQ),
             "num_classes must be at least 1"),
        ]
        for build, message in cases:
            with pytest.raises(InvalidArgumentError, match=message) as e:
                tf.Session().run(build())
            assert "CTC" in str(e.value)
        with pytest.raises(InvalidArgumentError, match="CTCLoss: inputs must be rank 3"):
            tf.nn.ctc_loss(_sparse(LABELS), tf.constant(np.zeros((2, 2))), SEQ)


def test_batch_mismatch_found_at_run_time():
    with tf.Graph().as_default():
        seq = tf.placeholder(tf.int32, [None])
        xi = tf.constant(np.zeros((T, B, C)))
        loss = tf.nn.ctc_loss(_sparse(LABELS), xi, seq)
        (dec,), _ = tf.nn.ctc_greedy_decoder(xi, seq)
        for fetch, op in ((loss, "CTCLoss"), (dec.values, "CTCGreedyDecoder")):
            with pytest.raises(InvalidArgumentError, match=op + ": inputs has batch size 3 but sequence_length has 2"):
                tf.Session().run(fetch, {seq: [4, 4]})


@pytest.mark.parametrize("indices, values, message", [
    ([[0, 1], [0, 0]], [0, 1], "labels indices must be ordered"),
    ([[0, 0], [5, 0]], [0, 1], r"labels batch index 5 is not in \[0, 3\)"),
    ([[0, 0], [1, 0]], [0], "labels_indices has 2 rows but labels_values has 1 values"),
    ([[0, 0, 0]], [0], r"labels_indices must be \[n, 2\]"),
])
def test_malformed_sparse_labels(indices, values, message):
    from opforge import ops  # noqa: PLC0415
    with tf.Graph().as_default():
        loss, _ = ops.ctc_loss(tf.constant(np.zeros((T, B, C), np.float32)), np.asarray(indices, np.int64),
                               np.asarray(values, np.int32), np.asarray(SEQ, np.int32))
        with pytest.raises(InvalidArgumentError, match="CTCLoss.*" + message):
            tf.Session().run(loss)


def test_collapse_repeated():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, (4, 6)).astype(np.int32)
    lengths = np.array([6, 0, 3, 5], np.int32)
    with tf.Graph().as_default():
        out, new_len = tf.nn.collapse_repeated(tf.constant(labels), tf.constant(lengths))
        with tf.Session() as sess:
            got, got_len = sess.run([out, new_len])
    rows = [[v for i, v in enumerate(r[:n]) if i == 0 or v != r[i - 1]] for r, n in zip(labels, lengths)]
    want = np.zeros((4, max(len(r) for r in rows)), np.int32)
    for i, r in enumerate(rows):
        want[i, :len(r)] = r
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_len, [len(r) for r in rows])
    with pytest.raises(ValueError, match="labels must be"):
        tf.nn.collapse_repeated(tf.constant([1, 2]), tf.constant([2]))
