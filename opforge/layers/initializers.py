"""Variable initializers (TensorFlow 1's tf.*_initializer and tf.initializers): callables
``init(shape, dtype)`` giving the initial value of a new variable.

Constant initializers (zeros, ones, constant, identity) give NumPy values. Random initializers
give random ops, as TensorFlow's do: in a graph, nodes that draw when the variable's
initializer runs, so each run of ``global_variables_initializer()`` draws afresh and a saved
graph holds the op, not the values; eagerly, the drawn tensor. Their seeds follow the random
ops' rule (ops/random_ops.py ``get_seed``): the op seed ``seed``, the graph's seed
(``set_random_seed``) or the global one, so a program that sets a seed draws the same initial
values in every process.
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


def _random():
    from ..ops import random_ops  # noqa: PLC0415 (ops import the framework, not layers)
    return random_ops


def _float_dtype(name, dt):
    if not dt.is_floating:
        raise ValueError(f"{name}: expected a floating point dtype, got {dt.name}")
    return dt


def _normal(shape, mean, stddev, dt, seed, truncated=False):
    """Normal (or truncated-normal: redrawn beyond two deviations) values as random ops."""
    rnd = _random()
    fn = rnd.truncated_normal if truncated else rnd.normal
    return fn(list(shape), mean=mean, stddev=stddev, dtype=dt, seed=seed,
              name="truncated_normal" if truncated else "random_normal")


def _uniform(shape, lo, hi, dt, seed):
    return _random().uniform(list(shape), minval=lo, maxval=hi, dtype=dt, seed=seed, name="random_uniform")


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
        dt = _float_dtype("random_normal_initializer", self._dtype(dtype))
        return _normal(shape, self.mean, self.stddev, dt, self.seed)


class random_uniform_initializer(Initializer):  # noqa: N801
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=None):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = self._dtype(dtype)
        if dt.is_integer:
            if self.maxval is None:
                raise ValueError("random_uniform_initializer: integer variables need maxval")
            return _uniform(shape, self.minval, self.maxval, dt, self.seed)
        dt = _float_dtype("random_uniform_initializer", dt)
        return _uniform(shape, self.minval, 1.0 if self.maxval is None else self.maxval, dt, self.seed)


class truncated_normal_initializer(Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=None):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dt = _float_dtype("truncated_normal_initializer", self._dtype(dtype))
        return _normal(shape, self.mean, self.stddev, dt, self.seed, truncated=True)


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
        dt = _float_dtype(type(self).__name__, self._dtype(dtype))
        if self.distribution == "truncated_normal":
            # 0.8796...: the standard deviation of a unit normal truncated at two deviations
            return _normal(shape, 0.0, math.sqrt(scale) / 0.87962566103423978, dt, self.seed, truncated=True)
        if self.distribution == "untruncated_normal":
            return _normal(shape, 0.0, math.sqrt(scale), dt, self.seed)
        limit = math.sqrt(3.0 * scale)
        return _uniform(shape, -limit, limit, dt, self.seed)


class uniform_unit_scaling_initializer(Initializer):  # noqa: N801
    """Uniform in [-limit, limit], limit = factor * sqrt(3 / input_size) with input_size the
    product of all dims but the last (TF1's uniform_unit_scaling_initializer)."""

    def __init__(self, factor=1.0, seed=None, dtype=None):
        self.factor, self.seed, self.dtype = float(factor), seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        shape = tuple(int(d) for d in shape)
        input_size = float(np.prod(shape[:-1]))  # 1 for a vector or a scalar, as TF's
        limit = math.sqrt(3.0 / max(1.0, input_size)) * self.factor
        return _uniform(shape, -limit, limit, _float_dtype("uniform_unit_scaling_initializer", self._dtype(dtype)),
                        self.seed)


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
        rows, cols = int(np.prod(shape[:-1])), int(shape[-1])
        dt = _float_dtype("orthogonal_initializer", self._dtype(dtype))
        from .. import ops as _ops  # noqa: PLC0415
        from ..ops.matrix_diag_band import matrix_diag_part  # noqa: PLC0415
        # q of a tall normal matrix's QR, its columns' signs made those of r's diagonal (so the
        # distribution is uniform over orthogonal matrices), transposed when wide.
        a = _normal((max(rows, cols), min(rows, cols)), 0.0, 1.0, dt, self.seed)
        q, r = _ops.qr(a, full_matrices=False)
        q = _ops.mul(q, _ops.sign(matrix_diag_part(r)))
        if rows < cols:
            q = _ops.transpose(q, np.asarray([1, 0], np.int32))
        q = _ops.reshape(q, np.asarray(shape, np.int64))
        return q if self.gain == 1 else _ops.mul(q, np.asarray(self.gain, dt.as_numpy_dtype))


class identity_initializer(Initializer):  # noqa: N801
    def __init__(self, gain=1.0, dtype=None):
        self.gain, self.dtype = gain, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return (self.gain * np.eye(*shape)).astype(self._dtype(dtype).as_numpy_dtype)
