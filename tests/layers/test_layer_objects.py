"""tf.layers' layer objects (opforge/layers/base.py): variable scopes and sharing as
TensorFlow's (one object called twice shares its variables; a second object gets dense_1),
values against NumPy with the layer's own variables, and the functional 3-D pooling layers."""

from __future__ import annotations

import numpy as np
import pytest

import opforge.compat.v1 as tf

RNG = np.random.default_rng(328)


@pytest.fixture
def g():
    tf.reset_default_graph()
    yield tf.get_default_graph()
    tf.reset_default_graph()


def test_dense_object_shares_its_variables(g):
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(4, activation=tf.nn.relu)
    y1, y2 = layer(x), layer(x * 2.0)
    other = tf.layers.Dense(2, use_bias=False, name="head")
    z = other(y1)
    assert [v.op.name for v in tf.global_variables()] == ["dense/kernel", "dense/bias", "head/kernel"]
    assert layer.name == "dense" and other.name == "head" and other.bias is None
    assert layer.trainable_variables == [layer.kernel, layer.bias] == layer.weights
    feed = RNG.standard_normal((5, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, b, k2 = sess.run([layer.kernel, layer.bias, other.kernel])
        a1, a2, out = sess.run([y1, y2, z], {x: feed})
    np.testing.assert_allclose(a1, np.maximum(feed @ k + b, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a2, np.maximum(2 * feed @ k + b, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, a1 @ k2, rtol=1e-5, atol=1e-6)


def test_conv_and_pool_objects(g):
    img = tf.placeholder(tf.float32, [None, 6, 6, 2])
    with tf.variable_scope("net"):
        conv = tf.layers.Conv2D(3, 3, padding="same", use_bias=False)
        pooled = tf.layers.MaxPooling2D(2, 2)(conv(img))
        flat = tf.layers.Flatten()(pooled)
    assert conv.kernel.op.name == "net/conv2d/kernel" and flat.shape.as_list() == [None, 27]
    x = RNG.standard_normal((1, 6, 6, 2)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k = sess.run(conv.kernel)
        got = sess.run(flat, {img: x})
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv_np = np.zeros((1, 6, 6, 3), np.float32)
    for i in range(6):
        for j in range(6):
            conv_np[:, i, j] = np.einsum("bhwc,hwco->bo", padded[:, i:i + 3, j:j + 3], k)
    want = conv_np.reshape(1, 3, 2, 3, 2, 3).max((2, 4)).reshape(1, -1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_batch_normalization_object(g):
    x = tf.placeholder(tf.float32, [None, 3])
    bn = tf.layers.BatchNormalization(momentum=0.5)
    y = bn(x, training=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert bn.moving_mean.op.name == "batch_normalization/moving_mean" and len(updates) == 2
    feed = RNG.standard_normal((8, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, _ = sess.run([y, updates], {x: feed})
        mm = sess.run(bn.moving_mean)
    np.testing.assert_allclose(out, (feed - feed.mean(0)) / np.sqrt(feed.var(0) + 1e-3), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mm, 0.5 * feed.mean(0), rtol=1e-5, atol=1e-6)


def test_dropout_object_and_input_spec(g):
    x = np.ones((100, 10), np.float32)
    drop = tf.layers.Dropout(0.5, seed=1)
    off, on = drop(x), drop(x, training=True)
    with tf.Session() as sess:
        a, b = sess.run([off, on])
    np.testing.assert_array_equal(a, x)
    assert set(np.unique(b)) <= {0.0, 2.0} and 0.35 < (b == 0).mean() < 0.65
    spec = tf.layers.InputSpec(shape=[None, 3], axes={-1: 3})
    assert spec.ndim == 2 and spec.axes == {-1: 3}
    with pytest.raises(TypeError, match="unknown arguments"):
        tf.layers.Dropout(0.5, bogus=1)


def test_3d_pooling_functions_and_objects(g):
    x = RNG.standard_normal((2, 4, 4, 4, 3)).astype(np.float32)
    blocks = x.reshape(2, 2, 2, 2, 2, 2, 2, 3)
    with tf.Session() as sess:
        got = sess.run([tf.layers.max_pooling3d(x, 2, 2), tf.layers.average_pooling3d(x, [2, 2, 2], 2),
                        tf.layers.MaxPooling3D(2, 2)(x), tf.layers.AveragePooling3D(2, 2, padding="same")(x)])
    np.testing.assert_allclose(got[0], blocks.max((2, 4, 6)))
    np.testing.assert_allclose(got[1], blocks.mean((2, 4, 6)), rtol=1e-5)
    np.testing.assert_allclose(got[2], blocks.max((2, 4, 6)))
    np.testing.assert_allclose(got[3], blocks.mean((2, 4, 6)), rtol=1e-5)
