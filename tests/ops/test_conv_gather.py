"""Float32 convolutions as row-gathered AVX-512 products (kernels/cpu/nn/conv2d_gather.cc: no
patch matrix; the input read in place, or from a zero-padded copy) where the CPU has AVX-512,
and im2col + GEMM otherwise, against the NumPy reference: Conv2D (with the fused epilogue),
Conv2DBackpropInput (stride 1 runs as a forward convolution) and Conv2DBackpropFilter, over
paddings, strides, dilations, output channels across the 64/32/16-wide panels, and batches
whose pixel blocks cross images."""

import numpy as np
import pytest

import opforge as of
from opforge import _C
from tests.ops import nn_reference as ref
from tests.ops.kernel_switch import kernel_switch

kernel = kernel_switch(_C._testing.conv_gather, _C._testing.set_conv_gather, "gather", "im2col")

# (batch, h, w, cin, cout, kh, kw, stride, dilation, padding); every one at least 256 deep
# (kh * kw * cin), as the gathered product requires of these.
CASES = [(3, 14, 14, 32, 64, 5, 5, 1, 1, "SAME"), (2, 9, 7, 40, 17, 3, 3, 2, 1, "SAME"),
         (1, 10, 11, 24, 100, 5, 3, 1, 2, "VALID"), (2, 12, 12, 17, 33, 7, 7, 3, 1, "SAME"),
         (2, 8, 8, 40, 50, 7, 1, 1, 1, "SAME"), (1, 13, 13, 19, 31, 4, 4, 3, 1, "EXPLICIT"),
         (2, 6, 5, 64, 16, 1, 5, 1, 1, "SAME"), (2, 9, 9, 32, 20, 3, 3, 1, 2, "SAME"),
         (2, 6, 7, 30, 20, 3, 3, 1, 1, [0, 0, 5, 6, 1, 0, 0, 0]), (1, 7, 6, 40, 70, 3, 2, 2, 2, [0, 0, 4, 0, 0, 1, 0, 0]),
         (2, 5, 6, 32, 24, 3, 3, 1, 1, [0, 0, 1, 1, 4, 5, 0, 0]), (3, 7, 9, 16, 48, 5, 5, 2, 1, [0, 0, 2, 2, 3, 1, 0, 0])]
IDS = [f"{c[5]}x{c[6]}s{c[7]}d{c[8]}-{c[3]}to{c[4]}-{c[9] if isinstance(c[9], str) else 'EXPLICIT'}" for c in CASES]


