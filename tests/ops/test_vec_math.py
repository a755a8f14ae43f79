"""Accuracy of the vectorized float32 kernels (kernels/cpu/math/vec_math.cc): error in ulp
against float64 results on dense grids and random arguments, special values, and the SIMD
reductions (min/max/argmax/argmin with NaN) against NumPy. Large enough to take the parallel
and 8-lane paths, small enough to stay fast."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of

RNG = np.random.default_rng(1234)


def _ulp_error(got: np.ndarray, x64: np.ndarray, f64) -> float:
    """Max |got - f(x)| in units of the float32 spacing at f(x) (float64 reference)."""
    want = f64(x64)
    with np.errstate(over="ignore"):
        finite = np.isfinite(want.astype(np.float32))
    spacing = np.spacing(np.abs(want[finite]).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(got[finite].astype(np.float64) - want[finite]) / spacing, initial=0.0))


def _args(lo, hi, n=300_000):
    grid = np.linspace(lo, hi, n, dtype=np.float32)
    rand = RNG.uniform(lo, hi, n).astype(np.float32)
    return np.concatenate([grid, rand])


# op, float64 function, argument ranges, max ulp allowed
CASES = [
    ("sin", np.sin, [(-10, 10), (-8192, 8192), (-1e6, 1e6), (-1e-3, 1e-3)], 2.0),
    ("cos", np.cos, [(-10, 10), (-8192, 8192), (-1e6, 1e6), (-1e-3, 1e-3)], 2.0),
    ("expm1", np.expm1, [(-1, 1), (-1e-4, 1e-4), (-90, 89), (-20, 20)], 3.0),
    ("log1p", np.log1p, [(-0.999, 1), (-1e-4, 1e-4), (-1, 1e6), (0, 3e38)], 3.0),
]


@pytest.mark.parametrize("name,f64,ranges,max_ulp", CASES, ids=[c[0] for c in CASES])
def test_ulp_error(name, f64, ranges, max_ulp):
    fn = getattr(of.math, name)
    for lo, hi in ranges:
        x = _args(lo, hi)
        with np.errstate(all="ignore"):
            got = fn(x).numpy()
            err = _ulp_error(got, x.astype(np.float64), f64)
        assert err <= max_ulp, f"{name} on [{lo}, {hi}]: {err:.2f} ulp"


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38,
                    -1.0, -0.999999, 88.7, 88.8, -87.5, 1e30, 1e31, 8192.5, -8193.0] * 3, np.float32)


@pytest.mark.parametrize("name,np_fn", [("sin", np.sin), ("cos", np.cos), ("expm1", np.expm1),
                                        ("log1p", np.log1p)])
def test_special_values(name, np_fn):
    """Non-finite and out-of-range lanes (which take the scalar path) agree with NumPy."""
    with np.errstate(all="ignore"):
        want = np_fn(SPECIAL)
        got = getattr(of.math, name)(SPECIAL).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-37, equal_nan=True)


@pytest.mark.parametrize("name,np_fn", [("floor", np.floor), ("ceil", np.ceil), ("round", np.round),
                                        ("rsqrt", lambda v: np.float32(1) / np.sqrt(v))])
def test_exact_ops(name, np_fn):
    """Rounding ops and rsqrt (correctly rounded sqrt then divide) match NumPy bit for bit."""
    x = np.concatenate([_args(-1000, 1000), np.arange(-20, 20, 0.5, dtype=np.float32), SPECIAL])
    if name == "rsqrt":
        x = np.abs(x)
    with np.errstate(all="ignore"):
        want = np_fn(x)
        got = getattr(of.math, name)(x).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 7, 31, 33, 64, 1000, 200_003])
def test_simd_reductions(n):
    x = RNG.standard_normal(n).astype(np.float32)
    x[RNG.integers(0, n)] = x.max()  # a tie: the first index wins
    for nan_at in (None, n // 2, n - 1):
        v = x.copy()
        if nan_at is not None:
            v[nan_at] = np.nan
        np.testing.assert_array_equal(of.reduce_min(v).numpy(), np.min(v))
        np.testing.assert_array_equal(of.reduce_max(v).numpy(), np.max(v))
        assert int(of.argmax(v).numpy()) == int(np.argmax(v))
        assert int(of.argmin(v).numpy()) == int(np.argmin(v))
        m = v[: (n // 7) * 7].reshape(-1, 7) if n >= 7 else v.reshape(1, -1)
        np.testing.assert_array_equal(of.argmax(m, axis=1).numpy(), np.argmax(m, axis=1))
        np.testing.assert_array_equal(of.reduce_min(m, axis=1).numpy(), np.min(m, axis=1))


@pytest.mark.parametrize("n", [32, 63, 64, 65, 97, 4099])
def test_arg_reductions_with_many_ties(n):
    """Values from a handful of integers: the best value appears in many lanes and in each of
    the SIMD accumulators; the first index must win, as in NumPy."""
    for _ in range(20):
        v = RNG.integers(-4, 4, n).astype(np.float32)
        assert int(of.argmax(v).numpy()) == int(np.argmax(v))
        assert int(of.argmin(v).numpy()) == int(np.argmin(v))


def test_atan2_ulp_error_and_specials():
    """atan2 (vectorized where the operands are row-contiguous) against float64, and special
    pairs (zeros of both signs, infinities, NaN) against NumPy."""
    for lo, hi in ((-10, 10), (-1e30, 1e30), (-1e-30, 1e-30)):
        y, x = _args(lo, hi, 200_000), RNG.permutation(_args(lo, hi, 200_000))
        got = of.math.atan2(y, x).numpy()
        err = _ulp_error(got, None, lambda _: np.arctan2(y.astype(np.float64), x.astype(np.float64)))
        assert err <= 3.5, f"atan2 on [{lo}, {hi}]: {err:.2f} ulp"  # NumPy's own: 3.3
    s = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, 3e38], np.float32)
    y, x = np.repeat(s, len(s)), np.tile(s, len(s))
    np.testing.assert_allclose(of.math.atan2(y, x).numpy(), np.arctan2(y, x), rtol=2.4e-7, atol=0)
    m = RNG.uniform(-3, 3, (300, 517)).astype(np.float32)  # broadcast rows, parallel
    r = RNG.uniform(-3, 3, 517).astype(np.float32)
    np.testing.assert_allclose(of.math.atan2(m, r).numpy(), np.arctan2(m, r), rtol=3e-7, atol=1e-7)
