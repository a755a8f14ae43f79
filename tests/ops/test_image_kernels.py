"""The image ops behind of.image (kernels/cpu/image/): ResizeBicubic, ResizeArea, CropAndResize,
the colour ops, NonMaxSuppression, DrawBoundingBoxes and ExtractImagePatches against NumPy
references on random data and, where TensorFlow is installed, against tf.raw_ops; their
gradients against numeric ones; and the typed errors of bad calls, each naming the op."""

from __future__ import annotations

import numpy as np
import pytest

import image_reference as ref
import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

FLAGS = [(False, False), (True, False), (False, True)]
SIZES = [(9, 4), (3, 11), (1, 1)]
I32 = lambda *v: np.array(v, np.int32)  # noqa: E731


def _rng(*key):
    return np.random.default_rng(abs(hash(key)) % 2**32)


@pytest.mark.parametrize("ac,hp", FLAGS)
def test_resize_bicubic_and_area_match_numpy(ac, hp):
    x = _rng("cubic", ac, hp).normal(size=(2, 5, 7, 3)).astype(np.float32)
    for size in SIZES:
        got = of.raw_ops.ResizeBicubic(images=x, size=I32(*size), align_corners=ac, half_pixel_centers=hp).numpy()
        np.testing.assert_allclose(got, ref.bicubic(x, size, ac, hp), atol=2e-5)
        if not hp:
            got = of.raw_ops.ResizeArea(images=x, size=I32(*size), align_corners=ac).numpy()
            np.testing.assert_allclose(got, ref.area(x, size, ac), atol=2e-5)


def test_resize_integer_images_give_float():
    x = _rng("int").integers(0, 255, (1, 4, 6, 2)).astype(np.uint8)
    got = of.raw_ops.ResizeBicubic(images=x, size=I32(7, 3))
    assert got.dtype == of.float32
    np.testing.assert_allclose(got.numpy(), ref.bicubic(x, (7, 3)), atol=1e-3)
    np.testing.assert_allclose(of.raw_ops.ResizeArea(images=x, size=I32(2, 3)).numpy(), ref.area(x, (2, 3)),
                               atol=1e-3)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_matches_numpy(method):
    rng = _rng("crop", method)
    image = rng.normal(size=(2, 6, 7, 3)).astype(np.float32)
    boxes = rng.uniform(-0.3, 1.3, (5, 4)).astype(np.float32)
    ind = I32(0, 1, 1, 0, 1)
    for crop in [(3, 4), (1, 1), (1, 5)]:
        got = of.raw_ops.CropAndResize(image=image, boxes=boxes, box_ind=ind, crop_size=I32(*crop), method=method,
                                       extrapolation_value=-2.0).numpy()
        np.testing.assert_allclose(got, ref.crop_and_resize(image, boxes, ind, crop, method, -2.0), atol=1e-4)


def test_colour_ops_match_numpy():
    rng = _rng("colour")
    x = rng.uniform(0, 1, (2, 4, 5, 3)).astype(np.float32)
    x[0, 0, 0] = [0.5, 0.5, 0.5]  # gray: hue 0
    x[0, 0, 1] = [0, 0, 0]  # black: saturation 0
    hsv = of.raw_ops.RGBToHSV(images=x).numpy()
    np.testing.assert_allclose(hsv, ref.rgb_to_hsv(x), atol=1e-6)
    np.testing.assert_allclose(of.raw_ops.HSVToRGB(images=hsv).numpy(), x, atol=1e-5)
    np.testing.assert_allclose(of.raw_ops.HSVToRGB(images=x.astype(np.float64)).numpy(), ref.hsv_to_rgb(x), atol=1e-12)
    np.testing.assert_allclose(of.raw_ops.AdjustContrastv2(images=x, contrast_factor=np.float32(1.7)).numpy(),
                               ref.adjust_contrast(x, 1.7), atol=1e-5)
    for delta in (0.3, -0.7, 0.95):
        np.testing.assert_allclose(of.raw_ops.AdjustHue(images=x, delta=np.float32(delta)).numpy(),
                                   ref.adjust_hue(x, delta), atol=1e-5)
    for scale in (0.3, 1.8):
        np.testing.assert_allclose(of.raw_ops.AdjustSaturation(images=x, scale=np.float32(scale)).numpy(),
                                   ref.adjust_saturation(x, scale), atol=1e-5)


