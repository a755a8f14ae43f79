"""of.nn and compat.v1.nn end to end: TensorFlow-style signatures, graph mode with unknown batch
dims, gradients through the nn ops in graphs, and a TF1-style CNN that trains."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops"))
import nn_reference as R  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def _v1(t):
    """The value of a compat.v1 tensor: TF1 functions build into the default graph."""
    with tf1.Session() as sess:
        return sess.run(t)


def test_conv2d_signatures(rng):
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    want = R.conv2d(x, f, [1, 2, 2, 1], "SAME")
    for strides in (2, [2], [2, 2], [1, 2, 2, 1]):
        np.testing.assert_allclose(of.nn.conv2d(x, f, strides, "SAME").numpy(), want, rtol=1e-5, atol=1e-5)
    explicit = of.nn.conv2d(x, f, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]).numpy()
    np.testing.assert_allclose(explicit, R.conv2d(x, f, [1, 1, 1, 1], "EXPLICIT", [0, 0, 1, 2, 0, 1, 0, 0]),
                               rtol=1e-5, atol=1e-5)
    nchw = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    got = of.nn.conv2d(nchw, f, 1, "VALID", data_format="NCHW", dilations=2).numpy()
    np.testing.assert_allclose(got, R.conv2d(nchw, f, [1, 1, 1, 1], "VALID", (), "NCHW", [1, 1, 2, 2]),
                               rtol=1e-5, atol=1e-5)
    v1 = tf1.nn.conv2d(x, filter=f, strides=[1, 1, 1, 1], padding="SAME")
    np.testing.assert_allclose(_v1(v1), R.conv2d(x, f, [1, 1, 1, 1], "SAME"), rtol=1e-5, atol=1e-5)
    with pytest.raises(of.InvalidArgumentError, match="strides"):
        of.nn.conv2d(x, f, [1, 2, 3], "SAME")


def test_pools_and_depthwise(rng):
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    np.testing.assert_array_equal(of.nn.max_pool2d(x, 3, 2, "SAME").numpy(),
                                  R.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    np.testing.assert_array_equal(of.nn.max_pool(x, [2, 3], [1, 2], "VALID").numpy(),
                                  R.max_pool(x, [1, 2, 3, 1], [1, 1, 2, 1], "VALID"))
    np.testing.assert_allclose(of.nn.avg_pool2d(x, 2, 2, "SAME").numpy(),
                               R.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), rtol=1e-6)
    np.testing.assert_array_equal(_v1(tf1.nn.max_pool(value=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                                      padding="VALID")),
                                  R.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    f = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(of.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME", dilations=[2, 2]).numpy(),
                               R.depthwise_conv2d_native(x, f, [1, 1, 1, 1], "SAME", (), "NHWC", [1, 2, 2, 1]),
                               rtol=1e-5, atol=1e-5)


def test_softmax_and_losses(rng):
    logits = rng.standard_normal((2, 3, 5))
    np.testing.assert_allclose(of.nn.softmax(logits).numpy(), R.softmax(logits))
    along0 = np.moveaxis(R.softmax(np.moveaxis(logits, 0, -1)), -1, 0)
    np.testing.assert_allclose(of.nn.softmax(logits, axis=0).numpy(), along0)
    np.testing.assert_allclose(_v1(tf1.nn.log_softmax(logits, dim=1)),
                               np.moveaxis(R.log_softmax(np.moveaxis(logits, 1, -1)), -1, 1))
    labels = R.softmax(rng.standard_normal((2, 3, 5)))
    loss = of.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.shape == (2, 3)
    np.testing.assert_allclose(loss.numpy(), -np.sum(labels * R.log_softmax(logits), -1))
    sparse = rng.integers(0, 5, (2, 3))
    sl = of.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=logits).numpy()
    want = -np.take_along_axis(R.log_softmax(logits), sparse[..., None], -1)[..., 0]
    np.testing.assert_allclose(sl, want)
    with pytest.raises(of.InvalidArgumentError, match="outside the valid range"):
        of.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 5]), logits=logits[0, :2])
    with pytest.raises(of.InvalidArgumentError):
        tf1.nn.softmax_cross_entropy_with_logits(labels, logits)  # positional: TF1's _sentinel
    np.testing.assert_allclose(of.nn.l2_loss(logits).numpy(), np.sum(logits ** 2) / 2)


def test_activations(rng):
    x = rng.standard_normal(50) * 4
    np.testing.assert_allclose(of.nn.relu6(x).numpy(), np.clip(x, 0, 6))
    np.testing.assert_allclose(of.nn.leaky_relu(x, 0.1).numpy(), np.where(x > 0, x, np.float32(0.1) * x))
    np.testing.assert_allclose(of.nn.gelu(x, approximate=True).numpy(), R.gelu(x, True))
    np.testing.assert_allclose(of.nn.softplus(x).numpy(), np.logaddexp(0, x))
    np.testing.assert_allclose(_v1(tf1.nn.elu(x)), np.where(x < 0, np.expm1(x), x))


def test_batch_norms(rng):
    x = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    scale, offset = np.array([1.5, 0.5], np.float32), np.array([0.1, -0.2], np.float32)
    y, mean, var = of.nn.fused_batch_norm(x, scale, offset, epsilon=0.01)
    ry = R.fused_batch_norm_v3(x, scale, offset, np.zeros(0), np.zeros(0), 0.01)
    np.testing.assert_allclose(y.numpy(), ry[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(var.numpy(), np.var(x, axis=(0, 1, 2), ddof=1), rtol=1e-5)
    y2, _, _ = of.nn.fused_batch_norm(x, scale, offset, mean.numpy(), var.numpy(), epsilon=0.01,
                                      is_training=False)
    manual = of.nn.batch_normalization(x, mean.numpy(), var.numpy(), offset, scale, 0.01)
    np.testing.assert_allclose(y2.numpy(), manual.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(of.InvalidArgumentError):
        of.nn.fused_batch_norm(x, scale, offset, is_training=False)


def test_gradients_through_a_conv_block(rng):
    """conv -> bias -> relu -> max pool -> sum: tape gradients agree with central differences."""
    x = rng.standard_normal((2, 5, 5, 2))
    f = rng.standard_normal((3, 3, 2, 3))
    b = rng.standard_normal(3)

    def forward(x, f):
        h = of.nn.relu(of.nn.bias_add(of.nn.conv2d(x, f, 1, "SAME"), b))
        return of.reduce_sum(of.nn.max_pool2d(h, 2, 2, "VALID"))

    tx, tf_ = of.constant(x), of.constant(f)
    with of.GradientTape() as tape:
        tape.watch(tx)
        tape.watch(tf_)
        loss = forward(tx, tf_)
    gx, gf = tape.gradient(loss, [tx, tf_])
    eps = 1e-6
    for arr, g, which in ((x, gx, 0), (f, gf, 1)):
        idx = tuple(rng.integers(0, d) for d in arr.shape)
        plus, minus = arr.copy(), arr.copy()
        plus[idx] += eps
        minus[idx] -= eps
        args = [(plus, f), (minus, f)] if which == 0 else [(x, plus), (x, minus)]
        num = (float(forward(*args[0]).numpy()) - float(forward(*args[1]).numpy())) / (2 * eps)
        assert abs(g.numpy()[idx] - num) < 1e-5 * max(1.0, abs(num))


def test_graph_mode_unknown_batch():
    """Shape functions keep the known dims with an unknown batch; the ops run in a Session."""
    g = of.Graph()
    with g.as_default():
        x = of.placeholder(of.float32, [None, 8, 8, 3])
        f = of.constant(np.ones((3, 3, 3, 4), np.float32))
        y = of.nn.conv2d(x, f, 2, "SAME")
        p = of.nn.max_pool2d(y, 2, 2, "VALID")
        assert list(y.shape) == [None, 4, 4, 4]
        assert list(p.shape) == [None, 2, 2, 4]
        bn, _, _ = of.nn.fused_batch_norm(y, np.ones(4, np.float32), np.zeros(4, np.float32))
        assert list(bn.shape) == [None, 4, 4, 4]
    with of.Session(graph=g) as sess:
        out = sess.run(p, {x: np.ones((5, 8, 8, 3), np.float32)})
    assert out.shape == (5, 2, 2, 4)


def test_tf1_cnn_trains():
    """A TF1-style program (placeholders, conv/pool/bias/relu, sparse softmax loss, minimize)
    runs with only the import changed, and its loss falls."""
    rng = np.random.default_rng(0)
    n = 64
    images = rng.standard_normal((n, 8, 8, 1)).astype(np.float32)
    labels = (images[:, :4].mean(axis=(1, 2, 3)) > images[:, 4:].mean(axis=(1, 2, 3))).astype(np.int64)
    tf1.reset_default_graph()
    x = tf1.placeholder(tf1.float32, [None, 8, 8, 1])
    t = tf1.placeholder(tf1.int64, [None])
    w1 = tf1.get_variable("w1", [3, 3, 1, 4], initializer=tf1.glorot_uniform_initializer(seed=1))
    b1 = tf1.get_variable("b1", [4], initializer=tf1.zeros_initializer())
    h = tf1.nn.relu(tf1.nn.bias_add(tf1.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"), b1))
    h = tf1.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    flat = tf1.reshape(h, [-1, 4 * 4 * 4])
    w2 = tf1.get_variable("w2", [64, 2], initializer=tf1.glorot_uniform_initializer(seed=2))
    logits = tf1.matmul(flat, w2)
    loss = tf1.reduce_mean(tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=logits))
    step = tf1.train.GradientDescentOptimizer(0.2).minimize(loss)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        l0 = sess.run(loss, {x: images, t: labels})
        for _ in range(60):
            sess.run(step, {x: images, t: labels})
        l1 = sess.run(loss, {x: images, t: labels})
    tf1.reset_default_graph()
    assert l1 < 0.7 * l0, (l0, l1)


@pytest.mark.parametrize("shape", [(2, 3, 0), (2, 3, 0, 4), (0, 3, 2)])
def test_bias_add_grad_with_an_empty_dimension(shape):
    """NCHW with an empty spatial (or batch) dim: the channel sums are zeros, no division by
    the empty inner size (found by the fuzz pass: SIGFPE in a worker thread)."""
    g = np.zeros(shape, np.float32)
    out = of.raw_ops.BiasAddGrad(out_backprop=g, data_format="NCHW")
    np.testing.assert_array_equal(out.numpy(), np.zeros(3, np.float32))
    y = of.raw_ops.BiasAdd(value=g, bias=np.arange(3, dtype=np.float32), data_format="NCHW")
    assert y.shape == shape


@pytest.mark.parametrize("channels", [1, 8, 19, 64])
def test_max_pool_propagates_nan(channels):
    """A NaN anywhere in a window makes that output NaN (NumPy's max), whatever its position
    among the window's pixels and channels (vectorized and tail channels alike)."""
    x = np.random.default_rng(channels).standard_normal((2, 6, 8, channels)).astype(np.float32)
    x.reshape(-1)[np.random.default_rng(1).choice(x.size, max(1, x.size // 17), replace=False)] = np.nan
    want = x.reshape(2, 3, 2, 4, 2, channels).max(axis=(2, 4))  # 2x2 windows, stride 2, VALID
    got = of.nn.max_pool2d(of.constant(x), 2, 2, "VALID").numpy()
    np.testing.assert_array_equal(got, want)
