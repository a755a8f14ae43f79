"""Gamma and Poisson samples (tf.random.gamma, tf.random.poisson, tf.random.stateless_gamma,
tf.random.stateless_poisson) over the RandomGamma, RandomPoissonV2, StatelessRandomGammaV2 and
StatelessRandomPoisson ops, with TensorFlow's parameter handling: alpha and beta broadcast
against each other, samples are divided by beta and kept at or above the dtype's smallest
normal number."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.dtypes import as_dtype
from ..framework.tensor import convert_to_tensor
from .random_ops import _seed_tensor, _seeds, _shape

__all__ = ["gamma", "poisson", "stateless_gamma", "stateless_poisson"]


def _is_value(v) -> bool:
    """A Python or NumPy value (converted here), not a tensor."""
    return isinstance(v, (np.ndarray, np.generic, int, float, list, tuple))


def _param(v, dtype):
    return convert_to_tensor(np.asarray(v).astype(dtype.as_numpy_dtype)) if _is_value(v) else v


def _rate(lam):
    """lam as a tensor: a NumPy value keeps its dtype, a Python number is float32 (TensorFlow's)."""
    if not _is_value(lam):
        return lam
    return convert_to_tensor(np.asarray(lam) if isinstance(lam, (np.ndarray, np.generic)) else np.float32(lam))


def _alpha_beta(alpha, beta, dtype):
    alpha = _param(alpha, dtype)
    beta = _param(1 if beta is None else beta, dtype)
    if beta.shape.rank != 0 or alpha.shape.rank is None:  # broadcast alpha to alpha x beta's shape
        alpha = _ops.add_v2(alpha, _ops.zeros_like(beta))
    return alpha, beta


def _scaled(x, beta, dtype):
    tiny = np.asarray(np.finfo(dtype.as_numpy_dtype).tiny, dtype.as_numpy_dtype)
    return _ops.maximum(_ops.real_div(x, beta), tiny)


def gamma(shape, alpha, beta=None, dtype="float32", seed=None, name=None, _graph=None):
    """Gamma(alpha, beta) samples of shape `shape` + broadcast(alpha, beta).shape
    (tf.random.gamma): beta is the inverse scale (rate)."""
    dtype = as_dtype(dtype)
    alpha, beta = _alpha_beta(alpha, beta, dtype)
    s1, s2 = _seeds(seed, _graph)
    x = _ops.random_gamma(_shape(shape), alpha, seed=s1, seed2=s2)
    return _ops.identity(_scaled(x, beta, dtype), name=name)


def poisson(lam, shape, dtype="float32", seed=None, name=None, _graph=None):
    """Poisson(lam) samples of shape `shape` + lam's shape (tf.random.poisson, TF1's argument
    order: lam first)."""
    dtype = as_dtype(dtype)
    s1, s2 = _seeds(seed, _graph)
    lam = _rate(lam)
    return _ops.random_poisson_v2(_shape(shape), lam, dtype=dtype, seed=s1, seed2=s2, name=name)


def stateless_gamma(shape, seed, alpha=None, beta=None, dtype="float32", name=None):
    """Deterministic Gamma(alpha, beta) samples of shape `shape` (tf.random.stateless_gamma):
    alpha and beta broadcast against it; the values are a function of shape, seed and the
    parameters."""
    dtype = as_dtype(dtype)
    if alpha is None:
        raise ValueError("stateless_gamma: alpha must be given")
    alpha, beta = _alpha_beta(alpha, beta, dtype)
    x = _ops.stateless_random_gamma_v2(_shape(shape), _seed_tensor(seed), alpha)
    return _ops.identity(_scaled(x, beta, dtype), name=name)


def stateless_poisson(shape, seed, lam, dtype="int32", name=None):
    """Deterministic Poisson(lam) samples of shape `shape` (tf.random.stateless_poisson); lam
    broadcasts against it."""
    dtype = as_dtype(dtype)
    lam = _rate(lam)
    return _ops.stateless_random_poisson(_shape(shape), _seed_tensor(seed), lam, dtype=dtype, name=name)
