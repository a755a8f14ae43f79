"""tf.conv (TensorFlow's generic Conv op: batch dims, channel order, groups, explicit padding) and
tf.conv2d_backprop_filter_v2 / _input_v2 against a NumPy convolution, the gradients of Conv2D, and
TensorFlow where installed (its CPU Conv kernel takes channels last and one group only)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework.errors import InvalidArgumentError
from opforge.ops.conv_generic import conv, conv2d_backprop_filter_v2, conv2d_backprop_input_v2

rng = np.random.default_rng(3)


def _np_conv2d_valid(x, f, stride, dilation):
    """x [B, H, W, C], f [kh, kw, C, O], VALID."""
    kh, kw = (f.shape[0] - 1) * dilation[0] + 1, (f.shape[1] - 1) * dilation[1] + 1
    oh, ow = (x.shape[1] - kh) // stride[0] + 1, (x.shape[2] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride[0]:i * stride[0] + kh:dilation[0], j * stride[1]:j * stride[1] + kw:dilation[1], :]
            out[:, i, j, :] = np.einsum("bhwc,hwco->bo", patch, f)
    return out


def test_batch_dims_groups_channels_first_and_explicit_padding():
    x = rng.normal(size=(2, 3, 4, 7, 6))  # batch dims (2, 3), channels first: C=4, H=7, W=6
    f = rng.normal(size=(3, 2, 2, 6))  # groups=2: 2 input channels per group, 3 outputs per group
    got = conv(x, f, [1, 1, 2, 1], "EXPLICIT", explicit_paddings=[0, 0, 0, 0, 1, 1, 0, 1],
               data_format="CHANNELS_FIRST", batch_dims=2, groups=2).numpy()
    xl = np.moveaxis(x.reshape(6, 4, 7, 6), 1, -1)
    xl = np.pad(xl, [(0, 0), (1, 1), (0, 1), (0, 0)])
    want = np.concatenate([_np_conv2d_valid(xl[..., 2 * g:2 * g + 2], f[..., 3 * g:3 * g + 3], (2, 1), (1, 1))
                           for g in range(2)], -1)
    want = np.moveaxis(want, -1, 1).reshape((2, 3, 6) + want.shape[1:3])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_dilations_and_same_padding_match_conv2d_and_conv3d():
    x, f = rng.normal(size=(2, 9, 8, 3)), rng.normal(size=(3, 3, 3, 4))
    got = conv(x, f, [1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1]).numpy()
    np.testing.assert_allclose(got, _np_conv2d_valid(x, f, (1, 1), (2, 1)), rtol=1e-10)
    same = conv(x, f, [1, 2, 2, 1], "SAME").numpy()
    np.testing.assert_allclose(same, of.nn.conv2d(x, f, [1, 2, 2, 1], "SAME").numpy(), rtol=1e-12)
    x3, f3 = rng.normal(size=(2, 5, 6, 5, 2)), rng.normal(size=(2, 2, 2, 2, 3))
    np.testing.assert_allclose(conv(x3, f3, [1, 1, 2, 1, 1], "VALID").numpy(),
                               of.nn.conv3d(x3, f3, [1, 1, 2, 1, 1], "VALID").numpy(), rtol=1e-12)


def test_conv_bad_arguments():
    x, f = np.ones((1, 4, 4, 2)), np.ones((2, 2, 2, 3))
    with pytest.raises(InvalidArgumentError, match="2 or 3 spatial"):
        conv(np.ones((1, 4, 2)), np.ones((2, 2, 3)), [1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="strides must have 4 values"):
        conv(x, f, [1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="padding must be"):
        conv(x, f, [1, 1, 1, 1], "FULL")
    with pytest.raises(InvalidArgumentError, match="rank N \\+ 1 \\+ batch_dims"):
        conv(x, f, [1, 1, 1, 1], "VALID", batch_dims=2)
    with pytest.raises(InvalidArgumentError, match="data_format"):
        conv(x, f, [1, 1, 1, 1], "VALID", data_format="NHWC")


def test_backprop_v2_are_conv2d_gradients():
    x, f = rng.normal(size=(2, 6, 7, 3)), rng.normal(size=(3, 2, 3, 4))
    xv, fv = of.Variable(x), of.Variable(f)
    dy = rng.normal(size=(2, 3, 4, 4))
    with of.GradientTape() as tape:
        loss = of.reduce_sum(of.nn.conv2d(xv, fv, [1, 2, 2, 1], "SAME") * dy)
    dx, df = tape.gradient(loss, [xv, fv])
    np.testing.assert_allclose(conv2d_backprop_filter_v2(x, f, dy, [1, 2, 2, 1], "SAME").numpy(), df.numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(conv2d_backprop_input_v2(x, f, dy, [1, 2, 2, 1], "SAME").numpy(), dx.numpy(),
                               rtol=1e-10)


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x, f = rng.normal(size=(2, 3, 7, 8, 4)).astype(np.float32), rng.normal(size=(3, 3, 4, 6)).astype(np.float32)
    want = tf.raw_ops.Conv(input=x, filter=f, strides=[1, 2, 1, 1], padding="SAME", dilations=[1, 1, 2, 1],
                           batch_dims=2).numpy()
    np.testing.assert_allclose(conv(x, f, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1], batch_dims=2).numpy(),
                               want, rtol=1e-5, atol=1e-5)
