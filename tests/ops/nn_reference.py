"""NumPy references of the nn ops (opdefs/nn/*.pbtxt name them in their `reference` field).

Independent of opforge: plain NumPy, written for clarity rather than speed, following
TensorFlow's semantics (SAME/VALID/EXPLICIT padding, NHWC/NCHW layouts, HWIO filters, pools
that skip padding, fused batch norm's outputs). Floats compute in float64 and are returned in
the input's dtype; integers accumulate in int64 and wrap like the kernels.
"""

from __future__ import annotations

import math

import numpy as np

SELU_SCALE = 1.0507009873554805
SELU_ALPHA = 1.6732632423543772


# ------------------------------------------------------------------------------ layouts & windows


def _fmt(data_format) -> str:
    return data_format.decode() if isinstance(data_format, bytes) else str(data_format)


def to_nhwc(x, data_format):
    return np.transpose(x, (0, 2, 3, 1)) if _fmt(data_format) == "NCHW" else x


def from_nhwc(x, data_format):
    return np.transpose(x, (0, 3, 1, 2)) if _fmt(data_format) == "NCHW" else x


def _hw(values, data_format):
    """The (height, width) entries of a 4-element attr in data_format order."""
    v = list(values)
    return (v[2], v[3]) if _fmt(data_format) == "NCHW" else (v[1], v[2])


def _sizes_nhwc(sizes, data_format):
    s = [int(v) for v in np.asarray(sizes).reshape(-1)]
    return (s[0], s[2], s[3], s[1]) if _fmt(data_format) == "NCHW" else tuple(s)


def window(size, k, stride, dilation, padding, explicit=(0, 0)):
    """(out, pad_before, pad_after) of one spatial dim, as TensorFlow computes them.

    VALID/EXPLICIT: out = (padded - eff + stride) / stride in C++'s truncating division, so a
    window less than 2 * stride - 1 larger than the padded input gives out = 0 (an empty
    output); a negative size is an error."""
    eff = (k - 1) * dilation + 1
    padding = padding.decode() if isinstance(padding, bytes) else padding
    if padding == "SAME":
        out = -(-size // stride)
        need = max(0, (out - 1) * stride + eff - size)
        return out, need // 2, need - need // 2
    before, after = (0, 0) if padding == "VALID" else explicit
    num = size + before + after - eff + stride
    out = num // stride if num >= 0 else -(-num // stride)
    if out < 0:
        raise ValueError("computed output size would be negative")
    return out, before, after


def _explicit_hw(explicit_paddings, data_format):
    p = list(explicit_paddings) or [0] * 8
    if _fmt(data_format) == "NCHW":
        return (p[4], p[5]), (p[6], p[7])
    return (p[2], p[3]), (p[4], p[5])


def _geometry(in_h, in_w, kh, kw, strides, dilations, padding, explicit_paddings, data_format):
    sh, sw = _hw(strides, data_format)
    dh, dw = _hw(dilations, data_format)
    eh, ew = _explicit_hw(explicit_paddings, data_format)
    oh, pt, pb = window(in_h, kh, sh, dh, padding, eh)
    ow, pl, pr = window(in_w, kw, sw, dw, padding, ew)
    return dict(oh=oh, ow=ow, pt=pt, pb=pb, pl=pl, pr=pr, sh=sh, sw=sw, dh=dh, dw=dw)


def _acc_dtype(dt):
    return np.int64 if np.dtype(dt).kind in "iu" else np.float64


def _taps(g, kh, kw):
    """(i, j, rows, cols): the strided slices of the padded input seen by filter tap (i, j)."""
    if g["oh"] == 0 or g["ow"] == 0:
        return  # an empty output: no tap sees anything
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * g["dh"], i * g["dh"] + (g["oh"] - 1) * g["sh"] + 1, g["sh"])
            cols = slice(j * g["dw"], j * g["dw"] + (g["ow"] - 1) * g["sw"] + 1, g["sw"])
            yield i, j, rows, cols


def _pad_nhwc(x, g, value=0):
    return np.pad(x, ((0, 0), (g["pt"], g["pb"]), (g["pl"], g["pr"]), (0, 0)), constant_values=value)


# ------------------------------------------------------------------------------ convolution


