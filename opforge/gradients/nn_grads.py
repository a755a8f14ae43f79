"""Hand-written gradients of the nn ops whose opdefs name them (``gradient_fn``).

Each function receives the recorded op (inputs and outputs grouped per argument, attrs by
name) and the gradients of its outputs, and returns one gradient per input argument (None for
inputs without one). They are built from the generated wrappers only, so they work eagerly
and in graphs.
"""

from __future__ import annotations

import math

import numpy as np


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def _const_like(x, value):
    """A scalar of x's dtype."""
    return np.asarray(value, dtype=x.dtype.as_numpy_dtype)


_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_CUBIC = 0.044715


def gelu_grad_grad(op, grads):
    """GeluGrad(g, x) = g * gelu'(x): d/dg = grad * gelu'(x); d/dx = grad * g * gelu''(x).

    Exact: gelu''(x) = phi(x) * (2 - x^2) with phi the standard normal density.
    Approximate (tanh): with u = c (x + a x^3), t = tanh(u), u' = c (1 + 3 a x^2):
    gelu''(x) = (1 - t^2) (u' - x t u'^2 + 3 c a x^2)."""
    ops = _ops()
    gradients, features = op.inputs
    approximate = op.attrs["approximate"]
    grad = grads[0]
    x = features
    first = ops.gelu_grad(grad, x, approximate=approximate)
    x2 = ops.mul(x, x)
    if approximate:
        c = _const_like(x, _SQRT_2_OVER_PI)
        u = ops.mul(c, ops.add_v2(x, ops.mul(_const_like(x, _CUBIC), ops.mul(x2, x))))
        t = ops.tanh(u)
        du = ops.mul(c, ops.add_v2(_const_like(x, 1.0), ops.mul(_const_like(x, 3 * _CUBIC), x2)))
        one_minus_t2 = ops.sub(_const_like(x, 1.0), ops.mul(t, t))
        inner = ops.add_v2(ops.sub(du, ops.mul(ops.mul(x, t), ops.mul(du, du))),
                           ops.mul(_const_like(x, 3 * _CUBIC * _SQRT_2_OVER_PI), x2))
        second = ops.mul(one_minus_t2, inner)
    else:
        phi = ops.mul(_const_like(x, _INV_SQRT_2PI), ops.exp(ops.mul(_const_like(x, -0.5), x2)))
        second = ops.mul(phi, ops.sub(_const_like(x, 2.0), x2))
    return [first, ops.mul(ops.mul(grad, gradients), second)]


# ------------------------------------------------------------------------------ softmax family

_LAST = np.array([-1], np.int32)


def _softmax_backward(g, p):
    """The softmax Jacobian (diag(p) - p p^T) applied to g along the last dimension."""
    ops = _ops()
    return ops.mul(ops.sub(g, ops.sum(ops.mul(g, p), _LAST, keep_dims=True)), p)


def softmax_grad(op, grads):
    y = op.outputs[0]
    return [_softmax_backward(grads[0], y)]


def log_softmax_grad(op, grads):
    ops = _ops()
    y, g = op.outputs[0], grads[0]
    return [ops.sub(g, ops.mul(ops.exp(y), ops.sum(g, _LAST, keep_dims=True)))]


def _column(v):
    """A [batch] vector as a [batch, 1] column."""
    return _ops().reshape(v, np.array([-1, 1], np.int64))


def _xent_grads(grads):
    """(grad of loss, grad of backprop) of a cross-entropy op, None for either that is known to
    be zero (filled in because no gradient reached it): as TensorFlow's gradients, no softmax
    is recomputed for a backprop output nothing differentiates (the usual training graph)."""
    from .helpers import known_zero  # noqa: PLC0415
    grad_loss, grad_backprop = grads[0], grads[1] if len(grads) > 1 else None
    return (None if known_zero(grad_loss) else grad_loss), (None if known_zero(grad_backprop) else grad_backprop)


