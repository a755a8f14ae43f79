"""Float32 exp, sigmoid, tanh, Elu, swish, erf and erfc (kernels/cpu/math/vec_math.cc,
vec_activations.cc, and their 16-lane AVX-512 forms in vec_math_avx512.cc; erf and erfc have no
8-lane form, so their other path is libm), each test once per path: error in ulp
against float64 on dense grids and random arguments (subnormal results included), special
values against NumPy, and swish as the fused convolution epilogue Keras models reach."""

from __future__ import annotations

import math

import numpy as np
import pytest
from kernel_switch import kernel_switch  # tests/ops/kernel_switch.py

import opforge as of
from opforge import _C

kernel = kernel_switch(_C._testing.vec_avx512, _C._testing.set_vec_avx512, "avx512", "avx2")
RNG = np.random.default_rng(77)


def _sigmoid64(v):
    e = np.exp(-np.abs(v))
    return np.where(v >= 0, 1 / (1 + e), e / (1 + e))


def _elu64(v):
    return np.where(v < 0, np.expm1(np.minimum(v, 0)), v)


_erf64 = np.vectorize(math.erf, otypes=[np.float64])
_erfc64 = np.vectorize(math.erfc, otypes=[np.float64])


def _ulp_error(got, want):
    """Max |got - want| in units of the float32 spacing at want (finite float32 wants only)."""
    with np.errstate(over="ignore"):
        finite = np.isfinite(want.astype(np.float32))
    spacing = np.spacing(np.abs(want[finite]).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(got[finite].astype(np.float64) - want[finite]) / spacing, initial=0.0))


def _args(lo, hi, n=200_001):  # odd: a partial last vector
    return np.concatenate([np.linspace(lo, hi, n, dtype=np.float32), RNG.uniform(lo, hi, n).astype(np.float32)])


CASES = [
    ("exp", of.math.exp, np.exp, [(-110, 100), (-1, 1), (-1e-4, 1e-4)], 2.0),
    ("sigmoid", of.math.sigmoid, _sigmoid64, [(-110, 100), (-20, 20), (-1e-4, 1e-4)], 3.0),
    ("tanh", of.math.tanh, np.tanh, [(-12, 12), (-1, 1), (-1e-4, 1e-4)], 2.0),
    ("elu", of.nn.elu, _elu64, [(-100, 10), (-1, 1), (-1e-4, 1e-4)], 3.0),
    ("erf", of.math.erf, _erf64, [(-6, 6), (-1, 1), (-1e-4, 1e-4)], 4.0),
    ("erfc", of.math.erfc, _erfc64, [(-6, 10.5), (-1, 1), (0.4, 4), (-1e-4, 1e-4)], 8.0),
]


@pytest.mark.parametrize("name,fn,f64,ranges,max_ulp", CASES, ids=[c[0] for c in CASES])
def test_ulp_error(name, fn, f64, ranges, max_ulp):
    for lo, hi in ranges:
        x = _args(lo, hi)
        with np.errstate(all="ignore"):
            err = _ulp_error(fn(x).numpy(), f64(x.astype(np.float64)))
        assert err <= max_ulp, f"{name} on [{lo}, {hi}]: {err:.2f} ulp"


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, 3.4e38, -3.4e38, 88.7,
                    88.8, -87.5, -103.0, -105.0, 9.0, 9.02, -9.5, 10.0, 20.0, 1e30, -1e30], np.float32)


@pytest.mark.parametrize("name,fn,f64", [(c[0], c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_special_values(name, fn, f64):
    """Non-finite, signed-zero, subnormal and saturating arguments; in a vector's tail too."""
    for x in (SPECIAL, np.tile(SPECIAL, 5)[:101]):
        with np.errstate(all="ignore"):
            want = f64(x.astype(np.float64)).astype(np.float32)
            got = fn(x).numpy()
        np.testing.assert_allclose(got, want, rtol=6e-7, atol=1e-44, equal_nan=True)
        zeros = x == 0
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))  # tanh(-0) = -0


@pytest.mark.parametrize("channels", [16, 20, 3])
def test_fused_swish_epilogue(channels):
    """_FusedConv2D with BiasAdd + _MklSwish (Keras's swish after a convolution) against NumPy."""
    x = (3 * RNG.standard_normal((2, 9, 11, 5))).astype(np.float32)
    w = RNG.standard_normal((1, 1, 5, channels)).astype(np.float32)
    b = RNG.standard_normal(channels).astype(np.float32)
    got = of.raw_ops._FusedConv2D(input=x, filter=w, args=[b], strides=[1, 1, 1, 1], padding="VALID",
                                  fused_ops=[b"BiasAdd", b"_MklSwish"], host_args=[], num_args=1).numpy()
    z = np.einsum("nhwc,cd->nhwd", x.astype(np.float64), w[0, 0].astype(np.float64)) + b
    np.testing.assert_allclose(got, z * _sigmoid64(z), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("gelu", ["GeluExact", "GeluApproximate"])
def test_fused_gelu_epilogue(gelu):
    """_FusedMatMul with BiasAdd + GELU (a transformer's or ConvNeXt's Dense layer, fused by the
    remapper) against float64, over both tails (columns pushed to +-30) and the kink at 0."""
    a = RNG.standard_normal((33, 20)).astype(np.float32)
    b = RNG.standard_normal((20, 37)).astype(np.float32)
    bias = (RNG.standard_normal(37) * 10).astype(np.float32)
    got = of.raw_ops._FusedMatMul(a=a, b=b, args=[bias], fused_ops=[b"BiasAdd", gelu.encode()]).numpy()
    z = a.astype(np.float64) @ b.astype(np.float64) + bias
    if gelu == "GeluExact":
        want = 0.5 * z * _erfc64(-z / np.sqrt(2))
    else:
        want = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
