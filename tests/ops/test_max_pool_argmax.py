"""MaxPoolWithArgmax and MaxPoolGradWithArgmax (tf.nn.max_pool_with_argmax) against a NumPy loop:
values, flattened indices (with and without the batch, int32 and int64, ties to the first),
the gradient by central differences, and each bad input's typed error naming the op. (The
same inputs give TensorFlow 2.21's answers, checked by hand.)"""

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework.errors import InvalidArgumentError


def _reference(x, kh, kw, sh, sw, padding, batch_in_index):
    n, h, w, c = x.shape
    if padding == "VALID":
        oh, ow, pt, pl = (h - kh) // sh + 1, (w - kw) // sw + 1, 0, 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        pt, pl = max((oh - 1) * sh + kh - h, 0) // 2, max((ow - 1) * sw + kw - w, 0) // 2
    y = np.zeros((n, oh, ow, c), x.dtype)
    arg = np.zeros((n, oh, ow, c), np.int64)
    for b, i, j, ch in np.ndindex(n, oh, ow, c):
        best, at = None, None
        for r in range(max(i * sh - pt, 0), min(i * sh - pt + kh, h)):
            for q in range(max(j * sw - pl, 0), min(j * sw - pl + kw, w)):
                if best is None or x[b, r, q, ch] > best:
                    best, at = x[b, r, q, ch], ((b * h + r) * w + q) * c + ch
        y[b, i, j, ch] = best
        arg[b, i, j, ch] = at if batch_in_index else at - b * h * w * c
    return y, arg


@pytest.mark.parametrize("padding, batch_in_index, targmax", [("SAME", False, tf.int64), ("VALID", True, tf.int32)])
def test_values_and_indices(padding, batch_in_index, targmax):
    x = np.random.default_rng(0).integers(-5, 5, size=(2, 5, 6, 3)).astype(np.float32)  # many ties
    with tf.Graph().as_default():
        y, arg = tf.nn.max_pool_with_argmax(tf.constant(x), [1, 3, 2, 1], [1, 2, 2, 1], padding, Targmax=targmax,
                                            include_batch_in_index=batch_in_index)
        assert arg.dtype == targmax and y.shape.as_list() == list(_reference(x, 3, 2, 2, 2, padding, True)[0].shape)
        with tf.Session() as sess:
            got_y, got_arg = sess.run([y, arg])
    want_y, want_arg = _reference(x, 3, 2, 2, 2, padding, batch_in_index)
    np.testing.assert_array_equal(got_y, want_y)
    np.testing.assert_array_equal(got_arg, want_arg)


def test_int8_input_eagerly():
    x = np.random.default_rng(1).integers(-100, 100, size=(1, 4, 4, 2)).astype(np.int8)
    y, arg = of.ops.max_pool_with_argmax(of.constant(x), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    want_y, want_arg = _reference(x, 2, 2, 2, 2, "VALID", False)
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(arg.numpy(), want_arg)


def test_gradient_by_central_differences():
    x = np.random.default_rng(2).normal(size=(2, 4, 5, 2))
    with tf.Graph().as_default():
        xi = tf.placeholder(tf.float64, x.shape)
        y, _ = tf.nn.max_pool_with_argmax(xi, 2, 2, "SAME")
        loss = tf.reduce_sum(y * y)
        (g,) = tf.gradients(loss, xi)
        with tf.Session() as sess:
            got = sess.run(g, {xi: x})
            numeric = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                e = np.zeros_like(x)
                e[i] = 1e-6
                numeric[i] = (sess.run(loss, {xi: x + e}) - sess.run(loss, {xi: x - e})) / 2e-6
    np.testing.assert_allclose(got, numeric, atol=1e-6)


def test_bad_calls():
    x = of.constant(np.zeros((1, 4, 4, 1), np.float32))
    with pytest.raises(ValueError, match="NHWC"):
        tf.nn.max_pool_with_argmax(x, 2, 2, "VALID", data_format="NCHW")
    with pytest.raises(InvalidArgumentError, match="MaxPoolWithArgmax: input must be 4-dimensional"):
        of.ops.max_pool_with_argmax(of.constant(np.zeros((4, 4), np.float32)), ksize=[1, 2, 2, 1],
                                    strides=[1, 2, 2, 1], padding="VALID")
    grad = of.constant(np.ones((1, 2, 2, 1), np.float32))
    kw = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    with pytest.raises(InvalidArgumentError, match=r"MaxPoolGradWithArgmax: argmax 16 at position 0 is outside"):
        of.ops.max_pool_grad_with_argmax(x, grad, of.constant(np.full((1, 2, 2, 1), 16, np.int64)), **kw)
    with pytest.raises(InvalidArgumentError, match="MaxPoolGradWithArgmax: grad and argmax must have the same shape"):
        of.ops.max_pool_grad_with_argmax(x, grad, of.constant(np.zeros((1, 2, 1, 1), np.int64)), **kw)
    with pytest.raises(InvalidArgumentError, match=r"MaxPoolGradWithArgmax: grad \[1,2,2,2\] does not match input"):
        of.ops.max_pool_grad_with_argmax(x, of.constant(np.ones((1, 2, 2, 2), np.float32)),
                                         of.constant(np.zeros((1, 2, 2, 2), np.int64)), **kw)
