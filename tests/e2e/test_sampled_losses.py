"""Candidate sampling and the sampled losses: LogUniformCandidateSampler's uniqueness,
expected counts, seeding and errors (its distribution: tests/ops/test_random.py); nce_loss and sampled_softmax_loss against a
NumPy reference and against TensorFlow (given the same sampled classes), their float64
gradients checked numerically, and a word2vec-style model that trains."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError


def _probability(k, range_max):
    return np.log((k + 2.0) / (k + 1.0)) / np.log(range_max + 1.0)


def _sample(num_sampled, unique, range_max, true_classes=((0,),), seed=(7, 11)):
    s, te, se = of.raw_ops.LogUniformCandidateSampler(
        true_classes=np.asarray(true_classes, np.int64), num_true=len(true_classes[0]), num_sampled=num_sampled,
        unique=unique, range_max=range_max, seed=seed[0], seed2=seed[1])
    return s.numpy(), te.numpy(), se.numpy()


def test_unique_samples_and_their_expected_counts():
    range_max, n = 50, 30
    sampled, true_expected, sampled_expected = _sample(n, True, range_max, true_classes=[[1, 40]])
    assert len(set(sampled.tolist())) == n
    # 1 - (1 - p)^tries for one number of tries >= n shared by every class.
    p = _probability(sampled, range_max)
    solvable = sampled_expected < 0.999  # float32 counts of frequent classes round to 1
    tries = np.log1p(-sampled_expected[solvable].astype(np.float64)) / np.log1p(-p[solvable])
    assert solvable.sum() > n // 2 and tries.min() >= n - 1e-2 and np.ptp(tries) < 1e-2 * tries.mean()
    np.testing.assert_allclose(true_expected.ravel(), -np.expm1(tries.mean() * np.log1p(-_probability(
        np.array([1, 40]), range_max))), rtol=1e-3)


def test_seeds_select_the_stream():
    def draw(seed):
        with tf1.Graph().as_default():
            tf1.set_random_seed(seed)
            s, _, _ = tf1.nn.log_uniform_candidate_sampler(np.array([[1]]), 1, 16, True, 1000)
            with tf1.Session() as sess:
                return sess.run(s), sess.run(s)
    a1, a2 = draw(1)
    b1, _ = draw(1)
    c1, _ = draw(2)
    np.testing.assert_array_equal(a1, b1)
    assert not np.array_equal(a1, a2) and not np.array_equal(a1, c1)


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_sampled=10, unique=True, range_max=5), "range is too small"),
    (dict(num_sampled=2, unique=False, range_max=5, true_classes=[[7]]), r"true_classes\[0, 0\] = 7 is not in"),
    (dict(num_sampled=2, unique=False, range_max=5, true_classes=[[-1]]), "is not in"),
])
def test_bad_sampler_calls_raise(kwargs, message):
    true_classes = kwargs.pop("true_classes", [[0]])
    with pytest.raises(InvalidArgumentError, match=message):
        _sample(true_classes=true_classes, **kwargs)


def test_true_classes_must_be_a_matrix():
    with pytest.raises(InvalidArgumentError, match="matrix"):
        of.raw_ops.LogUniformCandidateSampler(true_classes=np.array([1, 2], np.int64), num_true=1, num_sampled=2,
                                              unique=False, range_max=5)


# ---------------------------------------------------------------- the losses


def _problem(seed=0, batch=6, dim=5, classes=30, num_true=2, num_sampled=7, dtype=np.float64):
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=(classes, dim)).astype(dtype)
    biases = rng.normal(size=classes).astype(dtype)
    inputs = rng.normal(size=(batch, dim)).astype(dtype)
    labels = rng.integers(0, classes, size=(batch, num_true)).astype(np.int64)
    sampled = rng.choice(classes, size=num_sampled, replace=False).astype(np.int64)
    sampled[0] = labels[0, 0]  # one accidental hit
    true_expected = rng.uniform(0.1, 2.0, size=(batch, num_true)).astype(np.float32)
    sampled_expected = rng.uniform(0.1, 2.0, size=num_sampled).astype(np.float32)
    return weights, biases, inputs, labels, (sampled, true_expected, sampled_expected)


def _np_logits(weights, biases, inputs, labels, sampled_values, remove_accidental_hits):
    sampled, true_expected, sampled_expected = sampled_values
    log_q_true, log_q_sampled = (np.log(c.astype(inputs.dtype)) for c in (true_expected, sampled_expected))
    true_logits = np.einsum("bd,btd->bt", inputs, weights[labels]) + biases[labels] - log_q_true
    sampled_logits = inputs @ weights[sampled].T + biases[sampled] - log_q_sampled
    if remove_accidental_hits:
        hits = (labels[:, :, None] == sampled[None, None, :]).any(axis=1)
        sampled_logits = sampled_logits + hits * -np.finfo(np.float32).max
    num_true = labels.shape[1]
    logits = np.concatenate([true_logits, sampled_logits], axis=1)
    targets = np.concatenate([np.full_like(true_logits, 1.0 / num_true), np.zeros_like(sampled_logits)], axis=1)
    return logits, targets


def _np_nce(*args, remove_accidental_hits=False):
    logits, z = _np_logits(*args, remove_accidental_hits)
    return (np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))).sum(axis=1)


def _np_sampled_softmax(*args, remove_accidental_hits=True):
    logits, z = _np_logits(*args, remove_accidental_hits)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -(z * log_softmax).sum(axis=1)


@pytest.mark.parametrize("hits", [False, True])
def test_nce_loss_matches_numpy(hits):
    w, b, x, labels, sv = _problem(1)
    got = of.nn.nce_loss(w, b, labels, x, num_sampled=7, num_classes=30, num_true=2, sampled_values=sv,
                         remove_accidental_hits=hits).numpy()
    np.testing.assert_allclose(got, _np_nce(w, b, x, labels, sv, remove_accidental_hits=hits), rtol=1e-10)


@pytest.mark.parametrize("hits", [False, True])
def test_sampled_softmax_loss_matches_numpy(hits):
    w, b, x, labels, sv = _problem(2)
    got = of.nn.sampled_softmax_loss(w, b, labels, x, num_sampled=7, num_classes=30, num_true=2,
                                     sampled_values=sv, remove_accidental_hits=hits).numpy()
    np.testing.assert_allclose(got, _np_sampled_softmax(w, b, x, labels, sv, remove_accidental_hits=hits),
                               rtol=1e-10)


def test_sharded_weights_use_the_partition_strategy():
    w, b, x, labels, sv = _problem(3, classes=31)
    for strategy in ("mod", "div"):
        if strategy == "mod":
            shards = [w[i::3] for i in range(3)]
        else:
            shards = np.array_split(w, 3)
        got = of.nn.nce_loss(shards, b, labels, x, 7, 31, num_true=2, sampled_values=sv,
                             partition_strategy=strategy).numpy()
        np.testing.assert_allclose(got, _np_nce(w, b, x, labels, sv), rtol=1e-10)


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_gradients_match_finite_differences(loss):
    w0, b0, x0, labels, sv = _problem(4, batch=3, dim=3, classes=10, num_sampled=4)
    with tf1.Graph().as_default():
        w, b, x = (tf1.placeholder(tf1.float64, v.shape) for v in (w0, b0, x0))
        total = tf1.reduce_sum(getattr(tf1.nn, loss)(w, b, labels, x, 4, 10, num_true=2, sampled_values=sv))
        grads = tf1.gradients(total, [w, b, x])
        with tf1.Session() as sess:
            feed = {w: w0, b: b0, x: x0}
            analytic = sess.run(grads, feed)
            eps = 1e-6
            for k, (ph, base) in enumerate(zip((w, b, x), (w0, b0, x0))):
                numeric = np.zeros_like(base)
                for idx in np.ndindex(base.shape):
                    for sign in (1, -1):
                        moved = base.copy()
                        moved[idx] += sign * eps
                        numeric[idx] += sign * sess.run(total, {**feed, ph: moved}) / (2 * eps)
                np.testing.assert_allclose(analytic[k], numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_same_as_tensorflow_given_the_samples(loss):
    tf = pytest.importorskip("tensorflow")
    w, b, x, labels, sv = _problem(5, dtype=np.float32)
    ours = getattr(of.nn, loss)(w, b, labels, x, 7, 30, num_true=2, sampled_values=sv).numpy()
    theirs = getattr(tf.nn, loss)(w, b, labels, x, 7, 30, num_true=2, sampled_values=sv).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-5)


def test_word2vec_style_training_lowers_the_loss():
    rng = np.random.default_rng(6)
    vocab, dim, batch = 50, 8, 64
    # Skip-gram pairs from a corpus where word w is always followed by (w + 1) % vocab.
    words = rng.integers(0, vocab, size=batch)
    with tf1.Graph().as_default():
        tf1.set_random_seed(3)
        inputs = tf1.placeholder(tf1.int32, [batch])
        labels = tf1.placeholder(tf1.int32, [batch, 1])
        embeddings = tf1.Variable(tf1.random_uniform([vocab, dim], -1.0, 1.0))
        nce_w = tf1.Variable(tf1.truncated_normal([vocab, dim], stddev=0.3))
        nce_b = tf1.Variable(tf1.zeros([vocab]))
        embed = tf1.nn.embedding_lookup(embeddings, inputs)
        loss = tf1.reduce_mean(tf1.nn.nce_loss(nce_w, nce_b, labels, embed, num_sampled=8, num_classes=vocab))
        train = tf1.train.AdamOptimizer(0.05).minimize(loss)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            feed = {inputs: words, labels: ((words + 1) % vocab)[:, None]}
            first = np.mean([sess.run(loss, feed) for _ in range(5)])
            for _ in range(300):
                sess.run(train, feed)
            last = np.mean([sess.run(loss, feed) for _ in range(5)])
    assert last < 0.3 * first
