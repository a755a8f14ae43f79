// See cpu/vec_math.h. On x86-64 CPUs with AVX2 and FMA (checked once at run time) the loops
// below run 8 floats at a time; elsewhere, and for the lanes a polynomial does not cover
// (non-finite or very large arguments), the scalar libm functions are used.
//
// The polynomials are Cephes' single-precision ones (sinf/cosf, expf, logf; S. L. Moshier,
// public domain), accurate to 1-2 ulp over their ranges; tests/ops/test_vec_math.py pins the
// error against float64 results.
#include "cpu/vec_math.h"

#include <cmath>
#include <iterator>  // std::size
#include <cstring>
#include <limits>

#include "cpu/math/vec_math_avx512.h"
#include "cpu/math/vec_poly.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OPF_VEC_X86 1
#endif

namespace opforge {
namespace vec {
namespace {

// Scalar versions: the fallback, the tails and the special lanes.
inline float sin_s(float x) { return std::sin(x); }
inline float cos_s(float x) { return std::cos(x); }
inline float expm1_s(float x) { return std::expm1(x); }
inline float log1p_s(float x) { return std::log1p(x); }
inline float exp_s(float x) { return std::exp(x); }
inline float tanh_s(float x) { return std::tanh(x); }
// Stable for large |x|: never exponentiate a large positive number.
inline float sigmoid_s(float x) {
  if (x >= 0) return 1.0f / (1.0f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.0f + e);
}

template <bool kMax>
int64_t arg_scalar(const float* x, int64_t n) {
  int64_t best = 0;
  float bv = x[0];
  if (std::isnan(bv)) return 0;
  for (int64_t i = 1; i < n; ++i) {
    const float v = x[i];
    if (std::isnan(v)) return i;
    if (kMax ? v > bv : v < bv) {
      bv = v;
      best = i;
    }
  }
  return best;
}

template <bool kMax>
float minmax_scalar(const float* x, int64_t n, float init) {
  float m = init;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (std::isnan(v)) return v;
    m = kMax ? (v > m ? v : m) : (v < m ? v : m);
  }
  return m;
}

#ifdef OPF_VEC_X86

bool has_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

#define OPF_AVX2 __attribute__((target("avx2,fma")))

OPF_AVX2 inline __m256 set1(float v) { return _mm256_set1_ps(v); }

// Four float lanes widened to double, reduced by pi/2 there (two-part constant and FMA: the
// reduced argument keeps nearly full relative precision for |x| <= 2^20), and narrowed again.
OPF_AVX2 inline void reduce_pio2(__m128 x, __m128* r, __m128i* q) {
  const __m256d xd = _mm256_cvtps_pd(x);
  const __m256d j = _mm256_round_pd(_mm256_mul_pd(xd, _mm256_set1_pd(0.63661977236758134308)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d rd = _mm256_fnmadd_pd(j, _mm256_set1_pd(1.5707963267948966), xd);
  rd = _mm256_fnmadd_pd(j, _mm256_set1_pd(6.123233995736766e-17), rd);
  *r = _mm256_cvtpd_ps(rd);
  *q = _mm256_cvtpd_epi32(j);
}

// sin (cos when kCos) for |x| <= 2^20: quadrant from the reduction, then Cephes' sinf/cosf
// polynomials on [-pi/4, pi/4].
template <bool kCos>
OPF_AVX2 inline __m256 sincos8(__m256 x) {
  __m128 r0, r1;
  __m128i q0, q1;
  reduce_pio2(_mm256_castps256_ps128(x), &r0, &q0);
  reduce_pio2(_mm256_extractf128_ps(x, 1), &r1, &q1);
  const __m256 r = _mm256_insertf128_ps(_mm256_castps128_ps256(r0), r1, 1);
  __m256i q = _mm256_insertf128_si256(_mm256_castsi128_si256(q0), q1, 1);
  if (kCos) q = _mm256_add_epi32(q, _mm256_set1_epi32(1));  // cos(x) = sin(x + pi/2)
  // odd quadrants take the cosine polynomial; quadrants 2 and 3 flip the sign
  const __m256 poly_cos =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(q, _mm256_set1_epi32(1)), _mm256_set1_epi32(1)));
  const __m256 sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(q, _mm256_set1_epi32(2)), 30));
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 c = _mm256_fmadd_ps(set1(2.443315711809948e-5f), z, set1(-1.388731625493765e-3f));
  c = _mm256_fmadd_ps(c, z, set1(4.166664568298827e-2f));
  c = _mm256_mul_ps(_mm256_mul_ps(c, z), z);
  c = _mm256_fnmadd_ps(set1(0.5f), z, c);
  c = _mm256_add_ps(c, set1(1.0f));
  __m256 s = _mm256_fmadd_ps(set1(-1.9515295891e-4f), z, set1(8.3321608736e-3f));
  s = _mm256_fmadd_ps(s, z, set1(-1.6666654611e-1f));
  s = _mm256_fmadd_ps(_mm256_mul_ps(s, z), r, r);
  return _mm256_xor_ps(_mm256_blendv_ps(s, c, poly_cos), sign);
}

