"""``of.image``: TensorFlow's tf.image resizing over the ResizeBilinear and
ResizeNearestNeighbor ops (NHWC; a 3-D image gets a batch dimension of 1 and loses it again).

``resize`` is TF2's (half-pixel centers); ``opforge.compat.v1.image`` adds TF1's
``resize_images``, ``resize_bilinear`` and ``resize_nearest_neighbor`` (corner-aligned or
legacy coordinates, as TF1 computed them).
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import UnimplementedError


class ResizeMethod:
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"


_V1_METHODS = {0: "bilinear", 1: "nearest"}  # tf.compat.v1.image.ResizeMethod's numbers


def _resize(images, size, method, align_corners, half_pixel_centers, name=None):
    method = _V1_METHODS.get(method, method) if isinstance(method, int) else str(method).lower()
    squeeze = len(images.shape) == 3
    x = _ops.expand_dims(images, np.int32(0)) if squeeze else images
    size = np.asarray(size, np.int32) if not hasattr(size, "dtype") or isinstance(size, np.ndarray) else size
    if method == "bilinear":
        y = _ops.resize_bilinear(x, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)
    elif method in ("nearest", "nearest_neighbor"):
        y = _ops.resize_nearest_neighbor(x, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                                         name=name)
    else:
        raise UnimplementedError(f"image.resize: method {method!r} is not supported yet (bilinear, nearest)",
                                 "ResizeBilinear")
    return _ops.squeeze(y, axis=[0]) if squeeze else y


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """tf.image.resize: bilinear output is float32 (as TensorFlow's); nearest keeps the dtype."""
    if preserve_aspect_ratio or antialias:
        raise UnimplementedError("image.resize: preserve_aspect_ratio and antialias are not supported yet",
                                 "ResizeBilinear")
    return _resize(images, size, method, False, True, name)


def compat_v1_namespace():
    import types  # noqa: PLC0415

    def resize_images(images, size, method=0, align_corners=False, preserve_aspect_ratio=False, name=None):
        if preserve_aspect_ratio:
            raise UnimplementedError("image.resize_images: preserve_aspect_ratio is not supported yet", "ResizeBilinear")
        return _resize(images, size, method, align_corners, False, name)

    def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
        return _resize(images, size, "bilinear", align_corners, half_pixel_centers, name)

    def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
        return _resize(images, size, "nearest", align_corners, half_pixel_centers, name)

    return types.SimpleNamespace(resize=resize_images, resize_images=resize_images, resize_bilinear=resize_bilinear,
                                 resize_nearest_neighbor=resize_nearest_neighbor,
                                 ResizeMethod=types.SimpleNamespace(BILINEAR=0, NEAREST_NEIGHBOR=1))