def _xent_features_grad(features, backprop, grad_loss, grad_backprop):
    """d/dfeatures of (loss, backprop): grad_loss * backprop, plus the softmax Jacobian
    applied to grad_backprop (backprop = softmax(features) - labels)."""
    ops = _ops()
    out = None
    if grad_loss is not None:
        out = ops.mul(_column(grad_loss), backprop)
    if grad_backprop is not None:
        term = _softmax_backward(grad_backprop, ops.softmax(features))
        out = term if out is None else ops.add_v2(out, term)
    return out if out is not None else ops.zeros_like(backprop)


def softmax_cross_entropy_with_logits_grad(op, grads):
    """loss = -sum(labels * log_softmax(features)), backprop = softmax(features) - labels;
    features and labels may broadcast, so each gradient is summed back to its input's shape."""
    from .helpers import unbroadcast  # noqa: PLC0415
    ops = _ops()
    backprop = op.outputs[1]
    features, labels = op.inputs
    # Broadcast both to backprop's [batch, classes] first: a size-1 class dim is repeated.
    zeros = ops.zeros_like(backprop)
    features_b, labels_b = ops.add_v2(features, zeros), ops.add_v2(labels, zeros)
    grad_loss, grad_backprop = _xent_grads(grads)
    # The exact derivative of the loss: softmax * sum(labels) - labels (the backprop output
    # when each row of labels sums to 1, as TensorFlow's gradient assumes).
    d_features = None
    if grad_loss is not None:
        d_loss = ops.sub(ops.mul(ops.softmax(features_b), ops.sum(labels_b, _LAST, keep_dims=True)),
                         labels_b)
        d_features = ops.mul(_column(grad_loss), d_loss)
    if grad_backprop is not None:
        term = _softmax_backward(grad_backprop, ops.softmax(features_b))
        d_features = term if d_features is None else ops.add_v2(d_features, term)
    if d_features is None:
        d_features = ops.zeros_like(backprop)
    d_labels = None
    if grad_loss is not None:
        d_labels = ops.neg(ops.mul(_column(grad_loss), ops.log_softmax(features_b)))
    if grad_backprop is not None:
        d_labels = ops.neg(grad_backprop) if d_labels is None else ops.sub(d_labels, grad_backprop)
    if d_labels is None:
        d_labels = ops.zeros_like(backprop)
    return [unbroadcast(d_features, features), unbroadcast(d_labels, labels)]


def sparse_softmax_cross_entropy_with_logits_grad(op, grads):
    features = op.inputs[0]
    backprop = op.outputs[1]
    grad_loss, grad_backprop = _xent_grads(grads)
    return [_xent_features_grad(features, backprop, grad_loss, grad_backprop), None]


# ------------------------------------------------------------------------------ batch norm


def fused_batch_norm_v3_grad(op, grads):
    """Gradients for x, scale and offset through FusedBatchNormGradV3 with the reserve spaces
    (the statistics the forward pass used); mean and variance get none, as in TensorFlow."""
    from ..framework import dtypes  # noqa: PLC0415
    ops = _ops()
    x, scale, _offset, _mean, _variance = op.inputs
    rs1, rs2, rs3 = op.outputs[3], op.outputs[4], op.outputs[5]
    dy = grads[0] if grads[0] is not None else ops.zeros_like(op.outputs[0])
    u = scale.dtype
    as_float = (lambda t: t) if u == dtypes.float32 else (lambda t: ops.cast(t, dtypes.float32))
    dx, dscale, doffset, _, _ = ops.fused_batch_norm_grad_v3(
        dy, x, as_float(scale), as_float(rs1), as_float(rs2), as_float(rs3),
        epsilon=op.attrs["epsilon"], data_format=op.attrs["data_format"],
        is_training=op.attrs["is_training"])
    back = (lambda t: t) if u == dtypes.float32 else (lambda t: ops.cast(t, u))
    return [dx, back(dscale), back(doffset), None, None]


