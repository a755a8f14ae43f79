"""Float32 convolutions with few input channels: the direct AVX-512 kernel (blocks of 8 pixels x
16 or 32 output channels, border blocks checked, the last channel block masked) where the CPU
has it, and im2col + GEMM otherwise, against the NumPy reference: output channel counts
around the vector widths, strides, dilation, the three paddings, and the fused epilogue."""

import numpy as np
import pytest

import opforge as of
from opforge import _C
from tests.ops import nn_reference as ref
from tests.ops.kernel_switch import kernel_switch

kernel = kernel_switch(_C._testing.direct_conv_avx512, _C._testing.set_direct_conv_avx512, "direct", "gemm")


# (cin, cout, kernel, stride, dilation, padding)
CASES = [(3, 32, 3, 2, 1, "SAME"), (3, 64, 7, 2, 1, "VALID"), (1, 5, 3, 1, 1, "SAME"), (4, 16, 3, 1, 2, "SAME"),
         (3, 20, 5, 1, 1, "EXPLICIT"), (2, 48, 3, 3, 1, "VALID"), (3, 40, 1, 2, 1, "SAME"), (4, 33, 2, 1, 1, "SAME")]


@pytest.mark.parametrize("cin,cout,k,s,d,padding", CASES)
def test_conv_matches_numpy(cin, cout, k, s, d, padding):
    rng = np.random.default_rng(cin * 100 + cout + k)
    x = rng.standard_normal((2, 17, 23, cin)).astype(np.float32)  # 23 wide: border and interior blocks
    f = rng.standard_normal((k, k, cin, cout)).astype(np.float32)
    explicit = [0, 0, 2, 1, 0, 3, 0, 0] if padding == "EXPLICIT" else []
    kw = dict(strides=[1, s, s, 1], padding=padding, explicit_paddings=explicit, dilations=[1, d, d, 1])
    got = of.raw_ops.Conv2D(input=x, filter=f, **kw).numpy()
    want = ref.conv2d(x.astype(np.float64), f.astype(np.float64), kw["strides"], padding, explicit, "NHWC",
                      kw["dilations"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cout", [32, 24])
def test_fused_conv_epilogue(cout):
    rng = np.random.default_rng(cout)
    x = rng.standard_normal((1, 12, 12, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, cout)).astype(np.float32)
    bias = rng.standard_normal(cout).astype(np.float32)
    got = of.raw_ops._FusedConv2D(input=x, filter=f, args=[bias], host_args=[], num_args=1, strides=[1, 2, 2, 1],
                                  padding="SAME", fused_ops=["BiasAdd", "Relu6"]).numpy()
    conv = ref.conv2d(x.astype(np.float64), f.astype(np.float64), [1, 2, 2, 1], "SAME")
    np.testing.assert_allclose(got, np.clip(conv + bias, 0, 6), rtol=1e-4, atol=1e-4)
