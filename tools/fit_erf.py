"""Fits the float32 erf / erfc polynomials of kernels/cpu/math/vec_poly.h (kErfP, kErfcQ) and
prints them, with the largest relative error of the float32 evaluation (emulated in NumPy) over
a dense grid. Needs mpmath and scipy (not project dependencies: run by hand).

  erf(x)  = x P(x^2)                    for |x| < 0.875 (erfc: 1 - erf for |x| < 0.5)
  erfc(x) = exp(-x^2) t Q(t), t = 1 / (1 + x / 2)   for x >= 0.5

Each is a least-squares fit of the relative error at Chebyshev nodes, against mpmath at 40
digits."""

import mpmath
import numpy as np
from scipy.special import erf as erf64
from scipy.special import erfc as erfc64

mpmath.mp.dps = 40
ERF_END, ERFC_START, ERFC_END, T_SCALE = 0.875, 0.5, 10.1, 0.5


def nodes(lo, hi, n=400):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def relative_fit(var, target, degree):
    v = np.vander(var, degree + 1, increasing=True) / target[:, None]
    c, *_ = np.linalg.lstsq(v, np.ones_like(target), rcond=None)
    return c.astype(np.float32)


def fit_erf(degree=6):
    x = nodes(0, ERF_END)
    return relative_fit(x * x, np.array([float(mpmath.erf(mpmath.mpf(v)) / mpmath.mpf(v)) for v in x]), degree)


def fit_erfc(degree=9):
    t = nodes(1 / (1 + T_SCALE * ERFC_END), 1 / (1 + T_SCALE * ERFC_START))
    x = (1 / t - 1) / T_SCALE
    f = np.array([float(mpmath.erfc(mpmath.mpf(v)) * mpmath.exp(mpmath.mpf(v) ** 2)) for v in x]) / t
    return relative_fit(t, f, degree)


def horner(c, t):
    p = np.float32(c[-1])
    for ci in c[-2::-1]:
        p = (p * t + ci).astype(np.float32)
    return p


def check(p, q):
    """Largest relative errors (in float32 ulp) of erf and erfc evaluated as the kernel does."""
    f32 = np.float32
    x = np.concatenate([np.linspace(-4.5, 9.5, 1_400_001), np.geomspace(1e-30, 1, 10_000)]).astype(f32)
    ax = np.abs(x)
    small = (x * horner(p, (x * x).astype(f32))).astype(f32)
    t = (f32(1) / (f32(1) + f32(T_SCALE) * ax)).astype(f32)
    hi = (ax * ax).astype(f32)
    lo = (ax.astype(np.float64) ** 2 - hi).astype(f32)
    y = (np.exp(-hi.astype(np.float64)).astype(f32) * (t * horner(q, t)).astype(f32)).astype(f32)
    tail = (y - y * lo).astype(f32)
    erfc = np.where(ax < ERFC_START, f32(1) - small, np.where(x > 0, tail, f32(2) - tail)).astype(f32)
    erf = np.where(ax < ERF_END, small, np.copysign(f32(1) - tail, x)).astype(f32)
    ulp = 2.0 ** -24
    r1, r2 = erfc64(x.astype(np.float64)), erf64(x.astype(np.float64))
    m1, m2 = r1 > np.finfo(np.float32).tiny, r2 != 0
    return (np.abs(erf[m2] - r2[m2]) / np.abs(r2[m2])).max() / ulp, (np.abs(erfc[m1] - r1[m1]) / r1[m1]).max() / ulp


def main():
    p, q = fit_erf(), fit_erfc()
    for name, c in (("kErfP", p), ("kErfcQ", q)):
        print(f"inline constexpr float {name}[] = {{{', '.join(f'{v:.9e}f' for v in c[::-1])}}};")
    print("max error: erf %.1f ulp, erfc %.1f ulp (exp rounded once)" % check(p, q))


if __name__ == "__main__":
    main()
