"""Clipping by norm (TensorFlow's clip_ops): ``of.clip_by_norm``, ``of.clip_by_global_norm``,
``of.linalg.global_norm``. Element-wise clipping is ``of.clip_by_value`` (the ClipByValue op)."""

from __future__ import annotations

import collections.abc

import numpy as np

from .. import ops as _ops
from ..framework.tensor import convert_to_tensor
from .math_ops import reduce_sum


def _as_tensor(v, dtype=None):
    return v if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)) else convert_to_tensor(v, dtype)


def _scalar(value, dtype):
    return np.asarray(value, dtype.as_numpy_dtype)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm over axes (all of them by default) is at most clip_norm:
    t * clip_norm / max(norm, clip_norm) (tf.clip_by_norm). A zero t stays zero, with a
    finite gradient."""
    t = _as_tensor(t)
    clip = _as_tensor(clip_norm, t.dtype)
    sum_sq = reduce_sum(_ops.mul(t, t), axes, keepdims=True)
    positive = _ops.greater(sum_sq, _scalar(0, t.dtype))
    safe = _ops.select_v2(positive, sum_sq, _ops.ones_like(sum_sq))  # no sqrt(0) in the gradient
    norm = _ops.select_v2(positive, _ops.sqrt(safe), sum_sq)
    return _ops.identity(_ops.real_div(_ops.mul(t, clip), _ops.maximum(norm, clip)), name=name)


def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of the tensors) (tf.linalg.global_norm); None entries
    are skipped."""
    ts = [_as_tensor(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm: t_list holds no tensors")
    dt = ts[0].dtype
    half_squares = [_ops.l2_loss(t) if t.dtype == dt else _ops.cast(_ops.l2_loss(t), dt) for t in ts]
    return _ops.sqrt(_ops.mul(_ops.add_n(half_squares), _scalar(2, dt)), name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm), the global norm)
    (tf.clip_by_global_norm): all tensors shrink by one factor when their joint norm is over
    clip_norm. None entries stay None; use_norm is a precomputed global norm."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, (str, bytes)):
        raise TypeError(f"clip_by_global_norm: t_list should be a sequence of tensors, got {type(t_list).__name__}")
    t_list = list(t_list)
    norm = use_norm if use_norm is not None else global_norm(t_list)
    dt = norm.dtype
    clip = _as_tensor(clip_norm, dt)
    scale = _ops.mul(clip, _ops.minimum(_ops.reciprocal(norm), _ops.real_div(_scalar(1, dt), clip)))
    clipped = [None if t is None else
               _ops.mul(t, scale if _as_tensor(t).dtype == dt else _ops.cast(scale, _as_tensor(t).dtype))
               for t in t_list]
    del name
    return clipped, norm


def clip_by_average_norm(t, clip_norm, name=None):
    """t scaled so that its L2 norm divided by its number of elements is at most clip_norm
    (tf.clip_by_average_norm)."""
    t = _as_tensor(t)
    n = _ops.cast(_ops.size(t), t.dtype.name)
    l2norm_inv = _ops.rsqrt(reduce_sum(_ops.mul(t, t)))
    clip = _ops.cast(clip_norm, t.dtype.name) if hasattr(clip_norm, "dtype") else _scalar(clip_norm, t.dtype)
    scale = _ops.minimum(_ops.mul(l2norm_inv, n), _ops.reciprocal(clip))
    return _ops.mul(_ops.mul(t, clip), scale, name=name)