@pytest.mark.parametrize("thr", [0.0, 0.3, 0.7, 1.0])
def test_non_max_suppression_matches_numpy(thr):
    rng = _rng("nms", thr)
    boxes = rng.uniform(0, 1, (40, 4)).astype(np.float32)
    scores = rng.uniform(0, 1, 40).astype(np.float32)
    scores[5] = scores[9]  # a tie goes to the lower index
    got = of.raw_ops.NonMaxSuppressionV3(boxes=boxes, scores=scores, max_output_size=np.int32(15),
                                         iou_threshold=np.float32(thr), score_threshold=np.float32(0.2)).numpy()
    np.testing.assert_array_equal(got, ref.non_max_suppression(boxes, scores, 15, np.float32(thr), 0.2)[0])
    got = of.raw_ops.NonMaxSuppressionV2(boxes=boxes, scores=scores, max_output_size=np.int32(40),
                                         iou_threshold=np.float32(thr)).numpy()
    np.testing.assert_array_equal(got, ref.non_max_suppression(boxes, scores, 40, np.float32(thr))[0])
    got = of.raw_ops.NonMaxSuppression(boxes=boxes, scores=scores, max_output_size=np.int32(3), iou_threshold=thr)
    np.testing.assert_array_equal(got.numpy(), ref.non_max_suppression(boxes, scores, 3, np.float32(thr))[0])
    want = ref.non_max_suppression(boxes, scores, 30, np.float32(thr), 0.2)[0]
    idx, valid = of.raw_ops.NonMaxSuppressionV4(boxes=boxes, scores=scores, max_output_size=np.int32(30),
                                                iou_threshold=np.float32(thr), score_threshold=np.float32(0.2),
                                                pad_to_max_output_size=True)
    assert valid.numpy() == len(want) and idx.shape == (30,)
    np.testing.assert_array_equal(idx.numpy(), np.pad(want, (0, 30 - len(want))))


@pytest.mark.parametrize("sigma", [0.0, 0.2, 1.0])
def test_soft_and_overlap_non_max_suppression_match_numpy(sigma):
    rng = _rng("soft", sigma)
    boxes = rng.uniform(0, 1, (25, 4)).astype(np.float32)
    scores = rng.uniform(0, 1, 25).astype(np.float32)
    idx, sc, valid = of.raw_ops.NonMaxSuppressionV5(
        boxes=boxes, scores=scores, max_output_size=np.int32(12), iou_threshold=np.float32(0.5),
        score_threshold=np.float32(0.1), soft_nms_sigma=np.float32(sigma))
    want_idx, want_sc = ref.non_max_suppression(boxes, scores, 12, np.float32(0.5), np.float32(0.1), sigma)
    np.testing.assert_array_equal(idx.numpy(), want_idx)
    np.testing.assert_allclose(sc.numpy(), want_sc, rtol=1e-5)
    assert valid.numpy() == len(want_idx)
    overlaps = rng.uniform(0, 1, (25, 25)).astype(np.float32)
    got = of.raw_ops.NonMaxSuppressionWithOverlaps(overlaps=overlaps, scores=scores, max_output_size=np.int32(9),
                                                   overlap_threshold=np.float32(0.6),
                                                   score_threshold=np.float32(0.05)).numpy()
    np.testing.assert_array_equal(got, ref.non_max_suppression(None, scores, 9, np.float32(0.6), np.float32(0.05),
                                                               overlaps=overlaps)[0])


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("k,s,r", [([1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1]), ([1, 2, 2, 1], [1, 3, 3, 1], [1, 1, 1, 1])])
def test_extract_image_patches_matches_numpy(padding, k, s, r):
    x = _rng("patch", padding).normal(size=(2, 7, 6, 3)).astype(np.float32)
    got = of.raw_ops.ExtractImagePatches(images=x, ksizes=k, strides=s, rates=r, padding=padding).numpy()
    np.testing.assert_array_equal(got, ref.extract_patches(x, k, s, r, padding))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_extract_volume_patches_matches_numpy(padding):
    x = _rng("volume", padding).normal(size=(2, 4, 5, 6, 2)).astype(np.float32)
    for k, s in (([1, 2, 3, 2, 1], [1, 1, 2, 3, 1]), ([1, 3, 1, 2, 1], [1, 2, 1, 1, 1])):
        got = of.raw_ops.ExtractVolumePatches(input=x, ksizes=k, strides=s, padding=padding).numpy()
        np.testing.assert_array_equal(got, ref.extract_volume_patches(x, k, s, padding))
        with of.Graph().as_default() as g:
            out = tf1.extract_volume_patches(x, k, s, padding)  # tf.extract_volume_patches
        with of.Session(graph=g) as sess:
            np.testing.assert_array_equal(sess.run(out), got)


