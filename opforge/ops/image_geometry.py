"""``of.image``'s geometry: flips, transposes and rotations, crops and pads to a bounding box,
central and random crops, random flips, and patch extraction, written as TensorFlow writes them
(compositions of ReverseV2, Transpose, Slice, Pad, ExtractImagePatches) with its static shapes.
Images are 3-D ``[height, width, channels]`` or 4-D ``[batch, height, width, channels]``."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from . import array_ops as _array
from . import random_ops as _random
from .image_common import check_rank, dims, error, image_dims, is_tensor, scalar_int, set_static, tensor


def _int_vector(values):
    """An int32 vector of Python ints and scalar tensors: a constant when all are ints."""
    if not any(is_tensor(v) for v in values):
        return np.asarray(values, np.int32)
    return _ops.pack([v if is_tensor(v) else np.int32(v) for v in values])


def _flip(image, axis3, fn):
    image = tensor(image)
    rank = check_rank(image, fn)
    return _ops.reverse_v2(image, np.asarray([axis3 + (rank == 4)], np.int32))


def flip_left_right(image):
    """tf.image.flip_left_right: reverses the width dimension."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """tf.image.flip_up_down: reverses the height dimension."""
    return _flip(image, 0, "flip_up_down")


def transpose(image, name=None):
    """tf.image.transpose: swaps height and width."""
    image = tensor(image)
    rank = check_rank(image, "transpose")
    perm = [1, 0, 2] if rank == 3 else [0, 2, 1, 3]
    return _ops.transpose(image, np.asarray(perm, np.int32), name=name)


def rot90(image, k=1, name=None):
    """tf.image.rot90: rotates by k quarter turns counter-clockwise. A Python k rotates
    statically (the result's shape is known where the image's is); a tensor k chooses at run
    time (height and width unknown then, as in TensorFlow)."""
    image = tensor(image)
    rank = check_rank(image, "rot90")
    h, w = (0, 1) if rank == 3 else (1, 2)
    perm = np.arange(rank, dtype=np.int32)
    perm[h], perm[w] = w, h

    def turn(q):
        if q == 1:
            return _ops.transpose(_ops.reverse_v2(image, np.asarray([w], np.int32)), perm)
        if q == 2:
            return _ops.reverse_v2(image, np.asarray([h, w], np.int32))
        if q == 3:
            return _ops.reverse_v2(_ops.transpose(image, perm), np.asarray([w], np.int32))
        return _ops.identity(image)

    k = scalar_int(k)
    if not is_tensor(k):
        return _ops.identity(turn(k % 4), name=name)
    from ..framework.control_flow import case  # noqa: PLC0415 (control flow only for a tensor k)

    k = _ops.floor_mod(tensor(k, "int32"), np.int32(4))
    out = case([(_ops.equal(k, np.int32(q)), (lambda q=q: turn(q))) for q in (1, 2, 3)],
               default=lambda: turn(0), exclusive=True, name=name or "rot90")
    d = dims(image)
    return set_static(out, [None, None, d[2]] if rank == 3 else [d[0], None, None, d[3]])


def _random_flip(image, axis3, seed, fn):
    image = tensor(image)
    rank = check_rank(image, fn)
    if rank == 3:
        flip = _ops.less(_random.uniform([], 0, 1.0, seed=seed), np.float32(0.5))
        return _ops.select_v2(flip, _ops.reverse_v2(image, np.asarray([axis3], np.int32)), image)
    batch = _array.shape(image)[0]
    u = _random.uniform(_ops.pack([batch]), 0, 1.0, seed=seed)
    flips = _ops.cast(_ops.round(_ops.reshape(u, _ops.pack([batch, np.int32(1), np.int32(1), np.int32(1)]))),
                      DstT=image.dtype)
    flipped = _ops.reverse_v2(image, np.asarray([axis3 + 1], np.int32))
    return flips * flipped + (1 - flips) * image


def random_flip_left_right(image, seed=None):
    """tf.image.random_flip_left_right: each image flipped left-right with probability 1/2."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """tf.image.random_flip_up_down: each image flipped upside down with probability 1/2."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def _as_batch(image, fn):
    image = tensor(image)
    rank = check_rank(image, fn)
    return (image, True) if rank == 4 else (_ops.expand_dims(image, np.int32(0)), False)


