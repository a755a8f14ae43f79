"""``of.image``'s colour functions, as TensorFlow composes them: brightness, contrast, gamma,
hue and saturation adjustments (the Adjust* ops on float images, other dtypes converted there
and back), grayscale, HSV, YIQ and YUV conversions, per-image standardization, and the random_*
augmentations that draw their factor with the graph's seed."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from . import math as _math
from . import math_ops as _math_ops
from . import random_ops as _random
from .image_common import as_float, check_rank, convert_image_dtype, dims, error, set_static, tensor


def adjust_brightness(image, delta):
    """tf.image.adjust_brightness: image + delta in float, back to the image's dtype (saturating)."""
    image = tensor(image)
    flt = as_float(image)
    adjusted = _ops.add_v2(flt, _ops.cast(delta, DstT=flt.dtype))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """tf.image.adjust_contrast: (x - mean) * contrast_factor + mean per image and channel."""
    images = tensor(images)
    check_rank(images, "adjust_contrast", "3+", "images")
    flt = as_float(images)
    adjusted = _ops.adjust_contrastv2(flt, _ops.cast(contrast_factor, DstT="float32"))
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """tf.image.adjust_gamma: gain * image ** gamma (gamma >= 0) in float."""
    image = tensor(image)
    if not hasattr(gamma, "dtype") and gamma < 0:
        raise error("adjust_gamma", "Gamma should be a non-negative real number.")
    flt = as_float(image)
    adjusted = _ops.mul(_ops.cast(gain, DstT=flt.dtype), _ops.pow(flt, _ops.cast(gamma, DstT=flt.dtype)))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_hue(image, delta, name=None):
    """tf.image.adjust_hue: rotates the hue of RGB images by delta (a fraction of a turn, in [-1, 1])."""
    image = tensor(image)
    if not hasattr(delta, "dtype") and (delta < -1 or delta > 1):
        raise error("adjust_hue", "delta must be in the interval [-1, 1]")
    check_rank(image, "adjust_hue", "3+")
    flt = as_float(image)
    return convert_image_dtype(_ops.adjust_hue(flt, _ops.cast(delta, DstT="float32"), name=name), image.dtype)


def adjust_saturation(image, saturation_factor, name=None):
    """tf.image.adjust_saturation: scales the saturation of RGB images (clipped to [0, 1])."""
    image = tensor(image)
    check_rank(image, "adjust_saturation", "3+")
    flt = as_float(image)
    out = _ops.adjust_saturation(flt, _ops.cast(saturation_factor, DstT="float32"), name=name)
    return convert_image_dtype(out, image.dtype)


def _uniform(lower, upper, seed):
    return _random.uniform([], lower, upper, seed=seed)


