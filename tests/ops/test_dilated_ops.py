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