def _groups(in_depth, filter_depth, out_depth):
    """Groups of a convolution: TensorFlow allows an input depth that is a multiple of the
    filter's in_channels (grouped convolution), the output channels split evenly over them."""
    if in_depth == filter_depth:
        return 1
    if filter_depth <= 0 or in_depth % filter_depth or out_depth % (in_depth // filter_depth):
        raise ValueError("input depth must be a multiple of the filter depth, output depth of the groups")
    return in_depth // filter_depth


def _group_slices(groups, fin, cout):
    """(group, input channel slice, output channel slice) of each group."""
    co = cout // groups
    for gi in range(groups):
        yield gi, slice(gi * fin, (gi + 1) * fin), slice(gi * co, (gi + 1) * co)


def conv2d(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
           dilations=(1, 1, 1, 1)):
    acc = _acc_dtype(input.dtype)
    x = to_nhwc(input, data_format).astype(acc)
    f = filter.astype(acc)
    n, h, w, cin = x.shape
    kh, kw, fin, cout = f.shape
    groups = _groups(cin, fin, cout)
    g = _geometry(h, w, kh, kw, strides, dilations, padding, explicit_paddings, data_format)
    xp = _pad_nhwc(x, g)
    out = np.zeros((n, g["oh"], g["ow"], cout), acc)
    for gi, ci, co in _group_slices(groups, fin, cout):
        for i, j, rows, cols in _taps(g, kh, kw):
            out[..., co] += xp[:, rows, cols, ci] @ f[i, j][:, co]
    return from_nhwc(out, data_format).astype(input.dtype)


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding, explicit_paddings=(),
                          data_format="NHWC", dilations=(1, 1, 1, 1)):
    acc = _acc_dtype(filter.dtype)
    n, h, w, cin = _sizes_nhwc(input_sizes, data_format)
    f = filter.astype(acc)
    dy = to_nhwc(out_backprop, data_format).astype(acc)
    kh, kw, fin, cout = f.shape
    groups = _groups(cin, fin, cout)
    g = _geometry(h, w, kh, kw, strides, dilations, padding, explicit_paddings, data_format)
    dxp = np.zeros((n, h + g["pt"] + g["pb"], w + g["pl"] + g["pr"], cin), acc)
    for gi, ci, co in _group_slices(groups, fin, cout):
        for i, j, rows, cols in _taps(g, kh, kw):
            dxp[:, rows, cols, ci] += dy[..., co] @ f[i, j][:, co].T
    dx = dxp[:, g["pt"]:g["pt"] + h, g["pl"]:g["pl"] + w, :]
    return from_nhwc(dx, data_format).astype(filter.dtype)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, explicit_paddings=(),
                           data_format="NHWC", dilations=(1, 1, 1, 1)):
    acc = _acc_dtype(input.dtype)
    kh, kw, cin, cout = (int(v) for v in np.asarray(filter_sizes).reshape(-1))
    x = to_nhwc(input, data_format).astype(acc)
    dy = to_nhwc(out_backprop, data_format).astype(acc)
    g = _geometry(x.shape[1], x.shape[2], kh, kw, strides, dilations, padding, explicit_paddings,
                  data_format)
    xp = _pad_nhwc(x, g)
    df = np.zeros((kh, kw, cin, cout), acc)
    for gi, ci, co in _group_slices(_groups(x.shape[3], cin, cout), cin, cout):
        for i, j, rows, cols in _taps(g, kh, kw):
            df[i, j][:, co] = np.einsum("nhwc,nhwk->ck", xp[:, rows, cols, ci], dy[..., co])
    return df.astype(input.dtype)


