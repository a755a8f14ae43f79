// See vec_math_avx512.h. The polynomials are vec_math.cc's (Cephes' expf and tanhf, expm1's
// Taylor series), run 16 lanes at a time; tails are masked loads and stores. The file is built
// for the baseline ISA: every function that executes AVX-512 carries a target attribute and is
// reached only when enabled() says so.
#include "cpu/math/vec_math_avx512.h"

#include <atomic>
#include <iterator>  // std::size

#include "cpu/math/vec_poly.h"
#include "src/cpu_kernels.h"  // avx512_enabled, set_avx512

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define OPF_VEC_AVX512 1
#endif

namespace opforge {
namespace vec {
namespace avx512 {

#ifdef OPF_VEC_AVX512

namespace {

#define OPF_AVX512 __attribute__((target("avx512f")))

OPF_AVX512 inline __m512 set1(float v) { return _mm512_set1_ps(v); }
// The zero-masked forms with every lane set: GCC 12's plain forms pass an undefined vector
// through and warn (-Wmaybe-uninitialized).
constexpr __mmask16 kAll = 0xFFFF;
OPF_AVX512 inline __m512 max(__m512 a, __m512 b) { return _mm512_maskz_max_ps(kAll, a, b); }
OPF_AVX512 inline __m512 min(__m512 a, __m512 b) { return _mm512_maskz_min_ps(kAll, a, b); }
OPF_AVX512 inline __m512 scalef(__m512 a, __m512 b) { return _mm512_maskz_scalef_ps(kAll, a, b); }
OPF_AVX512 inline __m512 round_nearest(__m512 a) {
  return _mm512_maskz_roundscale_ps(kAll, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// exp(x) for every float x. Below -104 the result is 0 and above 88.75 inf in float, so x is
// clamped there (min/max with x as the second operand keep a NaN). x = k ln 2 + r by Cody-Waite
// (two-part ln 2), e^r by Cephes' expf polynomial, then scalef(e^r, k) = e^r * 2^k.
OPF_AVX512 inline __m512 exp16(__m512 x) {
  x = max(set1(-104.0f), min(set1(88.75f), x));
  const __m512 k = round_nearest(_mm512_mul_ps(x, set1(poly::kLog2e)));
  __m512 r = _mm512_fnmadd_ps(k, set1(poly::kLn2Hi), x);
  r = _mm512_fnmadd_ps(k, set1(poly::kLn2Lo), r);
  __m512 p = set1(poly::kExpP[0]);
  for (size_t i = 1; i < std::size(poly::kExpP); ++i) p = _mm512_fmadd_ps(p, r, set1(poly::kExpP[i]));
  p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), set1(1.0f));
  return scalef(p, k);
}

// sigmoid(x) from e = exp(-|x|) in (0, 1], never a large exponential: 1 / (1 + e) for x >= 0,
// e / (1 + e) below (which keeps the tiny values of large negative x).
OPF_AVX512 inline __m512 sigmoid16(__m512 x) {
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 e = exp16(_mm512_sub_ps(_mm512_setzero_ps(), ax));
  const __m512 s = _mm512_div_ps(set1(1.0f), _mm512_add_ps(set1(1.0f), e));
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_mask_mul_ps(s, neg, e, s);
}

// tanh (Cephes tanhf): for |x| < 0.625 an odd polynomial, else sign(x) (1 - 2 / (exp(2|x|) + 1));
// |x| >= 10 rounds to ±1 in float (from 9.01 on). ±0 gives x itself.
OPF_AVX512 inline __m512 tanh16(__m512 x) {
  const __m512 ax = min(set1(poly::kTanhOne), _mm512_abs_ps(x));  // NaN stays NaN
  const __m512 e = exp16(_mm512_add_ps(ax, ax));
  __m512 big = _mm512_sub_ps(set1(1.0f), _mm512_div_ps(set1(2.0f), _mm512_add_ps(e, set1(1.0f))));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
  big = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(big), sign));
  const __m512 z = _mm512_mul_ps(x, x);
  __m512 p = set1(poly::kTanhQ[0]);
  for (size_t i = 1; i < std::size(poly::kTanhQ); ++i) p = _mm512_fmadd_ps(p, z, set1(poly::kTanhQ[i]));
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, z), x, x);
  const __m512 t = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, set1(poly::kTanhSmall), _CMP_LT_OQ), big, small);
  return _mm512_mask_mov_ps(t, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), x);
}

