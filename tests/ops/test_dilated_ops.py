"""tf.nn.with_space_to_batch (opforge/ops/dilated_ops.py): a VALID stride-1 convolution run through
it is the dilated convolution, for SAME and VALID padding and for known and unknown spatial
shapes; compared with a NumPy dilated convolution. (Equal to TensorFlow 2.21's on these inputs,
checked by hand.)"""

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _dilated_conv(x, w, rate, padding):
    kh, kw = (w.shape[0] - 1) * rate[0] + 1, (w.shape[1] - 1) * rate[1] + 1
    if padding == "SAME":
        ph, pw = kh - 1, kw - 1
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            patch = x[:, i * rate[0]: i * rate[0] + oh, j * rate[1]: j * rate[1] + ow, :]
            out += patch @ w[i, j]
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("known", [True, False])
def test_dilated_convolution(padding, known):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 9, 3))
    w = rng.normal(size=(3, 2, 3, 4))
    with tf.Graph().as_default():
        xi = tf.placeholder(tf.float64, x.shape if known else [None, None, None, 3])
        out = tf.nn.with_space_to_batch(xi, [2, 3], padding,
                                        lambda inp, n, p: tf.nn.conv2d(inp, tf.constant(w), [1, 1, 1, 1], p),
                                        filter_shape=[3, 2])
        with tf.Session() as sess:
            got = sess.run(out, {xi: x})
    np.testing.assert_allclose(got, _dilated_conv(x, w, (2, 3), padding), rtol=1e-10, atol=1e-10)


def test_rate_one_calls_the_op_directly_and_bad_calls():
    calls = []
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 4, 4, 1])
        assert tf.nn.with_space_to_batch(x, [1, 1], "SAME", lambda i, n, p: calls.append((n, p)) or i) is x
        assert calls == [(2, "SAME")]
        op = lambda i, n, p: i  # noqa: E731
        with pytest.raises(ValueError, match="filter_shape must be specified for SAME padding"):
            tf.nn.with_space_to_batch(x, [2, 2], "SAME", op)
        with pytest.raises(ValueError, match="dilation_rate must be positive"):
            tf.nn.with_space_to_batch(x, [0, 2], "VALID", op)
        with pytest.raises(ValueError, match="Invalid padding method"):
            tf.nn.with_space_to_batch(x, [2, 2], "FULL", op)
        with pytest.raises(ValueError, match="monotonically increasing"):
            tf.nn.with_space_to_batch(x, [2, 2], "VALID", op, spatial_dims=[2, 1])


def _np_dilation(x, f, strides, rates, padding):
    n, h, w, c = x.shape
    kh, kw = (f.shape[0] - 1) * rates[0] + 1, (f.shape[1] - 1) * rates[1] + 1
    if padding == "VALID":
        oh, ow, pt, pl = -(-(h - kh + 1) // strides[0]), -(-(w - kw + 1) // strides[1]), 0, 0
    else:
        oh, ow = -(-h // strides[0]), -(-w // strides[1])
        pt, pl = max((oh - 1) * strides[0] + kh - h, 0) // 2, max((ow - 1) * strides[1] + kw - w, 0) // 2
    out = np.full((n, oh, ow, c), -np.inf)
    for y, xx, i, j in np.ndindex(oh, ow, *f.shape[:2]):
        r, q = y * strides[0] + i * rates[0] - pt, xx * strides[1] + j * rates[1] - pl
        if 0 <= r < h and 0 <= q < w:
            out[:, y, xx] = np.maximum(out[:, y, xx], x[:, r, q] + f[i, j])
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_dilation2d_and_erosion2d(padding):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 6, 7, 3))
    f = rng.normal(size=(2, 3, 3))
    with tf.Graph().as_default():
        d = tf.nn.dilation2d(tf.constant(x), tf.constant(f), [1, 2, 1, 1], [1, 1, 2, 1], padding)
        e = tf.nn.erosion2d(tf.constant(x), tf.constant(f), [1, 1, 2, 1], [1, 2, 1, 1], padding)
        with tf.Session() as sess:
            got_d, got_e = sess.run([d, e])
    np.testing.assert_allclose(got_d, _np_dilation(x, f, (2, 1), (1, 2), padding))
    np.testing.assert_allclose(got_e, -_np_dilation(-x, f[::-1, ::-1], (1, 2), (2, 1), padding))


def test_dilation2d_gradients_by_central_differences():
    rng = np.random.default_rng(2)
    x, f = rng.normal(size=(1, 4, 5, 2)), rng.normal(size=(2, 2, 2))
    with tf.Graph().as_default():
        xi, fi = tf.placeholder(tf.float64, x.shape), tf.placeholder(tf.float64, f.shape)
        loss = tf.reduce_sum(tf.square(tf.nn.dilation2d(xi, fi, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")))
        gx, gf = tf.gradients(loss, [xi, fi])
        with tf.Session() as sess:
            got = sess.run([gx, gf], {xi: x, fi: f})
            for k, (arr, other) in enumerate(((x, f), (f, x))):
                numeric = np.zeros_like(arr)
                for i in np.ndindex(arr.shape):
                    e = np.zeros_like(arr)
                    e[i] = 1e-6
                    feeds = [{xi: x + e, fi: f}, {xi: x - e, fi: f}] if k == 0 else [{xi: x, fi: f + e}, {xi: x, fi: f - e}]
                    numeric[i] = (sess.run(loss, feeds[0]) - sess.run(loss, feeds[1])) / 2e-6
                np.testing.assert_allclose(got[k], numeric, atol=1e-6)


def test_dilation2d_bad_calls():
    from opforge import ops  # noqa: PLC0415
    from opforge.framework.errors import InvalidArgumentError  # noqa: PLC0415
    x = np.zeros((1, 4, 4, 2), np.float32)
    kw = dict(strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")
    with pytest.raises(InvalidArgumentError, match="Dilation2D: input depth 2 and filter depth 3 must be equal"):
        ops.dilation2d(x, np.zeros((2, 2, 3), np.float32), **kw)
    with pytest.raises(InvalidArgumentError, match="Dilation2D: .*filter must be 3-dimensional|Dilation2D: filter"):
        ops.dilation2d(x, np.zeros((2, 2), np.float32), **kw)
    with pytest.raises(InvalidArgumentError, match=r"Dilation2DBackpropInput: out_backprop must have shape \[1,3,3,2\]"):
        ops.dilation2d_backprop_input(x, np.zeros((2, 2, 2), np.float32), np.zeros((1, 2, 2, 2), np.float32), **kw)
    with pytest.raises(InvalidArgumentError, match="Dilation2D: .*strides"):
        ops.dilation2d(x, np.zeros((2, 2, 2), np.float32), strides=[2, 1, 1, 1], rates=[1, 1, 1, 1], padding="VALID")