def depthwise_conv2d_native(input, filter, strides, padding, explicit_paddings=(), data_format="NHWC",
                            dilations=(1, 1, 1, 1)):
    x = to_nhwc(input, data_format).astype(np.float64)
    f = filter.astype(np.float64)
    n, h, w, c = x.shape
    kh, kw, _, m = f.shape
    g = _geometry(h, w, kh, kw, strides, dilations, padding, explicit_paddings, data_format)
    xp = _pad_nhwc(x, g)
    out = np.zeros((n, g["oh"], g["ow"], c, m))
    for i, j, rows, cols in _taps(g, kh, kw):
        out += xp[:, rows, cols, :, None] * f[i, j]
    return from_nhwc(out.reshape(n, g["oh"], g["ow"], c * m), data_format).astype(input.dtype)


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                           explicit_paddings=(), data_format="NHWC",
                                           dilations=(1, 1, 1, 1)):
    n, h, w, c = _sizes_nhwc(input_sizes, data_format)
    f = filter.astype(np.float64)
    kh, kw, _, m = f.shape
    dy = to_nhwc(out_backprop, data_format).astype(np.float64)
    g = _geometry(h, w, kh, kw, strides, dilations, padding, explicit_paddings, data_format)
    dy = dy.reshape(n, g["oh"], g["ow"], c, m)
    dxp = np.zeros((n, h + g["pt"] + g["pb"], w + g["pl"] + g["pr"], c))
    for i, j, rows, cols in _taps(g, kh, kw):
        dxp[:, rows, cols, :] += np.sum(dy * f[i, j], axis=-1)
    dx = dxp[:, g["pt"]:g["pt"] + h, g["pl"]:g["pl"] + w, :]
    return from_nhwc(dx, data_format).astype(filter.dtype)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                            explicit_paddings=(), data_format="NHWC",
                                            dilations=(1, 1, 1, 1)):
    kh, kw, c, m = (int(v) for v in np.asarray(filter_sizes).reshape(-1))
    x = to_nhwc(input, data_format).astype(np.float64)
    n = x.shape[0]
    g = _geometry(x.shape[1], x.shape[2], kh, kw, strides, dilations, padding, explicit_paddings,
                  data_format)
    dy = to_nhwc(out_backprop, data_format).astype(np.float64).reshape(n, g["oh"], g["ow"], c, m)
    xp = _pad_nhwc(x, g)
    df = np.zeros((kh, kw, c, m))
    for i, j, rows, cols in _taps(g, kh, kw):
        df[i, j] = np.einsum("nhwc,nhwcm->cm", xp[:, rows, cols, :], dy)
    return df.astype(input.dtype)


# ------------------------------------------------------------------------------ pooling


def _pool_geometry(x_nhwc, ksize, strides, padding, explicit_paddings, data_format):
    kh, kw = _hw(ksize, data_format)
    g = _geometry(x_nhwc.shape[1], x_nhwc.shape[2], kh, kw, strides, (1, 1, 1, 1), padding,
                  explicit_paddings, data_format)
    return kh, kw, g


def _windows(g, kh, kw, h, w):
    """(oh, ow, rows, cols): the input rows/cols of each output position (padding excluded)."""
    for oh in range(g["oh"]):
        r0 = oh * g["sh"] - g["pt"]
        rows = slice(max(r0, 0), min(r0 + kh, h))
        for ow in range(g["ow"]):
            c0 = ow * g["sw"] - g["pl"]
            yield oh, ow, rows, slice(max(c0, 0), min(c0 + kw, w))


