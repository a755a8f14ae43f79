"""Gradients of the image resizing ops (``gradient_fn`` in their opdefs): TensorFlow's
ResizeBilinearGrad and ResizeNearestNeighborGrad, with the forward op's conventions."""

from __future__ import annotations

import numpy as np


def _ops():
    from .. import ops  # noqa: PLC0415 (the generated wrappers, imported lazily)
    return ops


def resize_bilinear_grad(op, grads):
    images, _ = op.inputs
    if not images.dtype.is_floating:  # integer images have no gradient (as in TensorFlow)
        return None, None
    return _ops().resize_bilinear_grad(grads[0], images, align_corners=op.attrs["align_corners"],
                                       half_pixel_centers=op.attrs["half_pixel_centers"]), None


def resize_nearest_neighbor_grad(op, grads):
    ops = _ops()
    images, _ = op.inputs
    if not images.dtype.is_floating:
        return None, None
    size = ops.strided_slice(ops.shape(images, out_type="int32"), np.array([1], np.int32),
                             np.array([3], np.int32), np.array([1], np.int32))
    return ops.resize_nearest_neighbor_grad(grads[0], size, align_corners=op.attrs["align_corners"],
                                            half_pixel_centers=op.attrs["half_pixel_centers"]), None


def resize_bicubic_grad(op, grads):
    images, _ = op.inputs
    if not images.dtype.is_floating:
        return None, None
    return _ops().resize_bicubic_grad(grads[0], images, align_corners=op.attrs["align_corners"],
                                      half_pixel_centers=op.attrs["half_pixel_centers"]), None


def crop_and_resize_grad(op, grads):
    """TensorFlow's: the image's gradient for float images, the boxes' (bilinear) always."""
    ops = _ops()
    image, boxes, box_ind, _ = op.inputs
    grad_image = None
    if image.dtype.name in ("float16", "float32", "float64"):
        grad_image = ops.crop_and_resize_grad_image(grads[0], boxes, box_ind, ops.shape(image, out_type="int32"),
                                                    T=image.dtype, method=op.attrs["method"])
    grad_boxes = ops.crop_and_resize_grad_boxes(grads[0], image, boxes, box_ind)
    return grad_image, grad_boxes, None, None


def rgb_to_hsv_grad(op, grads):
    """The derivative of TensorFlow's RGB -> HSV map (piecewise; TensorFlow's tie-breaks for the
    channel that is the maximum and the minimum; zero where hue or saturation are undefined:
    gray pixels, black pixels). With d = max - min: v = max, s = d / max, and
    h = num / (6 d) + const, num the difference of the two other channels."""
    ops = _ops()
    x = op.inputs[0]
    dt = x.dtype
    r, g, b = ops.unpack(x, num=3, axis=-1)
    f = lambda c: ops.cast(c, DstT=dt)  # noqa: E731
    both = ops.logical_and
    is_max = [f(both(ops.greater_equal(r, b), ops.greater_equal(r, g))),
              f(both(ops.greater(g, r), ops.greater_equal(g, b))),
              f(both(ops.greater(b, r), ops.greater(b, g)))]
    is_min = [f(both(ops.less(r, b), ops.less(r, g))),
              f(both(ops.less_equal(g, r), ops.less(g, b))),
              f(both(ops.less_equal(b, r), ops.less_equal(b, g)))]
    ch = [r, g, b]
    mx = ops.add_n([m * c for m, c in zip(is_max, ch)])
    mn = ops.add_n([m * c for m, c in zip(is_min, ch)])
    d = mx - mn
    one = ops.ones_like(mx)
    zero = ops.zeros_like(mx)
    d_ok = f(ops.greater(d, zero))
    mx_ok = f(ops.greater(mx, zero))
    safe_d = ops.select_v2(ops.greater(d, zero), d, one)
    safe_mx = ops.select_v2(ops.greater(mx, zero), mx, one)
    # num per case of the maximum: r -> g - b, g -> b - r, b -> r - g (d num / d channel: rows)
    num = is_max[0] * (g - b) + is_max[1] * (b - r) + is_max[2] * (r - g)
    dnum = [is_max[0] * 0 + is_max[1] * -1 + is_max[2] * 1,
            is_max[0] * 1 + is_max[1] * 0 + is_max[2] * -1,
            is_max[0] * -1 + is_max[1] * 1 + is_max[2] * 0]
    gh, gs, gv = ops.unpack(grads[0], num=3, axis=-1)
    out = []
    for k in range(3):
        dd = is_max[k] - is_min[k]                                   # d(max - min) / d channel k
        dh = d_ok * (dnum[k] / (6 * safe_d) - num * dd / (6 * safe_d * safe_d))
        ds = mx_ok * ((is_max[k] * mn) / (safe_mx * safe_mx) - is_min[k] / safe_mx)
        out.append(gh * dh + gs * ds + gv * is_max[k])
    return [ops.pack(out, axis=-1)]


