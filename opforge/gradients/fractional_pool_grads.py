"""The gradient of FractionalAvgPool (opdefs/nn/fractional_avg_pool.pbtxt): FractionalAvgPoolGrad
over the input's shape as int64 and the pooling sequences the forward op returned."""

from __future__ import annotations


def fractional_avg_pool_grad(op, grads):
    from .. import ops  # noqa: PLC0415

    (value,) = op.inputs
    _, rows, cols = op.outputs
    shape = ops.shape(value, out_type="int64")
    return [ops.fractional_avg_pool_grad(shape, grads[0], rows, cols, overlapping=op.attrs["overlapping"])]