// exp(x) for x in [-87.3, 88.7] (Cephes expf); callers handle the rest.
OPF_AVX2 inline __m256 exp8(__m256 x) {
  __m256 fx = _mm256_floor_ps(_mm256_fmadd_ps(x, set1(poly::kLog2e), set1(0.5f)));
  __m256 r = _mm256_fnmadd_ps(fx, set1(poly::kLn2Hi), x);
  r = _mm256_fnmadd_ps(fx, set1(poly::kLn2Lo), r);
  __m256 p = set1(poly::kExpP[0]);
  for (size_t i = 1; i < std::size(poly::kExpP); ++i) p = _mm256_fmadd_ps(p, r, set1(poly::kExpP[i]));
  p = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), set1(1.0f));
  // scale by 2^fx (fx in [-126, 128]: split in two factors so 2^128 does not overflow early)
  const __m256i e = _mm256_cvtps_epi32(fx);
  const __m256i e1 = _mm256_srai_epi32(e, 1), e2 = _mm256_sub_epi32(e, e1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e1, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e2, _mm256_set1_epi32(127)), 23));
  return _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
}

// log(x) for finite x > 0, normal (Cephes logf).
OPF_AVX2 inline __m256 log8(__m256 x) {
  const __m256i bits = _mm256_castps_si256(x);
  __m256 e = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126)));
  __m256 m = _mm256_castsi256_ps(
      _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f000000)));
  const __m256 small = _mm256_cmp_ps(m, set1(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(small, set1(1.0f)));
  m = _mm256_sub_ps(_mm256_add_ps(m, _mm256_and_ps(small, m)), set1(1.0f));
  const __m256 z = _mm256_mul_ps(m, m);
  __m256 y = _mm256_fmadd_ps(set1(7.0376836292e-2f), m, set1(-1.1514610310e-1f));
  y = _mm256_fmadd_ps(y, m, set1(1.1676998740e-1f));
  y = _mm256_fmadd_ps(y, m, set1(-1.2420140846e-1f));
  y = _mm256_fmadd_ps(y, m, set1(1.4249322787e-1f));
  y = _mm256_fmadd_ps(y, m, set1(-1.6668057665e-1f));
  y = _mm256_fmadd_ps(y, m, set1(2.0000714765e-1f));
  y = _mm256_fmadd_ps(y, m, set1(-2.4999993993e-1f));
  y = _mm256_fmadd_ps(y, m, set1(3.3333331174e-1f));
  y = _mm256_mul_ps(_mm256_mul_ps(y, m), z);
  y = _mm256_fmadd_ps(e, set1(-2.12194440e-4f), y);
  y = _mm256_fnmadd_ps(set1(0.5f), z, y);
  return _mm256_fmadd_ps(e, set1(0.693359375f), _mm256_add_ps(m, y));
}

// Runs f8 on 8 lanes where ok8(x) holds for all of them, else the scalar f per element.
template <typename Ok8, typename F8, typename F>
OPF_AVX2 void map8(const float* in, float* out, int64_t n, Ok8 ok8, F8 f8, F f) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(in + i);
    if (_mm256_movemask_ps(ok8(x)) == 0xff) {
      _mm256_storeu_ps(out + i, f8(x));
    } else {
      for (int k = 0; k < 8; ++k) out[i + k] = f(in[i + k]);
    }
  }
  for (; i < n; ++i) out[i] = f(in[i]);
}

OPF_AVX2 inline __m256 abs_le(__m256 x, float bound) {  // |x| <= bound (false for NaN)
  const __m256 ax = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_set1_epi32(0x80000000)), x);
  return _mm256_cmp_ps(ax, set1(bound), _CMP_LE_OQ);
}

