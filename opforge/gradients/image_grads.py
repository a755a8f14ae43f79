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
