"""``of.image``'s measures over images, as TensorFlow composes them: image_gradients,
sobel_edges, total_variation, psnr, ssim and ssim_multiscale."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from . import array_ops as _array
from . import math_ops as _math_ops
from . import nn as _nn
from .image_common import check_rank, convert_image_dtype, dims, error, set_static, tensor


def image_gradients(image):
    """tf.image.image_gradients: (dy, dx), the forward differences along height and width of a
    4-D batch, zero in the last row (column)."""
    image = tensor(image)
    check_rank(image, "image_gradients", (4,))
    shape = _ops.shape(image, out_type="int32")
    b, h, w, d = _array.unstack(shape, num=4)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    zeros = lambda s: _ops.fill(_ops.pack(s), np.asarray(0, image.dtype.as_numpy_dtype))  # noqa: E731
    dy = _ops.reshape(_ops.concat_v2([dy, zeros([b, np.int32(1), w, d])], np.int32(1)), shape)
    dx = _ops.reshape(_ops.concat_v2([dx, zeros([b, h, np.int32(1), d])], np.int32(2)), shape)
    return set_static(dy, dims(image)), set_static(dx, dims(image))


def _reflect_pad1(x, axis):
    """x padded by one reflected row (column) on each side of axis (TF's REFLECT padding of 1)."""
    n = dims(x)[axis]
    first = _ops.slice(x, np.asarray([0] * axis + [1] + [0] * (3 - axis), np.int32),
                       np.asarray([-1] * axis + [1] + [-1] * (3 - axis), np.int32))
    if n is None:
        last_start = _ops.shape(x, out_type="int32")[axis] - np.int32(2)
        begin = _ops.pack([np.int32(0)] * axis + [last_start] + [np.int32(0)] * (3 - axis))
    else:
        begin = np.asarray([0] * axis + [n - 2] + [0] * (3 - axis), np.int32)
    last = _ops.slice(x, begin, np.asarray([-1] * axis + [1] + [-1] * (3 - axis), np.int32))
    return _ops.concat_v2([first, x, last], np.int32(axis))


def sobel_edges(image):
    """tf.image.sobel_edges: the vertical and horizontal Sobel responses of each channel of a 4-D
    batch (reflect-padded), stacked in a last dimension of 2."""
    image = tensor(image)
    check_rank(image, "sobel_edges", (4,))
    d = dims(image)
    if (d[1] is not None and d[1] < 2) or (d[2] is not None and d[2] < 2):
        raise error("sobel_edges", f"height and width must be at least 2 for reflect padding, got shape {tuple(d)}")
    kernels = np.asarray([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2).astype(image.dtype.as_numpy_dtype)
    shape = _ops.shape(image, out_type="int32")
    channels = _ops.strided_slice(shape, np.asarray([3], np.int32), np.asarray([4], np.int32),
                                  np.asarray([1], np.int32))
    filters = _ops.tile(kernels, _ops.concat_v2([np.asarray([1, 1], np.int32), channels, np.asarray([1], np.int32)],
                                                np.int32(0)))
    padded = _reflect_pad1(_reflect_pad1(image, 1), 2)
    out = _nn.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    out = _ops.reshape(out, _ops.concat_v2([shape, np.asarray([2], np.int32)], np.int32(0)))
    return set_static(out, d + [2])


def total_variation(images, name=None):
    """tf.image.total_variation: the sum of absolute differences of neighbouring pixels (a scalar
    for a 3-D image, one per image of a 4-D batch)."""
    images = tensor(images)
    rank = check_rank(images, "total_variation", (3, 4), "images")
    if rank == 3:
        d1 = images[1:, :, :] - images[:-1, :, :]
        d2 = images[:, 1:, :] - images[:, :-1, :]
        axis = None
    else:
        d1 = images[:, 1:, :, :] - images[:, :-1, :, :]
        d2 = images[:, :, 1:, :] - images[:, :, :-1, :]
        axis = [1, 2, 3]
    return _ops.add_v2(_math_ops.reduce_sum(_ops.abs(d1), axis=axis), _math_ops.reduce_sum(_ops.abs(d2), axis=axis),
                       name=name)


def _check_same_shape(a, b, fn):
    da, db = dims(a), dims(b)
    if da is not None and db is not None:
        if len(da) < 3 or len(db) < 3:
            raise error(fn, f"images must have at least 3 dimensions, got {tuple(da)} and {tuple(db)}")
        if any(x is not None and y is not None and x != y for x, y in zip(da[-3:], db[-3:])):
            raise error(fn, f"images have incompatible shapes {tuple(da)} and {tuple(db)}")


def psnr(a, b, max_val, name=None):
    """tf.image.psnr: 20 log10(max_val) - 10 log10(mse) per image (float32)."""
    a, b = tensor(a), tensor(b)
    _check_same_shape(a, b, "psnr")
    max_val = convert_image_dtype(_ops.cast(max_val, DstT=a.dtype), "float32")
    a, b = convert_image_dtype(a, "float32"), convert_image_dtype(b, "float32")
    mse = _math_ops.reduce_mean(_ops.squared_difference(a, b), axis=[-3, -2, -1])
    return _ops.sub(np.float32(20) * _ops.log(max_val) / np.float32(np.log(10.0)),
                    np.float32(10 / np.log(10)) * _ops.log(mse), name=name)


def _gauss(size, sigma):
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / np.float32(2)
    g = np.square(coords) * (np.float32(-0.5) / np.square(np.float32(sigma)))
    g = (g.reshape(1, -1) + g.reshape(-1, 1)).reshape(1, -1)
    return g


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map=False):
    """(ssim, cs) per channel of float32 images (TensorFlow's _ssim_per_channel): a Gaussian
    window of filter_size and filter_sigma, means over the image unless return_index_map."""
    d = dims(img1)
    if d is not None and any(x is not None and x < filter_size for x in d[-3:-1]):
        raise error("ssim", f"images of shape {tuple(d)} are smaller than the filter ({filter_size})")
    kernel = _ops.reshape(_nn.softmax(_gauss(filter_size, filter_sigma)),
                          np.asarray([filter_size, filter_size, 1, 1], np.int32))
    i32 = lambda *v: np.asarray(v, np.int32)  # noqa: E731
    channels = _ops.strided_slice(_ops.shape(img1, out_type="int32"), i32(-1), i32(0), i32(1), end_mask=1)
    kernel = _ops.tile(kernel, _ops.concat_v2([i32(1, 1), channels, i32(1)], np.int32(0)))

    def reducer(x):
        shape = _ops.shape(x, out_type="int32")
        last3 = _ops.strided_slice(shape, i32(-3), i32(0), i32(1), end_mask=1)
        lead = _ops.strided_slice(shape, i32(0), i32(-3), i32(1))
        y = _nn.depthwise_conv2d(_ops.reshape(x, _ops.concat_v2([i32(-1), last3], np.int32(0))), kernel,
                                 [1, 1, 1, 1], "VALID")
        ys = _ops.strided_slice(_ops.shape(y, out_type="int32"), i32(1), i32(0), i32(1), end_mask=1)
        return _ops.reshape(y, _ops.concat_v2([lead, ys], np.int32(0)))

    c1 = (np.float32(k1) * max_val) ** 2
    c2 = (np.float32(k2) * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * np.float32(2.0)
    den0 = _ops.square(mean0) + _ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * np.float32(2.0)
    den1 = reducer(_ops.square(img1) + _ops.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    return _math_ops.reduce_mean(luminance * cs, axis=[-3, -2]), _math_ops.reduce_mean(cs, axis=[-3, -2])


def _as_float_pair(img1, img2, max_val, fn):
    img1, img2 = tensor(img1), tensor(img2)
    _check_same_shape(img1, img2, fn)
    max_val = convert_image_dtype(_ops.cast(max_val, DstT=img1.dtype), "float32")
    return convert_image_dtype(img1, "float32"), convert_image_dtype(img2, "float32"), max_val


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """tf.image.ssim: the structural similarity of two (batches of) images, a Gaussian window
    of filter_size and filter_sigma, averaged over the image and its channels (or per pixel
    with return_index_map)."""
    img1, img2, max_val = _as_float_pair(img1, img2, max_val, "ssim")
    per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map)
    return _math_ops.reduce_mean(per_channel, axis=[-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _halve(x):
    """A [N, H, W, C] batch 2x2-average-pooled, an odd height or width first extended by its
    last row or column (TensorFlow's SYMMETRIC padding by the remainder)."""
    for axis in (1, 2):
        n = dims(x)[axis]
        size = _ops.shape(x, out_type="int32")[axis]
        odd = (n % 2 == 1) if n is not None else None
        if odd is False:
            continue
        begin = _ops.pack([np.int32(0)] * axis + [size - np.int32(1)] + [np.int32(0)] * (3 - axis))
        last = _ops.slice(x, begin, np.asarray([-1] * axis + [1] + [-1] * (3 - axis), np.int32))
        if odd:
            x = _ops.concat_v2([x, last], np.int32(axis))
        else:  # unknown: take as many rows of `last` as the remainder says
            rem = _ops.floor_mod(size, np.int32(2))
            take = _ops.pack([np.int32(-1)] * axis + [rem] + [np.int32(-1)] * (3 - axis))
            x = _ops.concat_v2([x, _ops.slice(last, np.zeros(4, np.int32), take)], np.int32(axis))
    return _nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """tf.image.ssim_multiscale: MS-SSIM, the contrast-structure terms of len(power_factors)
    scales (each a 2x2 average pool of the last) and the SSIM of the coarsest, combined by a
    weighted geometric mean and averaged over channels."""
    img1, img2, max_val = _as_float_pair(img1, img2, max_val, "ssim_multiscale")
    d = dims(img1)
    if d is None or len(d) < 3:
        raise error("ssim_multiscale", "images must have a known rank of at least 3")
    shape = _ops.shape(img1, out_type="int32")
    head = _ops.strided_slice(shape, np.asarray([0], np.int32), np.asarray([-3], np.int32),
                              np.asarray([1], np.int32))
    imgs = [img1, img2]
    mcs = []
    for k in range(len(power_factors)):
        if k > 0:
            flat = [_ops.reshape(x, _ops.concat_v2([np.asarray([-1], np.int32), _ops.shape(x, out_type="int32")[-3:]],
                                                   np.int32(0))) if len(dims(x)) != 4 else x for x in imgs]
            down = [_halve(x) for x in flat]
            imgs = [x if len(d) == 4 else _ops.reshape(
                x, _ops.concat_v2([head, _ops.shape(x, out_type="int32")[1:]], np.int32(0))) for x in down]
        per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size, filter_sigma, k1, k2)
        mcs.append(_ops.relu(cs))
    mcs.pop()
    stacked = _ops.pack(mcs + [_ops.relu(per_channel)], axis=-1)
    weights = np.asarray(power_factors, np.float32)
    return _math_ops.reduce_mean(_ops.prod(_ops.pow(stacked, weights), np.int32(-1)), axis=[-1])
