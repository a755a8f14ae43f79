"""NumPy references of the special-function ops (opdefs/math/{lgamma,digamma,...}.pbtxt name
them). The standard library and NumPy cover lgamma, erfinv, ndtri and bessel_i0e (with
algorithms other than the kernels'); the others need scipy.special, and a case skips without it
(tests/ops/test_special_math.py checks those functions against exact identities without scipy)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest


def _scipy():
    return pytest.importorskip("scipy.special")


def _vec(f, x):
    x = np.asarray(x)
    return np.vectorize(f, otypes=[x.dtype])(x) if x.size else x.copy()


def _lgamma1(v):
    try:
        return math.lgamma(v)
    except ValueError:  # the poles 0, -1, -2, ...
        return math.inf


def lgamma(x):
    return _vec(_lgamma1, x)


def _ndtri1(p):
    if np.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p in (0.0, 1.0):
        return math.copysign(math.inf, p - 0.5)
    return statistics.NormalDist().inv_cdf(p)


def ndtri(x):
    return _vec(_ndtri1, x)


def erfinv(x):
    # erfinv(y) = ndtri((y + 1) / 2) / sqrt(2) (the halving is exact; accurate away from y = 0,
    # where the relative error of (y + 1) / 2 matters: there erfinv(y) ~ y sqrt(pi) / 2)
    x = np.asarray(x)
    far = ndtri((x.astype(np.float64) + 1) / 2) / math.sqrt(2)
    near = x * (math.sqrt(math.pi) / 2) * (1 + (math.pi / 12) * x * x + (7 * math.pi**2 / 480) * x**4)
    return np.where(np.abs(x) < 1e-3, near, far).astype(x.dtype)


def bessel_i0e(x):
    x = np.asarray(x)
    a = np.abs(x.astype(np.float64))
    with np.errstate(all="ignore"):
        small = np.i0(np.where(a < 500, a, 0)) * np.exp(-np.where(a < 500, a, 0))
        z = 1 / (8 * np.where(a < 500, 1, a))  # e^-x I0(x) ~ (1 + z + 9 z^2 / 2) / sqrt(2 pi x)
        large = np.where(np.isinf(a), 0.0, (1 + z + 4.5 * z * z) / np.sqrt(2 * np.pi * np.where(a < 500, 1, a)))
    return np.where(np.isnan(a), np.nan, np.where(a < 500, small, large)).astype(x.dtype)


def bessel_i1e(x):
    return np.asarray(_scipy().i1e(x)).astype(np.asarray(x).dtype)


def digamma(x):
    """scipy's digamma, NaN at the poles 0, -1, ... (scipy: +-inf at 0), as TensorFlow."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return np.where((x <= 0) & (x == np.floor(x)), np.nan, _scipy().digamma(x)).astype(x.dtype)


def zeta(x, q):
    """scipy's Hurwitz zeta with TensorFlow's conventions at the edges: x = 1 is +inf even for a
    NaN q; q a non-positive integer is +inf for even (or infinite) x, else NaN; q = +inf is 0."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        out = _scipy().zeta(x, q)
        pole = (q <= 0) & (q == np.floor(q))
        out = np.where(pole, np.where(np.isinf(x) | (np.fmod(x, 2) == 0), np.inf, np.nan), out)
        out = np.where((q == np.inf) & (x > 1), 0.0, out)
        out = np.where(np.isnan(out) & (q > 1) & (x > 1), 0.0, out)  # scipy: NaN where every term underflows
        out = np.where((x == np.inf) & (q > 0) & (q < 1), np.inf, out)
        out = np.where((x == np.inf) & (q < 0) & ~pole, np.inf, out)
        out = np.where(x == 1, np.inf, np.where(x < 1, np.nan, out))
    return out


def polygamma(a, x):
    """(-1)^(a+1) a! zeta(a + 1, x) as TensorFlow computes it (digamma for a = 0; NaN for a not a
    non-negative integer)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        fact = np.exp(np.vectorize(_lgamma1, otypes=[np.float64])(a + 1)) if a.size else a.copy()
        out = np.power(-1.0, a + 1) * fact * zeta(a + 1, x)
        out = np.where(a == 0, digamma(x), out)
        out = np.where((a < 0) | (a != np.floor(a)) | np.isnan(x), np.nan, out)
    return out


def igamma(a, x):
    """scipy's gammainc, with TensorFlow's edges: x = 0 gives 0 for any a; a = +inf gives 0."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        out = np.where((a > 0) & (x >= 0), _scipy().gammainc(np.where(a > 0, a, 1), np.where(x >= 0, x, 0)), np.nan)
        out = np.where((a == np.inf) & (x >= 0), 0.0, np.where((x == np.inf) & (a > 0) & (a < np.inf), 1.0, out))
    return np.where(x == 0, 0.0, out)


def igammac(a, x):
    """scipy's gammaincc, with TensorFlow's edges (x = +inf gives 0, a = +inf gives 1)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        out = np.where((a > 0) & (x >= 0), _scipy().gammaincc(np.where(a > 0, a, 1), np.where(x >= 0, x, 0)), np.nan)
        out = np.where((x == np.inf) & (a > 0), 0.0, np.where((a == np.inf) & (x >= 0), 1.0, out))
        return np.where((x == 0) & (a > 0), 1.0, out)


def betainc(a, b, x):
    """scipy's betainc, with TensorFlow's edges: a or b <= 0 is NaN, then x = 0 or 1 give 0 or 1
    (even for a NaN a or b)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    with np.errstate(all="ignore"):
        out = _scipy().betainc(a, b, x)
        out = np.where(x == 0, 0.0, np.where(x == 1, 1.0, out))
        return np.where((a <= 0) | (b <= 0), np.nan, out)


def lu(a, output_idx_type):
    """LU with partial pivoting (the first largest |pivot|, as LAPACK), in float64: (lu, p) with
    a[..., p, :] = L @ U."""
    a = np.asarray(a)
    x = a.astype(np.float64).copy()
    n = x.shape[-1]
    perm = np.broadcast_to(np.arange(n), x.shape[:-1]).copy()
    for idx in np.ndindex(*x.shape[:-2]):
        m, pm = x[idx], perm[idx]
        for k in range(n):
            r = k + int(np.argmax(np.abs(m[k:, k])))
            m[[k, r]] = m[[r, k]]
            pm[[k, r]] = pm[[r, k]]
            if m[k, k] != 0:
                m[k + 1:, k] /= m[k, k]
                m[k + 1:, k + 1:] -= np.outer(m[k + 1:, k], m[k, k + 1:])
    return x.astype(a.dtype), perm.astype(output_idx_type)


def matrix_square_root(a):
    """The principal square root through an eigendecomposition, in complex128 (the real part:
    the inputs the tests give have no eigenvalue on the closed negative real axis)."""
    a = np.asarray(a)
    w, v = np.linalg.eig(a.astype(np.float64))
    root = (v * np.sqrt(w.astype(np.complex128))[..., None, :]) @ np.linalg.inv(v)
    return root.real.astype(a.dtype)
