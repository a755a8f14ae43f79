"""Variable initializers (TensorFlow 1's tf.*_initializer and tf.initializers): callables
``init(shape, dtype)`` giving a NumPy value for a new variable.

Random initializers draw from a NumPy generator seeded by ``seed`` when given, else by the
default graph's seed (``set_random_seed``) and a per-graph counter, else from fresh entropy, so
programs that set a seed build the same initial values every time.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes as _dtypes

__all__ = [
    "Initializer", "constant_initializer", "zeros_initializer", "ones_initializer",
    "random_normal_initializer", "random_uniform_initializer", "truncated_normal_initializer",
    "variance_scaling_initializer", "glorot_uniform_initializer", "glorot_normal_initializer",
    "orthogonal_initializer", "identity_initializer", "he_normal", "he_uniform", "lecun_normal",
    "lecun_uniform",
]


def _rng(seed):
    if seed is not None:
        return np.random.default_rng(seed)
    from ..framework.graph import get_default_graph  # noqa: PLC0415
    from ..ops.random_ops import _state as random_state  # noqa: PLC0415
    g = get_default_graph()
    # The graph's seed, else the global one (of.random.set_seed), as the random ops take it.
    graph_seed = g.seed if g.seed is not None else random_state.seed
    if graph_seed is None:
        return np.random.default_rng()
    count = g._initializer_count
    g._initializer_count = count + 1
    return np.random.default_rng([graph_seed, count])


class Initializer:
    """Base class: subclasses define ``__call__(shape, dtype=None, partition_info=None)``."""

    dtype = None

    def _dtype(self, dtype):
        return _dtypes.as_dtype(dtype or self.dtype or _dtypes.float32)

    def get_config(self):
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


class constant_initializer(Initializer):  # noqa: N801
    """Every element the value (a scalar), or the value's elements in order (a list/array of the
    variable's size)."""

    def __init__(self, value=0, dtype=None, verify_shape=False):
        self.value, self.dtype = value, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        v = np.asarray(self.value, dtype=dt.as_numpy_dtype)
        shape = tuple(shape)
        if v.size == 1:
            return np.full(shape, v.reshape(()), dtype=v.dtype)
        if v.size != int(np.prod(shape)):
            raise TypeError(f"constant_initializer: {v.size} values cannot fill a variable of shape {list(shape)}")
        return v.reshape(shape)


class zeros_initializer(Initializer):  # noqa: N801
    def __init__(self, dtype=None):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return np.zeros(tuple(shape), self._dtype(dtype).as_numpy_dtype)


class ones_initializer(Initializer):  # noqa: N801
    def __init__(self, dtype=None):
        self.dtype = dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return np.ones(tuple(shape), self._dtype(dtype).as_numpy_dtype)


class random_normal_initializer(Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=None):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return _rng(self.seed).normal(self.mean, self.stddev, tuple(shape)).astype(self._dtype(dtype).as_numpy_dtype)


class random_uniform_initializer(Initializer):  # noqa: N801
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=None):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        rng = _rng(self.seed)
        if dt.is_integer:
            if self.maxval is None:
                raise ValueError("random_uniform_initializer: integer variables need maxval")
            return rng.integers(self.minval, self.maxval, tuple(shape)).astype(dt.as_numpy_dtype)
        hi = 1.0 if self.maxval is None else self.maxval
        return rng.uniform(self.minval, hi, tuple(shape)).astype(dt.as_numpy_dtype)


def _truncated(rng, mean, stddev, shape):
    """Normal samples redrawn until within two standard deviations (TruncatedNormal's rule)."""
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return mean + stddev * out


class truncated_normal_initializer(Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=None):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        return _truncated(_rng(self.seed), self.mean, self.stddev, tuple(shape)).astype(
            self._dtype(dtype).as_numpy_dtype)


def _fans(shape):
    shape = tuple(shape)
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = float(np.prod(shape[:-2])) if len(shape) > 2 else 1.0
    return shape[-2] * receptive, shape[-1] * receptive


class variance_scaling_initializer(Initializer):  # noqa: N801
    """Samples with variance scale / n, n the fan in, the fan out or their mean (``mode``), from
    a truncated normal (TF1's "normal" is truncated), an untruncated normal, or a uniform."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=None):
        if scale <= 0.0:
            raise ValueError("`scale` must be a positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed, self.dtype = scale, mode, distribution, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        rng, shape = _rng(self.seed), tuple(shape)
        if self.distribution == "truncated_normal":
            v = _truncated(rng, 0.0, math.sqrt(scale) / 0.87962566103423978, shape)
        elif self.distribution == "untruncated_normal":
            v = rng.normal(0.0, math.sqrt(scale), shape)
        else:
            limit = math.sqrt(3.0 * scale)
            v = rng.uniform(-limit, limit, shape)
        return v.astype(self._dtype(dtype).as_numpy_dtype)


class uniform_unit_scaling_initializer(Initializer):  # noqa: N801
    """Uniform in [-limit, limit], limit = factor * sqrt(3 / input_size) with input_size the
    product of all dims but the last (TF1's uniform_unit_scaling_initializer)."""

    def __init__(self, factor=1.0, seed=None, dtype=None):
        self.factor, self.seed, self.dtype = float(factor), seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        input_size = float(np.prod(shape[:-1]))  # 1 for a vector or a scalar, as TF's
        limit = math.sqrt(3.0 / max(1.0, input_size)) * self.factor
        return _rng(self.seed).uniform(-limit, limit, shape).astype(self._dtype(dtype).as_numpy_dtype)


class glorot_uniform_initializer(variance_scaling_initializer):  # noqa: N801
    """Uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""

    def __init__(self, seed=None, dtype=None):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)


class glorot_normal_initializer(variance_scaling_initializer):  # noqa: N801
    def __init__(self, seed=None, dtype=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed=None):
    return variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return variance_scaling_initializer(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return variance_scaling_initializer(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    return variance_scaling_initializer(1.0, "fan_in", "uniform", seed)


class orthogonal_initializer(Initializer):  # noqa: N801
    """A (semi-)orthogonal matrix from the QR decomposition of a normal matrix, reshaped."""

    def __init__(self, gain=1.0, seed=None, dtype=None):
        self.gain, self.seed, self.dtype = gain, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = _rng(self.seed).standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q[:rows, :cols]).reshape(shape).astype(self._dtype(dtype).as_numpy_dtype)


class identity_initializer(Initializer):  # noqa: N801
    def __init__(self, gain=1.0, dtype=None):
        self.gain, self.dtype = gain, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return (self.gain * np.eye(*shape)).astype(self._dtype(dtype).as_numpy_dtype)
