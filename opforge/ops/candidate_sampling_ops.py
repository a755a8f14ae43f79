"""Candidate samplers for sampled losses (tf.random.* and tf.nn.*): uniform, fixed unigram,
learned unigram and "all" over their ops (the log-uniform one is
random_ops.log_uniform_candidate_sampler), and compute_accidental_hits. Each sampler returns (sampled_candidates, true_expected_count,
sampled_expected_count), as TensorFlow's."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.dtypes import int64
from .random_ops import _seeds, log_uniform_candidate_sampler  # noqa: F401 (tf.random's name for it)

__all__ = ["uniform_candidate_sampler", "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler",
           "all_candidate_sampler",
           "compute_accidental_hits", "log_uniform_candidate_sampler"]


def _int64(v):
    if isinstance(v, (np.ndarray, list, tuple)):
        return np.asarray(v, np.int64)
    return v if getattr(v, "dtype", None) == int64 else _ops.cast(v, int64)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None,
                              _graph=None):
    """Samples classes uniformly from [0, range_max) (tf.random.uniform_candidate_sampler)."""
    s1, s2 = _seeds(seed, _graph)
    return tuple(_ops.uniform_candidate_sampler(_int64(true_classes), num_true=int(num_true),
                                                num_sampled=int(num_sampled), unique=bool(unique),
                                                range_max=int(range_max), seed=s1, seed2=s2, name=name))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None, _graph=None):
    """Samples classes with P(k) proportional to count(k)^distortion, the counts from unigrams
    or vocab_file (tf.random.fixed_unigram_candidate_sampler)."""
    s1, s2 = _seeds(seed, _graph)
    return tuple(_ops.fixed_unigram_candidate_sampler(
        _int64(true_classes), num_true=int(num_true), num_sampled=int(num_sampled), unique=bool(unique),
        range_max=int(range_max), vocab_file=str(vocab_file), distortion=float(distortion),
        num_reserved_ids=int(num_reserved_ids), num_shards=int(num_shards), shard=int(shard),
        unigrams=[float(u) for u in unigrams], seed=s1, seed2=s2, name=name))


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None,
                                      _graph=None):
    """Samples classes with P(k) proportional to 1 + the times k was a true class in this op's
    earlier runs; each run then learns its true classes (tf.random.learned_unigram_candidate_sampler)."""
    s1, s2 = _seeds(seed, _graph)
    return tuple(_ops.learned_unigram_candidate_sampler(_int64(true_classes), num_true=int(num_true),
                                                        num_sampled=int(num_sampled), unique=bool(unique),
                                                        range_max=int(range_max), seed=s1, seed2=s2, name=name))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None, _graph=None):
    """All classes [0, num_sampled) as the samples, every expected count 1
    (tf.random.all_candidate_sampler: for checking sampled losses against full ones)."""
    s1, s2 = _seeds(seed, _graph)
    return tuple(_ops.all_candidate_sampler(_int64(true_classes), num_true=int(num_true),
                                            num_sampled=int(num_sampled), unique=bool(unique), seed=s1, seed2=s2,
                                            name=name))


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None, _graph=None):
    """(indices, ids, weights) of the samples that equal a true class of their row
    (tf.nn.compute_accidental_hits); weights are -FLT_MAX, to add to those sampled logits."""
    s1, s2 = _seeds(seed, _graph)
    return tuple(_ops.compute_accidental_hits(_int64(true_classes), _int64(sampled_candidates),
                                              num_true=int(num_true), seed=s1, seed2=s2, name=name))