// Elu: x for x >= 0 (and NaN), else expm1(x) = 2^k expm1(r) + (2^k - 1) with x = k ln 2 + r
// (as vec_math.cc's Expm18; x clamped at -88, where expm1 is -1 in float). k = 0 gives expm1(r)
// with r = x, so small |x| keep full relative precision.
OPF_AVX512 inline __m512 elu16(__m512 x) {
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 xn = max(set1(-88.0f), x);
  const __m512 k = round_nearest(_mm512_mul_ps(xn, set1(poly::kLog2e)));
  __m512 r = _mm512_fnmadd_ps(k, set1(poly::kLn2Hi), xn);
  r = _mm512_fnmadd_ps(k, set1(poly::kLn2Lo), r);
  __m512 p = set1(poly::kExpm1T[0]);
  for (size_t i = 1; i < std::size(poly::kExpm1T); ++i) p = _mm512_fmadd_ps(p, r, set1(poly::kExpm1T[i]));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r);  // expm1(r)
  const __m512 two_k = scalef(set1(1.0f), k);
  return _mm512_mask_mov_ps(x, neg, _mm512_fmadd_ps(two_k, p, _mm512_sub_ps(two_k, set1(1.0f))));
}

template <size_t N>
OPF_AVX512 inline __m512 horner16(const float (&c)[N], __m512 t) {
  __m512 p = set1(c[0]);
  for (size_t i = 1; i < N; ++i) p = _mm512_fmadd_ps(p, t, set1(c[i]));
  return p;
}

// erfc(a) for a >= kErfcStart (and any a >= 0 the caller blends away): exp(-a^2) t Q(t) with
// a^2 = hi + lo split exactly by an FMA, exp(-hi) rounded once and the lo part applied as
// (1 - lo): a rounded a^2 would cost up to 30 ulp at a = 9. NaN stays NaN.
OPF_AVX512 inline __m512 erfc_tail16(__m512 ax) {
  const __m512 a = min(set1(poly::kErfcZero), ax);
  const __m512 t = _mm512_div_ps(set1(1.0f), _mm512_fmadd_ps(a, set1(0.5f), set1(1.0f)));
  const __m512 hi = _mm512_mul_ps(a, a);
  const __m512 lo = _mm512_fmsub_ps(a, a, hi);
  const __m512 y =
      _mm512_mul_ps(exp16(_mm512_sub_ps(_mm512_setzero_ps(), hi)), _mm512_mul_ps(t, horner16(poly::kErfcQ, t)));
  return _mm512_fnmadd_ps(y, lo, y);
}

// erf(x) = x P(x^2) below kErfEnd (±0 stays itself), else ±(1 - erfc(|x|)).
OPF_AVX512 inline __m512 erf16(__m512 x) {
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 small = _mm512_mul_ps(x, horner16(poly::kErfP, _mm512_mul_ps(x, x)));
  __m512 big = _mm512_sub_ps(set1(1.0f), erfc_tail16(ax));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int>(0x80000000u)));
  big = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(big), sign));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, set1(poly::kErfEnd), _CMP_LT_OQ), big, small);
}

// erfc(x) = 1 - x P(x^2) below kErfcStart, erfc(|x|) above, 2 - erfc(|x|) below -kErfcStart.
OPF_AVX512 inline __m512 erfc16(__m512 x) {
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 small = _mm512_fnmadd_ps(x, horner16(poly::kErfP, _mm512_mul_ps(x, x)), set1(1.0f));
  const __m512 tail = erfc_tail16(ax);
  const __m512 big = _mm512_mask_sub_ps(tail, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ), set1(2.0f), tail);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, set1(poly::kErfcStart), _CMP_LT_OQ), big, small);
}