def extract_image_patches_grad(op, grads):
    """TensorFlow's: the patches of an image of positions 1..h*w (0 in the padding) say where
    each patch element came from; an unsorted segment sum takes the gradient back there."""
    ops = _ops()
    images = op.inputs[0]
    b, h, w, c = ops.unpack(ops.shape(images, out_type="int32"), num=4)
    oh, ow = ops.unpack(ops.strided_slice(ops.shape(op.outputs[0], out_type="int32"), np.array([1], np.int32),
                                          np.array([3], np.int32), np.array([1], np.int32)), num=2)
    _, kh, kw, _ = op.attrs["ksizes"]
    n = h * w
    idx = ops.reshape(ops.range(np.float32(1), ops.cast(n + 1, DstT="float32"), np.float32(1)),
                      ops.pack([np.int32(1), h, w, np.int32(1)]))
    patched = ops.extract_image_patches(idx, ksizes=op.attrs["ksizes"], strides=op.attrs["strides"],
                                        rates=op.attrs["rates"], padding=op.attrs["padding"])
    seg = ops.reshape(ops.cast(patched, DstT="int32"), np.array([-1], np.int32)) - 1
    g = ops.reshape(grads[0], ops.pack([b, oh, ow, np.int32(kh), np.int32(kw), c]))
    g = ops.reshape(ops.transpose(g, np.array([1, 2, 3, 4, 0, 5], np.int32)), ops.pack([np.int32(-1), b * c]))
    out = ops.unsorted_segment_sum(g, seg, n)
    out = ops.reshape(out, ops.pack([h, w, b, c]))
    return [ops.transpose(out, np.array([2, 0, 1, 3], np.int32))]


def extract_volume_patches_grad(op, grads):
    """As extract_image_patches_grad, over volumes: the patches of a volume of positions say
    where each patch element came from."""
    ops = _ops()
    b, d, h, w, c = ops.unpack(ops.shape(op.inputs[0], out_type="int32"), num=5)
    od, oh, ow = ops.unpack(ops.strided_slice(ops.shape(op.outputs[0], out_type="int32"), np.array([1], np.int32),
                                              np.array([4], np.int32), np.array([1], np.int32)), num=3)
    _, kd, kh, kw, _ = op.attrs["ksizes"]
    n = d * h * w
    idx = ops.reshape(ops.range(np.float32(1), ops.cast(n + 1, DstT="float32"), np.float32(1)),
                      ops.pack([np.int32(1), d, h, w, np.int32(1)]))
    patched = ops.extract_volume_patches(idx, ksizes=op.attrs["ksizes"], strides=op.attrs["strides"],
                                         padding=op.attrs["padding"])
    seg = ops.reshape(ops.cast(patched, DstT="int32"), np.array([-1], np.int32)) - 1
    g = ops.reshape(grads[0], ops.pack([b, od, oh, ow, np.int32(kd), np.int32(kh), np.int32(kw), c]))
    g = ops.reshape(ops.transpose(g, np.array([1, 2, 3, 4, 5, 6, 0, 7], np.int32)), ops.pack([np.int32(-1), b * c]))
    out = ops.reshape(ops.unsorted_segment_sum(g, seg, n), ops.pack([d, h, w, b, c]))
    return [ops.transpose(out, np.array([3, 0, 1, 2, 4], np.int32))]
