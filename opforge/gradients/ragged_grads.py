"""Hand-written gradients of the ragged ops whose opdefs name them (``gradient_fn``), as
TensorFlow defines them (tensorflow/python/ops/ragged/ragged_*_grad)."""

from __future__ import annotations


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def ragged_fill_empty_rows_grad(op, grads):
    """values get the gradient at their output positions; default_value the filled positions'."""
    d_values, d_default = _ops().ragged_fill_empty_rows_grad(op.outputs[3], grads[1])
    return [None, d_values, None, d_default]
