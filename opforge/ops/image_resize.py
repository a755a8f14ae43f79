"""``of.image``'s resizing over the Resize* ops (NHWC; a 3-D image gets a batch dimension of
1 and loses it again), as TensorFlow composes them: ``resize`` (TF2: half-pixel centers),
``resize_bilinear`` / ``resize_nearest_neighbor`` / ``resize_bicubic`` / ``resize_area`` with
the ops' own coordinate options, ``preserve_aspect_ratio``, ``resize_with_pad`` and
``crop_and_resize``; lanczos3/5, gaussian, mitchellcubic and antialias through ScaleAndTranslate
(image_scale_translate.py). The result's height and width are static where the size is known."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.errors import UnimplementedError
from .image_common import check_rank, dims, error, image_dims, is_tensor, set_static, tensor
from .image_geometry import pad_to_bounding_box
from .image_scale_translate import scale_and_translate


class ResizeMethod:
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_OPS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic",
        "area": "ResizeArea"}


def _size_tensor(size, fn):
    if is_tensor(size):
        d = dims(size)
        if d is not None and (len(d) != 1 or d[0] not in (None, 2)):
            raise error(fn, "'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        return size
    arr = np.asarray(size)
    if arr.shape != (2,):
        raise error(fn, f"'size' must be a 1-D Tensor of 2 elements: new_height, new_width, got {arr.tolist()}")
    return arr.astype(np.int32)


# tf.image.resize's methods computed by ScaleAndTranslate (image_scale_translate.py): its kernel
# for each, and for bilinear and bicubic with antialias.
_SCALED = {"lanczos3": "lanczos3", "lanczos5": "lanczos5", "gaussian": "gaussian", "mitchellcubic": "mitchellcubic"}
_ANTIALIASED = {"bilinear": "triangle", "bicubic": "keyscubic"}


def _resize_op(images, size, method, align_corners, half_pixel_centers, name=None, fn="resize", antialias=None):
    """One Resize* op on a 4-D batch, or for TF2's resize (antialias not None) the
    ScaleAndTranslate resampling its other methods and antialias take."""
    method = str(method).lower()
    if method == "nearest_neighbor":
        method = "nearest"
    kernel = None if antialias is None else (_SCALED.get(method) or (_ANTIALIASED.get(method) if antialias else None))
    if kernel is not None:
        if is_tensor(size):
            raise UnimplementedError(f"image.{fn}: method {method!r}{' with antialias' if antialias else ''} needs a "
                                     "size known when the graph is built", "ScaleAndTranslate")
        _, h, w, _ = dims(images)
        if h is None or w is None:
            raise UnimplementedError(f"image.{fn}: method {method!r}{' with antialias' if antialias else ''} needs the "
                                     "images' height and width when the graph is built", "ScaleAndTranslate")
        scale = np.asarray(size, np.float32) / np.asarray([h, w], np.float32)
        return scale_and_translate(images, size, scale, np.zeros(2, np.float32), kernel, antialias, name=name)
    if method not in _OPS:
        more = "lanczos3, lanczos5, gaussian, mitchellcubic" if antialias is not None else (
            "as TensorFlow 1's; TF2's image.resize takes lanczos3, lanczos5, gaussian, mitchellcubic")
        raise UnimplementedError(f"image.{fn}: method {method!r} is not supported (bilinear, nearest, bicubic, area; "
                                 f"{more})", _OPS["bilinear"])
    if method == "bilinear":
        return _ops.resize_bilinear(images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                                    name=name)
    if method == "nearest":
        return _ops.resize_nearest_neighbor(images, size, align_corners=align_corners,
                                            half_pixel_centers=half_pixel_centers, name=name)
    if method == "bicubic":
        return _ops.resize_bicubic(images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                                   name=name)
    return _ops.resize_area(images, size, align_corners=align_corners, name=name)


def _resize_common(images, size, method, align_corners, half_pixel_centers, preserve_aspect_ratio, name,
                   skip_if_same, fn, antialias=None):
    """TensorFlow's _resize_images_common: batching, preserve_aspect_ratio, the static shape."""
    images = tensor(images)
    rank = check_rank(images, fn, (3, 4), "images")
    batch = images if rank == 4 else _ops.expand_dims(images, np.int32(0))
    _, height, width, _ = dims(batch)
    size = _size_tensor(size, fn)
    if preserve_aspect_ratio:
        _, h, w, _ = image_dims(batch, 4)
        if not is_tensor(size) and not is_tensor(h) and not is_tensor(w):
            scale = min(np.float32(size[0]) / np.float32(h), np.float32(size[1]) / np.float32(w))
            size = np.asarray([np.round(np.float32(scale * np.float32(h))),
                               np.round(np.float32(scale * np.float32(w)))], np.int32)
        else:
            fsize = _ops.cast(size, DstT="float32")
            fh, fw = _ops.cast(h, DstT="float32"), _ops.cast(w, DstT="float32")
            parts = _ops.unpack(fsize, num=2)
            scale = _ops.minimum(parts[0] / fh, parts[1] / fw)
            size = _ops.pack([_ops.cast(_ops.round(scale * fh), DstT="int32"),
                              _ops.cast(_ops.round(scale * fw), DstT="int32")])
    known = None if is_tensor(size) else [int(v) for v in size]
    if skip_if_same and known is not None and [height, width] == known:
        return images
    out = _resize_op(batch, size, method, align_corners, half_pixel_centers, name, fn, antialias)
    if known is not None:
        set_static(out, [None, known[0], known[1], None])
    return out if rank == 4 else _ops.squeeze(out, axis=[0])


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """tf.image.resize (TensorFlow 2): half-pixel centers; bilinear, bicubic and area give float32,
    nearest keeps the dtype."""
    half = str(method).lower() != "area"
    return _resize_common(images, size, method, False, half, preserve_aspect_ratio, name, False, "resize",
                          antialias=bool(antialias))