// Lane predicates and 8-lane bodies for map8 (functors: lambdas' conversion thunks would
// lack the target attribute).
struct AbsLe2p20 {
  OPF_AVX2 __m256 operator()(__m256 x) const { return abs_le(x, 1048576.0f); }
};
template <bool kCos>
struct SinCos8 {
  OPF_AVX2 __m256 operator()(__m256 x) const { return sincos8<kCos>(x); }
};
struct Expm1Range {  // k = round(x / ln 2) stays in [-126, 127]: 2^k is a normal float
  OPF_AVX2 __m256 operator()(__m256 x) const {
    return _mm256_and_ps(_mm256_cmp_ps(x, set1(88.0f), _CMP_LE_OQ), _mm256_cmp_ps(x, set1(-87.0f), _CMP_GE_OQ));
  }
};
// expm1(x) = 2^k * expm1(r) + (2^k - 1) with x = k ln 2 + r, |r| <= ln 2 / 2 (Cody-Waite
// reduction as in exp8); expm1(r) by its Taylor polynomial to degree 9 (truncation below
// 1e-10 relative). 2^k - 1 is exact for |k| <= 24 and rounds harmlessly beyond, and k = 0
// gives expm1(r) itself, so small |x| keep full relative precision. One path for every lane.
struct Expm18 {
  OPF_AVX2 __m256 operator()(__m256 x) const {
    const __m256 k =
        _mm256_round_ps(_mm256_mul_ps(x, set1(poly::kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, set1(poly::kLn2Hi), x);
    r = _mm256_fnmadd_ps(k, set1(poly::kLn2Lo), r);
    __m256 p = set1(poly::kExpm1T[0]);
    for (size_t i = 1; i < std::size(poly::kExpm1T); ++i) p = _mm256_fmadd_ps(p, r, set1(poly::kExpm1T[i]));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r);  // expm1(r)
    const __m256 two_k =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23));
    return _mm256_fmadd_ps(two_k, p, _mm256_sub_ps(two_k, set1(1.0f)));
  }
};
struct Log1pRange {
  OPF_AVX2 __m256 operator()(__m256 x) const {
    return _mm256_and_ps(_mm256_cmp_ps(x, set1(-0.999f), _CMP_GE_OQ), _mm256_cmp_ps(x, set1(1e30f), _CMP_LE_OQ));
  }
};
// log1p(x) = log(u) + c / u with u = fl(1 + x) and c = x - (u - 1), the part of x that
// rounding 1 + x lost (u - 1 is exact here); 1 / u by rcp and one Newton step.
struct Log1p8 {
  OPF_AVX2 __m256 operator()(__m256 x) const {
    const __m256 u = _mm256_add_ps(x, set1(1.0f));
    const __m256 c = _mm256_sub_ps(x, _mm256_sub_ps(u, set1(1.0f)));
    __m256 r = _mm256_rcp_ps(u);
    r = _mm256_fmadd_ps(r, _mm256_fnmadd_ps(u, r, set1(1.0f)), r);
    return _mm256_fmadd_ps(c, r, log8(u));
  }
};

// f(±0) = ±0 for the odd functions whose polynomial paths end in `+ 0` (sin's range reduction,
// expm1's 2^k - 1, log1p's log(1)), which would turn -0 into +0: zero lanes return x itself.
template <typename F8>
struct KeepSignedZero {
  F8 f8;
  OPF_AVX2 __m256 operator()(__m256 x) const {
    return _mm256_blendv_ps(f8(x), x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
  }
};

OPF_AVX2 void sin_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, AbsLe2p20(), KeepSignedZero<SinCos8<false>>{}, sin_s);
}
OPF_AVX2 void cos_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, AbsLe2p20(), SinCos8<true>(), cos_s);
}
OPF_AVX2 void expm1_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, Expm1Range(), KeepSignedZero<Expm18>{}, expm1_s);
}
OPF_AVX2 void log1p_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, Log1pRange(), KeepSignedZero<Log1p8>{}, log1p_s);
}

