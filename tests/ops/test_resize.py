"""ResizeBilinear, ResizeNearestNeighbor and their gradients: against a NumPy reference written
from TensorFlow's coordinate rules, against TensorFlow itself when installed, gradients
checked numerically in float64, and the errors of bad calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError

FLAGS = [(False, False), (True, False), (False, True)]
SIZES = [(10, 14), (3, 4), (5, 7), (1, 1), (8, 3)]



def _run_v1(build):
    """Runs what TF1-style build() returns in a Session (compat.v1 functions build graph nodes)."""
    with tf1.Graph().as_default(), tf1.Session() as sess:
        return sess.run(build())

def _scale(i, o, ac):
    return (i - 1) / (o - 1) if ac and o > 1 else i / o


def _np_bilinear(x, size, ac, hp):
    b, ih, iw, c = x.shape
    oh, ow = size
    sy, sx = np.float32(_scale(ih, oh, ac)), np.float32(_scale(iw, ow, ac))
    out = np.zeros((b, oh, ow, c), np.float32)
    for y in range(oh):
        fy = np.float32((y + 0.5) * sy - 0.5) if hp else np.float32(y * sy)
        y0, y1, ly = max(math.floor(fy), 0), min(math.ceil(fy), ih - 1), np.float32(fy - math.floor(fy))
        for xx in range(ow):
            fx = np.float32((xx + 0.5) * sx - 0.5) if hp else np.float32(xx * sx)
            x0, x1, lx = max(math.floor(fx), 0), min(math.ceil(fx), iw - 1), np.float32(fx - math.floor(fx))
            t = x[:, y0, x0] + (x[:, y0, x1] - x[:, y0, x0]) * lx
            bt = x[:, y1, x0] + (x[:, y1, x1] - x[:, y1, x0]) * lx
            out[:, y, xx] = t + (bt - t) * ly
    return out


def _np_nearest(x, size, ac, hp):
    _, ih, iw, _ = x.shape
    oh, ow = size

    def idx(o, i):
        s = np.float32(_scale(i, o, ac))
        r = []
        for k in range(o):
            v = np.float32((k + 0.5) * s) if hp else np.float32(k * s)
            j = min(math.floor(float(v) + 0.5) if ac else math.floor(v), i - 1)  # roundf: ties away from 0
            r.append(max(j, 0) if hp else j)
        return r

    return x[:, idx(oh, ih)][:, :, idx(ow, iw)]


@pytest.mark.parametrize("ac,hp", FLAGS)
@pytest.mark.parametrize("size", SIZES)
def test_matches_numpy(size, ac, hp):
    rng = np.random.default_rng(hash((size, ac, hp)) % 2**32)
    x = rng.normal(size=(2, 5, 7, 3)).astype(np.float32)
    s = np.array(size, np.int32)
    got = of.raw_ops.ResizeBilinear(images=x, size=s, align_corners=ac, half_pixel_centers=hp).numpy()
    np.testing.assert_allclose(got, _np_bilinear(x, size, ac, hp), atol=1e-5)
    got = of.raw_ops.ResizeNearestNeighbor(images=x, size=s, align_corners=ac, half_pixel_centers=hp).numpy()
    np.testing.assert_array_equal(got, _np_nearest(x, size, ac, hp))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_same_as_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(1)
    x = (rng.normal(size=(2, 5, 7, 3)) * 20).astype(dtype)
    g = rng.normal(size=(2, 9, 4, 3)).astype(np.float32)
    for ac, hp in FLAGS:
        for size in SIZES:
            s = np.array(size, np.int32)
            for name in ("ResizeBilinear", "ResizeNearestNeighbor"):
                kw = dict(images=x, size=s, align_corners=ac, half_pixel_centers=hp)
                np.testing.assert_allclose(getattr(of.raw_ops, name)(**kw).numpy(),
                                           getattr(tf.raw_ops, name)(**kw).numpy(), atol=1e-4)
        if dtype == np.float32:
            kw = dict(grads=g, original_image=x, align_corners=ac, half_pixel_centers=hp)
            np.testing.assert_allclose(of.raw_ops.ResizeBilinearGrad(**kw).numpy(),
                                       tf.raw_ops.ResizeBilinearGrad(**kw).numpy(), atol=1e-5)
            kw = dict(grads=g, size=np.array([5, 7], np.int32), align_corners=ac, half_pixel_centers=hp)
            np.testing.assert_allclose(of.raw_ops.ResizeNearestNeighborGrad(**kw).numpy(),
                                       tf.raw_ops.ResizeNearestNeighborGrad(**kw).numpy(), atol=1e-5)


@pytest.mark.parametrize("name", ["ResizeBilinear", "ResizeNearestNeighbor"])
@pytest.mark.parametrize("ac,hp", FLAGS)
def test_gradient_matches_numeric(name, ac, hp):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 3, 4, 2))
    w = rng.normal(size=(1, 5, 6, 2))
    g = of.Graph()
    with g.as_default():
        p = tf1.placeholder(of.float64, x.shape)
        y = getattr(of.raw_ops, name)(images=p, size=np.array([5, 6], np.int32), align_corners=ac, half_pixel_centers=hp)
        loss = of.reduce_sum(of.cast(y, of.float64) * w)
        (gx,) = of.gradients(loss, [p])
    s = tf1.Session(graph=g)
    got = s.run(gx, {p: x})
    eps, num = 0.1, np.zeros_like(x)  # resizing is linear in the image: a large step is exact
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        num[i] = (s.run(loss, {p: x + e}) - s.run(loss, {p: x - e})) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=1e-3)  # ResizeBilinear computes in float32


def test_bad_calls_name_the_op():
    x = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(InvalidArgumentError, match="ResizeBilinear.*half_pixel_centers is True, align_corners must be False"):
        of.raw_ops.ResizeBilinear(images=x, size=np.array([2, 2], np.int32), align_corners=True, half_pixel_centers=True)
    with pytest.raises(InvalidArgumentError, match="ResizeNearestNeighbor.*positive"):
        of.raw_ops.ResizeNearestNeighbor(images=x, size=np.array([0, 2], np.int32))
    with pytest.raises(InvalidArgumentError, match="ResizeBilinear.*4-dimensional"):
        of.raw_ops.ResizeBilinear(images=np.zeros((4, 4), np.float32), size=np.array([2, 2], np.int32))
    with pytest.raises(InvalidArgumentError, match="ResizeBilinear.*2 elements"):
        of.raw_ops.ResizeBilinear(images=x, size=np.array([2, 2, 2], np.int32))


def test_image_api_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 5, 6, 3)).astype(np.float32)
    np.testing.assert_allclose(of.image.resize(x, [9, 4]).numpy(), tf.image.resize(x, [9, 4]).numpy(), atol=1e-6)
    np.testing.assert_array_equal(of.image.resize(x[0], [9, 4], method="nearest").numpy(),
                                  tf.image.resize(x[0], [9, 4], method="nearest").numpy())
    np.testing.assert_allclose(_run_v1(lambda: tf1.image.resize_images(x, [9, 4])),
                               tf.compat.v1.image.resize_images(x, [9, 4]).numpy(), atol=1e-6)
    np.testing.assert_allclose(_run_v1(lambda: tf1.image.resize_bilinear(x, [3, 8], align_corners=True)),
                               tf.compat.v1.image.resize_bilinear(x, [3, 8], align_corners=True).numpy(), atol=1e-6)
    np.testing.assert_array_equal(_run_v1(lambda: tf1.image.resize_nearest_neighbor(x, [7, 7])),
                                  tf.compat.v1.image.resize_nearest_neighbor(x, [7, 7]).numpy())


@pytest.mark.parametrize("ac,hp", FLAGS)
@pytest.mark.parametrize("batch", [True, False])
def test_resize_with_coordinate_options(ac, hp, batch):
    """of.image.resize_bilinear / resize_nearest_neighbor (the logic compat.v1's TF1 spellings
    call): the ops' coordinate options, a 3-D image as a batch of one, eagerly and in a graph."""
    rng = np.random.default_rng(int(ac) * 2 + int(hp) + 10 * batch)
    x = rng.normal(size=(2, 5, 7, 3)).astype(np.float32)
    image = x if batch else x[:1]
    given = image if batch else image[0]
    for fn, ref in ((of.image.resize_bilinear, _np_bilinear), (of.image.resize_nearest_neighbor, _np_nearest)):
        want = ref(image, (4, 9), ac, hp)
        want = want if batch else want[0]
        np.testing.assert_allclose(fn(given, [4, 9], ac, hp).numpy(), want, atol=1e-5)
        with of.Graph().as_default() as g:
            out = fn(of.constant(given), [4, 9], align_corners=ac, half_pixel_centers=hp)
        with of.Session(graph=g) as sess:
            np.testing.assert_allclose(sess.run(out), want, atol=1e-5)


def test_v1_resize_spellings():
    """compat.v1's resize_images takes TF1's ResizeMethod numbers; resize_bilinear its argument order."""
    x = np.random.default_rng(7).normal(size=(1, 4, 5, 2)).astype(np.float32)
    np.testing.assert_allclose(_run_v1(lambda: tf1.image.resize_images(x, [6, 3], tf1.image.ResizeMethod.BILINEAR,
                                                                       True)),
                               _np_bilinear(x, (6, 3), True, False), atol=1e-5)
    np.testing.assert_array_equal(_run_v1(lambda: tf1.image.resize_images(x, [6, 3], 1)),
                                  _np_nearest(x, (6, 3), False, False))
    np.testing.assert_allclose(_run_v1(lambda: tf1.image.resize_bilinear(x, [6, 3], False, None, True)),
                               _np_bilinear(x, (6, 3), False, True), atol=1e-5)
    with pytest.raises(of.errors.UnimplementedError, match="method 'lanczos3' is not supported"):
        tf1.image.resize_images(x, [6, 3], "lanczos3")
