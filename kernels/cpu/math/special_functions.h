// Special functions in double precision, for the CPU kernels of Lgamma, Digamma, Polygamma,
// Zeta, Igamma, Igammac, Betainc, Erfinv, Ndtri, BesselI0e and BesselI1e (special_math.cc).
// Algorithms: Cephes' (Moshier) Hurwitz zeta and incomplete gamma, the asymptotic series of
// digamma, Lentz's continued fraction for the incomplete beta, Giles' approximation of erfinv
// refined by Newton steps on erf / log(erfc), and libstdc++'s cyl_bessel_i (C++17) with the
// asymptotic expansion of I_nu(x) e^-x for large x. Domain errors give NaN, as TensorFlow
// (Eigen) does; poles give +inf.
#pragma once

#include <cmath>
#include <limits>

namespace opforge {
namespace special {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1.11022302462515654042e-16;  // 2^-53
constexpr double kPi = 3.14159265358979323846;

inline double lgamma(double x) {
#if defined(__GLIBC__)
  int sign;
  return ::lgamma_r(x, &sign);  // no write to the global signgam (thread-safe)
#else
  return std::lgamma(x);
#endif
}

inline double digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  double result = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return kNaN;  // poles
    // reflection: psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, and x - round(x)
    // is exact, so tiny and large |x| both keep their digits
    const double r = x - std::nearbyint(x);
    result = -kPi / std::tan(kPi * r);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  const double series =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - series;
}

// Hurwitz zeta(x, q) = sum_k (k + q)^-x (Cephes zeta.c): x < 1 is a domain error (NaN), x == 1
// a pole; q = 0, -1, ... a pole for even x (else NaN), q < 0 with x not an integer is NaN.
inline double zeta(double x, double q) {
  static const double A[] = {12.0,
                             -720.0,
                             30240.0,
                             -1209600.0,
                             47900160.0,
                             -1.8924375803183791606e9,
                             7.47242496e10,
                             -2.950130727918164224e12,
                             1.1646782814350067249e14,
                             -4.5979787224074726105e15,
                             1.8152105401943546773e17,
                             -7.1661652561756670113e18};
  if (x == 1.0) return kInf;
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x < 1.0) return kNaN;
  if (q <= 0.0) {
    // a pole at q = 0, -1, ...: +inf for even (or infinite) x, NaN otherwise (as TensorFlow)
    if (q == std::floor(q)) return std::isinf(x) || std::fmod(x, 2.0) == 0.0 ? kInf : kNaN;
    if (x != std::floor(x)) return kNaN;
  }
  if (q == kInf) return 0.0;
  if (x == kInf) return q == 1.0 ? 1.0 : (q > 1.0 ? 0.0 : kInf);
  double s = std::pow(q, -x), a = q, b = 0.0;
  if (s == 0.0 && q > 1.0) return 0.0;  // every term underflows
  if (std::isinf(s)) return s;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < kEps) return s;
    if (i > 100000) return s;  // q far below zero: the terms shrink slowly
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  double fa = 1.0, k = 0.0;
  for (int j = 0; j < 12; ++j) {
    fa *= x + k;
    b /= w;
    const double t = fa * b / A[j];
    s += t;
    if (std::fabs(t / s) < kEps) break;
    k += 1.0;
    fa *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

// psi^(n)(x): n a non-negative integer (else NaN); n == 0 is digamma.
inline double polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x)) return kNaN;
  if (n < 0.0 || n != std::floor(n)) return kNaN;
  if (n == 0.0) return digamma(x);
  // (-1)^(n+1) n! zeta(n + 1, x), as TensorFlow computes it (poles and infinities included)
  return std::pow(-1.0, n + 1.0) * std::exp(lgamma(n + 1.0)) * zeta(n + 1.0, x);
}