def resize_images_v1(images, size, method="bilinear", align_corners=False, preserve_aspect_ratio=False, name=None):
    """TensorFlow 1's resize_images: the ops' legacy coordinates (or corner-aligned), and an image
    already of the size returned unchanged."""
    return _resize_common(images, size, method, align_corners, False, preserve_aspect_ratio, name, True,
                          "resize_images")


def _single(method):
    def fn(images, size, align_corners=False, half_pixel_centers=False, name=None):
        return _resize_common(images, size, method, align_corners, half_pixel_centers, False, name, False,
                              f"resize_{method}")
    fn.__name__ = f"resize_{'nearest_neighbor' if method == 'nearest' else method}"
    fn.__doc__ = (f"The {_OPS[method]} op with its own coordinate options (TF1's corner-aligned or legacy "
                  "coordinates; ``resize`` uses half-pixel centers); a 3-D image is a batch of one.")
    return fn


resize_bilinear = _single("bilinear")
resize_nearest_neighbor = _single("nearest")
resize_bicubic = _single("bicubic")


def resize_area(images, size, align_corners=False, name=None):
    """The ResizeArea op (each output pixel the mean of the input area it covers)."""
    return _resize_common(images, size, "area", align_corners, False, False, name, False, "resize_area")


def _resize_with_pad(image, target_height, target_width, resize_fn, fn):
    """TensorFlow's _resize_image_with_pad_common: scale to fit, then pad to the target."""
    image = tensor(image)
    rank = check_rank(image, fn)
    batch = image if rank == 4 else _ops.expand_dims(image, np.int32(0))
    for v, what in ((target_width, "target_width"), (target_height, "target_height")):
        if not is_tensor(v) and v <= 0:
            raise error(fn, f"{what} must be > 0.")
    _, height, width, _ = image_dims(batch, 4)
    if not any(is_tensor(v) for v in (height, width, target_height, target_width)):
        f32 = np.float32
        ratio = max(f32(width) / f32(target_width), f32(height) / f32(target_height))
        rh, rw = f32(height) / ratio, f32(width) / ratio
        size = np.asarray([np.floor(rh), np.floor(rw)], np.int32)
        ph = max(0, int(np.floor((f32(target_height) - rh) / f32(2))))
        pw = max(0, int(np.floor((f32(target_width) - rw) / f32(2))))
    else:
        c = lambda v: _ops.cast(v, DstT="float32")  # noqa: E732,E731
        fh, fw, fth, ftw = c(height), c(width), c(target_height), c(target_width)
        ratio = _ops.maximum(fw / ftw, fh / fth)
        rh, rw = fh / ratio, fw / ratio
        size = _ops.pack([_ops.cast(_ops.floor(rh), DstT="int32"), _ops.cast(_ops.floor(rw), DstT="int32")])
        ph = _ops.maximum(np.int32(0), _ops.cast(_ops.floor((fth - rh) / np.float32(2)), DstT="int32"))
        pw = _ops.maximum(np.int32(0), _ops.cast(_ops.floor((ftw - rw) / np.float32(2)), DstT="int32"))
    resized = resize_fn(batch, size)
    padded = pad_to_bounding_box(resized, ph, pw, target_height, target_width)
    return padded if rank == 4 else _ops.squeeze(padded, axis=[0])


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """tf.image.resize_with_pad (TensorFlow 2): resize keeping the aspect ratio, pad with zeros."""
    return _resize_with_pad(image, target_height, target_width,
                            lambda im, size: resize(im, size, method, antialias=antialias), "resize_with_pad")


def resize_image_with_pad_v1(image, target_height, target_width, method="bilinear", align_corners=False):
    """TensorFlow 1's resize_image_with_pad: resize_images' coordinates."""
    return _resize_with_pad(image, target_height, target_width,
                            lambda im, size: resize_images_v1(im, size, method, align_corners),
                            "resize_image_with_pad")


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """tf.image.crop_and_resize: the CropAndResize op (boxes in normalized coordinates)."""
    image, boxes = tensor(image), tensor(boxes, "float32")
    check_rank(image, "crop_and_resize", (4,))
    crop = np.asarray(crop_size, np.int32) if not is_tensor(crop_size) else crop_size
    if not is_tensor(crop) and (crop.shape != (2,) or (crop <= 0).any()):
        raise error("crop_and_resize", f"crop_size must hold 2 positive values, got {crop.tolist()}")
    ind = box_indices if is_tensor(box_indices) else np.asarray(box_indices, np.int32)
    return _ops.crop_and_resize(image, boxes, ind, crop, method=method,
                                extrapolation_value=float(extrapolation_value), name=name)
