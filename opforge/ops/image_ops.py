"""``of.image``: TensorFlow's tf.image resizing over the ResizeBilinear and
ResizeNearestNeighbor ops (NHWC; a 3-D image gets a batch dimension of 1 and loses it again).

``resize`` is TF2's (half-pixel centers); ``resize_bilinear`` and ``resize_nearest_neighbor``
take the ops' own coordinate options (corner-aligned or legacy coordinates, as TF1 computed
them), which ``opforge.compat.v1.image`` spells as TF1's ``resize_images`` and friends.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import UnimplementedError


class ResizeMethod:
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"


def _resize(images, size, method, align_corners, half_pixel_centers, name=None):
    method = str(method).lower()
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


def resize_bilinear(images, size, align_corners=False, half_pixel_centers=False, name=None):
    """The ResizeBilinear op with its own coordinate options (TF1's corner-aligned or legacy
    coordinates; ``resize`` uses half-pixel centers); a 3-D image is handled as a batch of one."""
    return _resize(images, size, "bilinear", align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, half_pixel_centers=False, name=None):
    """The ResizeNearestNeighbor op with its own coordinate options (see resize_bilinear)."""
    return _resize(images, size, "nearest", align_corners, half_pixel_centers, name)
