"""Conv2D whose every group is one input channel (Keras's Conv2D(groups=channels), as in
ConvNeXt) runs the depthwise kernels: forward, fused epilogue and both gradients against the
NumPy reference over dtypes, layouts, paddings, strides, dilations and channel multipliers, bit
for bit against DepthwiseConv2dNative with the same filter (the same kernel, not the per-group
GEMMs), and central differences in float64."""

import numpy as np
import pytest

import opforge as of
from tests.ops import nn_reference as ref

# (channels, multiplier, kernel, stride, dilation, padding)
CASES = [(16, 1, 7, 1, 1, "SAME"), (20, 1, 3, 2, 1, "VALID"), (12, 2, 3, 1, 1, "SAME"),
         (33, 1, 5, 1, 2, "SAME"), (8, 3, 3, 2, 1, "EXPLICIT"), (64, 1, 3, 1, 1, "SAME")]
TOL = {np.float32: (1e-5, 1e-4), np.float64: (1e-12, 1e-12), np.float16: (2e-2, 5e-2)}


def _conv_args(k, s, d, padding, data_format="NHWC"):
    strides = [1, 1, s, s] if data_format == "NCHW" else [1, s, s, 1]
    dilations = [1, 1, d, d] if data_format == "NCHW" else [1, d, d, 1]
    ep = []
    if padding == "EXPLICIT":
        ep = [0, 0, 0, 0, 1, 2, 2, 0] if data_format == "NCHW" else [0, 0, 1, 2, 2, 0, 0, 0]
    return dict(strides=strides, dilations=dilations, padding=padding, explicit_paddings=ep, data_format=data_format)


def _data(c, m, k, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 11, 13, c)).astype(dtype)
    f = rng.standard_normal((k, k, 1, c * m)).astype(dtype)
    return x, f


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("c,m,k,s,d,padding", CASES)
def test_depthwise_groups_forward_matches_numpy(c, m, k, s, d, padding, data_format, dtype):
    x, f = _data(c, m, k, dtype, c + k + s)
    if data_format == "NCHW":
        x = x.transpose(0, 3, 1, 2)
    args = _conv_args(k, s, d, padding, data_format)
    got = of.raw_ops.Conv2D(input=x, filter=f, **args).numpy()
    want = ref.conv2d(x, f, **args)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("c,m,k,s,d,padding", CASES)
def test_depthwise_groups_run_the_depthwise_kernels(c, m, k, s, d, padding):
    """The same bits as DepthwiseConv2dNative with the filter read as [k, k, c, m], forward and
    both gradients."""
    x, f = _data(c, m, k, np.float32, 7)
    args = _conv_args(k, s, d, padding)
    fd = f.reshape(k, k, c, m)
    y = of.raw_ops.Conv2D(input=x, filter=f, **args).numpy()
    np.testing.assert_array_equal(y, of.raw_ops.DepthwiseConv2dNative(input=x, filter=fd, **args).numpy())
    dy = np.random.default_rng(8).standard_normal(y.shape).astype(np.float32)
    dx = of.raw_ops.Conv2DBackpropInput(input_sizes=list(x.shape), filter=f, out_backprop=dy, **args).numpy()
    np.testing.assert_array_equal(dx, of.raw_ops.DepthwiseConv2dNativeBackpropInput(
        input_sizes=list(x.shape), filter=fd, out_backprop=dy, **args).numpy())
    df = of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=list(f.shape), out_backprop=dy, **args).numpy()
    np.testing.assert_array_equal(df.reshape(fd.shape), of.raw_ops.DepthwiseConv2dNativeBackpropFilter(
        input=x, filter_sizes=list(fd.shape), out_backprop=dy, **args).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("c,m,k,s,d,padding", CASES)
def test_depthwise_groups_gradients_match_numpy(c, m, k, s, d, padding, data_format, dtype):
    x, f = _data(c, m, k, dtype, 2 * c + k)
    if data_format == "NCHW":
        x = x.transpose(0, 3, 1, 2)
    args = _conv_args(k, s, d, padding, data_format)
    y = ref.conv2d(x, f, **args)
    dy = np.random.default_rng(9).standard_normal(y.shape).astype(dtype)
    dx = of.raw_ops.Conv2DBackpropInput(input_sizes=list(x.shape), filter=f, out_backprop=dy, **args).numpy()
    df = of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=list(f.shape), out_backprop=dy, **args).numpy()
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(dx, ref.conv2d_backprop_input(list(x.shape), f, dy, **args), rtol=rtol, atol=atol)
    np.testing.assert_allclose(df, ref.conv2d_backprop_filter(x, list(f.shape), dy, **args), rtol=rtol,
                               atol=10 * atol)


def test_depthwise_groups_gradients_numerically_float64():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((1, 5, 6, 3))
    f = rng.standard_normal((3, 3, 1, 6))  # multiplier 2
    args = _conv_args(3, 2, 1, "SAME")
    w = rng.standard_normal(of.raw_ops.Conv2D(input=x, filter=f, **args).numpy().shape)
    dx = of.raw_ops.Conv2DBackpropInput(input_sizes=list(x.shape), filter=f, out_backprop=w, **args).numpy()
    df = of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=list(f.shape), out_backprop=w, **args).numpy()

    def loss(xv, fv):
        return float(np.sum(w * of.raw_ops.Conv2D(input=xv, filter=fv, **args).numpy()))

    for arr, grad, which in ((x, dx, 0), (f, df, 1)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += 1e-6
            minus[idx] -= 1e-6
            num[idx] = ((loss(plus, f) - loss(minus, f)) if which == 0 else (loss(x, plus) - loss(x, minus))) / 2e-6
        np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fused", [["BiasAdd", "Relu6"], ["BiasAdd", "_FusedHardSwish"], ["BiasAdd", "Elu"]])
@pytest.mark.parametrize("c,m", [(16, 1), (20, 1), (6, 2)])
def test_depthwise_groups_fused_epilogue(c, m, fused):
    x, f = _data(c, m, 3, np.float32, 11)
    bias = np.random.default_rng(12).standard_normal(c * m).astype(np.float32)
    args = _conv_args(3, 1, 1, "SAME")
    got = of.raw_ops._FusedConv2D(input=x, filter=f, args=[bias], host_args=[], num_args=1, fused_ops=fused,
                                    **args).numpy()
    z = ref.conv2d(x, f, **args).astype(np.float64) + bias
    act = {"Relu6": lambda v: np.clip(v, 0, 6), "_FusedHardSwish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
           "Elu": lambda v: np.where(v > 0, v, np.expm1(v))}[fused[1]]
    np.testing.assert_allclose(got, act(z), rtol=1e-5, atol=1e-4)
