"""Hand-written gradients of math ops whose formulas do not fit one expression (their opdefs
name them with ``gradient_fn``). Built from the generated wrappers only, so they work eagerly
and in graphs."""

from __future__ import annotations

import numpy as np

from .helpers import _dynamic_keep_dims_shape, _keep_dims_shape, conj_of, unbroadcast


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def prod_grad(op, grads):
    """d prod / d x_i = the product of the other elements of x_i's reduction group.

    Computed without dividing by zero: with no zero in a group it is prod / x_i; with one zero,
    the product of the non-zero elements at the zero and 0 elsewhere; with more, 0."""
    ops = _ops()
    x, axes = op.inputs[0], op.inputs[1]
    grad = grads[0]
    kd = _keep_dims_shape(x, axes)
    kd = np.array(kd, dtype=np.int64) if kd is not None else _dynamic_keep_dims_shape(x, axes)
    grad = ops.reshape(grad, kd)
    zero = ops.equal(x, ops.zeros_like(x))
    ones = ops.ones_like(x)
    nonzero = ops.select_v2(zero, ones, x)
    prod_nonzero = ops.prod(nonzero, axes, keep_dims=True)
    zeros_in_group = ops.sum(ops.cast(zero, x.dtype), axes, keep_dims=True)
    no_zero = ops.equal(zeros_in_group, ops.zeros_like(zeros_in_group))
    one_zero = ops.equal(zeros_in_group, ops.ones_like(zeros_in_group))
    others = ops.select_v2(
        no_zero, ops.real_div(ops.mul(prod_nonzero, ones), nonzero),
        ops.select_v2(ops.logical_and(one_zero, zero), ops.mul(prod_nonzero, ones), ops.zeros_like(x)))
    return [ops.mul(grad, conj_of(others)), None]  # complex: the conjugate (TensorFlow's rule)


def batch_mat_mul_v2_grad(op, grads):
    """TensorFlow's rule per adjoint combination, each gradient then summed over the batch
    dims that broadcasting stretched or added."""
    ops = _ops()
    x, y = op.inputs
    adj_x, adj_y = op.attrs["adj_x"], op.attrs["adj_y"]
    g = grads[0]
    mm = ops.batch_mat_mul_v2
    if not adj_x and not adj_y:
        gx, gy = mm(g, y, adj_y=True, grad_x=True), mm(x, g, adj_x=True, grad_y=True)
    elif not adj_x and adj_y:
        gx, gy = mm(g, y, grad_x=True), mm(g, x, adj_x=True, grad_y=True)
    elif adj_x and not adj_y:
        gx, gy = mm(y, g, adj_y=True, grad_x=True), mm(x, g, grad_y=True)
    else:
        gx = mm(y, g, adj_x=True, adj_y=True, grad_x=True)
        gy = mm(g, x, adj_x=True, adj_y=True, grad_y=True)
    return [unbroadcast(gx, x), unbroadcast(gy, y)]