struct ExpRange {  // exp8's domain
  OPF_AVX2 __m256 operator()(__m256 x) const {
    return _mm256_and_ps(_mm256_cmp_ps(x, set1(88.3f), _CMP_LE_OQ), _mm256_cmp_ps(x, set1(-87.3f), _CMP_GE_OQ));
  }
};
struct Exp8 {
  OPF_AVX2 __m256 operator()(__m256 x) const { return exp8(x); }
};
struct AbsLe87 {
  OPF_AVX2 __m256 operator()(__m256 x) const { return abs_le(x, 87.0f); }
};
// sigmoid(x) = 1 / (1 + exp(-x)); exp(-x) stays finite for |x| <= 87.
struct Sigmoid8 {
  OPF_AVX2 __m256 operator()(__m256 x) const {
    return _mm256_div_ps(set1(1.0f), _mm256_add_ps(set1(1.0f), exp8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
  }
};
struct NotNan {
  OPF_AVX2 __m256 operator()(__m256 x) const { return _mm256_cmp_ps(x, x, _CMP_ORD_Q); }
};
// tanh (Cephes tanhf): for |x| < 0.625 an odd polynomial, else sign(x) (1 - 2 / (exp(2|x|) + 1));
// |x| >= 10 rounds to ±1 in float (from 9.01 on).
struct Tanh8 {
  OPF_AVX2 __m256 operator()(__m256 x) const {
    const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x80000000));
    const __m256 ax = _mm256_min_ps(_mm256_andnot_ps(sign_mask, x), set1(poly::kTanhOne));
    const __m256 e = exp8(_mm256_add_ps(ax, ax));
    __m256 big = _mm256_sub_ps(set1(1.0f), _mm256_div_ps(set1(2.0f), _mm256_add_ps(e, set1(1.0f))));
    big = _mm256_or_ps(big, _mm256_and_ps(sign_mask, x));
    const __m256 z = _mm256_mul_ps(x, x);
    __m256 p = set1(poly::kTanhQ[0]);
    for (size_t i = 1; i < std::size(poly::kTanhQ); ++i) p = _mm256_fmadd_ps(p, z, set1(poly::kTanhQ[i]));
    const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), x, x);
    return _mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, set1(poly::kTanhSmall), _CMP_LT_OQ));
  }
};

OPF_AVX2 void exp_avx2(const float* in, float* out, int64_t n) { map8(in, out, n, ExpRange(), Exp8(), exp_s); }
OPF_AVX2 void sigmoid_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, AbsLe87(), Sigmoid8(), sigmoid_s);
}
OPF_AVX2 void tanh_avx2(const float* in, float* out, int64_t n) {
  map8(in, out, n, NotNan(), KeepSignedZero<Tanh8>{}, tanh_s);
}

// atan(t) for t in [0, 1] (Cephes atanf: reduction by pi/4 above tan(pi/8)).
OPF_AVX2 inline __m256 atan01(__m256 t) {
  const __m256 big = _mm256_cmp_ps(t, set1(0.4142135623730950f), _CMP_GT_OQ);
  const __m256 u = _mm256_blendv_ps(t, _mm256_div_ps(_mm256_sub_ps(t, set1(1.0f)), _mm256_add_ps(t, set1(1.0f))), big);
  const __m256 base = _mm256_and_ps(big, set1(0.78539816339744830962f));
  const __m256 z = _mm256_mul_ps(u, u);
  __m256 p = _mm256_fmadd_ps(set1(8.05374449538e-2f), z, set1(-1.38776856032e-1f));
  p = _mm256_fmadd_ps(p, z, set1(1.99777106478e-1f));
  p = _mm256_fmadd_ps(p, z, set1(-3.33329491539e-1f));
  p = _mm256_fmadd_ps(_mm256_mul_ps(p, z), u, u);
  return _mm256_add_ps(base, p);
}

// atan2(y, x) for finite (y, x) not both zero: atan of min/max, then the octant.
OPF_AVX2 inline __m256 atan2_8(__m256 y, __m256 x) {
  const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x80000000));
  const __m256 ay = _mm256_andnot_ps(sign_mask, y), ax = _mm256_andnot_ps(sign_mask, x);
  const __m256 swap = _mm256_cmp_ps(ay, ax, _CMP_GT_OQ);
  const __m256 t = _mm256_div_ps(_mm256_min_ps(ay, ax), _mm256_max_ps(ay, ax));
  __m256 a = atan01(t);
  a = _mm256_blendv_ps(a, _mm256_sub_ps(set1(1.57079632679489661923f), a), swap);
  a = _mm256_blendv_ps(a, _mm256_sub_ps(set1(3.14159265358979323846f), a), _mm256_and_ps(x, sign_mask));
  return _mm256_or_ps(a, _mm256_and_ps(y, sign_mask));
}

