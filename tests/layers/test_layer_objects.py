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


def test_conv3d_layer_against_numpy(g):
    x = RNG.standard_normal((1, 4, 4, 4, 2)).astype(np.float32)
    layer = tf.layers.Conv3D(3, 2, use_bias=True, bias_initializer=tf.constant_initializer(0.5))
    y = layer(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, got = sess.run([layer.kernel, y])
    want = np.zeros((1, 3, 3, 3, 3), np.float32)
    for i in range(3):
        for j in range(3):
            for m in range(3):
                want[:, i, j, m] = np.einsum("bdhwc,dhwco->bo", x[:, i:i + 2, j:j + 2, m:m + 2], k)
    np.testing.assert_allclose(got, want + 0.5, rtol=1e-4, atol=1e-5)


def test_separable_conv2d_layer_against_numpy(g):
    x = RNG.standard_normal((1, 4, 4, 2)).astype(np.float32)
    layer = tf.layers.SeparableConv2D(3, 3, depth_multiplier=2, use_bias=False)
    y = layer(x)
    assert layer.depthwise_kernel.shape.as_list() == [3, 3, 2, 2]
    assert layer.pointwise_kernel.shape.as_list() == [1, 1, 4, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dk, pk, got = sess.run([layer.depthwise_kernel, layer.pointwise_kernel, y])
    depth = np.zeros((1, 2, 2, 2, 2), np.float32)
    for i in range(2):
        for j in range(2):
            depth[0, i, j] = np.einsum("hwc,hwcm->cm", x[0, i:i + 3, j:j + 3], dk)
    np.testing.assert_allclose(got, depth.reshape(1, 2, 2, 4) @ pk[0, 0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["conv3d", "conv3d_transpose", "separable_conv2d", "separable_conv1d", "Conv3D",
                                  "SeparableConv2D", "Conv3DTranspose", "Dense", "BatchNormalization"])
def test_layers_match_tensorflow_given_the_same_weights(g, case):
    """Variable names and outputs equal TensorFlow's tf.compat.v1.layers (with its weights loaded)."""
    tfm = pytest.importorskip("tensorflow")
    if not hasattr(tfm.compat.v1.layers, "Dense"):
        pytest.skip("tf.compat.v1.layers needs the legacy Keras (TF_USE_LEGACY_KERAS=1 and tf_keras)")
    x5 = RNG.standard_normal((2, 4, 6, 6, 3)).astype(np.float32)
    x4 = RNG.standard_normal((2, 7, 7, 3)).astype(np.float32)
    x3 = RNG.standard_normal((2, 9, 3)).astype(np.float32)
    builds = {
        "conv3d": (x5, lambda L, t: L.conv3d(t, 4, 3, padding="same")),
        "conv3d_transpose": (x5, lambda L, t: L.conv3d_transpose(t, 4, 2, strides=2)),
        "separable_conv2d": (x4, lambda L, t: L.separable_conv2d(t, 5, 3, depth_multiplier=2)),
        "separable_conv1d": (x3, lambda L, t: L.separable_conv1d(t, 5, 3, padding="same", depth_multiplier=2)),
        "Conv3D": (x5, lambda L, t: L.Conv3D(2, 2)(t)),
        "SeparableConv2D": (x4, lambda L, t: L.SeparableConv2D(4, 3, strides=2)(t)),
        "Conv3DTranspose": (x5, lambda L, t: L.Conv3DTranspose(2, 3, padding="same")(t)),
        "Dense": (x3, lambda L, t: L.Dense(4)(L.Dense(5, activation=tfm.nn.relu if L is not tf.layers
                                                        else tf.nn.relu)(t))),
        "BatchNormalization": (x4, lambda L, t: L.BatchNormalization()(t, training=False)),
    }
    x, build = builds[case]
    tg = tfm.Graph()
    with tg.as_default():
        xt = tfm.compat.v1.placeholder(tfm.float32, x.shape)
        yt = build(tfm.compat.v1.layers, xt)
        with tfm.compat.v1.Session() as sess:
            sess.run(tfm.compat.v1.global_variables_initializer())
            weights = {v.op.name: sess.run(v) for v in tfm.compat.v1.global_variables()}
            want = sess.run(yt, {xt: x})
    xo = tf.placeholder(tf.float32, x.shape)
    yo = build(tf.layers, xo)
    assert sorted(v.op.name for v in tf.global_variables()) == sorted(weights)
    with tf.Session() as sess:
        for v in tf.global_variables():
            v.load(weights[v.op.name], sess)
        got = sess.run(yo, {xo: x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_dense_on_a_rank_3_input_keeps_the_static_shape(g):
    """dense over [batch, time, depth] reshapes through a computed shape; its output's static
    shape is still [batch, time, units], so a second dense can follow (issue 32: TF1 programs
    stacked layers this way)."""
    x = tf.placeholder(tf.float32, [None, 7, 3])
    h = tf.layers.dense(x, 5)
    assert h.shape.as_list() == [None, 7, 5]
    assert tf.layers.dense(h, 2).shape.as_list() == [None, 7, 2]


def test_losses_over_dense_outputs_with_two_unknown_dims(g):
    """sparse_softmax_cross_entropy_with_logits over [batch, time, classes] logits whose batch and
    time are unknown (a dense over dynamic_rnn outputs, as the Seq2Seq corpus program builds):
    the loss comes back as [batch, time] (before, a Reshape with two -1 failed the run)."""
    x = tf.placeholder(tf.float32, [None, None, 3])
    labels = tf.placeholder(tf.int64, [None, None])
    logits = tf.layers.dense(x, 4)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    dense_loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.one_hot(labels, 4), logits=logits)
    feed_x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    feed_l = RNG.integers(0, 4, (2, 5))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        lg, ls, ld = sess.run([logits, loss, dense_loss], {x: feed_x, labels: feed_l})
    log_p = lg - np.log(np.exp(lg).sum(-1, keepdims=True))
    want = -np.take_along_axis(log_p, feed_l[..., None], -1)[..., 0]
    np.testing.assert_allclose(ls, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ld, want, rtol=1e-5, atol=1e-6)
