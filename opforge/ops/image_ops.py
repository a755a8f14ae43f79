"""``of.image``: TensorFlow's tf.image, over opforge's image ops (NHWC). The functions live by
concern in image_resize (resizing, crop_and_resize), image_geometry (flips, rotations,
crops, pads, patches), image_color (colour adjustments and conversions, standardization,
random augmentation), image_quality (gradients, Sobel, total variation, PSNR, SSIM) and
image_codecs (PNG/JPEG, non-max suppression, boxes); ``opforge.compat.v1.image`` spells them as
TensorFlow 1 does."""

from __future__ import annotations

from .image_codecs import (  # noqa: F401
    adjust_jpeg_quality, combined_non_max_suppression, decode_and_crop_jpeg, decode_image, decode_jpeg, decode_png, draw_bounding_boxes, encode_jpeg, encode_png,
    extract_jpeg_shape, is_jpeg, non_max_suppression, non_max_suppression_overlaps, non_max_suppression_padded,
    non_max_suppression_with_scores, random_jpeg_quality,
)
from .image_color import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_gamma, adjust_hue, adjust_saturation, grayscale_to_rgb, hsv_to_rgb,
    per_image_standardization, random_brightness, random_contrast, random_hue, random_saturation, rgb_to_grayscale,
    rgb_to_hsv, rgb_to_yiq, rgb_to_yuv, yiq_to_rgb, yuv_to_rgb,
)
from .image_common import convert_image_dtype  # noqa: F401
from .image_geometry import (  # noqa: F401
    central_crop, crop_to_bounding_box, extract_glimpse, extract_patches, flip_left_right, flip_up_down, pad_to_bounding_box,
    random_crop, random_flip_left_right, random_flip_up_down, resize_with_crop_or_pad, rot90, transpose,
)
from .image_quality import image_gradients, psnr, sobel_edges, ssim, ssim_multiscale, total_variation  # noqa: F401
from .image_sampling import sample_distorted_bounding_box  # noqa: F401
from .image_resize import (  # noqa: F401
    ResizeMethod, crop_and_resize, resize, resize_area, resize_bicubic, resize_bilinear, resize_nearest_neighbor,
    resize_with_pad,
)