def random_brightness(image, max_delta, seed=None):
    """tf.image.random_brightness: adjust_brightness by a delta uniform in [-max_delta, max_delta)."""
    if max_delta < 0:
        raise error("random_brightness", "max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed))


def random_contrast(image, lower, upper, seed=None):
    """tf.image.random_contrast: adjust_contrast by a factor uniform in [lower, upper)."""
    if upper <= lower:
        raise error("random_contrast", "upper must be > lower.")
    if lower < 0:
        raise error("random_contrast", "lower must be non-negative.")
    return adjust_contrast(image, _uniform(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """tf.image.random_hue: adjust_hue by a delta uniform in [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise error("random_hue", "max_delta must be <= 0.5.")
    if max_delta < 0:
        raise error("random_hue", "max_delta must be non-negative.")
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))


def random_saturation(image, lower, upper, seed=None):
    """tf.image.random_saturation: adjust_saturation by a factor uniform in [lower, upper)."""
    if upper <= lower:
        raise error("random_saturation", "upper must be > lower.")
    if lower < 0:
        raise error("random_saturation", "lower must be non-negative.")
    return adjust_saturation(image, _uniform(lower, upper, seed))


def per_image_standardization(image):
    """tf.image.per_image_standardization: (x - mean) / max(stddev, 1 / sqrt(num_elements)) per
    image (the last three dimensions), in float32."""
    image = tensor(image)
    check_rank(image, "per_image_standardization", "3+")
    image = _ops.cast(image, DstT="float32")
    shape = _ops.shape(image, out_type="int32")
    num_pixels = _ops.prod(_ops.strided_slice(shape, np.asarray([-3], np.int32), np.asarray([0], np.int32),
                                              np.asarray([1], np.int32), end_mask=1), np.asarray([0], np.int32))
    axes = [-1, -2, -3]
    mean = _math_ops.reduce_mean(image, axis=axes, keepdims=True)
    stddev = _math.reduce_std(image, axis=axes, keepdims=True)
    min_stddev = _ops.rsqrt(_ops.cast(num_pixels, DstT="float32"))
    return _ops.real_div(image - mean, _ops.maximum(stddev, min_stddev))


def rgb_to_grayscale(images, name=None):
    """tf.image.rgb_to_grayscale: 0.2989 R + 0.5870 G + 0.1140 B, a last dimension of 1."""
    images = tensor(images)
    flt = convert_image_dtype(images, "float32")
    weights = np.asarray([0.2989, 0.5870, 0.1140], np.float32)
    d = dims(flt)
    if d is None:  # any rank: the weighted sum over the last dimension
        gray = _ops.sum(flt * weights, np.int32(-1))
    else:
        gray = _math_ops.tensordot(flt, weights, [[len(d) - 1], [0]])
    gray = set_static(_ops.expand_dims(gray, np.int32(-1)), None if d is None else d[:-1] + [1])
    return convert_image_dtype(gray, images.dtype, name=name)


def grayscale_to_rgb(images, name=None):
    """tf.image.grayscale_to_rgb: the single channel repeated three times."""
    images = tensor(images)
    d = dims(images)
    if d is not None and (len(d) < 2 or d[-1] not in (None, 1)):
        raise error("grayscale_to_rgb", f"Last dimension of a grayscale image should be size 1, got shape {tuple(d)}")
    if d is not None:
        multiples = np.asarray([1] * (len(d) - 1) + [3], np.int32)
    else:
        rank1 = _ops.expand_dims(_ops.rank(images) - np.int32(1), np.int32(0))
        multiples = _ops.concat_v2([_ops.fill(rank1, np.int32(1)), np.asarray([3], np.int32)], np.int32(0))
    rgb = _ops.tile(images, multiples, name=name)
    return set_static(rgb, None if d is None else d[:-1] + [3])


def rgb_to_hsv(images, name=None):
    """tf.image.rgb_to_hsv: the RGBToHSV op (RGB in [0, 1] to hue, saturation, value in [0, 1])."""
    return _ops.rgb_to_hsv(tensor(images), name=name)


def hsv_to_rgb(images, name=None):
    """tf.image.hsv_to_rgb: the HSVToRGB op."""
    return _ops.hsv_to_rgb(tensor(images), name=name)


# TensorFlow's colour-space matrices (image_ops_impl.py), applied to the last dimension.
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _colour_matrix(images, kernel, fn):
    images = tensor(images)
    d = dims(images)
    if d is None or not d or d[-1] not in (None, 3):
        raise error(fn, f"images must have a known rank and 3 channels, got shape {None if d is None else tuple(d)}")
    return _math_ops.tensordot(images, np.asarray(kernel, images.dtype.as_numpy_dtype), [[len(d) - 1], [0]])


def rgb_to_yiq(images):
    """tf.image.rgb_to_yiq."""
    return _colour_matrix(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """tf.image.yiq_to_rgb."""
    return _colour_matrix(images, _YIQ_TO_RGB, "yiq_to_rgb")


def rgb_to_yuv(images):
    """tf.image.rgb_to_yuv."""
    return _colour_matrix(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """tf.image.yuv_to_rgb."""
    return _colour_matrix(images, _YUV_TO_RGB, "yuv_to_rgb")
