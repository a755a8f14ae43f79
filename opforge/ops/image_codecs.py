"""``of.image``'s codecs (PNG and JPEG over libpng and libjpeg, see the Decode*/Encode* ops),
non-max suppression and bounding-box drawing, in TensorFlow's spellings."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework import dtypes as _dtypes
from ..framework.errors import UnimplementedError
from .image_common import convert_image_dtype, tensor

_JPEG_MAGIC = np.frombuffer(b"\xff\xd8\xff", np.uint8)


def _uint8_only(dtype, fn, op):
    if _dtypes.as_dtype(dtype).name != "uint8":
        raise UnimplementedError(f"image.{fn}: dtype {_dtypes.as_dtype(dtype).name} is not supported (opforge has no "
                                 "uint16: uint8 only)", op)


def decode_png(contents, channels=0, dtype="uint8", name=None):
    """tf.io.decode_png: a [height, width, channels] uint8 image."""
    _uint8_only(dtype, "decode_png", "DecodePng")
    return _ops.decode_png(contents, channels=channels, dtype="uint8", name=name)


def encode_png(image, compression=-1, name=None):
    """tf.io.encode_png: a 3-D uint8 image as PNG bytes."""
    image = tensor(image)
    _uint8_only(image.dtype, "encode_png", "EncodePng")
    return _ops.encode_png(image, compression=compression, name=name)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """tf.io.decode_jpeg: a [height, width, channels] uint8 image."""
    return _ops.decode_jpeg(contents, channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
                            try_recover_truncated=try_recover_truncated, acceptable_fraction=acceptable_fraction,
                            dct_method=dct_method, name=name)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """tf.io.decode_and_crop_jpeg: decode_jpeg, then the crop_window [y, x, height, width]."""
    window = crop_window if hasattr(crop_window, "dtype") and not isinstance(crop_window, np.ndarray) \
        else np.asarray(crop_window, np.int32)
    return _ops.decode_and_crop_jpeg(contents, window, channels=channels, ratio=ratio,
                                     fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                                     acceptable_fraction=acceptable_fraction, dct_method=dct_method, name=name)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 (TF's name)
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    """tf.io.encode_jpeg: a 3-D uint8 image as JPEG bytes."""
    return _ops.encode_jpeg(image, format=format, quality=quality, progressive=progressive,
                            optimize_size=optimize_size, chroma_downsampling=chroma_downsampling,
                            density_unit=density_unit, x_density=x_density, y_density=y_density,
                            xmp_metadata=xmp_metadata, name=name)


def extract_jpeg_shape(contents, output_type="int32", name=None):
    """tf.io.extract_jpeg_shape: [height, width, channels] from the JPEG header."""
    return _ops.extract_jpeg_shape(contents, output_type=output_type, name=name)


def decode_image(contents, channels=None, dtype="uint8", name=None, expand_animations=True):
    """tf.io.decode_image: PNG or JPEG by their first bytes; a float dtype scales to [0, 1]
    (convert_image_dtype's scaling)."""
    dtype = _dtypes.as_dtype(dtype)
    image = _ops.decode_image(contents, channels=channels or 0, dtype="uint8", expand_animations=expand_animations,
                              name=name if dtype.name == "uint8" else None)
    return image if dtype.name == "uint8" else convert_image_dtype(image, dtype, name=name)


def is_jpeg(contents, name=None):
    """tf.io.is_jpeg: whether the bytes start with JPEG's magic number (FF D8 FF)."""
    raw = _ops.decode_raw(contents, out_type="uint8")
    head = _ops.slice(_ops.concat_v2([raw, np.zeros(3, np.uint8)], np.int32(0)), np.asarray([0], np.int32),
                      np.asarray([3], np.int32))
    return _ops.all(_ops.equal(head, _JPEG_MAGIC), np.asarray([0], np.int32), name=name)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """tf.image.non_max_suppression: the NonMaxSuppressionV3 op (indices of the selected boxes)."""
    boxes, scores = tensor(boxes, "float32"), tensor(scores, "float32")
    return _ops.non_max_suppression_v3(boxes, scores, np.int32(max_output_size) if not hasattr(
        max_output_size, "dtype") else max_output_size, np.float32(iou_threshold) if not hasattr(
        iou_threshold, "dtype") else iou_threshold, np.float32(score_threshold) if not hasattr(
        score_threshold, "dtype") else score_threshold, name=name)


def _scalar(v, dtype):
    return v if hasattr(v, "dtype") and not isinstance(v, (np.ndarray, np.generic)) else np.asarray(v, dtype)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """tf.image.non_max_suppression_with_scores: NonMaxSuppressionV5, (indices, scores); with
    soft_nms_sigma > 0 Soft-NMS lowers the scores of overlapping boxes instead of pruning them."""
    boxes, scores = tensor(boxes, "float32"), tensor(scores, "float32")
    idx, out_scores, _ = _ops.non_max_suppression_v5(
        boxes, scores, _scalar(max_output_size, np.int32), _scalar(iou_threshold, np.float32),
        _scalar(score_threshold, np.float32), _scalar(soft_nms_sigma, np.float32), name=name)
    return idx, out_scores


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """tf.image.non_max_suppression_overlaps: NMS over a [num_boxes, num_boxes] overlap matrix."""
    return _ops.non_max_suppression_with_overlaps(
        tensor(overlaps, "float32"), tensor(scores, "float32"), _scalar(max_output_size, np.int32),
        _scalar(overlap_threshold, np.float32), _scalar(score_threshold, np.float32), name=name)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """tf.image.non_max_suppression_padded: (indices, valid count) from NonMaxSuppressionV4, the
    indices padded with zeros to max_output_size when asked; a batch [..., num_boxes, 4] (whose
    leading dims are static) runs per image and needs the padding. sorted_input,
    canonicalized_coordinates and tile_size tune TensorFlow's tiled kernel, which agrees with this
    greedy NMS for boxes given as [y_min, x_min, y_max, x_max] (for other corner orders TensorFlow's
    tiled kernel selects differently; this one treats every corner order alike, as V3 does)."""
    from .image_common import dims, error  # noqa: PLC0415

    del sorted_input, canonicalized_coordinates, tile_size
    boxes, scores = tensor(boxes, "float32"), tensor(scores, "float32")
    args = (_scalar(max_output_size, np.int32), _scalar(iou_threshold, np.float32), _scalar(score_threshold, np.float32))
    d = dims(boxes)
    if d is None or len(d) == 2:
        return tuple(_ops.non_max_suppression_v4(boxes, scores, *args, pad_to_max_output_size=pad_to_max_output_size,
                                                 name=name))
    if not pad_to_max_output_size:
        raise error("non_max_suppression_padded", f"'pad_to_max_output_size' (value False) must be True for batched "
                                                  f"input (boxes of shape {tuple(d)})")
    if any(v is None for v in d[:-2]):
        raise error("non_max_suppression_padded", f"a batch of boxes needs static leading dims, got {tuple(d)}")
    lead = d[:-2]
    flat_boxes = _ops.reshape(boxes, np.asarray([-1] + d[-2:], np.int32))
    flat_scores = _ops.reshape(scores, np.asarray([-1, d[-2] if d[-2] is not None else -1], np.int32))
    n = int(np.prod(lead))
    pairs = [_ops.non_max_suppression_v4(b, s, *args, pad_to_max_output_size=True)
             for b, s in zip(_ops.unpack(flat_boxes, num=n), _ops.unpack(flat_scores, num=n))]
    idx = _ops.pack([p[0] for p in pairs])
    valid = _ops.pack([p[1] for p in pairs])
    return (_ops.reshape(idx, _ops.concat_v2([np.asarray(lead, np.int32), _ops.shape(idx, out_type="int32")[1:]],
                                             np.int32(0))),
            _ops.reshape(valid, np.asarray(lead, np.int32), name=name))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """tf.image.combined_non_max_suppression: per image and class NMS, then the best
    max_total_size detections of each image: (nmsed_boxes, nmsed_scores, nmsed_classes,
    valid_detections)."""
    return tuple(_ops.combined_non_max_suppression(
        tensor(boxes, "float32"), tensor(scores, "float32"), _scalar(max_output_size_per_class, np.int32),
        _scalar(max_total_size, np.int32), _scalar(iou_threshold, np.float32), _scalar(score_threshold, np.float32),
        pad_per_class=pad_per_class, clip_boxes=clip_boxes, name=name))


def draw_bounding_boxes(images, boxes, colors=None, name=None):
    """tf.image.draw_bounding_boxes: one-pixel box outlines (DrawBoundingBoxesV2; TensorFlow's
    palette without colors)."""
    if colors is None:
        return _ops.draw_bounding_boxes(images, boxes, name=name)
    return _ops.draw_bounding_boxes_v2(images, boxes, np.asarray(colors, np.float32)
                                       if not hasattr(colors, "dtype") else colors, name=name)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """tf.image.adjust_jpeg_quality: a 3-D image of 1 or 3 channels through JPEG at jpeg_quality
    (an int or an int32 scalar tensor in [0, 100]) and back, in its own dtype."""
    from .image_common import check_rank, dims  # noqa: PLC0415

    image = tensor(image)
    check_rank(image, "adjust_jpeg_quality", (3,))
    channels = dims(image)[-1] or 0
    quality = _scalar(jpeg_quality, np.int32)
    encoded = _ops.encode_jpeg_variable_quality(convert_image_dtype(image, "uint8", saturate=True), quality)
    decoded = _ops.decode_jpeg(encoded, channels=channels, dct_method=dct_method)
    return convert_image_dtype(decoded, image.dtype, saturate=True, name=name)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """tf.image.random_jpeg_quality: adjust_jpeg_quality at a quality uniform in [min, max)."""
    from . import random_ops as _random  # noqa: PLC0415
    from .image_common import error  # noqa: PLC0415

    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise error("random_jpeg_quality", "jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise error("random_jpeg_quality", "`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    quality = _random.uniform([], min_jpeg_quality, max_jpeg_quality, dtype="int32", seed=seed)
    return adjust_jpeg_quality(image, quality)
