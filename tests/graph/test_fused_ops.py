"""The fused ops the remapper writes (_FusedConv2D, _FusedDepthwiseConv2dNative,
_FusedMatMul) against NumPy on random data: every epilogue, dtypes, layouts, the
conv code paths (im2col, 1x1 GEMM, Winograd), and their errors."""

import math

import numpy as np
import pytest

import opforge as of
import opforge.raw_ops as raw

_erfc = np.vectorize(math.erfc, otypes=[np.float64])

ACTS = {
    "Relu": lambda v: np.maximum(v, 0),
    "Relu6": lambda v: np.clip(v, 0, 6),
    "Elu": lambda v: np.where(v < 0, np.expm1(v), v),
    "LeakyRelu": lambda v: np.where(v > 0, v, 0.1 * v),
    "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "Tanh": np.tanh,
    "_MklSwish": lambda v: v / (1 + np.exp(-v)),
    "_FusedHardSwish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
    "GeluExact": lambda v: 0.5 * v * _erfc(-v / np.sqrt(2)),
    "GeluApproximate": lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3))),
}
EPS = 0.001


def _epilogue(y, fused_ops, args):
    if fused_ops[0] == "BiasAdd":
        y = y + args[0]
    else:
        scale, offset, mean, var = args
        y = (y - mean) * scale / np.sqrt(var + EPS) + offset
    return ACTS[fused_ops[1]](y) if len(fused_ops) > 1 else y


def _args(rng, kind, n):
    if kind == "BiasAdd":
        return [rng.standard_normal(n).astype(np.float32)]
    return [rng.random(n, dtype=np.float32) + 0.5, rng.standard_normal(n).astype(np.float32),
            rng.standard_normal(n).astype(np.float32), rng.random(n, dtype=np.float32) + 0.5]


EPILOGUES = ([[k] for k in ("BiasAdd", "FusedBatchNorm")] + [["BiasAdd", a] for a in ACTS]
             + [["FusedBatchNorm", a] for a in ("Relu", "_MklSwish", "Elu", "_FusedHardSwish")])


# (kernel, cin, cout, height, width) reaching each CPU path: im2col (more than 16 input
# channels, not 3x3), the direct kernel (at most 16), one GEMM (1x1), Winograd (3x3 over more
# than 16 channels and at least 64 2x2 tiles).
GEOMETRIES = {"im2col": (2, 20, 5, 6, 7), "direct": (2, 3, 5, 6, 7), "pointwise": (1, 4, 6, 6, 7),
              "winograd": (3, 24, 20, 16, 17)}


@pytest.mark.parametrize("fused_ops", EPILOGUES, ids="-".join)
@pytest.mark.parametrize("geometry", list(GEOMETRIES))
def test_fused_conv2d(fused_ops, geometry):
    rng = np.random.default_rng(len(fused_ops) + len(geometry))
    k, cin, cout, h, w_ = GEOMETRIES[geometry]
    x = rng.standard_normal((2, h, w_, cin)).astype(np.float32)
    w = rng.standard_normal((k, k, cin, cout)).astype(np.float32) * 0.3
    args = _args(rng, fused_ops[0], cout)
    pad = "VALID" if geometry == "pointwise" else "SAME"
    got = raw._FusedConv2D(input=x, filter=w, args=args, host_args=[], num_args=len(args), strides=[1, 1, 1, 1],
                           padding=pad, fused_ops=fused_ops, epsilon=EPS, leakyrelu_alpha=0.1).numpy()
    want = _epilogue(of.nn.conv2d(x, w, [1, 1, 1, 1], pad).numpy(), fused_ops, args)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# (input shape, filter shape, stride): a depth multiplier of 2 (the portable kernels), and one
# filter per channel over 20 channels (a 16-channel block and a tail: the AVX-512 kernel where
# the CPU has it, bias or batch norm in registers, an activation they cannot do row by row after).
DW_GEOMETRIES = {"multiplier2": ((2, 5, 5, 3), (3, 3, 3, 2), 2), "one_per_channel": ((2, 9, 11, 20), (3, 3, 20, 1), 1)}