OPF_AVX2 void atan2_avx2(const float* y, const float* x, float* out, int64_t n) {
  const __m256 inf = set1(std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 yv = _mm256_loadu_ps(y + i), xv = _mm256_loadu_ps(x + i);
    const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x80000000));
    const __m256 ay = _mm256_andnot_ps(sign_mask, yv), ax = _mm256_andnot_ps(sign_mask, xv);
    // finite, and not both zero (NaN fails the compares)
    const __m256 ok =
        _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(ay, inf, _CMP_LT_OQ), _mm256_cmp_ps(ax, inf, _CMP_LT_OQ)),
                      _mm256_cmp_ps(_mm256_max_ps(ay, ax), _mm256_setzero_ps(), _CMP_GT_OQ));
    if (_mm256_movemask_ps(ok) == 0xff) {
      _mm256_storeu_ps(out + i, atan2_8(yv, xv));
    } else {
      for (int k = 0; k < 8; ++k) out[i + k] = std::atan2(y[i + k], x[i + k]);
    }
  }
  for (; i < n; ++i) out[i] = std::atan2(y[i], x[i]);
}

template <int kMode>
OPF_AVX2 void round_avx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_round_ps(_mm256_loadu_ps(in + i), kMode | _MM_FROUND_NO_EXC));
  }
  for (; i < n; ++i) {
    const float v = in[i];
    out[i] = kMode == _MM_FROUND_TO_NEG_INF   ? std::floor(v)
             : kMode == _MM_FROUND_TO_POS_INF ? std::ceil(v)
                                              : std::nearbyint(v);
  }
}

OPF_AVX2 void rsqrt_avx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_div_ps(set1(1.0f), _mm256_sqrt_ps(_mm256_loadu_ps(in + i))));
  }
  for (; i < n; ++i) out[i] = 1.0f / std::sqrt(in[i]);
}

// min/max of x[0, n) with NaN propagation; `init` for n == 0.
template <bool kMax>
OPF_AVX2 float minmax_avx2(const float* x, int64_t n, float init) {
  __m256 acc[4] = {set1(init), set1(init), set1(init), set1(init)};
  __m256 nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      acc[k] = kMax ? _mm256_max_ps(acc[k], v) : _mm256_min_ps(acc[k], v);
    }
  }
  if (_mm256_movemask_ps(nan)) return std::numeric_limits<float>::quiet_NaN();
  alignas(32) float lanes[32];
  for (int k = 0; k < 4; ++k) _mm256_store_ps(lanes + 8 * k, acc[k]);
  float m = minmax_scalar<kMax>(lanes, 32, init);
  const float tail = minmax_scalar<kMax>(x + i, n - i, init);
  if (std::isnan(tail)) return tail;
  return kMax ? (tail > m ? tail : m) : (tail < m ? tail : m);
}

// The first index whose value equals v (or is NaN, when v is NaN).
OPF_AVX2 int64_t find_first(const float* x, int64_t n, float v) {
  const bool want_nan = std::isnan(v);
  const __m256 vv = set1(v);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 a = _mm256_loadu_ps(x + i);
    const int mask =
        _mm256_movemask_ps(want_nan ? _mm256_cmp_ps(a, a, _CMP_UNORD_Q) : _mm256_cmp_ps(a, vv, _CMP_EQ_OQ));
    if (mask) return i + __builtin_ctz(static_cast<unsigned>(mask));
  }
  for (; i < n; ++i) {
    if (want_nan ? std::isnan(x[i]) : x[i] == v) return i;
  }
  return 0;
}

