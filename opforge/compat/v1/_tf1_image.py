"""tf.compat.v1.image: TensorFlow 1's spellings of of.image's resizing (ResizeMethod's numbers,
``resize_images``, the ops' argument order with ``name`` before ``half_pixel_centers``)."""

from __future__ import annotations

import types

from opforge.ops import image_ops as _image
from opforge.framework.errors import UnimplementedError

ResizeMethod = types.SimpleNamespace(BILINEAR=0, NEAREST_NEIGHBOR=1)
_METHODS = {0: "bilinear", 1: "nearest"}  # TF1's ResizeMethod numbers


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """tf.compat.v1.image.resize_images: of.image.resize_bilinear / resize_nearest_neighbor."""
    if preserve_aspect_ratio:
        raise UnimplementedError("image.resize_images: preserve_aspect_ratio is not supported yet", "ResizeBilinear")
    method = _METHODS.get(method, method) if isinstance(method, int) else str(method).lower()
    if method in ("nearest", "nearest_neighbor"):
        return _image.resize_nearest_neighbor(images, size, align_corners, False, name)
    if method != "bilinear":
        raise UnimplementedError(f"image.resize_images: method {method!r} is not supported yet (bilinear, nearest)",
                                 "ResizeBilinear")
    return _image.resize_bilinear(images, size, align_corners, False, name)


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _image.resize_bilinear(images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return _image.resize_nearest_neighbor(images, size, align_corners, half_pixel_centers, name)


def names() -> dict:
    return dict(resize=resize_images, resize_images=resize_images, resize_bilinear=resize_bilinear,
                resize_nearest_neighbor=resize_nearest_neighbor, ResizeMethod=ResizeMethod)
