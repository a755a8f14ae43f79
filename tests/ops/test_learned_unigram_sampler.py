"""LearnedUnigramCandidateSampler (tf.nn / tf.random.learned_unigram_candidate_sampler): the
distribution it learns from the true classes of its earlier runs (NumPy bookkeeping of the
counts), TensorFlow's expected counts when it is installed, and the diagnostics."""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf

TRUE = np.array([[3, 3], [3, 1]], np.int64)


def _runs(module, runs, unique=False, sampler="nn"):
    g = module.Graph()
    with g.as_default():
        op = getattr(module, sampler).learned_unigram_candidate_sampler(TRUE, 2, 4, unique, 5, seed=7)
        with module.Session(graph=g) as sess:
            return [sess.run(op) for _ in range(runs)]


def test_learns_the_true_classes():
    weights = np.ones(5)
    for sampled, true_expected, sampled_expected in _runs(tf, 4):
        p = weights / weights.sum()  # the counts learned before this run
        np.testing.assert_allclose(true_expected, 4 * p[TRUE], rtol=1e-6)
        np.testing.assert_allclose(sampled_expected, 4 * p[sampled], rtol=1e-6)
        assert sampled.dtype == np.int64 and ((sampled >= 0) & (sampled < 5)).all()
        np.add.at(weights, TRUE.ravel(), 1)


def test_samples_follow_the_learned_counts():
    g = tf.Graph()
    with g.as_default():
        op = tf.random.learned_unigram_candidate_sampler(np.full((1, 50), 2, np.int64), 50, 200, False, 4, seed=3)
        with tf.Session() as sess:
            sess.run(op)  # learns class 2 fifty times: weights 1, 1, 51, 1
            sampled = np.concatenate([sess.run(op)[0] for _ in range(5)])
    # runs 2..6 see weights 1,1,51+50(r-1),1; class 2 dominates more and more
    share = np.mean(sampled == 2)
    assert 0.9 < share <= 1.0
    unique = _runs(tf, 2, unique=True, sampler="random")
    for sampled, _, _ in unique:
        assert len(set(sampled.tolist())) == 4


def test_each_graph_node_learns_for_itself():
    g = tf.Graph()
    with g.as_default():
        one = tf.nn.learned_unigram_candidate_sampler(TRUE, 2, 4, False, 5, seed=1)
        two = tf.nn.learned_unigram_candidate_sampler(TRUE, 2, 4, False, 5, seed=1)
        with tf.Session() as sess:
            sess.run(one)
            sess.run(one)
            np.testing.assert_allclose(sess.run(two)[1], np.full((2, 2), 0.8))


def test_matches_tensorflow_expected_counts():
    real = pytest.importorskip("tensorflow").compat.v1
    for (_, got_true, _), (_, want_true, _) in zip(_runs(tf, 3), _runs(real, 3)):
        np.testing.assert_allclose(got_true, want_true, rtol=1e-6)


def test_diagnostics(graph):
    bad_class = tf.nn.learned_unigram_candidate_sampler(np.array([[7]], np.int64), 1, 2, False, 5)
    too_many = tf.nn.learned_unigram_candidate_sampler(np.array([[1]], np.int64), 1, 6, True, 5)
    with tf.Session() as sess:
        with pytest.raises(of.InvalidArgumentError, match="LearnedUnigramCandidateSampler.*range_max"):
            sess.run(bad_class)
        with pytest.raises(of.InvalidArgumentError, match="LearnedUnigramCandidateSampler.*range is too small"):
            sess.run(too_many)
