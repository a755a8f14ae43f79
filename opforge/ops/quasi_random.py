"""Quasi-random (low-discrepancy) sequences: tf.math.sobol_sample over the SobolSample op, Joe
and Kuo's direction numbers, TensorFlow's values."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.dtypes import as_dtype

__all__ = ["sobol_sample"]


def _scalar(v):
    return np.int32(v) if not hasattr(v, "dtype") or isinstance(v, (np.ndarray, np.generic)) else v


def sobol_sample(dim, num_results, skip=0, dtype="float32", name=None):
    """``num_results`` points of the ``dim``-dimensional Sobol sequence, after the first ``skip``
    (TensorFlow's tf.math.sobol_sample): a [num_results, dim] tensor of values in [0, 1)."""
    return _ops.sobol_sample(_scalar(dim), _scalar(num_results), _scalar(skip), dtype=as_dtype(dtype), name=name)