def test_draw_bounding_boxes_outlines_each_box():
    images = np.zeros((1, 6, 8, 3), np.float32)
    boxes = np.array([[[0.2, 1 / 7, 0.8, 5 / 7], [0.0, 0.0, 1.0, 1.0], [0.9, 0.5, 0.1, 0.6]]], np.float32)
    got = of.raw_ops.DrawBoundingBoxes(images=images, boxes=boxes).numpy()[0]
    want = np.zeros((6, 8, 3), np.float32)
    want[0, :] = want[5, :] = want[:, 0] = want[:, 7] = [0, 0, 1]  # box 2 of the palette: blue, the image's border
    want[1, 1:6] = want[4, 1:6] = want[1:5, 1] = want[1:5, 5] = [1, 1, 0]  # box 1: yellow (rows 1..4, cols 1..5)
    np.testing.assert_array_equal(got, want)  # the inverted third box is not drawn
    colours = np.array([[0.25, 0.5, 0.75, 1]], np.float32)
    got = of.raw_ops.DrawBoundingBoxesV2(images=images, boxes=boxes[:, 1:2], colors=colours).numpy()[0]
    assert (got[0] == colours[0, :3]).all() and (got[2:4, 2:6] == 0).all()


def test_ops_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = _rng("tf")
    x = rng.uniform(0, 1, (2, 5, 7, 3)).astype(np.float32)

    def same(name, atol=0.0, **kw):
        want = getattr(tf.raw_ops, name)(**kw)
        got = getattr(of.raw_ops, name)(**{k: (of.float32 if v is tf.float32 else v) for k, v in kw.items()})
        for g, w in zip(got if isinstance(got, (tuple, list)) else [got], want if isinstance(want, (tuple, list))
                        else [want]):
            np.testing.assert_allclose(g.numpy(), w.numpy(), atol=atol, err_msg=f"{name} {kw.keys()}")

    for ac, hp in FLAGS:
        for size in SIZES:
            same("ResizeBicubic", 1e-6, images=x, size=I32(*size), align_corners=ac, half_pixel_centers=hp)
            g = rng.normal(size=(2, *size, 3)).astype(np.float32)
            same("ResizeBicubicGrad", 1e-5, grads=g, original_image=x, align_corners=ac, half_pixel_centers=hp)
            if not hp:
                same("ResizeArea", 1e-6, images=x, size=I32(*size), align_corners=ac)
    boxes = rng.uniform(-0.2, 1.2, (4, 4)).astype(np.float32)
    ind = I32(0, 1, 1, 0)
    for method in ("bilinear", "nearest"):
        for crop in ((3, 4), (1, 1)):
            g = rng.normal(size=(4, *crop, 3)).astype(np.float32)
            same("CropAndResize", 1e-6, image=x, boxes=boxes, box_ind=ind, crop_size=I32(*crop), method=method,
                 extrapolation_value=-1.0)
            same("CropAndResizeGradImage", 1e-5, grads=g, boxes=boxes, box_ind=ind, image_size=I32(*x.shape),
                 T=tf.float32, method=method)
            same("CropAndResizeGradBoxes", 1e-4, grads=g, image=x, boxes=boxes, box_ind=ind)
    same("RGBToHSV", 1e-6, images=x)
    same("HSVToRGB", 1e-7, images=x)
    same("AdjustContrastv2", 1e-6, images=x, contrast_factor=np.float32(1.7))
    for d in (0.3, -0.7, 0.0):
        same("AdjustHue", 1e-7, images=x, delta=np.float32(d))
    same("AdjustSaturation", 1e-7, images=x, scale=np.float32(1.8))
    b4, sc = rng.uniform(0, 1, (30, 4)).astype(np.float32), rng.uniform(0, 1, 30).astype(np.float32)
    same("NonMaxSuppressionV3", boxes=b4, scores=sc, max_output_size=np.int32(20), iou_threshold=np.float32(0.3),
         score_threshold=np.float32(0.3))
    im, b3 = rng.uniform(0, 1, (2, 12, 10, 3)).astype(np.float32), rng.uniform(-0.3, 1.3, (2, 5, 4)).astype(np.float32)
    for sigma in (0.0, 0.5):
        same("NonMaxSuppressionV5", boxes=b4, scores=sc, max_output_size=np.int32(20),
             iou_threshold=np.float32(0.3), score_threshold=np.float32(0.1), soft_nms_sigma=np.float32(sigma),
             pad_to_max_output_size=True)
    same("NonMaxSuppressionWithOverlaps", overlaps=rng.uniform(0, 1, (30, 30)).astype(np.float32), scores=sc,
         max_output_size=np.int32(10), overlap_threshold=np.float32(0.7), score_threshold=np.float32(0.2))
    for pad in (False, True):
        same("CombinedNonMaxSuppression", boxes=rng.uniform(-0.2, 1.2, (2, 12, 3, 4)).astype(np.float32),
             scores=rng.uniform(0, 1, (2, 12, 3)).astype(np.float32), max_output_size_per_class=np.int32(3),
             max_total_size=np.int32(7), iou_threshold=np.float32(0.4), score_threshold=np.float32(0.1),
             pad_per_class=pad)
    vol = rng.normal(size=(2, 5, 4, 6, 3)).astype(np.float32)
    for padding in ("SAME", "VALID"):
        same("ExtractVolumePatches", input=vol, ksizes=[1, 2, 3, 2, 1], strides=[1, 2, 1, 3, 1], padding=padding)
    same("DrawBoundingBoxes", images=im, boxes=b3)
    same("DrawBoundingBoxes", images=im[..., :1], boxes=b3)
    same("DrawBoundingBoxesV2", images=im, boxes=b3, colors=rng.uniform(0, 1, (3, 4)).astype(np.float32))