// x^a e^-x / Gamma(a), in logs.
// For a >= 10 through Stirling's series, so that the large terms a log x, x and lgamma(a) do not
// cancel: a (log1p(t) - t) + log(a) / 2 - log(2 pi) / 2 - stirling(a), t = (x - a) / a.
inline double igamma_prefactor_log(double a, double x) {
  if (a < 10.0) return a * std::log(x) - x - lgamma(a);
  const double t = (x - a) / a, r = 1.0 / (a * a);
  const double stirling = (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r / 1680))) / a;
  return a * (std::log1p(t) - t) + 0.5 * std::log(a) - 0.91893853320467274178 - stirling;
}

inline double igammac(double a, double x);

// P(a, x) for a > 1e12 (the series would need ~sqrt(a) terms): the Wilson-Hilferty normal
// approximation, whose error is O(1/a).
inline double igamma_large_a(double a, double x) {
  const double s = 1.0 / (9.0 * a);
  const double z = (std::cbrt(x / a) - (1.0 - s)) / std::sqrt(s);
  return 0.5 * std::erfc(-z * 0.70710678118654752440);
}

// Regularized lower incomplete gamma P(a, x) (Cephes igam.c, power series).
inline double igamma(double a, double x) {
  if (x == 0.0) return 0.0;  // whatever a is, as TensorFlow
  if (std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0) return kNaN;
  if (std::isinf(a)) return 0.0;
  if (std::isinf(x)) return 1.0;
  if (a > 1e12) return igamma_large_a(a, x);
  if (x > 1.0 && x > a) return 1.0 - igammac(a, x);
  const double lax = igamma_prefactor_log(a, x);
  if (lax < -709.78) return 0.0;
  double r = a, c = 1.0, ans = 1.0;
  for (int i = 0; i < 100000; ++i) {
    r += 1.0;
    c *= x / r;
    ans += c;
    if (c <= ans * kEps) break;
  }
  return ans * std::exp(lax) / a;
}

// Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x) (Cephes igamc, continued fraction).
inline double igammac(double a, double x) {
  if (std::isnan(a) || std::isnan(x) || a <= 0.0 || x < 0.0) return kNaN;
  if (x == 0.0) return 1.0;
  if (std::isinf(x)) return 0.0;
  if (std::isinf(a)) return 1.0;
  if (a > 1e12) return 1.0 - igamma_large_a(a, x);
  if (x < 1.0 || x < a) return 1.0 - igamma(a, x);
  const double lax = igamma_prefactor_log(a, x);
  if (lax < -709.78) return 0.0;
  constexpr double big = 4.503599627370496e15, biginv = 2.22044604925031308085e-16;
  double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
  double pkm2 = 1.0, qkm2 = x, pkm1 = x + 1.0, qkm1 = z * x;
  double ans = pkm1 / qkm1, t = 1.0;
  for (int i = 0; i < 100000 && t > kEps; ++i) {
    c += 1.0;
    y += 1.0;
    z += 2.0;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    if (qk != 0.0) {
      const double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
    } else {
      t = 1.0;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (std::fabs(pk) > big) {
      pkm2 *= biginv;
      pkm1 *= biginv;
      qkm2 *= biginv;
      qkm1 *= biginv;
    }
  }
  return ans * std::exp(lax);
}

// Continued fraction of the incomplete beta (modified Lentz).
inline double betacf(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m < 100000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b): a, b > 0 and 0 <= x <= 1, else NaN.
inline double betainc(double a, double b, double x) {
  if (a <= 0.0 || b <= 0.0) return kNaN;
  if (x == 0.0) return 0.0;  // even for NaN a or b, as TensorFlow
  if (x == 1.0) return 1.0;
  if (std::isnan(a) || std::isnan(b) || std::isnan(x) || x < 0.0 || x > 1.0) return kNaN;
  const double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(lbt) * betacf(a, b, x) / a;
  return 1.0 - std::exp(lbt) * betacf(b, a, 1.0 - x) / b;
}

// log(erfc(x)) for x >= 0, without underflow for large x (asymptotic series past 25).
inline double log_erfc(double x) {
  if (x < 25.0) return std::log(std::erfc(x));
  const double z = 1.0 / (2.0 * x * x);
  return -x * x - std::log(x * 1.7724538509055160273) + std::log1p(-z * (1.0 - 3.0 * z * (1.0 - 5.0 * z)));
}

// Giles' approximation of erfinv(y) (single precision), the start of the Newton steps.
inline double erfinv_guess(double w, double y) {
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}

// x >= 0 with erfc(x) = c, for 0 < c <= 0.5: Newton steps on log(erfc(x)) = log(c).
inline double erfcinv_tail(double c) {
  const double w = -std::log(c * (2.0 - c));
  double x;
  if (w < 30.0) {
    x = erfinv_guess(w, 1.0 - c);
  } else {  // beyond Giles' range: erfc(x) ~ e^(-x^2) / (x sqrt(pi)), solved by fixed point
    const double t = -std::log(c);
    x = std::sqrt(t);
    for (int i = 0; i < 3; ++i) x = std::sqrt(t - std::log(1.7724538509055160273 * x));
  }
  if (x > 27.3) x = 27.3;
  const double lc = std::log(c);
  for (int i = 0; i < 8; ++i) {
    const double le = log_erfc(x);
    // d/dx log(erfc(x)) = -2/sqrt(pi) e^(-x^2) / erfc(x)
    const double deriv = -1.1283791670955125739 * std::exp(-x * x - le);
    const double step = (le - lc) / deriv;
    x -= step;
    if (std::fabs(step) <= 1e-16 * x) break;
  }
  return x;
}

inline double erfinv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return kNaN;
  if (y == 1.0) return kInf;
  if (y == -1.0) return -kInf;
  const double ay = std::fabs(y);
  if (ay > 0.5) return std::copysign(erfcinv_tail(1.0 - ay), y);
  if (y == 0.0) return y;  // keeps -0
  double x = erfinv_guess(-std::log((1.0 - y) * (1.0 + y)), y);
  for (int i = 0; i < 3; ++i) {  // Newton on erf(x) = y (quadratic; the guess has ~7 digits)
    x -= (std::erf(x) - y) / (1.1283791670955125739 * std::exp(-x * x));
  }
  return x;
}

// The inverse of the standard normal CDF.
inline double ndtri(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return kNaN;
  if (p == 0.0) return -kInf;
  if (p == 1.0) return kInf;
  constexpr double sqrt2 = 1.41421356237309504880;
  if (p < 0.25) return -sqrt2 * erfcinv_tail(2.0 * p);
  if (p > 0.75) return sqrt2 * erfcinv_tail(2.0 * (1.0 - p));
  return sqrt2 * erfinv(2.0 * p - 1.0);
}

// I_nu(|x|) e^-|x| for nu in {0, 1}.
inline double bessel_ie_abs(int nu, double ax) {
  if (ax < 500.0) return std::cyl_bessel_i(static_cast<double>(nu), ax) * std::exp(-ax);
  // asymptotic: e^-x I_nu(x) ~ (2 pi x)^-1/2 sum_k (-1)^k prod_{j<=k} (mu - (2j-1)^2) / (k! (8x)^k)
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 12; ++k) {
    term *= -(mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * 8.0 * ax);
    sum += term;
  }
  return sum / std::sqrt(2.0 * kPi * ax);
}

inline double bessel_i0e(double x) {
  if (std::isnan(x)) return kNaN;
  if (std::isinf(x)) return 0.0;
  return bessel_ie_abs(0, std::fabs(x));
}

inline double bessel_i1e(double x) {
  if (std::isnan(x)) return kNaN;
  if (std::isinf(x)) return std::copysign(0.0, x);
  if (x == 0.0) return x;
  return std::copysign(bessel_ie_abs(1, std::fabs(x)), x);
}

}  // namespace special
}  // namespace opforge
