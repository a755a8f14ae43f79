"""TopKV2 and LRN / LRNGrad: NumPy references on random data (ties, NaN, every index type),
numeric float64 gradients, typed errors, and TensorFlow's results when it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.errors import InvalidArgumentError


def _np_top_k(x, k):
    # Larger first, NaN above everything, ties by position: a stable sort on a key.
    xf = x.astype(np.float64)
    key = np.where(np.isnan(xf), -np.inf, -xf)
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("shape, k", [((7,), 3), ((3, 4, 9), 9), ((2, 5), 0), ((4, 6), 1)])
def test_top_k_matches_numpy(dtype, shape, k):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 6, size=shape).astype(dtype)  # many ties
    values, indices = of.nn.top_k(x, k)
    want_v, want_i = _np_top_k(x, k)
    np.testing.assert_array_equal(values.numpy(), want_v)
    np.testing.assert_array_equal(indices.numpy(), want_i)
    assert indices.dtype == of.int32


def test_top_k_nan_and_index_types():
    x = np.array([[1.0, np.nan, 3.0, 3.0, -np.inf], [np.nan, np.nan, 0.0, 2.0, 1.0]], np.float32)
    for index_type in ("int16", "int32", "int64"):
        values, indices = of.nn.top_k(x, 3, index_type=index_type)
        np.testing.assert_array_equal(indices.numpy(), [[1, 2, 3], [0, 1, 3]])
        assert indices.dtype == of.as_dtype(index_type)
    np.testing.assert_array_equal(values.numpy()[0], [np.nan, 3, 3])


@pytest.mark.parametrize("call, message", [
    (lambda: of.nn.top_k(np.zeros(3), 4), "at least k columns. Had 3, needed 4"),
    (lambda: of.nn.top_k(np.zeros(3), -1), "k >= 0"),
    (lambda: of.nn.top_k(np.float32(1), 1), "at least 1-D"),
    (lambda: of.raw_ops.TopKV2(input=np.zeros(3), k=np.array([1, 2], np.int32)), "k must be a scalar"),
    (lambda: of.nn.top_k(np.array([True]), 1), "dtype bool is not supported"),
])
def test_top_k_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_top_k_static_shape_in_graphs():
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float32, [None, 10])
        values, indices = tf1.nn.top_k(x, 4)
        assert values.shape.as_list() == [None, 4] and indices.shape.as_list() == [None, 4]


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        g[idx] = (f(up) - f(down)) / (2 * eps)
    return g


def test_top_k_gradient_float64():
    rng = np.random.default_rng(1)
    x0 = rng.normal(size=(3, 6))
    w = rng.normal(size=(3, 4))
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float64, x0.shape)
        loss = tf1.reduce_sum(tf1.nn.top_k(x, 4).values * w)
        grad = tf1.gradients(loss, x)[0]
        with tf1.Session() as sess:
            np.testing.assert_allclose(sess.run(grad, {x: x0}), _numeric_grad(lambda v: sess.run(loss, {x: v}), x0),
                                       rtol=1e-6, atol=1e-8)


def _np_lrn(x, radius, bias, alpha, beta):
    depth = x.shape[-1]
    sq = np.stack([(x[..., max(0, d - radius):d + radius + 1] ** 2).sum(-1) for d in range(depth)], -1)
    return x / (bias + alpha * sq) ** beta


@pytest.mark.parametrize("radius, bias, alpha, beta", [(5, 1.0, 1.0, 0.5), (2, 2.0, 1e-4, 0.75), (0, 1.0, 0.3, 1.0)])
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_lrn_matches_numpy(radius, bias, alpha, beta, dtype, rtol):
    x = np.random.default_rng(2).normal(size=(2, 3, 4, 7)).astype(dtype)
    got = of.nn.lrn(x, depth_radius=radius, bias=bias, alpha=alpha, beta=beta).numpy()
    np.testing.assert_allclose(got, _np_lrn(x.astype(np.float64), radius, bias, np.float32(alpha), np.float32(beta)),
                               rtol=rtol)


def test_lrn_gradient_float64():
    rng = np.random.default_rng(3)
    x0 = rng.normal(size=(1, 2, 2, 6))
    w = rng.normal(size=x0.shape)
    with tf1.Graph().as_default():
        x = tf1.placeholder(tf1.float64, x0.shape)
        loss = tf1.reduce_sum(tf1.nn.lrn(x, depth_radius=2, bias=1.5, alpha=0.25, beta=0.75) * w)
        grad = tf1.gradients(loss, x)[0]
        with tf1.Session() as sess:
            np.testing.assert_allclose(sess.run(grad, {x: x0}), _numeric_grad(lambda v: sess.run(loss, {x: v}), x0),
                                       rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("call, message", [
    (lambda: of.nn.lrn(np.zeros((2, 3), np.float32)), "4-dimensional"),
    (lambda: of.nn.lrn(np.zeros((1, 1, 1, 3), np.float32), depth_radius=-1), "non-negative"),
    (lambda: of.raw_ops.LRNGrad(input_grads=np.zeros((1, 1, 1, 3), np.float32),
                                input_image=np.zeros((1, 1, 1, 4), np.float32),
                                output_image=np.zeros((1, 1, 1, 4), np.float32)), "one shape"),
    (lambda: of.nn.lrn(np.zeros((1, 1, 1, 3), np.int32)), "dtype int32 is not supported"),
])
def test_lrn_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_same_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 3, 8)).astype(np.float32)
    x[0, 0, 0, :3] = 1.0  # ties
    ov, oi = of.nn.top_k(x, 5)
    tv, ti = tf.math.top_k(x, 5)
    np.testing.assert_array_equal(ov.numpy(), tv.numpy())
    np.testing.assert_array_equal(oi.numpy(), ti.numpy())
    kwargs = dict(depth_radius=3, bias=1.0, alpha=0.01, beta=0.75)
    np.testing.assert_allclose(of.nn.lrn(x, **kwargs).numpy(), tf.nn.lrn(x, **kwargs).numpy(), rtol=2e-6)
    g = rng.normal(size=x.shape).astype(np.float32)
    y = tf.nn.lrn(x, **kwargs).numpy()
    np.testing.assert_allclose(of.raw_ops.LRNGrad(input_grads=g, input_image=x, output_image=y, **kwargs).numpy(),
                               tf.raw_ops.LRNGrad(input_grads=g, input_image=x, output_image=y, **kwargs).numpy(),
                               rtol=1e-4, atol=1e-6)