def test_combined_non_max_suppression_matches_numpy():
    rng = _rng("combined")
    boxes = rng.uniform(-0.2, 1.2, (2, 15, 3, 4)).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 15, 3)).astype(np.float32)
    for q, pad, clip in ((3, False, True), (1, True, False)):
        b = boxes[:, :, :q]
        nb, ns, nc, valid = of.raw_ops.CombinedNonMaxSuppression(
            boxes=b, scores=scores, max_output_size_per_class=np.int32(4), max_total_size=np.int32(10),
            iou_threshold=np.float32(0.4), score_threshold=np.float32(0.2), pad_per_class=pad, clip_boxes=clip)
        assert nb.shape == (2, 10, 4) and ns.shape == nc.shape == (2, 10) and valid.shape == (2,)
        for i in range(2):
            found = []
            for k in range(3):
                kb = b[i, :, k if q > 1 else 0]
                for j in ref.non_max_suppression(kb, scores[i, :, k], 4, np.float32(0.4), np.float32(0.2))[0]:
                    found.append((scores[i, j, k], k, kb[j]))
            found.sort(key=lambda t: -t[0])
            found = found[:10]
            assert valid.numpy()[i] == len(found)
            np.testing.assert_array_equal(ns.numpy()[i, :len(found)], [f[0] for f in found])
            np.testing.assert_array_equal(nc.numpy()[i, :len(found)], [f[1] for f in found])
            want = np.asarray([f[2] for f in found]).reshape(-1, 4)
            np.testing.assert_array_equal(nb.numpy()[i, :len(found)], np.clip(want, 0, 1) if clip else want)
            assert (ns.numpy()[i, len(found):] == 0).all()


