"""tf.image.sample_distorted_bounding_box, composed of opforge's ops: TensorFlow's
SampleDistortedBoundingBoxV2 algorithm (a random aspect ratio, the crop height drawn between the
area bounds, a random position; the first of max_attempts crops that covers min_object_covered
of some bounding box wins, else the whole image) with the attempts drawn at once and chosen by
their validity, from the graph's seeded random stream. The distribution is TensorFlow's; the
draws are opforge's own (TensorFlow's exact crops are not reproduced)."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from . import random_ops as _random
from .image_common import dims, error, is_tensor, tensor


def _f(x):
    return _ops.cast(x, DstT="float32")


def _round(x):
    """lrintf: round half to even, as float."""
    return _ops.round(x)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes): a random crop for tf.slice(image, begin, size) and its box
    [[[y_min, x_min, y_max, x_max]]] in [0, 1] coordinates, for the image of image_size
    [height, width, channels] and its bounding_boxes [batch, N, 4]."""
    fn = "sample_distorted_bounding_box"
    ar_lo, ar_hi = aspect_ratio_range if aspect_ratio_range is not None else (0.75, 1.33)
    area_lo, area_hi = area_range if area_range is not None else (0.05, 1.0)
    attempts = int(max_attempts) if max_attempts is not None else 100
    if not 0 < area_lo <= area_hi <= 1:
        raise error(fn, f"area_range must be in (0, 1], got {(area_lo, area_hi)}")
    if not 0 < ar_lo <= ar_hi:
        raise error(fn, f"aspect_ratio_range must be positive, got {(ar_lo, ar_hi)}")
    if attempts <= 0:
        raise error(fn, f"max_attempts must be positive, got {attempts}")
    if not is_tensor(min_object_covered) and min_object_covered < 0:
        raise error(fn, f"min_object_covered must be non-negative, got {min_object_covered}")
    size = tensor(image_size, "int32") if is_tensor(image_size) else np.asarray(image_size, np.int32)
    if not is_tensor(size) and (size.shape != (3,) or (size[:2] <= 0).any()):
        raise error(fn, f"image_size must hold 3 values, height and width positive, got {size.tolist()}")
    boxes = _ops.reshape(tensor(bounding_boxes, "float32"), np.asarray([-1, 4], np.int32))
    d = dims(boxes)
    whole = np.asarray([[0.0, 0.0, 1.0, 1.0]], np.float32)
    if d is not None and d[0] == 0:
        if not use_image_if_no_bounding_boxes:
            raise error(fn, "No bounding boxes provided as input. One must enable use_image_if_no_bounding_boxes=True "
                            "if no bounding boxes are provided.")
        boxes = whole
    elif use_image_if_no_bounding_boxes:  # no boxes at run time: the whole image is the box
        n = _ops.shape(boxes, out_type="int32")[0]
        boxes = _ops.slice(_ops.concat_v2([boxes, whole], np.int32(0)), np.asarray([0, 0], np.int32),
                           _ops.pack([_ops.maximum(n, np.int32(1)), np.int32(4)]))
    h_i, w_i = _ops.unpack(_ops.slice(size, np.asarray([0], np.int32), np.asarray([2], np.int32)), num=2)
    H, W = _f(h_i), _f(w_i)
    u = _random.uniform([4, attempts], 0, 1.0, seed=seed)
    u_ar, u_h, u_y, u_x = _ops.unpack(u, num=4)
    ar = np.float32(ar_lo) + u_ar * np.float32(ar_hi - ar_lo)
    min_area, max_area = np.float32(area_lo) * W * H, np.float32(area_hi) * W * H
    height = _round(_ops.sqrt(min_area / ar))
    max_h = _round(_ops.sqrt(max_area / ar))
    fit = _ops.floor((W + np.float32(0.5 - 1e-7)) / ar)
    fit = _ops.select_v2(_ops.greater(_round(fit * ar), W), fit - np.float32(1), fit)
    max_h = _ops.minimum(_ops.select_v2(_ops.greater(_round(max_h * ar), W), fit, max_h), H)
    height = _ops.minimum(height, max_h)
    height = height + _ops.floor(u_h * (max_h - height + np.float32(1)))
    width = _round(height * ar)
    area = width * height
    small = _ops.less(area, min_area)
    height = _ops.select_v2(small, height + np.float32(1), height)
    width = _round(height * ar)
    area = width * height
    ok = _ops.logical_and(_ops.greater_equal(area, min_area), _ops.less_equal(area, max_area))
    ok = _ops.logical_and(ok, _ops.logical_and(_ops.greater(width, np.float32(0)), _ops.less_equal(width, W)))
    ok = _ops.logical_and(ok, _ops.logical_and(_ops.greater(height, np.float32(0)), _ops.less_equal(height, H)))
    y = _ops.floor(u_y * _ops.maximum(H - height, np.float32(0)))
    x = _ops.floor(u_x * _ops.maximum(W - width, np.float32(0)))
    # Coverage of each box (in whole pixels, as TensorFlow's Rectangle) by each attempt.
    by0, bx0, by1, bx1 = _ops.unpack(_ops.transpose(boxes, np.asarray([1, 0], np.int32)), num=4)
    by0, by1 = _ops.floor(by0 * H), _ops.floor(by1 * H)
    bx0, bx1 = _ops.floor(bx0 * W), _ops.floor(bx1 * W)
    col = lambda v: _ops.expand_dims(v, np.int32(1))  # noqa: E731  (attempts down, boxes across)
    ih = _ops.maximum(_ops.minimum(col(y + height), by1) - _ops.maximum(col(y), by0), np.float32(0))
    iw = _ops.maximum(_ops.minimum(col(x + width), bx1) - _ops.maximum(col(x), bx0), np.float32(0))
    box_area = (by1 - by0) * (bx1 - bx0)
    covered = _ops.logical_and(_ops.greater(box_area, np.float32(0)),
                               _ops.greater_equal(ih * iw, _f(min_object_covered) * box_area))
    ok = _ops.logical_and(ok, _ops.any(covered, np.int32(1)))
    found = _ops.any(ok, np.int32(0))
    first = _ops.arg_max(_ops.cast(ok, DstT="int32"), np.int32(0), output_type="int32")
    pick = lambda v, full: _ops.select_v2(found, _ops.gather_v2(v, first, np.int32(0)), full)  # noqa: E731
    y0, x0 = pick(y, np.float32(0)), pick(x, np.float32(0))
    hh, ww = pick(height, H), pick(width, W)
    as_int = lambda v: _ops.cast(v, DstT="int32")  # noqa: E731
    begin = _ops.pack([as_int(y0), as_int(x0), np.int32(0)])
    crop = _ops.pack([as_int(hh), as_int(ww), np.int32(-1)], name=name)
    bbox = _ops.reshape(_ops.pack([y0 / H, x0 / W, (y0 + hh) / H, (x0 + ww) / W]), np.asarray([1, 1, 4], np.int32))
    return begin, crop, bbox
