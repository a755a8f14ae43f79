// The coefficients vec_math.cc (8 lanes) and vec_math_avx512.cc (16 lanes) share: Cephes'
// single-precision expf and tanhf (S. L. Moshier, public domain), expm1's Taylor series, and
// erf / erfc fitted by tools/fit_erf.py.
// Each polynomial's coefficients run from the highest degree down (Horner's order).
#pragma once

namespace opforge {
namespace vec {
namespace poly {

// x = k ln 2 + r, |r| <= ln 2 / 2, k = round(x log2(e)); ln 2 in two parts (Cody-Waite): the
// high part has few bits, so k * kLn2Hi is exact.
inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;
inline constexpr float kLn2Lo = -2.12194440e-4f;

// e^r = 1 + r + r^2 P(r) (Cephes expf).
inline constexpr float kExpP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                  4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// tanh(x) = x + x^3 Q(x^2) for |x| < 0.625 (Cephes tanhf).
inline constexpr float kTanhQ[] = {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f, 1.33314422036e-1f,
                                   -3.33332819422e-1f};
inline constexpr float kTanhSmall = 0.625f;
// From here on tanh(|x|) rounds to 1 in float (it does from 9.01).
inline constexpr float kTanhOne = 10.0f;

// expm1(r) = r + r^2 T(r), T the Taylor series 1/2! + r/3! + ... + r^7/9! (truncation below
// 1e-10 relative for |r| <= ln 2 / 2).
inline constexpr float kExpm1T[] = {1.0f / 362880, 1.0f / 40320, 1.0f / 5040, 1.0f / 720,
                                    1.0f / 120,    1.0f / 24,    1.0f / 6,    0.5f};

// erf(x) = x P(x^2) for |x| < kErfEnd; erfc(x) = exp(-x^2) t Q(t), t = 1 / (1 + x / 2), for
// x >= kErfcStart. Fitted for this project by tools/fit_erf.py (relative least squares against
// mpmath); evaluated in float32: erf within 3 ulp, erfc within 7.
inline constexpr float kErfP[] = {8.714060095e-05f, -8.220518357e-04f, 5.207621492e-03f, -2.686196938e-02f,
                                  1.128374115e-01f, -3.761263788e-01f, 1.128379226e+00f};
inline constexpr float kErfcQ[] = {-3.026008420e-02f, 6.648109108e-02f, 6.354851276e-02f, -2.723188102e-01f,
                                   1.523689479e-01f,  1.849435084e-02f, 1.930222064e-01f, 2.442280948e-01f,
                                   2.823213637e-01f,  2.820863724e-01f};
inline constexpr float kErfEnd = 0.875f;
inline constexpr float kErfcStart = 0.5f;
// From here on erfc(x) is 0 in float (below the smallest subnormal from 10.06).
inline constexpr float kErfcZero = 10.5f;

}  // namespace poly
}  // namespace vec
}  // namespace opforge
