"""Candidate samplers (UniformCandidateSampler, FixedUnigramCandidateSampler, AllCandidateSampler)
and ComputeAccidentalHits: sample frequencies against the distributions, expected counts,
unique sampling, determinism for a seed, the TF1 spellings, and typed errors."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError
from opforge.ops import candidate_sampling_ops as cs
from opmatrix import covers

T = np.array([[1, 2], [3, 4]], np.int64)


def _frequencies_match(samples, p, n):
    counts = np.bincount(samples, minlength=len(p))
    sd = np.sqrt(n * p * (1 - p))
    assert (np.abs(counts - n * p) <= 5 * sd + 1).all(), (counts, n * p)


def test_uniform_sampler():
    n = 20000
    with covers("statistical", "UniformCandidateSampler"):
        s, te, se = (t.numpy() for t in cs.uniform_candidate_sampler(T, 2, n, False, 10, seed=3))
        _frequencies_match(s, np.full(10, 0.1), n)
        np.testing.assert_allclose(te, np.full((2, 2), n / 10), rtol=1e-6)
        np.testing.assert_allclose(se, np.full(n, n / 10), rtol=1e-6)
    s, te, se = (t.numpy() for t in cs.uniform_candidate_sampler(T, 2, 6, True, 8, seed=4))
    assert len(set(s.tolist())) == 6 and ((0 <= s) & (s < 8)).all()
    assert (te > 0).all() and (te <= 1).all() and np.allclose(se, se[0])  # 1 - (1 - 1/8)^tries


def test_fixed_unigram_sampler(tmp_path):
    n = 20000
    unigrams = [1.0, 2.0, 3.0, 4.0]
    p = np.array([0.0] + [u**0.5 for u in unigrams])  # one reserved id, distortion 0.5
    p /= p.sum()
    with covers("statistical", "FixedUnigramCandidateSampler"):
        s, te, se = (t.numpy() for t in cs.fixed_unigram_candidate_sampler(
            T, 2, n, False, 5, distortion=0.5, num_reserved_ids=1, unigrams=unigrams, seed=5))
        _frequencies_match(s, p, n)
        np.testing.assert_allclose(te, n * p[T], rtol=1e-5)
        np.testing.assert_allclose(se, n * p[s], rtol=1e-5)
    vocab = tmp_path / "vocab.csv"
    vocab.write_text("".join(f"w{i},x,{u}\n" for i, u in enumerate(unigrams)))
    s2 = cs.fixed_unigram_candidate_sampler(T[:, :1] - 1, 1, 50, False, 4, vocab_file=str(vocab), seed=5)[0].numpy()
    assert ((0 <= s2) & (s2 < 4)).all()
    # sharding: shard 1 of 2 keeps classes 1 and 3 (weights 2 and 4), indexed 0 and 1
    s3, _, se3 = (t.numpy() for t in cs.fixed_unigram_candidate_sampler(
        np.zeros((1, 1), np.int64), 1, 4000, False, 2, num_shards=2, shard=1, unigrams=unigrams, seed=6))
    _frequencies_match(s3, np.array([1 / 3, 2 / 3]), 4000)


def test_all_sampler_and_accidental_hits():
    s, te, se = (t.numpy() for t in cs.all_candidate_sampler(T, 2, 5, True))
    assert s.tolist() == [0, 1, 2, 3, 4] and (te == 1).all() and (se == 1).all()
    idx, ids, w = (t.numpy() for t in cs.compute_accidental_hits(T, np.array([4, 1, 9, 1], np.int64), 2))
    assert idx.tolist() == [0, 0, 1] and ids.tolist() == [1, 3, 0]
    assert (w == -np.finfo(np.float32).max).all()
    idx, ids, w = (t.numpy() for t in cs.compute_accidental_hits(T, np.array([7], np.int64), 2))
    assert idx.shape == ids.shape == w.shape == (0,)


def test_seeds_and_tf1_spellings():
    a = cs.uniform_candidate_sampler(T, 2, 5, True, 100, seed=8)[0].numpy()
    with tf1.Graph().as_default():
        tf1.set_random_seed(1)
        x = tf1.random.uniform_candidate_sampler(T, 2, 5, True, 100)[0]
        y = tf1.nn.fixed_unigram_candidate_sampler(T, 2, 5, True, 5, unigrams=[1, 1, 1, 1, 1])[0]
        hits = tf1.nn.compute_accidental_hits(T, x, 2)
        assert hits[0].shape.as_list() == [None]
        with tf1.Session() as s1:
            first = s1.run([x, y])
        with tf1.Session() as s2:
            again = s2.run([x, y])
    for u, v in zip(first, again):
        np.testing.assert_array_equal(u, v)  # graph seed: the same in every session
    assert len(set(a.tolist())) == 5


def test_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="UniformCandidateSampler"):
        cs.uniform_candidate_sampler(T, 2, 9, True, 8)  # more unique samples than classes
    with pytest.raises(InvalidArgumentError, match="UniformCandidateSampler"):
        cs.uniform_candidate_sampler(T, 2, 3, False, 4)  # true class 4 outside [0, 4)
    with pytest.raises(InvalidArgumentError, match="FixedUnigramCandidateSampler"):
        cs.fixed_unigram_candidate_sampler(T, 2, 3, False, 7, unigrams=[1.0] * 5)  # range_max != classes
    with pytest.raises(InvalidArgumentError, match="FixedUnigramCandidateSampler"):
        cs.fixed_unigram_candidate_sampler(T, 2, 3, False, 5, vocab_file="/nonexistent/vocab.txt")
    with pytest.raises(InvalidArgumentError, match="AllCandidateSampler"):
        cs.all_candidate_sampler(T, 3, 4, True)  # num_true disagrees with true_classes
    with pytest.raises(InvalidArgumentError, match="ComputeAccidentalHits"):
        cs.compute_accidental_hits(T, np.array([[1]], np.int64), 2)