@pytest.mark.parametrize("fused_ops", EPILOGUES, ids="-".join)
@pytest.mark.parametrize("geometry", list(DW_GEOMETRIES))
def test_fused_depthwise(fused_ops, geometry):
    x_shape, w_shape, stride = DW_GEOMETRIES[geometry]
    rng = np.random.default_rng(len(fused_ops) + stride)
    x = (2 * rng.standard_normal(x_shape)).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    args = _args(rng, fused_ops[0], w_shape[2] * w_shape[3])
    strides = [1, stride, stride, 1]
    got = raw._FusedDepthwiseConv2dNative(input=x, filter=w, args=args, strides=strides, padding="SAME",
                                          fused_ops=fused_ops, epsilon=EPS, leakyrelu_alpha=0.1).numpy()
    plain = raw.DepthwiseConv2dNative(input=x, filter=w, strides=strides, padding="SAME").numpy()
    np.testing.assert_allclose(got, _epilogue(plain, fused_ops, args), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fused_ops", [f for f in EPILOGUES if f[0] == "BiasAdd"], ids="-".join)
@pytest.mark.parametrize("transpose", [(False, False), (True, True)])
def test_fused_mat_mul(fused_ops, transpose):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 5) if not transpose[0] else (5, 4)).astype(np.float32)
    b = rng.standard_normal((5, 3) if not transpose[1] else (3, 5)).astype(np.float32)
    args = _args(rng, "BiasAdd", 3)
    got = raw._FusedMatMul(a=a, b=b, args=args, transpose_a=transpose[0], transpose_b=transpose[1],
                           fused_ops=fused_ops, leakyrelu_alpha=0.1).numpy()
    want = _epilogue((a.T if transpose[0] else a) @ (b.T if transpose[1] else b), fused_ops, args)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_fused_ops_other_dtypes_and_nchw(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 5, 5)).astype(dtype)  # NCHW
    w = rng.standard_normal((3, 3, 3, 4)).astype(dtype)
    bias = rng.standard_normal(4).astype(dtype)
    got = raw._FusedConv2D(input=x, filter=w, args=[bias], host_args=[], num_args=1, strides=[1, 1, 1, 1],
                           padding="SAME", data_format="NCHW", fused_ops=["BiasAdd", "Relu"]).numpy()
    plain = of.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", data_format="NCHW").numpy().astype(np.float64)
    want = np.maximum(plain + bias.astype(np.float64).reshape(1, 4, 1, 1), 0)
    tol = 2e-2 if dtype == np.float16 else 1e-10
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)
    got = raw._FusedMatMul(a=x.reshape(15, 5), b=w.reshape(9, 12)[:5], args=[np.ones(12, dtype)],
                           fused_ops=["BiasAdd", "Tanh"]).numpy()
    want = np.tanh(x.reshape(15, 5).astype(np.float64) @ w.reshape(9, 12)[:5].astype(np.float64) + 1)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


def test_fused_op_errors():
    x = np.ones((1, 4, 4, 2), np.float32)
    w = np.ones((1, 1, 2, 3), np.float32)
    with pytest.raises(of.errors.InvalidArgumentError, match="must be 1-D with 3 values"):
        raw._FusedConv2D(input=x, filter=w, args=[np.ones(2, np.float32)], host_args=[], num_args=1,
                         strides=[1, 1, 1, 1], padding="SAME", fused_ops=["BiasAdd"])
    with pytest.raises(of.errors.UnimplementedError, match="unsupported activation 'Gelu'"):
        raw._FusedConv2D(input=x, filter=w, args=[np.ones(3, np.float32)], host_args=[], num_args=1,
                         strides=[1, 1, 1, 1], padding="SAME", fused_ops=["BiasAdd", "Gelu"])
    with pytest.raises(of.errors.InvalidArgumentError, match="takes 4 args"):
        raw._FusedMatMul(a=np.ones((2, 2), np.float32), b=np.ones((2, 3), np.float32),
                         args=[np.ones(3, np.float32)], fused_ops=["FusedBatchNorm"])


@pytest.mark.parametrize("activation", list(ACTS))
def test_fused_epilogue_over_many_values_with_extremes(activation):
    """The float32 epilogue runs vectorized math over whole tiles: more values than one chunk of
    its scratch, arguments far out in both tails (exp overflows and underflows) and a NaN."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((37, 29)).astype(np.float32)
    a[5, 3] = np.nan
    b = rng.standard_normal((29, 41)).astype(np.float32)
    bias = (rng.standard_normal(41) * 40).astype(np.float32)  # pushes whole columns to +-100
    got = raw._FusedMatMul(a=a, b=b, args=[bias], fused_ops=["BiasAdd", activation], leakyrelu_alpha=0.1).numpy()
    want = _epilogue(a.astype(np.float64) @ b.astype(np.float64), ["BiasAdd", activation], [bias])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True)
    assert np.isnan(got[5]).all() and not np.isnan(np.delete(got, 5, axis=0)).any()


@pytest.mark.parametrize("kernel", ["openblas", "avx512"])
@pytest.mark.parametrize("fused_ops", [["BiasAdd"], ["BiasAdd", "Relu"], ["FusedBatchNorm", "Relu6"]], ids="-".join)
@pytest.mark.parametrize("k,cin,cout", [(1, 300, 40), (1, 24, 20), (2, 20, 48), (1, 300, 100)])  # 2x2: im2col
def test_fused_conv_epilogue_applied_by_the_gemm(kernel, fused_ops, k, cin, cout):
    """Bias / batch norm + Relu/Relu6 are applied by the GEMM as it stores C (AVX-512 kernel) or
    as a pass after it (OpenBLAS): depth over one 256-deep block (only the last block's store
    may apply it), ragged output channels (100: a pair of 32-column panels at once, then one,
    then a 16-wide one), enough rows to split over the threads."""
    from opforge import _C
    before = _C._testing.sgemm_kernel()
    if not _C._testing.set_sgemm_kernel(kernel):
        pytest.skip(f"this CPU cannot run the {kernel} kernel")
    try:
        rng = np.random.default_rng(cin + cout)
        x = rng.standard_normal((2, 23, 19, cin)).astype(np.float32)
        w = (rng.standard_normal((k, k, cin, cout)) / np.sqrt(k * k * cin)).astype(np.float32)
        args = _args(rng, fused_ops[0], cout)
        got = raw._FusedConv2D(input=x, filter=w, args=args, host_args=[], num_args=len(args), strides=[1, 1, 1, 1],
                               padding="SAME", fused_ops=fused_ops, epsilon=EPS).numpy()
    finally:
        _C._testing.set_sgemm_kernel(before)
    conv = of.nn.conv2d(x.astype(np.float64), w.astype(np.float64), [1, 1, 1, 1], "SAME").numpy()
    np.testing.assert_allclose(got, _epilogue(conv, fused_ops, args), rtol=1e-4, atol=1e-4)
