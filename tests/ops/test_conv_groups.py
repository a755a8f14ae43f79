"""Grouped Conv2D's fast paths, once per CPU kernel (the portable ones, and AVX-512 where this
CPU has it). Every group one input channel (Keras's Conv2D(groups=channels), as in ConvNeXt)
runs the depthwise kernels: forward, fused epilogue and both gradients against the NumPy
reference over dtypes, layouts, paddings, strides, dilations and channel multipliers, bit for bit
against DepthwiseConv2dNative with the same filter (the same kernel, not the per-group GEMMs),
and central differences in float64. Groups of 2-16 channels in and out (ResNeXt, RegNet) run
the AVX-512 grouped kernel: forward and fused epilogue against the reference, beside the
shapes it does not take."""

import numpy as np
import pytest

import opforge as of
from opforge import _C
from tests.ops import nn_reference as ref
from tests.ops.kernel_switch import kernel_switch

kernel = kernel_switch(_C._testing.depthwise_avx512, _C._testing.set_depthwise_avx512, "avx512", "portable")

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


# (channels, channels per group, kernel, stride, dilation, padding, batch, height, width): q = 2,
# 4, 8 and 16 (the kernel's), rows narrower and wider than its 8-pixel blocks, and beside them
# shapes the kernel leaves to the per-group GEMMs (3 per group; 24 channels; 32 per group).
GROUPED = [(32, 2, 3, 1, 1, "SAME", 2, 9, 11), (64, 4, 3, 2, 1, "SAME", 1, 12, 13), (128, 8, 3, 1, 1, "VALID", 2, 7, 19),
           (48, 16, 3, 1, 2, "SAME", 1, 10, 9), (32, 4, 5, 2, 1, "EXPLICIT", 2, 11, 6), (64, 8, 1, 1, 1, "VALID", 1, 5, 5),
           (48, 3, 3, 1, 1, "SAME", 1, 8, 9), (24, 4, 3, 1, 1, "SAME", 1, 8, 9), (64, 32, 3, 1, 1, "SAME", 1, 6, 7)]


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("c,q,k,s,d,padding,n,h,w", GROUPED)
def test_grouped_forward_matches_numpy(c, q, k, s, d, padding, n, h, w, data_format):
    rng = np.random.default_rng(c + q + k)
    x = rng.standard_normal((n, h, w, c)).astype(np.float32)
    f = rng.standard_normal((k, k, q, c)).astype(np.float32)
    if data_format == "NCHW":
        x = x.transpose(0, 3, 1, 2)
    args = _conv_args(k, s, d, padding, data_format)
    got = of.raw_ops.Conv2D(input=x, filter=f, **args).numpy()
    np.testing.assert_allclose(got, ref.conv2d(x.astype(np.float64), f.astype(np.float64), **args), rtol=1e-5,
                               atol=1e-4)


@pytest.mark.parametrize("fused", [["BiasAdd", "Relu"], ["BiasAdd", "Elu"], ["FusedBatchNorm", "Relu6"]])
@pytest.mark.parametrize("c,q", [(32, 4), (64, 16), (48, 3)])
def test_grouped_fused_epilogue(c, q, fused):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 9, 10, c)).astype(np.float32)
    f = rng.standard_normal((3, 3, q, c)).astype(np.float32)
    args = _conv_args(3, 1, 1, "SAME")
    z = ref.conv2d(x.astype(np.float64), f.astype(np.float64), **args)
    if fused[0] == "BiasAdd":
        extra = [rng.standard_normal(c).astype(np.float32)]
        z = z + extra[0]
    else:
        scale, offset, mean = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
        var = rng.uniform(0.5, 2, c).astype(np.float32)
        extra = [scale, offset, mean, var]
        z = (z - mean) / np.sqrt(var.astype(np.float64) + 1e-3) * scale + offset
    got = of.raw_ops._FusedConv2D(input=x, filter=f, args=extra, host_args=[], num_args=len(extra), fused_ops=fused,
                                  epsilon=1e-3, **args).numpy()
    act = {"Relu": lambda v: np.maximum(v, 0), "Relu6": lambda v: np.clip(v, 0, 6),
           "Elu": lambda v: np.where(v > 0, v, np.expm1(v))}[fused[1]]
    np.testing.assert_allclose(got, act(z), rtol=1e-5, atol=1e-4)