@pytest.mark.parametrize("op", ["ExtractGlimpse", "ExtractGlimpseV2"])
def test_extract_glimpse_windows_and_noise(op):
    x = _rng("glimpse", op).uniform(0, 1, (2, 9, 11, 2)).astype(np.float32)
    fn = getattr(of.raw_ops, op)
    # Unnormalized, uncentered offsets: version 1 puts the window's centre there, version 2 its corner.
    got = fn(input=x, size=I32(3, 4), offsets=np.array([[4, 5], [2, 3]], np.float32), centered=False,
             normalized=False, uniform_noise=False, noise="zero").numpy()
    for i, (y, xx) in enumerate([(4, 5), (2, 3)]):
        y0, x0 = (int(y - 1.5), int(xx - 2)) if op == "ExtractGlimpse" else (y, xx)
        np.testing.assert_array_equal(got[i], x[i, y0:y0 + 3, x0:x0 + 4])
    # A window half outside: zeros, or noise within the image's range, around the part inside.
    off = np.array([[-0.9, -0.9], [0.9, 0.9]], np.float32)
    zero = fn(input=x, size=I32(6, 6), offsets=off, uniform_noise=False, noise="zero").numpy()
    noisy = fn(input=x, size=I32(6, 6), offsets=off).numpy()
    inside = zero != 0
    np.testing.assert_array_equal(noisy[inside], zero[inside])
    assert (~inside).any() and (noisy >= x.min()).all() and (noisy <= x.max()).all()
    assert not np.array_equal(noisy[~inside], zero[~inside])
    gauss = fn(input=x, size=I32(6, 6), offsets=off, uniform_noise=False, noise="gaussian").numpy()
    assert np.isfinite(gauss).all() and abs(gauss[~inside].mean() - x.mean()) < 0.2
    with pytest.raises(InvalidArgumentError, match=f"{op}.*could not be specified at the same time"):
        fn(input=x, size=I32(3, 3), offsets=off, noise="zero")
    with pytest.raises(InvalidArgumentError, match=f"{op}.*offsets must be 2-D"):
        fn(input=x, size=I32(3, 3), offsets=off[:1])


def test_extract_glimpse_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = _rng("glimpse-tf")
    x = rng.uniform(0, 1, (3, 9, 11, 2)).astype(np.float32)
    for op in ("ExtractGlimpse", "ExtractGlimpseV2"):
        for centered in (True, False):
            for normalized in (True, False):
                off = (rng.uniform(-1, 1, (3, 2)) if normalized else rng.uniform(-6, 12, (3, 2))).astype(np.float32)
                for size in ((4, 5), (9, 11), (12, 3)):
                    kw = dict(input=x, size=I32(*size), offsets=off, centered=centered, normalized=normalized,
                              uniform_noise=False, noise="zero")
                    np.testing.assert_array_equal(getattr(of.raw_ops, op)(**kw).numpy(),
                                                  getattr(tf.raw_ops, op)(**kw).numpy())
    off = np.array([[0.1, -0.2], [0.0, 0.0], [-0.3, 0.2]], np.float32)
    np.testing.assert_array_equal(of.image.extract_glimpse(x, [3, 4], off, noise="zero").numpy(),
                                  tf.image.extract_glimpse(x, [3, 4], off, noise="zero").numpy())


# ---- gradients


def _numeric_check(build, x, eps, atol, dtype=of.float64):
    rng = np.random.default_rng(3)
    g = of.Graph()
    with g.as_default():
        p = tf1.placeholder(dtype, x.shape)
        y = build(p)
        w = rng.normal(size=[int(d) for d in y.shape]).astype(np.float64)
        loss = of.reduce_sum(of.cast(y, of.float64) * w)
        (gx,) = of.gradients(loss, [p])
    s = tf1.Session(graph=g)
    got = s.run(gx, {p: x})
    num = np.zeros_like(x, np.float64)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        num[i] = (s.run(loss, {p: x + e}) - s.run(loss, {p: x - e})) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=atol)


@pytest.mark.parametrize("ac,hp", FLAGS)
def test_resize_bicubic_gradient(ac, hp):
    x = _rng("gcubic", ac, hp).normal(size=(1, 3, 4, 2))
    _numeric_check(lambda p: of.raw_ops.ResizeBicubic(images=p, size=I32(5, 3), align_corners=ac,
                                                      half_pixel_centers=hp), x, 0.1, 1e-3)