// One pass: per lane the best value and the index where it first appeared (strict compare
// keeps the first); lanes merged by value, then by smallest index. Four independent
// accumulators (32 floats a step) so the compare/blend chain does not bound the loop. NaN
// anywhere: the first NaN (a second, early-exit scan).
template <bool kMax>
OPF_AVX2 int64_t arg_avx2(const float* x, int64_t n) {
  constexpr int kAcc = 4, kStep = 8 * kAcc;
  if (n < kStep || n >= (int64_t{1} << 31)) return arg_scalar<kMax>(x, n);
  __m256 best[kAcc];
  __m256i best_i[kAcc], idx[kAcc];
  __m256 nan = _mm256_setzero_ps();
  for (int a = 0; a < kAcc; ++a) {
    best[a] = _mm256_loadu_ps(x + 8 * a);
    idx[a] = best_i[a] = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(8 * a));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(best[a], best[a], _CMP_UNORD_Q));
  }
  const __m256i step = _mm256_set1_epi32(kStep);
  int64_t i = kStep;
  for (; i + kStep <= n; i += kStep) {
    for (int a = 0; a < kAcc; ++a) {
      const __m256 v = _mm256_loadu_ps(x + i + 8 * a);
      idx[a] = _mm256_add_epi32(idx[a], step);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      const __m256 better = _mm256_cmp_ps(v, best[a], kMax ? _CMP_GT_OQ : _CMP_LT_OQ);
      best[a] = _mm256_blendv_ps(best[a], v, better);
      best_i[a] =
          _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best_i[a]), _mm256_castsi256_ps(idx[a]), better));
    }
  }
  if (_mm256_movemask_ps(nan)) return find_first(x, n, std::numeric_limits<float>::quiet_NaN());
  alignas(32) float bv[kStep];
  alignas(32) int32_t bi[kStep];
  for (int a = 0; a < kAcc; ++a) {
    _mm256_store_ps(bv + 8 * a, best[a]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bi + 8 * a), best_i[a]);
  }
  float v0 = bv[0];
  int64_t i0 = bi[0];
  for (int k = 1; k < kStep; ++k) {
    if ((kMax ? bv[k] > v0 : bv[k] < v0) || (bv[k] == v0 && bi[k] < i0)) {
      v0 = bv[k];
      i0 = bi[k];
    }
  }
  for (; i < n; ++i) {  // the tail, after every lane (its indices are larger)
    const float v = x[i];
    if (std::isnan(v)) return i;
    if (kMax ? v > v0 : v < v0) {
      v0 = v;
      i0 = i;
    }
  }
  return i0;
}

// Column sums: sixteen (then four) columns at a time in double lanes, even and odd rows in separate
// accumulators (two adds in flight per lane), down the rows of the block.
OPF_AVX2 void column_sums_avx2(const float* x, int64_t rows, int64_t inner, double* acc) {
  int64_t j = 0;
  for (; j + 16 <= inner; j += 16) {
    __m256d a[4], b[4];
    for (int k = 0; k < 4; ++k) a[k] = b[k] = _mm256_setzero_pd();
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2) {
      const float* s = x + r * inner + j;
      for (int k = 0; k < 4; ++k) {
        a[k] = _mm256_add_pd(a[k], _mm256_cvtps_pd(_mm_loadu_ps(s + 4 * k)));
        b[k] = _mm256_add_pd(b[k], _mm256_cvtps_pd(_mm_loadu_ps(s + inner + 4 * k)));
      }
    }
    if (r < rows)
      for (int k = 0; k < 4; ++k) a[k] = _mm256_add_pd(a[k], _mm256_cvtps_pd(_mm_loadu_ps(x + r * inner + j + 4 * k)));
    for (int k = 0; k < 4; ++k)
      _mm256_storeu_pd(acc + j + 4 * k, _mm256_add_pd(_mm256_loadu_pd(acc + j + 4 * k), _mm256_add_pd(a[k], b[k])));
  }
  for (; j + 4 <= inner; j += 4) {
    __m256d a = _mm256_setzero_pd(), b = _mm256_setzero_pd();
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2) {
      a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm_loadu_ps(x + r * inner + j)));
      b = _mm256_add_pd(b, _mm256_cvtps_pd(_mm_loadu_ps(x + (r + 1) * inner + j)));
    }
    if (r < rows) a = _mm256_add_pd(a, _mm256_cvtps_pd(_mm_loadu_ps(x + r * inner + j)));
    _mm256_storeu_pd(acc + j, _mm256_add_pd(_mm256_loadu_pd(acc + j), _mm256_add_pd(a, b)));
  }
  for (; j < inner; ++j) {
    double a = 0.0, b = 0.0;
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2) {
      a += x[r * inner + j];
      b += x[(r + 1) * inner + j];
    }
    if (r < rows) a += x[r * inner + j];
    acc[j] += a + b;
  }
}

#endif  // OPF_VEC_X86

}  // namespace

