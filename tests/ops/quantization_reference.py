"""NumPy references of the fake-quantization ops (opdefs/quantization/), in float32 step for
step as TensorFlow's fake_quant_ops_functor.h computes them."""

from __future__ import annotations

import numpy as np

f32 = np.float32


def nudge(mn, mx, num_bits, narrow_range):
    """TensorFlow's Nudge: (nudged_min, nudged_max, scale, inv_scale), float32."""
    qmin, qmax = f32(1 if narrow_range else 0), f32((1 << num_bits) - 1)
    mn, mx = f32(mn), f32(mx)
    scale = f32((mx - mn) / (qmax - qmin))
    inv_scale = f32((qmax - qmin) / (mx - mn))
    zp_from_min = f32(qmin - f32(mn / scale))
    if zp_from_min < qmin:
        zp = qmin
    elif zp_from_min > qmax:
        zp = qmax
    else:
        zp = f32(np.sign(zp_from_min) * np.floor(np.abs(zp_from_min) + 0.5))  # half away from zero
    return f32((qmin - zp) * scale), f32((qmax - zp) * scale), scale, inv_scale


def _per_channel(x, mn, mx):
    mn, mx = np.atleast_1d(np.asarray(mn, f32)), np.atleast_1d(np.asarray(mx, f32))
    return x.reshape(-1, mn.size) if x.size else x.reshape(0, mn.size), mn, mx


def fake_quant(inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002 (TF's names)
    x = np.asarray(inputs, f32)
    flat, mn, mx = _per_channel(x, min, max)
    out = np.empty_like(flat)
    for c in range(mn.size):
        if mn[c] == 0 and mx[c] == 0:
            out[:, c] = 0
            continue
        lo, hi, scale, inv = nudge(mn[c], mx[c], num_bits, narrow_range)
        quant_zero = np.floor(f32(-lo * inv) + f32(0.5))
        clamped = np.minimum(np.maximum(flat[:, c], lo), hi)
        out[:, c] = np.floor((clamped - lo) * inv - quant_zero + f32(0.5)) * scale
    return out.reshape(x.shape)


def fake_quant_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    return fake_quant_vars_gradient(gradients, inputs, min, max, num_bits, narrow_range)[0]


def fake_quant_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    x = np.asarray(inputs, f32)
    g = np.asarray(gradients, f32)
    flat, mn, mx = _per_channel(x, min, max)
    gflat = g.reshape(flat.shape)
    dx = np.empty_like(flat)
    dmin, dmax = np.zeros(mn.size, f32), np.zeros(mn.size, f32)
    for c in range(mn.size):
        if mn[c] == 0 and mx[c] == 0:
            dx[:, c] = gflat[:, c]
            continue
        lo, hi, _, _ = nudge(mn[c], mx[c], num_bits, narrow_range)
        xc = flat[:, c]
        dx[:, c] = np.where((xc >= lo) & (xc <= hi), gflat[:, c], f32(0))
        dmin[c] = gflat[xc < lo, c].sum(dtype=f32)
        dmax[c] = gflat[xc > hi, c].sum(dtype=f32)
    scalar = np.ndim(min) == 0
    return (dx.reshape(x.shape), dmin.reshape(()) if scalar else dmin, dmax.reshape(()) if scalar else dmax)
