"""of.image's compositions (opforge/ops/image_*.py) and compat.v1.image's TF1 spellings: values
against NumPy on random data, against tf.image where TensorFlow is installed (eagerly, and the
static shapes of graphs built from partially known inputs: opforge's never less known than
TensorFlow's), seeded augmentation, and the typed errors of bad calls."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

RNG = np.random.default_rng(11)
IMG = RNG.uniform(0, 1, (2, 6, 8, 3)).astype(np.float32)
U8 = RNG.integers(0, 256, (2, 6, 8, 3)).astype(np.uint8)


def _np(t):
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


def test_geometry_matches_numpy():
    im = of.image
    for x in (IMG, IMG[0]):
        h, w = x.ndim - 3, x.ndim - 2
        np.testing.assert_array_equal(_np(im.flip_left_right(x)), np.flip(x, w))
        np.testing.assert_array_equal(_np(im.flip_up_down(x)), np.flip(x, h))
        np.testing.assert_array_equal(_np(im.transpose(x)), np.swapaxes(x, h, w))
        for k in range(-1, 5):
            np.testing.assert_array_equal(_np(im.rot90(x, k)), np.rot90(x, k, axes=(h, w)))
            np.testing.assert_array_equal(_np(im.rot90(x, of.constant(k))), np.rot90(x, k, axes=(h, w)))
        np.testing.assert_array_equal(_np(im.crop_to_bounding_box(x, 1, 2, 4, 5)), x[..., 1:5, 2:7, :])
        padded = _np(im.pad_to_bounding_box(x, 2, 1, 9, 10))
        want = np.zeros(x.shape[:-3] + (9, 10, 3), np.float32)
        want[..., 2:8, 1:9, :] = x
        np.testing.assert_array_equal(padded, want)
        np.testing.assert_array_equal(_np(im.central_crop(x, 0.5)), x[..., 1:5, 2:6, :])
        np.testing.assert_array_equal(_np(im.resize_with_crop_or_pad(x, 4, 10)), np.pad(
            x[..., 1:5, :, :], [(0, 0)] * (x.ndim - 3) + [(0, 0), (1, 1), (0, 0)]))


def test_colour_and_standardization_match_numpy():
    im = of.image
    x = IMG
    np.testing.assert_allclose(_np(im.adjust_brightness(x, 0.2)), x + 0.2, atol=1e-6)
    np.testing.assert_array_equal(_np(im.adjust_brightness(U8, 0.5)),  # saturating back to uint8
                                  np.clip(U8 / 255.0 + 0.5, 0, 1).__mul__(255.5).astype(np.uint8))
    np.testing.assert_allclose(_np(im.adjust_gamma(x, 2.0, 1.5)), 1.5 * x ** 2, rtol=1e-5)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    want = (x - x.mean(axis=(1, 2, 3), keepdims=True)) / np.maximum(std, 1 / np.sqrt(6 * 8 * 3))
    np.testing.assert_allclose(_np(im.per_image_standardization(x)), want, atol=1e-5)
    flat = np.ones((6, 8, 3), np.uint8) * 7  # stddev 0: divided by 1/sqrt(N)
    np.testing.assert_array_equal(_np(im.per_image_standardization(flat)), np.zeros((6, 8, 3), np.float32))
    gray = _np(im.rgb_to_grayscale(x))
    np.testing.assert_allclose(gray, (x @ np.array([0.2989, 0.587, 0.114], np.float32))[..., None], atol=1e-6)
    np.testing.assert_array_equal(_np(im.grayscale_to_rgb(gray)), np.repeat(gray, 3, -1))
    np.testing.assert_allclose(_np(im.yiq_to_rgb(im.rgb_to_yiq(x))), x, atol=2e-4)  # TF's rounded matrices
    np.testing.assert_allclose(_np(im.yuv_to_rgb(im.rgb_to_yuv(x))), x, atol=2e-4)


def test_convert_image_dtype_matches_tensorflows_rule():
    cid = of.image.convert_image_dtype
    np.testing.assert_allclose(_np(cid(U8, "float32")), U8 / np.float32(255), rtol=1e-6)
    np.testing.assert_array_equal(_np(cid(np.array([0.0, 0.5, 1.0], np.float32), "uint8")), [0, 127, 255])
    np.testing.assert_array_equal(_np(cid(np.array([0.0, 0.5, 1.0, 1.2], np.float32), "uint8", saturate=True)),
                                  [0, 127, 255, 255])
    np.testing.assert_array_equal(_np(cid(np.array([255, 1], np.uint8), "int32")), [255 * 2**23, 2**23])
    np.testing.assert_array_equal(_np(cid(np.array([2**31 - 1, 2**24], np.int32), "uint8")), [255, 2])


def test_quality_measures_match_numpy():
    im = of.image
    x = IMG
    dy, dx = im.image_gradients(x)
    want_dy = np.concatenate([x[:, 1:] - x[:, :-1], np.zeros_like(x[:, :1])], 1)
    want_dx = np.concatenate([x[:, :, 1:] - x[:, :, :-1], np.zeros_like(x[:, :, :1])], 2)
    np.testing.assert_allclose(_np(dy), want_dy, atol=1e-6)
    np.testing.assert_allclose(_np(dx), want_dx, atol=1e-6)
    tv = np.abs(x[:, 1:] - x[:, :-1]).sum((1, 2, 3)) + np.abs(x[:, :, 1:] - x[:, :, :-1]).sum((1, 2, 3))
    np.testing.assert_allclose(_np(im.total_variation(x)), tv, rtol=1e-5)
    y = np.clip(x + RNG.normal(0, 0.05, x.shape).astype(np.float32), 0, 1)
    mse = ((x - y) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(_np(im.psnr(x, y, 1.0)), -10 * np.log10(mse), rtol=1e-5)
    big = RNG.uniform(0, 1, (1, 16, 16, 2)).astype(np.float32)
    np.testing.assert_allclose(_np(im.ssim(big, big, 1.0)), [1.0], atol=1e-6)
    assert _np(im.ssim(big, np.clip(big + 0.2, 0, 1), 1.0))[0] < 0.99
    large = RNG.uniform(0, 1, (161, 170, 1)).astype(np.float32)  # odd sizes: padded at each scale
    np.testing.assert_allclose(_np(im.ssim_multiscale(large, large, 1.0)), 1.0, atol=1e-5)
    assert _np(im.ssim_multiscale(large, large * np.float32(0.5), 1.0)) < 0.9
    ramp = np.tile(np.arange(5, dtype=np.float32)[None, :, None, None], (1, 1, 4, 1)).transpose(0, 2, 1, 3)
    edges = _np(im.sobel_edges(ramp))  # a horizontal ramp: dx is 8 inside, dy is 0
    assert edges.shape == (1, 4, 5, 1, 2)
    np.testing.assert_array_equal(edges[0, :, 1:-1, 0, 1], np.full((4, 3), 8.0))
    np.testing.assert_array_equal(edges[..., 0], np.zeros((1, 4, 5, 1)))


def test_resize_methods_and_pad():
    x = IMG
    out = of.image.resize(x, [4, 12], "area")
    assert out.shape == (2, 4, 12, 3) and out.dtype == of.float32
    kept = of.image.resize(x, [12, 12], preserve_aspect_ratio=True)
    assert kept.shape == (2, 9, 12, 3)  # 6x8 scaled by min(12/6, 12/8)
    padded = _np(of.image.resize_with_pad(x, 10, 10))
    assert padded.shape == (2, 10, 10, 3)
    np.testing.assert_array_equal(padded[:, :1], 0)  # 8 wide scaled to 10: 7.5 rows, a zero row above
    assert _np(tf1.image.resize_images(U8, [6, 8])).dtype == np.uint8  # TF1: the same size is returned as is


def _graph_run(fn, *args):
    with of.Graph().as_default() as g:
        out = fn(*args)
    with of.Session(graph=g) as s:
        return s.run(out)


def test_seeded_augmentation_is_reproducible_and_within_range():
    x = IMG
    for fn, args in ((of.image.random_brightness, (0.3,)), (of.image.random_contrast, (0.5, 1.5)),
                     (of.image.random_hue, (0.2,)), (of.image.random_saturation, (0.5, 1.5)),
                     (of.image.random_flip_left_right, ()), (of.image.random_flip_up_down, ())):
        def build(fn=fn, args=args):
            tf1.set_random_seed(5)
            return fn(x, *args, seed=7)
        a, b = _graph_run(build), _graph_run(build)
        np.testing.assert_array_equal(a, b)
    flips = [_graph_run(lambda s=s: of.image.random_flip_left_right(x[0], seed=s)) for s in range(12)]
    assert any(np.array_equal(f, x[0]) for f in flips) and any(np.array_equal(f, x[0, :, ::-1]) for f in flips)
    batch = _graph_run(lambda: of.image.random_flip_up_down(x, seed=3))
    for i in range(2):
        assert np.array_equal(batch[i], x[i]) or np.array_equal(batch[i], x[i, ::-1])
    crop = _graph_run(lambda: of.image.random_crop(x, [2, 4, 5, 3], seed=1))
    assert crop.shape == (2, 4, 5, 3)
    found = [(i, j) for i in range(3) for j in range(4) if np.array_equal(x[:, i:i + 4, j:j + 5], crop)]
    assert len(found) == 1
    delta = _graph_run(lambda: of.image.random_brightness(x, 0.3, seed=2)) - x
    assert np.allclose(delta, delta.flat[0], atol=1e-6) and abs(delta.flat[0]) <= 0.3


@pytest.mark.parametrize("call,match", [
    (lambda: of.image.flip_left_right(np.zeros((4, 4), np.float32)), "flip_left_right.*3 or 4 dimensions"),
    (lambda: of.image.crop_to_bounding_box(IMG, 0, 0, 7, 2), "crop_to_bounding_box.*height must be >= target"),
    (lambda: of.image.crop_to_bounding_box(IMG, -1, 0, 2, 2), "crop_to_bounding_box.*offset_height must be >= 0"),
    (lambda: of.image.pad_to_bounding_box(IMG, 0, 0, 3, 9), "pad_to_bounding_box.*height must be <= target"),
    (lambda: of.image.central_crop(IMG, 1.5), r"central_crop.*\(0, 1\]"),
    (lambda: of.image.random_crop(IMG, [2, 7, 2, 3]), "random_crop.*Need value.shape >= size"),
    (lambda: of.image.random_brightness(IMG, -1), "random_brightness.*non-negative"),
    (lambda: of.image.random_hue(IMG, 0.7), "random_hue.*<= 0.5"),
    (lambda: of.image.random_contrast(IMG, 1.0, 0.5), "random_contrast.*upper must be > lower"),
    (lambda: of.image.adjust_hue(IMG, 1.5), r"adjust_hue.*\[-1, 1\]"),
    (lambda: of.image.resize(IMG, [2, 2, 2]), "resize.*2 elements"),
    (lambda: of.image.resize_with_crop_or_pad(IMG, 0, 4), "resize_with_crop_or_pad.*target_height must be > 0"),
    (lambda: of.image.crop_and_resize(IMG, [[0, 0, 1, 1]], [0], [0, 3]), "crop_and_resize.*positive"),
    (lambda: of.image.image_gradients(IMG[0]), r"image_gradients.*\(4\)|image_gradients.*4 dimensions"),
    (lambda: of.image.grayscale_to_rgb(IMG), "grayscale_to_rgb.*size 1"),
    (lambda: of.image.psnr(IMG, IMG[:, :3], 1.0), "psnr.*incompatible"),
])
def test_bad_calls_raise_typed_errors_naming_the_function(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


def test_unknown_rank_is_a_typed_error():
    with of.Graph().as_default():
        with pytest.raises(InvalidArgumentError, match="rot90.*known rank"):
            of.image.rot90(tf1.placeholder(of.float32))


# ---- against TensorFlow


def _canonical(boxes):
    """Boxes as [y_min, x_min, y_max, x_max]."""
    return np.concatenate([np.minimum(boxes[..., :2], boxes[..., 2:]), np.maximum(boxes[..., :2], boxes[..., 2:])],
                          -1).astype(np.float32)


_TF2_CASES = [
    ("flip_left_right", (IMG,), {}), ("flip_up_down", (IMG[0],), {}), ("transpose", (IMG,), {}),
    ("rot90", (IMG, 3), {}), ("central_crop", (IMG, 0.6), {}), ("crop_to_bounding_box", (IMG, 1, 2, 3, 4), {}),
    ("pad_to_bounding_box", (IMG[0], 1, 2, 9, 11), {}), ("resize_with_crop_or_pad", (IMG, 9, 5), {}),
    ("adjust_brightness", (U8, 0.1), {}), ("adjust_contrast", (U8, 1.4), {}), ("adjust_contrast", (IMG, 0.6), {}),
    ("adjust_gamma", (IMG, 0.7, 1.2), {}), ("adjust_hue", (U8, 0.2), {}), ("adjust_saturation", (IMG, 1.6), {}),
    ("adjust_jpeg_quality", (U8[0], 60), {}), ("per_image_standardization", (U8,), {}),
    ("rgb_to_grayscale", (U8,), {}), ("grayscale_to_rgb", (IMG[..., :1],), {}), ("rgb_to_hsv", (IMG,), {}),
    ("hsv_to_rgb", (IMG,), {}), ("rgb_to_yiq", (IMG,), {}), ("yiq_to_rgb", (IMG,), {}), ("rgb_to_yuv", (IMG,), {}),
    ("yuv_to_rgb", (IMG,), {}), ("convert_image_dtype", (IMG, "uint8"), {}),
    ("convert_image_dtype", (U8, "int32"), {}), ("image_gradients", (IMG,), {}), ("sobel_edges", (IMG,), {}),
    ("total_variation", (IMG,), {}), ("psnr", (IMG, IMG[::-1], 1.0), {}),
    ("ssim", (RNG.uniform(0, 1, (2, 13, 12, 3)).astype(np.float32),
              RNG.uniform(0, 1, (2, 13, 12, 3)).astype(np.float32), 1.0), {}),
    ("ssim_multiscale", (RNG.uniform(0, 1, (1, 177, 180, 1)).astype(np.float32),
                         RNG.uniform(0, 1, (1, 177, 180, 1)).astype(np.float32), 1.0), {}),
    ("resize", (IMG, [5, 11]), {"method": "bicubic"}), ("resize", (IMG, [5, 11]), {"method": "area"}),
    ("resize", (IMG[0], [20, 20]), {"preserve_aspect_ratio": True}), ("resize_with_pad", (IMG, 9, 9), {}),
    ("crop_and_resize", (IMG, RNG.uniform(0, 1, (3, 4)).astype(np.float32), [1, 0, 1], [4, 3]), {}),
    ("extract_patches", (IMG, [1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"), {}),
    ("non_max_suppression", (RNG.uniform(0, 1, (20, 4)).astype(np.float32),
                             RNG.uniform(0, 1, 20).astype(np.float32), 6, 0.4), {}),
    ("draw_bounding_boxes", (IMG, RNG.uniform(0, 1, (2, 3, 4)).astype(np.float32), None), {}),
    ("non_max_suppression_with_scores", (RNG.uniform(0, 1, (20, 4)).astype(np.float32),
                                         RNG.uniform(0, 1, 20).astype(np.float32), 8, 0.4, 0.1, 0.5), {}),
    ("non_max_suppression_overlaps", (RNG.uniform(0, 1, (20, 20)).astype(np.float32),
                                      RNG.uniform(0, 1, 20).astype(np.float32), 8, 0.6), {}),
    # (TensorFlow's tiled padded kernel agrees with greedy NMS for boxes with y_min <= y_max, x_min <= x_max)
    ("non_max_suppression_padded", (_canonical(RNG.uniform(0, 1, (20, 4))), RNG.uniform(0, 1, 20).astype(np.float32),
                                    8, 0.4), {"pad_to_max_output_size": True}),
    ("non_max_suppression_padded", (_canonical(RNG.uniform(0, 1, (2, 20, 4))),
                                    RNG.uniform(0, 1, (2, 20)).astype(np.float32), 8, 0.3, 0.2),
     {"pad_to_max_output_size": True}),
]


@pytest.mark.parametrize("name,args,kw", _TF2_CASES, ids=[c[0] for c in _TF2_CASES])
def test_values_match_tensorflow(name, args, kw):
    tf = pytest.importorskip("tensorflow")
    tf_args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    want = getattr(tf.image, name)(*tf_args, **kw)
    got = getattr(of.image, name)(*args, **kw)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        w = w.numpy()
        assert g.shape == w.shape and _np(g).dtype == w.dtype, (g.shape, w.shape, _np(g).dtype, w.dtype)
        np.testing.assert_allclose(_np(g).astype(np.float64), w.astype(np.float64), atol=2e-5, rtol=1e-5)


_V1_CASES = [
    ("resize_images", (IMG, [5, 11], 2, True), {}), ("resize_images", (IMG, [5, 11], 3), {}),
    ("resize_images", (IMG[0], [3, 4]), {"preserve_aspect_ratio": True}),
    ("resize_bicubic", (IMG, [7, 3]), {"half_pixel_centers": True}), ("resize_area", (IMG, [4, 3], True), {}),
    ("resize_image_with_pad", (IMG, 7, 12, 1), {}), ("resize_image_with_crop_or_pad", (IMG, 3, 12), {}),
    ("crop_and_resize", (IMG, RNG.uniform(0, 1, (3, 4)).astype(np.float32)), {"box_ind": [0, 1, 1],
                                                                               "crop_size": [2, 5]}),
    ("extract_image_patches", (IMG,), {"ksizes": [1, 2, 2, 1], "strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1],
                                       "padding": "VALID"}),
    ("transpose_image", (IMG,), {}),
]


@pytest.mark.parametrize("name,args,kw", _V1_CASES, ids=[c[0] for c in _V1_CASES])
def test_v1_spellings_match_tensorflow(name, args, kw):
    tf = pytest.importorskip("tensorflow")
    tf_args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
    want = getattr(tf.compat.v1.image, name)(*tf_args, **kw).numpy()
    got = _graph_run(lambda: getattr(tf1.image, name)(*args, **kw))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, atol=2e-5)


_SHAPE_CASES = [
    ("flip_left_right", [None, None, 3], ()), ("rot90", [2, None, 7, 3], (1,)), ("transpose", [None, 5, 3], ()),
    ("central_crop", [None, 10, None, 3], (0.5,)), ("crop_to_bounding_box", [None, None, 3], (1, 1, 4, 5)),
    ("pad_to_bounding_box", [2, None, None, None], (1, 1, 9, 9)), ("resize_with_crop_or_pad", [None, 4, 3], (6, 2)),
    ("per_image_standardization", [None, None, None, 3], ()), ("rgb_to_grayscale", [None, 5, 3], ()),
    ("grayscale_to_rgb", [None, 4, 1], ()), ("adjust_brightness", [None, None, 3], (0.1,)),
    ("random_flip_left_right", [None, None, 3], ()), ("random_flip_up_down", [None, 4, 4, 3], ()),
    ("random_brightness", [None, 6, 3], (0.2,)), ("random_contrast", [2, None, 6, 3], (0.5, 1.5)),
    ("random_hue", [None, None, 3], (0.1,)), ("random_saturation", [4, 4, 3], (0.5, 1.5)),
    ("random_crop", [None, None, 3], ([2, 2, 3],)), ("resize_images", [None, None, None, 3], ([7, 8],)),
    ("resize_image_with_pad", [None, 10, 3], (12, 12)), ("image_gradients", [None, 5, None, 3], ()),
    ("sobel_edges", [None, 5, 6, 2], ()), ("total_variation", [None, 5, 6, 3], ()),
    ("extract_image_patches", [None, 8, None, 2], ([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")),
]


@pytest.mark.parametrize("name,shape,args", _SHAPE_CASES, ids=[c[0] for c in _SHAPE_CASES])
def test_static_shapes_at_least_as_known_as_tensorflows(name, shape, args):
    tf = pytest.importorskip("tensorflow")
    with tf.Graph().as_default():
        want = getattr(tf.compat.v1.image, name)(tf.compat.v1.placeholder(tf.float32, shape), *args)
    with of.Graph().as_default():
        got = getattr(tf1.image, name)(tf1.placeholder(of.float32, shape), *args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        w = w.shape.as_list()
        g = g.shape.as_list()
        assert len(g) == len(w) and all(b is None or a == b for a, b in zip(g, w)), (g, w)


def test_sample_distorted_bounding_box_draws_valid_crops():
    """Each crop lies in the image, has an area in area_range and an aspect ratio in
    aspect_ratio_range (up to rounding to whole pixels), covers min_object_covered of the box,
    and bboxes is the crop in [0, 1] coordinates; the stream is seeded."""
    box = np.array([[[0.1, 0.2, 0.5, 0.6]]], np.float32)
    with of.Graph().as_default() as g:
        tf1.set_random_seed(3)
        begin, size, bbox = tf1.image.sample_distorted_bounding_box(
            [40, 60, 3], box, min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0), area_range=(0.1, 0.9))
    seen = set()
    with of.Session(graph=g) as s:
        for _ in range(20):
            b, z, bb = s.run([begin, size, bbox])
            (y, x, zero), (h, w, minus1) = b, z
            assert zero == 0 and minus1 == -1 and y >= 0 and x >= 0 and y + h <= 40 and x + w <= 60
            assert 0.1 * 2400 <= h * w <= 0.9 * 2400
            assert 0.5 - 1 / h <= w / h <= 2.0 + 1 / h
            cover = max(0, min(y + h, 20) - max(y, 4)) * max(0, min(x + w, 36) - max(x, 12))
            assert cover >= 0.5 * 16 * 24
            np.testing.assert_allclose(bb.ravel(), [y / 40, x / 60, (y + h) / 40, (x + w) / 60], rtol=1e-6)
            seen.add((y, x, h, w))
    assert len(seen) > 10

    def first():
        with of.Graph().as_default() as g:
            tf1.set_random_seed(3)
            out = tf1.image.sample_distorted_bounding_box([40, 60, 3], box, min_object_covered=0.5)
        with of.Session(graph=g) as s:
            return [s.run(out[1]).tolist() for _ in range(3)]
    assert first() == first()


def test_sample_distorted_bounding_box_falls_back_to_the_whole_image():
    tiny = np.array([[[0.0, 0.0, 0.01, 0.01]]], np.float32)  # rounds to no whole pixel: no crop covers it
    b, z, bb = of.image.sample_distorted_bounding_box([10, 10, 1], tiny, min_object_covered=1.0,
                                                      area_range=(0.5, 0.6), max_attempts=5)
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0])
    np.testing.assert_array_equal(z.numpy(), [10, 10, -1])
    np.testing.assert_array_equal(bb.numpy().ravel(), [0, 0, 1, 1])
    b, z, _ = of.image.sample_distorted_bounding_box([30, 20, 3], np.zeros((1, 0, 4), np.float32),
                                                     use_image_if_no_bounding_boxes=True, area_range=(0.2, 0.3))
    assert 0.2 * 600 <= z.numpy()[0] * z.numpy()[1] <= 0.3 * 600
    with pytest.raises(InvalidArgumentError, match="sample_distorted_bounding_box.*No bounding boxes"):
        of.image.sample_distorted_bounding_box([30, 20, 3], np.zeros((1, 0, 4), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"sample_distorted_bounding_box.*area_range must be in \(0, 1\]"):
        of.image.sample_distorted_bounding_box([30, 20, 3], tiny, area_range=(0.0, 0.5))
