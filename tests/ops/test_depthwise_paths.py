"""The float32 depthwise convolution's CPU paths against the NumPy reference, over strides,
dilations, paddings and the fused epilogue: the AVX-512 kernel (blocks of 8 pixels x 16
channels, a masked channel tail, border blocks checked) where the CPU has it, and the portable
paths (whole output rows through phase rows, for few or ragged channels; pixel by pixel, for
many) that other CPUs run."""

import numpy as np
import pytest

import opforge as of
from opforge import _C
from tests.ops import nn_reference as ref
from tests.ops.kernel_switch import kernel_switch

kernel = kernel_switch(_C._testing.depthwise_avx512, _C._testing.set_depthwise_avx512, "avx512", "portable")

# (channels, kernel, stride, dilation, padding): channel counts on both sides of the choice
# (< 64 or not a multiple of 8: rows), odd sizes, stride 2 and 3 (phase rows), dilation, and
# weight periods (lcm(C, 8), at least 32) shorter and longer than the row loop's 64-value blocks.
CASES = [(11, 7, 1, 1, "SAME"), (48, 3, 1, 1, "SAME"), (16, 3, 1, 1, "VALID"), (44, 5, 1, 1, "SAME"), (44, 3, 2, 1, "VALID"), (32, 3, 2, 1, "SAME"),
         (3, 3, 3, 1, "SAME"), (20, 3, 1, 2, "SAME"), (13, 5, 2, 2, "VALID"), (96, 3, 1, 1, "SAME"),
         (100, 3, 2, 1, "SAME"), (72, 3, 1, 1, "EXPLICIT"), (24, 3, 1, 1, "SAME"), (8, 5, 1, 1, "EXPLICIT"),
         (52, 3, 2, 1, "EXPLICIT")]


@pytest.mark.parametrize("c,k,s,d,padding", CASES)
def test_depthwise_matches_numpy(c, k, s, d, padding):
    rng = np.random.default_rng(c * 100 + k * 10 + s)
    x = rng.standard_normal((2, 15, 21, c)).astype(np.float32)  # 21 wide: border and interior blocks
    f = rng.standard_normal((k, k, c, 1)).astype(np.float32)
    strides, dilations = [1, s, s, 1], [1, d, d, 1]
    explicit = [0, 0, 1, 2, 2, 0, 0, 0] if padding == "EXPLICIT" else []
    if s > 1 and d > 1:  # TensorFlow allows one or the other
        dilations = [1, 1, 1, 1]
    got = of.raw_ops.DepthwiseConv2dNative(input=x, filter=f, strides=strides, padding=padding,
                                           explicit_paddings=explicit, dilations=dilations).numpy()
    want = ref.depthwise_conv2d_native(x.astype(np.float64), f.astype(np.float64), strides, padding,
                                       explicit_paddings=explicit, dilations=dilations)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c", [44, 128, 11])
def test_fused_depthwise_epilogue_on_both_paths(c):
    rng = np.random.default_rng(c)
    x = rng.standard_normal((1, 9, 9, c)).astype(np.float32)
    f = rng.standard_normal((3, 3, c, 1)).astype(np.float32)
    bias = rng.standard_normal(c).astype(np.float32)
    got = of.raw_ops._FusedDepthwiseConv2dNative(input=x, filter=f, args=[bias], strides=[1, 1, 1, 1],
                                                 padding="SAME", fused_ops=["BiasAdd", "Relu6"]).numpy()
    conv = ref.depthwise_conv2d_native(x.astype(np.float64), f.astype(np.float64), [1, 1, 1, 1], "SAME")
    np.testing.assert_allclose(got, np.clip(conv + bias, 0, 6), rtol=1e-4, atol=1e-4)