def max_pool(input, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    x = to_nhwc(input, data_format)
    kh, kw, g = _pool_geometry(x, ksize, strides, padding, explicit_paddings, data_format)
    n, h, w, c = x.shape
    out = np.zeros((n, g["oh"], g["ow"], c), x.dtype)
    for oh, ow, rows, cols in _windows(g, kh, kw, h, w):
        out[:, oh, ow, :] = np.max(x[:, rows, cols, :], axis=(1, 2))
    return from_nhwc(out, data_format)


def avg_pool(value, ksize, strides, padding, data_format="NHWC"):
    x = to_nhwc(value, data_format).astype(np.float64)
    kh, kw, g = _pool_geometry(x, ksize, strides, padding, (), data_format)
    n, h, w, c = x.shape
    out = np.zeros((n, g["oh"], g["ow"], c))
    for oh, ow, rows, cols in _windows(g, kh, kw, h, w):
        out[:, oh, ow, :] = np.mean(x[:, rows, cols, :], axis=(1, 2))
    return from_nhwc(out, data_format).astype(value.dtype)


def _argmax_positions(x, rows, cols):
    """Per (batch, channel): the (row, col) of the first maximum of the window, scanning rows
    then cols (TensorFlow's tie rule)."""
    win = x[:, rows, cols, :]
    n, wh, ww, c = win.shape
    flat = np.argmax(win.reshape(n, wh * ww, c), axis=1)
    return rows.start + flat // ww, cols.start + flat % ww


def max_pool_grad(orig_input, orig_output, grad, ksize, strides, padding, explicit_paddings=(),
                  data_format="NHWC"):
    x = to_nhwc(orig_input, data_format)
    dy = to_nhwc(grad, data_format).astype(_acc_dtype(grad.dtype))
    kh, kw, g = _pool_geometry(x, ksize, strides, padding, explicit_paddings, data_format)
    n, h, w, c = x.shape
    dx = np.zeros(x.shape, dy.dtype)
    ni, ci = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
    for oh, ow, rows, cols in _windows(g, kh, kw, h, w):
        r, q = _argmax_positions(x, rows, cols)
        np.add.at(dx, (ni, r, q, ci), dy[:, oh, ow, :])
    return from_nhwc(dx, data_format).astype(orig_input.dtype)


def max_pool_grad_grad(orig_input, orig_output, grad, ksize, strides, padding, data_format="NHWC"):
    x = to_nhwc(orig_input, data_format)
    gx = to_nhwc(grad, data_format)
    kh, kw, g = _pool_geometry(x, ksize, strides, padding, (), data_format)
    n, h, w, c = x.shape
    out = np.zeros((n, g["oh"], g["ow"], c), grad.dtype)
    ni, ci = np.meshgrid(np.arange(n), np.arange(c), indexing="ij")
    for oh, ow, rows, cols in _windows(g, kh, kw, h, w):
        r, q = _argmax_positions(x, rows, cols)
        out[:, oh, ow, :] = gx[ni, r, q, ci]
    return from_nhwc(out, data_format)


def avg_pool_grad(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC"):
    n, h, w, c = _sizes_nhwc(orig_input_shape, data_format)
    dy = to_nhwc(grad, data_format).astype(np.float64)
    kh, kw, g = _pool_geometry(np.zeros((n, h, w, c)), ksize, strides, padding, (), data_format)
    dx = np.zeros((n, h, w, c))
    for oh, ow, rows, cols in _windows(g, kh, kw, h, w):
        count = (rows.stop - rows.start) * (cols.stop - cols.start)
        dx[:, rows, cols, :] += dy[:, oh, ow, None, None, :] / count
    return from_nhwc(dx, data_format).astype(grad.dtype)


# ------------------------------------------------------------------------------ softmax & losses


def softmax(logits):
    z = logits.astype(np.float64)
    e = np.exp(z - np.max(z, axis=-1, keepdims=True, initial=-np.inf))
    return (e / np.sum(e, axis=-1, keepdims=True)).astype(logits.dtype)


def log_softmax(logits):
    z = logits.astype(np.float64)
    z = z - np.max(z, axis=-1, keepdims=True, initial=-np.inf)
    return (z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))).astype(logits.dtype)


def softmax_cross_entropy_with_logits(features, labels):
    f, lab = np.broadcast_arrays(features.astype(np.float64), labels.astype(np.float64))
    ls = log_softmax(f)
    loss = -np.sum(lab * ls, axis=-1)
    return loss.astype(features.dtype), (np.exp(ls) - lab).astype(features.dtype)


def sparse_softmax_cross_entropy_with_logits(features, labels):
    ls = log_softmax(features.astype(np.float64))
    rows = np.arange(features.shape[0])
    loss = -ls[rows, labels.astype(np.int64)]
    backprop = np.exp(ls)
    backprop[rows, labels.astype(np.int64)] -= 1
    return loss.astype(features.dtype), backprop.astype(features.dtype)


def _channel_axis(ndim, data_format):
    return 1 if _fmt(data_format) == "NCHW" else ndim - 1


def bias_add(value, bias, data_format="NHWC"):
    shape = [1] * value.ndim
    shape[_channel_axis(value.ndim, data_format)] = -1
    with np.errstate(over="ignore"):
        return (value + bias.reshape(shape)).astype(value.dtype)


def bias_add_grad(out_backprop, data_format="NHWC"):
    axis = _channel_axis(out_backprop.ndim, data_format)
    others = tuple(i for i in range(out_backprop.ndim) if i != axis)
    return np.sum(out_backprop.astype(_acc_dtype(out_backprop.dtype)), axis=others).astype(out_backprop.dtype)


# ------------------------------------------------------------------------------ activations

_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(features, approximate=False):
    x = features.astype(np.float64)
    if approximate:
        y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    else:
        y = 0.5 * x * (1 + _erf(x / math.sqrt(2)))
    return y.astype(features.dtype)


def gelu_grad(gradients, features, approximate=False):
    x = features.astype(np.float64)
    if approximate:
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x**3))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    else:
        d = 0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return (gradients.astype(np.float64) * d).astype(gradients.dtype)


# ------------------------------------------------------------------------------ batch norm


