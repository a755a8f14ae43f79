"""ScaleAndTranslate resampling (ops/image_scale_translate.py) and the tf.image.resize methods it
serves (lanczos3/5, gaussian, mitchellcubic, antialias): properties that hold for any correct
resampler on random images, float64 gradients, the errors, and TensorFlow's answers where
installed (every kernel, with and without antialias, scaling up and down, translated)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.ops.image_scale_translate import KERNELS, scale_and_translate, weights

rng = np.random.default_rng(7)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("antialias", [False, True])
def test_weights_are_normalized_and_local(kernel, antialias):
    for out, size in [(7, 13), (26, 13), (13, 13)]:
        w = weights(kernel, out, size, out / size, 0.0, antialias)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-5)  # constant images stay constant
        centers = ((np.arange(out) + 0.5) * size / out)
        for o in range(out):  # the weight sits around the sample's source position
            nz = np.nonzero(w[o])[0]
            assert nz.min() - 1 <= centers[o] <= nz.max() + 2


def test_identity_and_constant_images():
    x = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    same = scale_and_translate(x, np.int32([5, 6]), np.float32([1, 1]), np.float32([0, 0]), "triangle", False)
    np.testing.assert_allclose(same.numpy(), x, atol=1e-6)  # the triangle kernel at scale 1 samples the pixels
    flat = np.full((1, 9, 11, 2), 3.5, np.float32)
    for kernel in KERNELS:
        out = scale_and_translate(flat, np.int32([4, 20]), np.float32([4 / 9, 20 / 11]), np.float32([0, 0]), kernel)
        np.testing.assert_allclose(out.numpy(), 3.5, rtol=1e-5)


def test_gradient():
    """The resampling is linear, out = Wy x Wx^T per channel, so d sum(g * out) / dx = Wy^T g Wx."""
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    wy = weights("lanczos3", 4, 6, 4 / 6, 0.0, True).astype(np.float64)
    wx = weights("lanczos3", 7, 5, 7 / 5, 0.5, True).astype(np.float64)
    g = rng.standard_normal((2, 4, 7, 3))
    v = of.Variable(x)
    with of.GradientTape() as tape:
        out = scale_and_translate(v, np.int32([4, 7]), np.float32([4 / 6, 7 / 5]), np.float32([0, 0.5]), "lanczos3")
        loss = of.reduce_sum(out * g.astype(np.float32))
    np.testing.assert_allclose(out.numpy(), np.einsum("oh,pw,bhwc->bopc", wy, wx, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), np.einsum("oh,pw,bopc->bhwc", wy, wx, g),
                               rtol=1e-5, atol=1e-5)


def test_resize_methods_in_a_graph():
    x = rng.standard_normal((2, 12, 10, 3)).astype(np.float32)
    with tf1.Graph().as_default():
        p = tf1.placeholder(tf1.float32, [None, 12, 10, 3])
        y = of.image.resize(p, [5, 7], method="lanczos5")  # (TF1's tf.image.resize is resize_images)
        z = of.image.resize(p, [24, 20], antialias=True)
        assert y.shape.as_list() == [None, 5, 7, 3] and y.dtype == tf1.float32
        with tf1.Session() as sess:
            yv, zv = sess.run([y, z], {p: x})
    np.testing.assert_allclose(yv, scale_and_translate(x, np.int32([5, 7]), np.float32([5 / 12, 7 / 10]),
                                                       np.float32([0, 0]), "lanczos5", False).numpy(), rtol=1e-6)
    assert zv.shape == (2, 24, 20, 3)


def test_errors():
    x = np.ones((1, 4, 4, 1), np.float32)
    with pytest.raises(of.errors.InvalidArgumentError, match="ScaleAndTranslate: unknown kernel type 'cubic'"):
        scale_and_translate(x, np.int32([2, 2]), np.float32([0.5, 0.5]), np.float32([0, 0]), "cubic")
    with pytest.raises(of.errors.InvalidArgumentError, match="scale must be positive"):
        scale_and_translate(x, np.int32([2, 2]), np.float32([0.0, 0.5]), np.float32([0, 0]), "box")
    with pytest.raises(of.errors.InvalidArgumentError, match="needs a weight matrix of 4000000000 entries"):
        scale_and_translate(x, np.int32([1_000_000_000, 2]), np.float32([0.5, 0.5]), np.float32([0, 0]), "box")
    empty = scale_and_translate(np.ones((1, 0, 4, 1), np.float32), np.int32([3, 2]), np.float32([1, 0.5]),
                                np.float32([0, 0]), "box")
    assert empty.numpy().shape == (1, 3, 2, 1) and not empty.numpy().any()
    with pytest.raises(of.errors.InvalidArgumentError, match="size must be positive"):
        scale_and_translate(x, np.int32([0, 2]), np.float32([0.5, 0.5]), np.float32([0, 0]), "box")
    with tf1.Graph().as_default():
        with pytest.raises(of.errors.UnimplementedError, match="needs a size known when the graph is built"):
            of.image.resize(tf1.placeholder(tf1.float32, [1, 4, 4, 1]), tf1.placeholder(tf1.int32, [2]),
                            method="gaussian")
        with pytest.raises(of.errors.UnimplementedError, match="height and width"):
            of.image.resize(tf1.placeholder(tf1.float32, [1, None, 4, 1]), [2, 2], method="gaussian")
        with pytest.raises(of.errors.UnimplementedError, match="'lanczos3' is not supported.*TF2's image.resize"):
            tf1.image.resize_images(tf1.placeholder(tf1.float32, [1, 4, 4, 1]), [2, 2], "lanczos3")


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = rng.standard_normal((2, 13, 17, 3)).astype(np.float32)
    for kernel in sorted(KERNELS):
        for antialias in (False, True):
            for size, scale, shift in [((7, 9), (7 / 13, 9 / 17), (0, 0)), ((26, 40), (2.0, 40 / 17), (0, 0)),
                                       ((10, 10), (0.9, 1.3), (1.5, -2.0))]:
                args = dict(images=x, size=np.int32(size), scale=np.float32(scale), translation=np.float32(shift),
                            kernel_type=kernel, antialias=antialias)
                want = tf.raw_ops.ScaleAndTranslate(**args).numpy()
                got = scale_and_translate(x, np.int32(size), np.float32(scale), np.float32(shift), kernel,
                                          antialias).numpy()
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    for method, antialias in [("lanczos3", False), ("lanczos5", True), ("gaussian", False), ("mitchellcubic", True),
                              ("bilinear", True), ("bicubic", True)]:
        want = tf.image.resize(x, (8, 25), method=method, antialias=antialias).numpy()
        got = of.image.resize(x, (8, 25), method=method, antialias=antialias).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
