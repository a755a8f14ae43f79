"""TensorFlow 1's names for array and state ops added for issue 32 (tf.guarantee_const,
tf.timestamp, tf.repeat) and tf.bitwise: spellings over opforge's functions; the ops live in opdefs/."""

from __future__ import annotations

from opforge import ops as _ops
from opforge.compat._namespace import Namespace
from opforge.ops.array_ops import repeat

__all__ = ["bitwise", "guarantee_const", "repeat", "timestamp"]


def guarantee_const(input, name=None):  # noqa: A002  (TensorFlow's argument name)
    """tf.guarantee_const: the input, unchanged, promised constant across runs (GuaranteeConst)."""
    return _ops.guarantee_const(input, name=name)


def timestamp(name=None):
    """tf.timestamp: seconds since the Unix epoch as a float64 scalar, read when the op runs."""
    return _ops.timestamp(name=name)


bitwise = Namespace(
    "bitwise", bitwise_and=_ops.bitwise_and, bitwise_or=_ops.bitwise_or, bitwise_xor=_ops.bitwise_xor,
    invert=_ops.invert, left_shift=_ops.left_shift, right_shift=_ops.right_shift)
