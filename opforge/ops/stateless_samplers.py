"""Stateless samplers (TensorFlow's tf.random.stateless_binomial, stateless_categorical /
stateless_multinomial and stateless_parameterized_truncated_normal): pure functions of their
arguments and a seed of shape [2], over the StatelessRandomBinomial, StatelessMultinomial and
StatelessParameterizedTruncatedNormal ops (kernels/cpu/random/stateless_samplers.cc: TensorFlow's
very values; for the truncated normal, wherever TensorFlow computes the output in one shard), and tf.random_index_shuffle (RandomIndexShuffle, TensorFlow's
values)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.dtypes import as_dtype
from ..framework.tensor import convert_to_tensor
from .random_distributions import _is_value
from .random_ops import _seed_tensor, _shape

__all__ = ["stateless_binomial", "stateless_categorical", "stateless_multinomial",
           "stateless_parameterized_truncated_normal", "random_index_shuffle"]


def _float_param(v, dtype=None):
    """A parameter as a tensor: NumPy values keep their dtype (or take ``dtype``), Python numbers
    are float32 as TensorFlow's convert_to_tensor makes them."""
    if not _is_value(v):
        return v if dtype is None or as_dtype(v.dtype) == dtype else _ops.cast(v, dtype)
    if dtype is not None:
        return convert_to_tensor(np.asarray(v, dtype.as_numpy_dtype))
    keep = isinstance(v, (np.ndarray, np.generic)) and np.asarray(v).dtype.kind == "f"
    return convert_to_tensor(np.asarray(v) if keep else np.asarray(v, np.float32))


def stateless_binomial(shape, seed, counts, probs, output_dtype="int32", name=None):
    """Draws of Binomial(counts, probs) of shape ``shape`` (counts and probs broadcast to its
    trailing dimensions), deterministic in ``seed``."""
    probs = _float_param(probs)
    counts = _float_param(counts, as_dtype(probs.dtype))
    return _ops.stateless_random_binomial(_shape(shape), _seed_tensor(seed), counts, probs,
                                          dtype=as_dtype(output_dtype), name=name)


def stateless_categorical(logits, num_samples, seed, dtype="int64", name=None):
    """``num_samples`` class indices per row of ``logits`` [batch, classes] drawn from
    softmax(logits), deterministic in ``seed``: [batch, num_samples]."""
    logits = _float_param(logits)
    if not hasattr(num_samples, "dtype") or isinstance(num_samples, np.ndarray):
        num_samples = np.int32(num_samples)
    return _ops.stateless_multinomial(logits, num_samples, _seed_tensor(seed), output_dtype=as_dtype(dtype),
                                      name=name)


def stateless_multinomial(logits, num_samples, seed, output_dtype="int64", name=None):
    """stateless_categorical in TF1's spelling (``output_dtype``)."""
    return stateless_categorical(logits, num_samples, seed, dtype=output_dtype, name=name)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """Draws of Normal(means, stddevs) within [minvals, maxvals], of shape ``shape`` (the
    parameters broadcast to its trailing dimensions), deterministic in ``seed``."""
    means = _float_param(means)
    dtype = as_dtype(means.dtype)
    params = [_float_param(v, dtype) for v in (stddevs, minvals, maxvals)]
    return _ops.stateless_parameterized_truncated_normal(_shape(shape), _seed_tensor(seed), means, *params,
                                                         name=name)


def _int_tensor(v, dtype=None):
    """Python ints as int32 (TensorFlow's convert_to_tensor), NumPy values as they are."""
    if not _is_value(v):
        return v if dtype is None or as_dtype(v.dtype) == dtype else _ops.cast(v, dtype)
    if dtype is not None:
        return convert_to_tensor(np.asarray(v, dtype.as_numpy_dtype))
    return convert_to_tensor(np.asarray(v) if isinstance(v, (np.ndarray, np.generic)) else np.asarray(v, np.int32))


def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """The position of ``index`` in a pseudorandom permutation of [0, max_index] that ``seed``
    (three words, or one row of three per index) determines (TensorFlow's tf.random_index_shuffle,
    the RandomIndexShuffle op: the same values)."""
    index = _int_tensor(index)
    return _ops.random_index_shuffle(index, _int_tensor(seed), _int_tensor(max_index, as_dtype(index.dtype)),
                                     rounds=int(rounds), name=name)