def test_crop_and_resize_gradients():
    rng = _rng("gcrop")
    image = rng.normal(size=(2, 4, 5, 2))
    boxes = np.array([[0.1, 0.2, 0.7, 0.9], [0.8, 0.1, 0.2, 0.6]], np.float32)
    ind = I32(1, 0)
    _numeric_check(lambda p: of.image.crop_and_resize(p, boxes, ind, [3, 2]), image, 0.1, 1e-3)
    # The boxes' gradient (float32 boxes): against differences of the float32 op, coarser.
    _numeric_check(lambda p: of.raw_ops.CropAndResize(image=image.astype(np.float32), boxes=p, box_ind=ind,
                                                      crop_size=I32(3, 2)), boxes, 1e-3, 5e-2, of.float32)


def test_rgb_to_hsv_gradient():
    x = _rng("ghsv").uniform(0.05, 0.95, (2, 3, 3))  # distinct channels: away from the kinks
    _numeric_check(lambda p: of.raw_ops.RGBToHSV(images=p), x, 1e-6, 1e-5)


def test_rgb_to_hsv_gradient_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = _rng("ghsv-tf").uniform(0.05, 0.95, (4, 5, 3)).astype(np.float32)
    w = _rng("w").normal(size=x.shape).astype(np.float32)
    with tf.GradientTape() as tape:
        t = tf.constant(x)
        tape.watch(t)
        loss = tf.reduce_sum(tf.image.rgb_to_hsv(t) * w)
    want = tape.gradient(loss, t).numpy()
    with of.GradientTape() as tape:
        t = of.constant(x)
        tape.watch(t)
        loss = of.reduce_sum(of.image.rgb_to_hsv(t) * w)
    np.testing.assert_allclose(tape.gradient(loss, t).numpy(), want, rtol=1e-4, atol=1e-4)


def test_extract_volume_patches_gradient():
    x = _rng("gvol").normal(size=(1, 3, 4, 3, 2))
    _numeric_check(lambda p: of.raw_ops.ExtractVolumePatches(input=p, ksizes=[1, 2, 2, 2, 1], strides=[1, 1, 2, 1, 1],
                                                             padding="SAME"), x, 0.1, 1e-6)


def test_extract_image_patches_gradient():
    x = _rng("gpatch").normal(size=(2, 4, 5, 2))
    _numeric_check(lambda p: of.raw_ops.ExtractImagePatches(images=p, ksizes=[1, 2, 3, 1], strides=[1, 2, 1, 1],
                                                            rates=[1, 1, 1, 1], padding="SAME"), x, 0.1, 1e-6)


# ---- bad calls


