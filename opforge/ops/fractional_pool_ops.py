"""Fractional max and average pooling (Graham, "Fractional Max-Pooling", 2015): TensorFlow's
tf.nn.fractional_max_pool / fractional_avg_pool over the FractionalMaxPool / FractionalAvgPool
ops. Each returns (output, row_pooling_sequence, col_pooling_sequence); the sequences say which
rows and columns each output element pooled, and the gradients use them.

The ``*_v1`` functions are TF1's spelling (seed and seed2 go to the op as given: non-zero
only with ``deterministic``); the others TF2's (a non-zero ``seed`` makes the pooling
regions deterministic, its op seeds from the graph seed as every random op's)."""

from __future__ import annotations

from .. import ops as _ops
from . import random_ops as _random


def _ratio(pooling_ratio):
    """A scalar ratio or one per spatial dimension, as [1, rows, cols, 1]; four pass through."""
    r = [pooling_ratio] if isinstance(pooling_ratio, (int, float)) else [float(v) for v in pooling_ratio]
    if len(r) == 1:
        r = r * 2
    return [1.0, *r, 1.0] if len(r) == 2 else [float(v) for v in r]


def _v1(op, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2, name):
    return tuple(op(value, pooling_ratio=_ratio(pooling_ratio), pseudo_random=bool(pseudo_random),
                    overlapping=bool(overlapping), deterministic=bool(deterministic), seed=int(seed),
                    seed2=int(seed2), name=name))


def _v2(op, value, pooling_ratio, pseudo_random, overlapping, seed, name):
    seed, seed2 = (0, 0) if not seed else _random.get_seed(seed)
    return _v1(op, value, pooling_ratio, pseudo_random, overlapping, bool(seed or seed2), seed, seed2, name)


def fractional_max_pool_v1(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                           seed2=0, name=None):
    """Fractional max pooling of a 4-D NHWC ``value`` (TF1's tf.nn.fractional_max_pool):
    (output, row_pooling_sequence, col_pooling_sequence)."""
    return _v1(_ops.fractional_max_pool, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2,
               name)


def fractional_avg_pool_v1(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                           seed2=0, name=None):
    """Fractional average pooling of a 4-D NHWC ``value`` (TF1's tf.nn.fractional_avg_pool):
    (output, row_pooling_sequence, col_pooling_sequence)."""
    return _v1(_ops.fractional_avg_pool, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2,
               name)


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """TF2's tf.nn.fractional_max_pool: a non-zero ``seed`` pools the same regions on every run."""
    return _v2(_ops.fractional_max_pool, value, pooling_ratio, pseudo_random, overlapping, seed, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """TF2's tf.nn.fractional_avg_pool: a non-zero ``seed`` pools the same regions on every run."""
    return _v2(_ops.fractional_avg_pool, value, pooling_ratio, pseudo_random, overlapping, seed, name)


__all__ = ["fractional_max_pool", "fractional_avg_pool", "fractional_max_pool_v1", "fractional_avg_pool_v1"]