def _bn_axes(x, data_format):
    fmt = _fmt(data_format)
    c_axis = 1 if fmt.startswith("NC") else x.ndim - 1
    return c_axis, tuple(i for i in range(x.ndim) if i != c_axis)


def _per_channel(v, x, c_axis):
    shape = [1] * x.ndim
    shape[c_axis] = -1
    return np.reshape(v, shape)


def fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=1e-4, exponential_avg_factor=1.0,
                        data_format="NHWC", is_training=True):
    """(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3)."""
    c_axis, axes = _bn_axes(x, data_format)
    xf = x.astype(np.float64)
    u = scale.dtype
    if is_training:
        m = np.mean(xf, axis=axes)
        v = np.var(xf, axis=axes)
        count = xf.size // max(1, xf.shape[c_axis])
        unbiased = v * count / max(1, count - 1)
        f = exponential_avg_factor
        if f != 1.0:
            run_mean = (1 - f) * mean.astype(np.float64) + f * m
            run_var = (1 - f) * variance.astype(np.float64) + f * unbiased
        else:
            run_mean, run_var = m, unbiased
    else:
        m, v = mean.astype(np.float64), variance.astype(np.float64)
        run_mean, run_var = m, v
    inv = 1 / np.sqrt(v + epsilon)
    y = (xf - _per_channel(m, xf, c_axis)) * _per_channel(inv * scale.astype(np.float64), xf, c_axis) \
        + _per_channel(offset.astype(np.float64), xf, c_axis)
    return (y.astype(x.dtype), run_mean.astype(u), run_var.astype(u), m.astype(u), v.astype(u),
            np.zeros(0, u))


def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon=1e-4, data_format="NHWC", is_training=True):
    """(x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5)."""
    c_axis, axes = _bn_axes(x, data_format)
    dy = y_backprop.astype(np.float64)
    xf = x.astype(np.float64)
    m = reserve_space_1.astype(np.float64)
    inv = 1 / np.sqrt(reserve_space_2.astype(np.float64) + epsilon)
    xhat = (xf - _per_channel(m, xf, c_axis)) * _per_channel(inv, xf, c_axis)
    d_offset = np.sum(dy, axis=axes)
    d_scale = np.sum(dy * xhat, axis=axes)
    k = _per_channel(scale.astype(np.float64) * inv, xf, c_axis)
    if is_training:
        count = xf.size // max(1, xf.shape[c_axis])
        dx = k * (dy - _per_channel(d_offset / count, xf, c_axis)
                  - xhat * _per_channel(d_scale / count, xf, c_axis))
    else:
        dx = k * dy
    u = reserve_space_1.dtype
    return (dx.astype(x.dtype), d_scale.astype(u), d_offset.astype(u), np.zeros((), u), np.zeros((), u))


def space_to_batch_nd(x, block, paddings):
    """SpaceToBatchND: pad the M spatial dims, cut them into blocks, move the blocks to the batch."""
    block = [int(k) for k in np.reshape(block, -1)]
    m = len(block)
    pad = np.asarray(paddings, np.int64).reshape(m, 2)
    xp = np.pad(x, [(0, 0)] + [tuple(p) for p in pad] + [(0, 0)] * (x.ndim - 1 - m))
    b, sp, rest = x.shape[0], xp.shape[1:1 + m], xp.shape[1 + m:]
    y = xp.reshape([b] + [d for s, k in zip(sp, block) for d in (s // k, k)] + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, y.ndim))
    return y.transpose(perm).reshape([b * int(np.prod(block))] + [s // k for s, k in zip(sp, block)] + list(rest)).copy()


def batch_to_space_nd(x, block, crops):
    """BatchToSpaceND: move batch blocks back into the M spatial dims, then crop them."""
    block = [int(k) for k in np.reshape(block, -1)]
    m = len(block)
    crops = np.asarray(crops, np.int64).reshape(m, 2)
    b, sp, rest = x.shape[0] // int(np.prod(block)), x.shape[1:1 + m], x.shape[1 + m:]
    y = x.reshape(block + [b] + list(sp) + list(rest))
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)] + list(range(2 * m + 1, y.ndim))
    y = y.transpose(perm).reshape([b] + [s * k for s, k in zip(sp, block)] + list(rest))
    index = [slice(None)] + [slice(int(c0), s * k - int(c1)) for (c0, c1), s, k in zip(crops, sp, block)]
    return y[tuple(index)].copy()