def _setup(case, seed):
    """Random x and filter for a case; its padding is "SAME", "VALID", "EXPLICIT" ([2, 1] rows and
    [0, 3] columns) or a list of explicit paddings (filter rows wholly over padding: skipped; output columns whose taps lie wholly or partly over
    the horizontal padding: grouped, each group reading only its part of each run)."""
    n, h, w, cin, cout, kh, kw, s, d, padding = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
    f = rng.standard_normal((kh, kw, cin, cout)).astype(np.float32)
    explicit = padding if isinstance(padding, list) else [0, 0, 2, 1, 0, 3, 0, 0] if padding == "EXPLICIT" else []
    kw_ = dict(strides=[1, s, s, 1], padding="EXPLICIT" if explicit else padding, explicit_paddings=explicit,
               dilations=[1, d, d, 1])
    return rng, x, f, explicit, kw_


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_conv_matches_numpy(case):
    rng, x, f, explicit, kw = _setup(case, 1)
    got = of.raw_ops.Conv2D(input=x, filter=f, **kw).numpy()
    want = ref.conv2d(x.astype(np.float64), f.astype(np.float64), kw["strides"], kw["padding"], explicit, "NHWC",
                      kw["dilations"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_filter_gradient_matches_numpy(case):
    _check_filter_gradient(case, 2)


def _check_filter_gradient(case, seed):
    rng, x, f, explicit, kw = _setup(case, seed)
    dy = rng.standard_normal(of.raw_ops.Conv2D(input=x, filter=f, **kw).shape).astype(np.float32)
    sizes = np.array(f.shape, np.int32)
    got = of.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=sizes, out_backprop=dy, **kw).numpy()
    want = ref.conv2d_backprop_filter(x.astype(np.float64), f.shape, dy.astype(np.float64), kw["strides"], kw["padding"],
                                      explicit, "NHWC", kw["dilations"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


# Filters with few taps (at most 64): their gradient takes one gathered value per tap.
FEW_TAPS = [(3, 28, 28, 1, 32, 5, 5, 1, 1, "SAME"), (2, 15, 13, 3, 16, 3, 3, 2, 1, "SAME"),
            (2, 9, 9, 2, 40, 3, 3, 1, 2, "VALID"), (1, 8, 8, 4, 17, 4, 4, 1, 1, "EXPLICIT")]


@pytest.mark.parametrize("case", FEW_TAPS, ids=[f"{c[5]}x{c[6]}s{c[7]}d{c[8]}-{c[3]}to{c[4]}" for c in FEW_TAPS])
def test_few_taps_filter_gradient_matches_numpy(case):
    _check_filter_gradient(case, 4)


# Shallower filters (65 to 255 taps, runs of at least 16 values): the forward convolution keeps
# im2col, the filter gradient gathers (ResNet's 3x3 16->16, strided 16->32, a 5x1 over 12).
SHALLOW = [(2, 32, 32, 16, 16, 3, 3, 1, 1, "SAME"), (2, 16, 16, 16, 32, 3, 3, 2, 1, "SAME"),
           (3, 9, 11, 12, 20, 5, 2, 1, 1, "VALID"), (1, 12, 12, 8, 24, 3, 3, 1, 2, "EXPLICIT")]


@pytest.mark.parametrize("case", SHALLOW, ids=[f"{c[5]}x{c[6]}s{c[7]}d{c[8]}-{c[3]}to{c[4]}" for c in SHALLOW])
def test_shallow_filter_gradient_matches_numpy(case):
    _check_filter_gradient(case, 5)


@pytest.mark.parametrize("case", [c for c in CASES if c[7] == 1 and c[8] == 1], ids=lambda c: f"{c[5]}x{c[6]}")
def test_input_gradient_matches_numpy(case):
    rng, x, f, explicit, kw = _setup(case, 3)
    dy = rng.standard_normal(of.raw_ops.Conv2D(input=x, filter=f, **kw).shape).astype(np.float32)
    got = of.raw_ops.Conv2DBackpropInput(input_sizes=np.array(x.shape, np.int32), filter=f, out_backprop=dy,
                                         **kw).numpy()
    want = ref.conv2d_backprop_input(x.shape, f.astype(np.float64), dy.astype(np.float64), kw["strides"], kw["padding"],
                                     explicit, "NHWC", kw["dilations"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("fused,cout,explicit", [(["BiasAdd", "Relu"], 100, []), (["BiasAdd", "Relu6"], 64, []),
                                                 (["BiasAdd", "Elu"], 40, []),
                                                 (["BiasAdd", "Relu"], 70, [0, 0, 7, 1, 2, 2, 0, 0]),
                                                 (["BiasAdd", "Elu"], 33, [0, 0, 1, 0, 6, 3, 0, 0])])
def test_fused_epilogue(fused, cout, explicit):
    """The epilogue is applied to every output, also rows whose filter lies wholly over padding
    (the fourth case: output rows 0 to 2 read no input row and are act(bias); the last: output
    columns 0 and 1 read no input column)."""
    rng = np.random.default_rng(cout)
    x = rng.standard_normal((2, 9, 9, 24)).astype(np.float32)
    f = rng.standard_normal((5, 5, 24, cout)).astype(np.float32)
    bias = rng.standard_normal(cout).astype(np.float32)
    padding = "EXPLICIT" if explicit else "SAME"
    got = of.raw_ops._FusedConv2D(input=x, filter=f, args=[bias], host_args=[], num_args=1, strides=[1, 1, 1, 1],
                                  padding=padding, explicit_paddings=explicit, fused_ops=fused).numpy()
    pre = ref.conv2d(x.astype(np.float64), f.astype(np.float64), [1, 1, 1, 1], padding, explicit) + bias
    act = {"Relu": lambda v: np.maximum(v, 0), "Relu6": lambda v: np.clip(v, 0, 6),
           "Elu": lambda v: np.where(v > 0, v, np.expm1(np.minimum(v, 0)))}[fused[1]]
    np.testing.assert_allclose(got, act(pre), rtol=1e-4, atol=1e-3)


def test_switch_follows_the_gemm_kernel():
    """The gathered product runs on the runtime's AVX-512 GEMM: with OpenBLAS chosen it is off."""
    if not _C._testing.conv_gather():
        pytest.skip("no AVX-512 on this CPU (or switched off): nothing to switch")
    before = _C._testing.sgemm_kernel()
    try:
        assert _C._testing.set_sgemm_kernel("openblas")
        assert not _C._testing.conv_gather()
    finally:
        _C._testing.set_sgemm_kernel(before)
    assert _C._testing.conv_gather()