def _unbatch(image, is_batch):
    return image if is_batch else _ops.squeeze(image, axis=[0])


def _check_static(fn, cond, message):
    if not is_tensor(cond) and not cond:
        raise error(fn, message)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """tf.image.crop_to_bounding_box: the target_height x target_width window whose top-left
    corner is (offset_height, offset_width)."""
    fn = "crop_to_bounding_box"
    image, is_batch = _as_batch(image, fn)
    oh, ow, th, tw = (scalar_int(v) for v in (offset_height, offset_width, target_height, target_width))
    batch, height, width, depth = image_dims(image, 4)
    static = lambda *v: not any(is_tensor(x) for x in v)  # noqa: E731
    for cond, msg in ((ow, "offset_width must be >= 0."), (oh, "offset_height must be >= 0.")):
        if static(cond):
            _check_static(fn, cond >= 0, msg)
    for cond, msg in ((tw, "target_width must be > 0."), (th, "target_height must be > 0.")):
        if static(cond):
            _check_static(fn, cond > 0, msg)
    if static(width, tw, ow):
        _check_static(fn, width >= tw + ow, f"width must be >= target + offset ({width} < {tw} + {ow}).")
    if static(height, th, oh):
        _check_static(fn, height >= th + oh, f"height must be >= target + offset ({height} < {th} + {oh}).")
    cropped = _ops.slice(image, _int_vector([0, oh, ow, 0]), _int_vector([-1, th, tw, -1]))
    set_static(cropped, [None if is_tensor(v) else v for v in (batch, th, tw, depth)])
    return _unbatch(cropped, is_batch)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """tf.image.pad_to_bounding_box: zeros around the image, which lands at (offset_height,
    offset_width) of a target_height x target_width canvas."""
    fn = "pad_to_bounding_box"
    image, is_batch = _as_batch(image, fn)
    oh, ow, th, tw = (scalar_int(v) for v in (offset_height, offset_width, target_height, target_width))
    batch, height, width, depth = image_dims(image, 4)
    after_w, after_h = tw - ow - width, th - oh - height
    for v, msg in ((oh, "offset_height must be >= 0"), (ow, "offset_width must be >= 0"),
                   (after_w, "width must be <= target - offset"), (after_h, "height must be <= target - offset")):
        if not is_tensor(v):
            _check_static(fn, v >= 0, msg)
    paddings = _ops.reshape(_int_vector([0, 0, oh, after_h, ow, after_w, 0, 0]), np.asarray([4, 2], np.int32))
    padded = _ops.pad(image, paddings)
    set_static(padded, [None if is_tensor(v) else v for v in (batch, th, tw, depth)])
    return _unbatch(padded, is_batch)


def _min(x, y):
    return _ops.minimum(x, y) if is_tensor(x) or is_tensor(y) else min(x, y)


def resize_with_crop_or_pad(image, target_height, target_width):
    """tf.image.resize_with_crop_or_pad: centrally crops where the image is larger than the
    target and pads with zeros where it is smaller."""
    fn = "resize_with_crop_or_pad"
    image, is_batch = _as_batch(image, fn)
    th, tw = scalar_int(target_height), scalar_int(target_width)
    for v, msg in ((tw, "target_width must be > 0."), (th, "target_height must be > 0.")):
        if not is_tensor(v):
            _check_static(fn, v > 0, msg)
    _, height, width, _ = image_dims(image, 4)
    width_diff, height_diff = tw - width, th - height
    offset_crop_w = _half_clip(-width_diff if not is_tensor(width_diff) else _ops.neg(width_diff))
    offset_pad_w = _half_clip(width_diff)
    offset_crop_h = _half_clip(-height_diff if not is_tensor(height_diff) else _ops.neg(height_diff))
    offset_pad_h = _half_clip(height_diff)
    cropped = crop_to_bounding_box(image, offset_crop_h, offset_crop_w, _min(th, height), _min(tw, width))
    resized = pad_to_bounding_box(cropped, offset_pad_h, offset_pad_w, th, tw)
    return _unbatch(resized, is_batch)


