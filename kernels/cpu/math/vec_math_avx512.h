// The 16-lane (AVX-512F) forms of some of vec_math.h's functions, for vec_math.cc to dispatch to
// on CPUs that have AVX-512 (kernels-private). Each covers every float argument itself (no scalar
// fallback lanes): exp's argument is clamped where the result has already overflowed to inf or
// underflowed to 0, and the power of two is applied by scalef, which rounds into the subnormal
// range and saturates to inf as a multiplication would. NaN lanes give NaN.
#pragma once

#include <cstdint>

namespace opforge {
namespace vec {
namespace avx512 {

// Whether vec_math.cc uses the functions below: this CPU has AVX-512F and set_avx512
// (src/cpu_kernels.h) has not turned them off. Call them only when it says so.
bool enabled();

void exp(const float* in, float* out, int64_t n);
void sigmoid(const float* in, float* out, int64_t n);  // 1 / (1 + exp(-x))
void swish(const float* in, float* out, int64_t n);    // x * sigmoid(x)
void tanh(const float* in, float* out, int64_t n);
void elu(const float* in, float* out, int64_t n);  // x < 0 ? expm1(x) : x
void erf(const float* in, float* out, int64_t n);
void erfc(const float* in, float* out, int64_t n);
void gelu(const float* in, float* out, int64_t n);       // x erfc(-x / sqrt(2)) / 2
void gelu_tanh(const float* in, float* out, int64_t n);  // x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2

}  // namespace avx512
}  // namespace vec
}  // namespace opforge