// out[i] = f16(in[i]) over [0, n), the last partial vector masked.
template <typename F16>
OPF_AVX512 inline void map16(const float* in, float* out, int64_t n, F16 f16) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f16(_mm512_loadu_ps(in + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(out + i, m, f16(_mm512_maskz_loadu_ps(m, in + i)));
  }
}

// Bodies for map16 (functors: a lambda's conversion thunk would lack the target attribute).
struct Exp16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return exp16(x); }
};
struct Sigmoid16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return sigmoid16(x); }
};
struct Swish16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return _mm512_mul_ps(x, sigmoid16(x)); }
};
struct Tanh16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return tanh16(x); }
};
struct Elu16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return elu16(x); }
};
struct Erf16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return erf16(x); }
};
struct Erfc16 {
  OPF_AVX512 __m512 operator()(__m512 x) const { return erfc16(x); }
};
struct Gelu16 {
  OPF_AVX512 __m512 operator()(__m512 x) const {
    const __m512 e = erfc16(_mm512_mul_ps(x, set1(-0.70710678118654752f)));
    return _mm512_mul_ps(_mm512_mul_ps(x, set1(0.5f)), e);
  }
};
struct GeluTanh16 {
  OPF_AVX512 __m512 operator()(__m512 x) const {
    const __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    const __m512 u = _mm512_mul_ps(set1(0.79788456080286536f), _mm512_fmadd_ps(x3, set1(0.044715f), x));
    return _mm512_mul_ps(_mm512_mul_ps(x, set1(0.5f)), _mm512_add_ps(set1(1.0f), tanh16(u)));
  }
};

bool cpu_has_avx512f() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return ok;
}

std::atomic<bool> g_enabled{cpu_has_avx512f()};

}  // namespace

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

OPF_AVX512 void exp(const float* in, float* out, int64_t n) { map16(in, out, n, Exp16()); }
OPF_AVX512 void sigmoid(const float* in, float* out, int64_t n) { map16(in, out, n, Sigmoid16()); }
OPF_AVX512 void swish(const float* in, float* out, int64_t n) { map16(in, out, n, Swish16()); }
OPF_AVX512 void tanh(const float* in, float* out, int64_t n) { map16(in, out, n, Tanh16()); }
OPF_AVX512 void elu(const float* in, float* out, int64_t n) { map16(in, out, n, Elu16()); }
OPF_AVX512 void erf(const float* in, float* out, int64_t n) { map16(in, out, n, Erf16()); }
OPF_AVX512 void erfc(const float* in, float* out, int64_t n) { map16(in, out, n, Erfc16()); }
OPF_AVX512 void gelu(const float* in, float* out, int64_t n) { map16(in, out, n, Gelu16()); }
OPF_AVX512 void gelu_tanh(const float* in, float* out, int64_t n) { map16(in, out, n, GeluTanh16()); }

#else  // no AVX-512 code on this target

namespace {
bool cpu_has_avx512f() { return false; }
}  // namespace
bool enabled() { return false; }
void exp(const float*, float*, int64_t) {}
void sigmoid(const float*, float*, int64_t) {}
void swish(const float*, float*, int64_t) {}
void tanh(const float*, float*, int64_t) {}
void elu(const float*, float*, int64_t) {}
void erf(const float*, float*, int64_t) {}
void erfc(const float*, float*, int64_t) {}
void gelu(const float*, float*, int64_t) {}
void gelu_tanh(const float*, float*, int64_t) {}

#endif

}  // namespace avx512

bool avx512_enabled() { return avx512::enabled(); }
bool set_avx512(bool on) {
#ifdef OPF_VEC_AVX512
  avx512::g_enabled.store(on && avx512::cpu_has_avx512f());
#endif
  return avx512::enabled();
}

}  // namespace vec
}  // namespace opforge
