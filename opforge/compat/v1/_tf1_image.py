"""tf.compat.v1.image (and tf.io's codecs): TensorFlow 1's spellings of of.image: ResizeMethod's
numbers and ``resize_images``' legacy coordinates, the ops' argument order with ``name`` before
``half_pixel_centers``, ``crop_and_resize``'s ``box_ind``, ``draw_bounding_boxes``' ``colors``
last, ``extract_image_patches``' ``ksizes``."""

from __future__ import annotations

import types

from opforge.ops import image_ops as _image
from opforge.ops import image_resize as _resize

ResizeMethod = types.SimpleNamespace(BILINEAR=0, NEAREST_NEIGHBOR=1, BICUBIC=2, AREA=3)
_METHODS = {0: "bilinear", 1: "nearest", 2: "bicubic", 3: "area"}  # TF1's ResizeMethod numbers


def _method(method):
    return _METHODS.get(method, method) if isinstance(method, int) else str(method).lower()


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """tf.compat.v1.image.resize_images: the Resize* op of `method` with TF1's coordinates."""
    return _resize.resize_images_v1(images, size, _method(method), align_corners, preserve_aspect_ratio, name)


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False):
    return _resize.resize_image_with_pad_v1(image, target_height, target_width, _method(method), align_corners)


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _image.resize_bilinear(images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _image.resize_nearest_neighbor(images, size, align_corners, half_pixel_centers, name)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _image.resize_bicubic(images, size, align_corners, half_pixel_centers, name)


def resize_area(images, size, align_corners=False, name=None):
    return _image.resize_area(images, size, align_corners, name)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0,
                    name=None, box_indices=None):
    """tf.compat.v1.image.crop_and_resize: box_ind (or its TF2 name box_indices)."""
    if (box_ind is None) == (box_indices is None):
        raise TypeError("image.crop_and_resize: give exactly one of box_ind and box_indices")
    return _image.crop_and_resize(image, boxes, box_ind if box_indices is None else box_indices, crop_size, method,
                                  extrapolation_value, name)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    return _image.draw_bounding_boxes(images, boxes, colors, name)


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """tf.compat.v1.image.extract_image_patches (and tf.extract_image_patches): ksizes or sizes."""
    if (ksizes is None) == (sizes is None):
        raise TypeError("extract_image_patches: give exactly one of ksizes and sizes")
    return _image.extract_patches(images, ksizes if sizes is None else sizes, strides, rates, padding, name)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None):  # noqa: A002
    """tf.compat.v1.image.extract_glimpse: the ExtractGlimpse op (version 1's offsets)."""
    import numpy as np  # noqa: PLC0415

    from opforge import ops as _ops  # noqa: PLC0415

    size = size if hasattr(size, "dtype") and not isinstance(size, np.ndarray) else np.asarray(size, np.int32)
    return _ops.extract_glimpse(input, size, offsets, centered=centered, normalized=normalized,
                                uniform_noise=uniform_noise, name=name)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """tf.compat.v1.extract_volume_patches: the ExtractVolumePatches op."""
    from opforge import ops as _ops  # noqa: PLC0415

    return _ops.extract_volume_patches(input, ksizes=list(ksizes), strides=list(strides), padding=padding, name=name)


def random_crop(value, size, seed=None, name=None):
    return _image.random_crop(value, size, seed, name)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """tf.compat.v1.image.sample_distorted_bounding_box: seed2, if given, picks another stream of seed."""
    if seed2:
        seed = (seed or 0) * 1000003 + seed2
    return _image.sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered,
                                                aspect_ratio_range, area_range, max_attempts,
                                                use_image_if_no_bounding_boxes, name)


def _codecs() -> dict:
    return dict(decode_png=_image.decode_png, encode_png=_image.encode_png, decode_jpeg=_image.decode_jpeg,
                encode_jpeg=_image.encode_jpeg, decode_and_crop_jpeg=_image.decode_and_crop_jpeg,
                decode_image=_image.decode_image, extract_jpeg_shape=_image.extract_jpeg_shape,
                is_jpeg=_image.is_jpeg)


def io_names() -> dict:
    """tf.compat.v1.io's image codecs."""
    return _codecs()


_SAME_AS_TF2 = """
    adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_jpeg_quality adjust_saturation central_crop
    combined_non_max_suppression convert_image_dtype
    crop_to_bounding_box extract_patches flip_left_right flip_up_down grayscale_to_rgb hsv_to_rgb image_gradients
    non_max_suppression non_max_suppression_overlaps non_max_suppression_padded non_max_suppression_with_scores
    pad_to_bounding_box per_image_standardization psnr random_brightness random_contrast
    random_flip_left_right random_flip_up_down random_hue random_jpeg_quality random_saturation resize_with_crop_or_pad rgb_to_grayscale
    rgb_to_hsv rgb_to_yiq rgb_to_yuv rot90 sobel_edges ssim ssim_multiscale total_variation transpose yiq_to_rgb yuv_to_rgb
""".split()


def names() -> dict:
    out = {n: getattr(_image, n) for n in _SAME_AS_TF2}
    out.update(_codecs())
    out.update(resize=resize_images, resize_images=resize_images, resize_bilinear=resize_bilinear,
               resize_nearest_neighbor=resize_nearest_neighbor, resize_bicubic=resize_bicubic,
               resize_area=resize_area, resize_image_with_pad=resize_image_with_pad,
               resize_image_with_crop_or_pad=_image.resize_with_crop_or_pad, transpose_image=_image.transpose,
               crop_and_resize=crop_and_resize, draw_bounding_boxes=draw_bounding_boxes,
               extract_image_patches=extract_image_patches, random_crop=random_crop, ResizeMethod=ResizeMethod,
               sample_distorted_bounding_box=sample_distorted_bounding_box, extract_glimpse=extract_glimpse)
    return out