# Row widths on both sides of the AVX-512 kernel's choice to pad rows (narrow rows, where most
# 8-pixel blocks are border ones, run over a zero-padded copy; wide rows check their border
# blocks tap by tap), with the sliding-window kernel of 3, 5 and 7 wide stride-1 windows over
# the inside blocks (stride 1: 3, 5, 7 wide; stride 2: 5, 7, and 3 over rows narrow enough that
# the general kernel would copy them) and a last block of fewer than 8 pixels.
@pytest.mark.parametrize("width", [7, 14, 29, 100])
@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("c,k,padding", [(44, 5, "SAME"), (16, 3, "SAME"), (11, 7, "SAME"), (40, 3, "VALID"),
                                         (24, 5, "EXPLICIT"), (20, 7, "VALID")])
def test_depthwise_rows_narrow_and_wide(width, stride, c, k, padding):
    rng = np.random.default_rng(width * 1000 + c * 10 + k + stride)
    x = rng.standard_normal((2, 6, width, c)).astype(np.float32)
    f = rng.standard_normal((k, k, c, 1)).astype(np.float32)
    explicit = [0, 0, 1, 3, 4, 1, 0, 0] if padding == "EXPLICIT" else []
    strides = [1, stride, stride, 1]
    if padding == "VALID" and min(6, width) < k:
        pytest.skip("the window is larger than the image")
    got = of.raw_ops.DepthwiseConv2dNative(input=x, filter=f, strides=strides, padding=padding,
                                           explicit_paddings=explicit).numpy()
    want = ref.depthwise_conv2d_native(x.astype(np.float64), f.astype(np.float64), strides, padding,
                                       explicit_paddings=explicit)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    bias = rng.standard_normal(c).astype(np.float32)
    fused = of.raw_ops._FusedDepthwiseConv2dNative(input=x, filter=f, args=[bias], strides=strides,
                                                   padding=padding, explicit_paddings=explicit,
                                                   fused_ops=["BiasAdd", "Relu"]).numpy()
    np.testing.assert_allclose(fused, np.maximum(want + bias, 0), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("act", ["Relu", "Relu6"])
def test_fused_depthwise_activation_keeps_nan(act):
    """max(0, v) / min(6, v) in registers return a NaN v as it is (TensorFlow's Relu of NaN is NaN)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 5, 20, 32)).astype(np.float32)
    x[0, 2, 10, 5] = np.nan
    f = rng.standard_normal((3, 3, 32, 1)).astype(np.float32)
    y = of.raw_ops._FusedDepthwiseConv2dNative(input=x, filter=f, args=[np.zeros(32, np.float32)],
                                               strides=[1, 1, 1, 1], padding="SAME", fused_ops=["BiasAdd", act]).numpy()
    nan = np.isnan(y)
    assert nan[0, 1:4, 9:12, 5].all() and nan.sum() == 9  # the 3x3 outputs whose window holds it, channel 5 only


# Inputs of 8 MiB and more: each output row of the AVX-512 kernel prefetches the input rows the
# next one adds (one at stride 1, two at stride 2), up to the image's last rows; a channel tail;
# the bias in the accumulators and hard-swish after it, in registers.
@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_large_input_prefetching_rows(stride):
    rng = np.random.default_rng(stride)
    x = rng.standard_normal((2, 97, 130, 88)).astype(np.float32)  # 8.5 MiB
    f = rng.standard_normal((3, 3, 88, 1)).astype(np.float32)
    bias = rng.standard_normal(88).astype(np.float32)
    strides = [1, stride, stride, 1]
    got = of.raw_ops._FusedDepthwiseConv2dNative(input=x, filter=f, args=[bias], strides=strides, padding="SAME",
                                                 fused_ops=["BiasAdd", "_FusedHardSwish"]).numpy()
    conv = ref.depthwise_conv2d_native(x.astype(np.float64), f.astype(np.float64), strides, "SAME") + bias
    np.testing.assert_allclose(got, conv * np.clip(conv + 3, 0, 6) / 6, rtol=1e-4, atol=1e-4)
