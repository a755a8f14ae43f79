"""Hand-written gradients of the fake-quantization ops whose opdefs name them (``gradient_fn``).

TensorFlow's straight-through estimator: the gradient passes where the input lies inside the
nudged range; min and max get the sums of the gradients below and above it. The work is done
by the ...Gradient ops, which return all three at once.
"""

from __future__ import annotations


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _attrs(op):
    return {"num_bits": op.attrs["num_bits"], "narrow_range": op.attrs["narrow_range"]}


def fake_quant_with_min_max_vars_grad(op, grads):
    inputs, mn, mx = op.inputs
    dx, dmin, dmax = _ops().fake_quant_with_min_max_vars_gradient(grads[0], inputs, mn, mx, **_attrs(op))
    return [dx, dmin, dmax]


def fake_quant_with_min_max_vars_per_channel_grad(op, grads):
    inputs, mn, mx = op.inputs
    dx, dmin, dmax = _ops().fake_quant_with_min_max_vars_per_channel_gradient(grads[0], inputs, mn, mx,
                                                                               **_attrs(op))
    return [dx, dmin, dmax]