@pytest.mark.parametrize("call,match", [
    (lambda: of.raw_ops.ResizeBicubic(images=np.zeros((4, 4), np.float32), size=I32(2, 2)), "ResizeBicubic.*4-dim"),
    (lambda: of.raw_ops.ResizeArea(images=np.zeros((1, 4, 4, 1), np.float32), size=I32(-1, 2)), "ResizeArea.*positive"),
    (lambda: of.raw_ops.ResizeBicubic(images=np.zeros((1, 4, 4, 1), np.float32), size=I32(2, 2), align_corners=True,
                                      half_pixel_centers=True), "ResizeBicubic.*align_corners must be False"),
    (lambda: of.raw_ops.CropAndResize(image=np.zeros((2, 4, 4, 1), np.float32), boxes=np.zeros((1, 4), np.float32),
                                      box_ind=I32(2), crop_size=I32(2, 2)), r"CropAndResize.*outside \[0, batch_size\)"),
    (lambda: of.raw_ops.CropAndResize(image=np.zeros((2, 4, 4, 1), np.float32), boxes=np.zeros((1, 3), np.float32),
                                      box_ind=I32(0), crop_size=I32(2, 2)), "CropAndResize.*4 columns"),
    (lambda: of.raw_ops.CropAndResize(image=np.zeros((2, 4, 4, 1), np.float32), boxes=np.zeros((1, 4), np.float32),
                                      box_ind=I32(0), crop_size=I32(0, 2)), "CropAndResize.*positive"),
    (lambda: of.raw_ops.CropAndResize(image=np.zeros((2, 0, 4, 1), np.float32), boxes=np.zeros((1, 4), np.float32),
                                      box_ind=I32(0), crop_size=I32(2, 2)), "CropAndResize.*non-zero size"),
    (lambda: of.raw_ops.RGBToHSV(images=np.zeros((2, 4), np.float32)), "RGBToHSV.*3 channels"),
    (lambda: of.raw_ops.AdjustHue(images=np.zeros((4, 3), np.float32), delta=np.float32(0.1)), "AdjustHue.*3-D"),
    (lambda: of.raw_ops.AdjustContrastv2(images=np.zeros((2, 2, 3), np.float32), contrast_factor=np.ones(2, np.float32)),
     "AdjustContrastv2.*scalar"),
    (lambda: of.raw_ops.NonMaxSuppressionV3(boxes=np.zeros((3, 4), np.float32), scores=np.zeros(2, np.float32),
                                            max_output_size=np.int32(1), iou_threshold=np.float32(0.5),
                                            score_threshold=np.float32(0)), "NonMaxSuppressionV3.*scores"),
    (lambda: of.raw_ops.NonMaxSuppressionV2(boxes=np.zeros((3, 4), np.float32), scores=np.zeros(3, np.float32),
                                            max_output_size=np.int32(1), iou_threshold=np.float32(1.5)),
     r"NonMaxSuppressionV2.*iou_threshold must be in \[0, 1\]"),
    (lambda: of.raw_ops.NonMaxSuppressionV2(boxes=np.zeros((3, 4), np.float32), scores=np.zeros(3, np.float32),
                                            max_output_size=np.int32(-1), iou_threshold=np.float32(0.5)),
     "NonMaxSuppressionV2.*non-negative"),
    (lambda: of.raw_ops.DrawBoundingBoxes(images=np.zeros((1, 4, 4, 2), np.float32), boxes=np.zeros((1, 1, 4),
                                                                                                    np.float32)),
     "DrawBoundingBoxes.*Channel depth"),
    (lambda: of.raw_ops.ExtractImagePatches(images=np.zeros((1, 4, 4, 1), np.float32), ksizes=[2, 2, 2, 1],
                                            strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME"),
     "ExtractImagePatches.*across space"),
    (lambda: of.raw_ops.CropAndResizeGradImage(grads=np.zeros((1, 2, 2, 1), np.float32),
                                               boxes=np.zeros((1, 4), np.float32), box_ind=I32(0),
                                               image_size=I32(1, 4, 4, 3), T=of.float32),
     "CropAndResizeGradImage.*incompatible"),
])
def test_bad_calls_raise_typed_errors_naming_the_op(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


def test_static_shapes_in_a_graph():
    """Partially known shapes: what the shape functions keep (the crop count from boxes, the
    size from tf.shape(x)[1:3], the patch depth), and what only the data says (NMS)."""
    with of.Graph().as_default():
        x = tf1.placeholder(of.float32, [None, 8, None, 3])
        assert of.raw_ops.ResizeBicubic(images=x, size=I32(4, 5)).shape.as_list() == [None, 4, 5, 3]
        hw = of.shape(x)[1:3]  # TensorFlow's constant-value propagation: [8, ?]
        assert of.raw_ops.ResizeArea(images=x, size=hw).shape.as_list() == [None, 8, None, 3]
        boxes = tf1.placeholder(of.float32, [7, 4])
        crops = of.raw_ops.CropAndResize(image=x, boxes=boxes, box_ind=tf1.placeholder(of.int32, [None]),
                                         crop_size=I32(2, 3))
        assert crops.shape.as_list() == [7, 2, 3, 3]
        patches = of.raw_ops.ExtractImagePatches(images=x, ksizes=[1, 3, 2, 1], strides=[1, 2, 2, 1],
                                                 rates=[1, 1, 1, 1], padding="VALID")
        assert patches.shape.as_list() == [None, 3, None, 18]
        nms = of.raw_ops.NonMaxSuppressionV3(boxes=boxes, scores=tf1.placeholder(of.float32, [7]),
                                             max_output_size=np.int32(3), iou_threshold=np.float32(0.5),
                                             score_threshold=np.float32(0))
        assert nms.shape.as_list() == [None]
        with pytest.raises(InvalidArgumentError, match="CropAndResize.*4 columns"):
            of.raw_ops.CropAndResize(image=x, boxes=tf1.placeholder(of.float32, [7, 3]), box_ind=I32(0),
                                     crop_size=I32(2, 3))