#ifdef OPF_VEC_X86
#define OPF_DISPATCH(avx2_call, scalar_call) \
  if (has_avx2_fma()) {                      \
    avx2_call;                               \
    return;                                  \
  }                                          \
  scalar_call;
#define OPF_DISPATCH_RET(avx2_call, scalar_call) return has_avx2_fma() ? (avx2_call) : (scalar_call);
#else
#define OPF_DISPATCH(avx2_call, scalar_call) scalar_call;
#define OPF_DISPATCH_RET(avx2_call, scalar_call) return (scalar_call);
#endif

void sin_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(sin_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = sin_s(in[i]))
}
void cos_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(cos_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = cos_s(in[i]))
}
// On CPUs with AVX-512 (and while set_avx512 leaves it on): the 16-lane forms.
#define OPF_AVX512_FIRST(fn) \
  if (avx512::enabled()) {   \
    avx512::fn(in, out, n);  \
    return;                  \
  }

void expm1_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(expm1_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = expm1_s(in[i]))
}
void exp_f32(const float* in, float* out, int64_t n) {
  OPF_AVX512_FIRST(exp)
  OPF_DISPATCH(exp_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = exp_s(in[i]))
}
void tanh_f32(const float* in, float* out, int64_t n) {
  OPF_AVX512_FIRST(tanh)
  OPF_DISPATCH(tanh_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = tanh_s(in[i]))
}
void sigmoid_f32(const float* in, float* out, int64_t n) {
  OPF_AVX512_FIRST(sigmoid)
  OPF_DISPATCH(sigmoid_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = sigmoid_s(in[i]))
}
void erf_f32(const float* in, float* out, int64_t n) {
  OPF_AVX512_FIRST(erf)
  for (int64_t i = 0; i < n; ++i) out[i] = std::erf(in[i]);
}
void erfc_f32(const float* in, float* out, int64_t n) {
  OPF_AVX512_FIRST(erfc)
  for (int64_t i = 0; i < n; ++i) out[i] = std::erfc(in[i]);
}
void log1p_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(log1p_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = log1p_s(in[i]))
}
void floor_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(round_avx2<_MM_FROUND_TO_NEG_INF>(in, out, n),
               for (int64_t i = 0; i < n; ++i) out[i] = std::floor(in[i]))
}
void ceil_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(round_avx2<_MM_FROUND_TO_POS_INF>(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = std::ceil(in[i]))
}
void round_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(round_avx2<_MM_FROUND_TO_NEAREST_INT>(in, out, n),
               for (int64_t i = 0; i < n; ++i) out[i] = std::nearbyint(in[i]))
}
void rsqrt_f32(const float* in, float* out, int64_t n) {
  OPF_DISPATCH(rsqrt_avx2(in, out, n), for (int64_t i = 0; i < n; ++i) out[i] = 1.0f / std::sqrt(in[i]))
}

void atan2_f32(const float* y, const float* x, float* out, int64_t n) {
  OPF_DISPATCH(atan2_avx2(y, x, out, n), for (int64_t i = 0; i < n; ++i) out[i] = std::atan2(y[i], x[i]))
}

float min_f32(const float* x, int64_t n) {
  const float init = std::numeric_limits<float>::infinity();
  OPF_DISPATCH_RET(minmax_avx2<false>(x, n, init), minmax_scalar<false>(x, n, init))
}
float max_f32(const float* x, int64_t n) {
  const float init = -std::numeric_limits<float>::infinity();
  OPF_DISPATCH_RET(minmax_avx2<true>(x, n, init), minmax_scalar<true>(x, n, init))
}

void column_sums_f32(const float* x, int64_t rows, int64_t inner, double* acc) {
  OPF_DISPATCH(
      column_sums_avx2(x, rows, inner, acc), for (int64_t r = 0; r < rows; ++r) {
        const float* s = x + r * inner;
        for (int64_t j = 0; j < inner; ++j) acc[j] += s[j];
      })
}

int64_t argmax_f32(const float* x, int64_t n){OPF_DISPATCH_RET(arg_avx2<true>(x, n), arg_scalar<true>(x, n))} int64_t
    argmin_f32(const float* x, int64_t n) {
  OPF_DISPATCH_RET(arg_avx2<false>(x, n), arg_scalar<false>(x, n))
}

}  // namespace vec
}  // namespace opforge