# ------------------------------------------------------------------------------ 3-D


def _attrs3d(op, *names):
    return {k: op.attrs[k] for k in names}


def conv3d_grad(op, grads):
    """Conv3D's input and filter gradients (TensorFlow's V2 backprop ops)."""
    ops = _ops()
    x, f = op.inputs
    kw = _attrs3d(op, "strides", "padding", "data_format", "dilations")
    dx = ops.conv3d_backprop_input_v2(ops.shape(x, out_type="int32"), f, grads[0], **kw)
    df = ops.conv3d_backprop_filter_v2(x, ops.shape(f, out_type="int32"), grads[0], **kw)
    return dx, df


def max_pool3d_grad(op, grads):
    return (_ops().max_pool3d_grad(op.inputs[0], op.outputs[0], grads[0],
                                   **_attrs3d(op, "ksize", "strides", "padding", "data_format")),)


def avg_pool3d_grad(op, grads):
    ops = _ops()
    return (ops.avg_pool3d_grad(ops.shape(op.inputs[0], out_type="int32"), grads[0],
                                **_attrs3d(op, "ksize", "strides", "padding", "data_format")),)


def top_k_grad(op, grads):
    """The gradient of each top-k value goes back to the position it came from (a scatter
    into zeros of the input's shape); k gets none."""
    ops = _ops()
    x = op.inputs[0]
    indices, g = op.outputs[1], grads[0]
    i64 = np.int64
    in_shape = ops.shape(x, out_type="int64")
    depth = ops.reshape(ops.strided_slice(in_shape, np.array([-1], np.int32), np.array([0], np.int32),
                                          np.array([1], np.int32), end_mask=1), np.array([], np.int64))
    ind = ops.cast(indices, "int64")
    k = ops.reshape(ops.strided_slice(ops.shape(ind, out_type="int64"), np.array([-1], np.int32),
                                      np.array([0], np.int32), np.array([1], np.int32), end_mask=1),
                    np.array([1], np.int64))
    ind_2d = ops.reshape(ind, ops.concat_v2([np.array([-1], i64), k], np.int32(0)))
    rows = ops.reshape(ops.strided_slice(ops.shape(ind_2d, out_type="int64"), np.array([0], np.int32),
                                         np.array([1], np.int32), np.array([1], np.int32)), np.array([], np.int64))
    offsets = ops.range(i64(0), ops.mul(rows, depth), depth)  # where each row starts in the flat input
    flat = ops.reshape(ops.add_v2(ind_2d, ops.expand_dims(offsets, np.int32(-1))), np.array([-1], i64))
    total = ops.reshape(ops.prod(in_shape, np.int32(0)), np.array([1], i64))
    scattered = ops.scatter_nd(ops.expand_dims(flat, np.int32(-1)), ops.reshape(g, np.array([-1], i64)), total)
    return [ops.reshape(scattered, in_shape), None]


def max_pool_with_argmax_grad(op, grads):
    """MaxPoolWithArgmax: the output's gradient scattered to the argmax positions (the argmax
    output has no gradient)."""
    from .. import ops  # noqa: PLC0415

    (x,), (_, argmax) = op.inputs, op.outputs
    return [ops.max_pool_grad_with_argmax(x, grads[0], argmax, ksize=op.attrs["ksize"], strides=op.attrs["strides"],
                                          padding=op.attrs["padding"],
                                          include_batch_in_index=op.attrs["include_batch_in_index"])]


def dilation2d_grad(op, grads):
    """Dilation2D: the output's gradient routed to each window's maximum, in the input and in the
    filter."""
    from .. import ops  # noqa: PLC0415

    x, f = op.inputs
    kw = dict(strides=op.attrs["strides"], rates=op.attrs["rates"], padding=op.attrs["padding"])
    return [ops.dilation2d_backprop_input(x, f, grads[0], **kw), ops.dilation2d_backprop_filter(x, f, grads[0], **kw)]