def _half_clip(diff):
    """max(diff // 2, 0), for an int or an int32 tensor."""
    if is_tensor(diff):
        return _ops.maximum(_ops.floor_div(diff, np.int32(2)), np.int32(0))
    return max(diff // 2, 0)


def central_crop(image, central_fraction):
    """tf.image.central_crop: the central part of the image, central_fraction of its height and
    width (in (0, 1])."""
    fn = "central_crop"
    image = tensor(image)
    frac = central_fraction
    if not is_tensor(frac):
        frac = float(frac)
        if frac <= 0.0 or frac > 1.0:
            raise error(fn, "central_fraction must be within (0, 1]")
        if frac == 1.0:
            return image
    rank = check_rank(image, fn)
    d = dims(image)
    hw = (0, 1) if rank == 3 else (1, 2)
    sizes = image_dims(image, rank)
    starts, lengths = [], []
    for axis in hw:
        size = sizes[axis]
        if is_tensor(size) or is_tensor(frac):
            sd = _ops.cast(size, DstT="float64")
            start = _ops.cast((sd - sd * _ops.cast(frac, DstT="float64")) / np.float64(2), DstT="int32")
        else:
            start = int((float(size) - float(size) * frac) / 2)
        starts.append(start)
        lengths.append(size - start * 2)
    begin = _int_vector(([0] if rank == 4 else []) + starts + [0])
    size = _int_vector(([-1] if rank == 4 else []) + lengths + [-1])
    out = _ops.slice(image, begin, size)
    static = [None if is_tensor(v) else v for v in lengths]
    return set_static(out, ([d[0]] if rank == 4 else []) + static + [d[-1]])


def random_crop(value, size, seed=None, name=None):
    """tf.image.random_crop: a slice of the given size at a uniformly random offset."""
    value = tensor(value)
    size_c = np.asarray(size) if not is_tensor(size) else None
    d = dims(value)
    if size_c is not None and d is not None:
        if size_c.shape != (len(d),):
            raise error("random_crop", f"size {size_c.tolist()} must have one value per dimension of {tuple(d)}")
        for have, want in zip(d, size_c.tolist()):
            if have is not None and have < want:
                raise error("random_crop", f"Need value.shape >= size, got {tuple(d)} and {size_c.tolist()}")
    size_t = tensor(size, "int32") if size_c is None else np.asarray(size_c, np.int32)
    shape = _ops.shape(value, out_type="int32")
    limit = shape - size_t + np.int32(1)
    offset = _ops.floor_mod(_random.uniform(_ops.shape(shape, out_type="int32"), maxval=2**31 - 1, dtype="int32",
                                            seed=seed), limit)
    out = _ops.slice(value, offset, size_t, name=name)
    return set_static(out, None if size_c is None else [int(v) for v in size_c])


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """tf.image.extract_patches: the ExtractImagePatches op (sizes are its ksizes)."""
    images = tensor(images)
    check_rank(images, "extract_patches", (4,), "images")
    return _ops.extract_image_patches(images, ksizes=list(sizes), strides=list(strides), rates=list(rates),
                                      padding=padding, name=name)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, noise="uniform", name=None):  # noqa: A002
    """tf.image.extract_glimpse (TensorFlow 2): ExtractGlimpseV2, a window of `size` around each
    image's (y, x) offset, noise ('uniform', 'gaussian' or 'zero') where it leaves the image."""
    input = tensor(input, "float32")  # noqa: A001
    check_rank(input, "extract_glimpse", (4,), "input")
    return _ops.extract_glimpse_v2(input, _int_vector(list(size)) if not is_tensor(size) else size,
                                   tensor(offsets, "float32"), centered=centered, normalized=normalized,
                                   uniform_noise=False, noise=noise, name=name)
