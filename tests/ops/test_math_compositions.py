"""tf.math functions opforge builds from other ops (opforge/ops/math.py): *_no_nan, xlogy,
xdivy, xlog1py, reduce_variance, reduce_std, polyval, against NumPy on random data (values
eagerly and in a graph; float64 gradients against central differences, finite where the
result is masked to 0)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from composite_check import check_gradient, check_values
from opforge.ops import math as m

RNG = np.random.default_rng(320)


def _with_zeros(shape, dtype=np.float64):
    x = RNG.standard_normal(shape).astype(dtype)
    x[RNG.random(shape) < 0.3] = 0
    return x


def _np_div_no_nan(x, y):
    return np.where(y == 0, 0, x / np.where(y == 0, 1, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_no_nan_family(dtype):
    x, y = _with_zeros((4, 5), dtype), _with_zeros((4, 5), dtype)
    check_values(m.divide_no_nan, _np_div_no_nan, x, y, rtol=1e-6)
    x_nan = x.copy()
    x_nan[0, 0], y[0, 0] = np.nan, 0
    check_values(m.multiply_no_nan, lambda a, b: np.where(b == 0, 0, a * b).astype(dtype), x_nan, y, rtol=1e-6)
    check_values(m.reciprocal_no_nan, lambda a: _np_div_no_nan(np.ones_like(a), a), x, rtol=1e-6)


def test_xlogy_xdivy_xlog1py():
    x = _with_zeros((3, 4))
    y = np.abs(RNG.standard_normal((3, 4))) + 0.1
    y[x == 0] = 0  # 0 * log(0) is 0 by definition
    check_values(m.xlogy, lambda a, b: np.where(a == 0, 0, a * np.log(np.where(a == 0, 1, b))), x, y, rtol=1e-12)
    check_values(m.xdivy, lambda a, b: np.where(a == 0, 0, a / np.where(a == 0, 1, b)), x, y, rtol=1e-12)
    check_values(m.xlog1py, lambda a, b: np.where(a == 0, 0, a * np.log1p(b)), x, y, rtol=1e-12)


def test_gradients_stay_finite_where_masked():
    y = np.abs(RNG.standard_normal((3, 4))) + 0.5
    check_gradient(lambda t: m.divide_no_nan(t, of.constant(y)), lambda v: v / y, RNG.standard_normal((3, 4)), RNG)
    x = _with_zeros((3, 4))
    check_gradient(lambda t: m.divide_no_nan(of.constant(x), t), lambda v: _np_div_no_nan(x, v),
                   np.abs(RNG.standard_normal((3, 4))) + 0.5, RNG)
    t = of.constant(np.array([1.0, 0.0]))
    with of.GradientTape() as tape:
        tape.watch(t)
        out = of.reduce_sum(m.divide_no_nan(of.constant(np.array([1.0, 2.0])), t))
    assert np.all(np.isfinite(tape.gradient(out, t).numpy()))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ([0, 2], True), (-1, True)])
def test_reduce_variance_and_std(axis, keepdims):
    x = RNG.standard_normal((3, 4, 5))
    ax = tuple(axis) if isinstance(axis, list) else axis
    check_values(lambda t: m.reduce_variance(t, axis, keepdims), lambda v: np.var(v, ax, keepdims=keepdims), x,
                 rtol=1e-10)
    check_values(lambda t: m.reduce_std(t, axis, keepdims), lambda v: np.std(v, ax, keepdims=keepdims), x,
                 rtol=1e-10)
    check_gradient(lambda t: m.reduce_variance(t, axis, keepdims), lambda v: np.var(v, ax, keepdims=keepdims), x,
                   RNG)


def test_polyval():
    coeffs = list(RNG.standard_normal(4))
    x = RNG.standard_normal((2, 3))
    check_values(lambda t: m.polyval(coeffs, t), lambda v: np.polyval(coeffs, v), x, rtol=1e-12)
    check_gradient(lambda t: m.polyval(coeffs, t), lambda v: np.polyval(coeffs, v), x, RNG)
    np.testing.assert_array_equal(m.polyval([], of.constant(x)).numpy(), np.zeros_like(x))


def test_compat_spellings():
    import opforge.compat.v1 as tf
    assert tf.div_no_nan.__wrapped__ is m.divide_no_nan and tf.math.divide_no_nan.__wrapped__ is m.divide_no_nan
    for name in ("xlogy", "xdivy", "xlog1py", "reduce_variance", "reduce_std", "polyval", "multiply_no_nan",
                 "reciprocal_no_nan"):
        assert getattr(tf.math, name).__wrapped__ is getattr(m, name)
