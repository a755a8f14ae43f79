// Vectorized float32 math over contiguous blocks (kernels/cpu/math/vec_math.cc): Cephes-style
// polynomial approximations accurate to a few ulp, run 8 lanes at a time with AVX2+FMA where
// the CPU has them (checked at run time), scalar libm elsewhere and for lanes outside a
// polynomial's range (NaN, infinities, huge arguments); exp, sigmoid, swish, tanh, Elu, erf and
// erfc 16 lanes at a time, every lane, where the CPU has AVX-512F (math/vec_math_avx512.cc).
// out[i] = f(in[i]) for i in [0, n); in and out may alias.
#pragma once

#include <cstdint>

namespace opforge {
namespace vec {

void sin_f32(const float* in, float* out, int64_t n);
void cos_f32(const float* in, float* out, int64_t n);
void expm1_f32(const float* in, float* out, int64_t n);
void log1p_f32(const float* in, float* out, int64_t n);
void exp_f32(const float* in, float* out, int64_t n);
void tanh_f32(const float* in, float* out, int64_t n);
void sigmoid_f32(const float* in, float* out, int64_t n);  // 1 / (1 + exp(-x))
void swish_f32(const float* in, float* out, int64_t n);    // x * sigmoid(x) (math/vec_activations.cc)
void elu_f32(const float* in, float* out, int64_t n);      // x < 0 ? expm1(x) : x (the same)
void erf_f32(const float* in, float* out, int64_t n);      // AVX-512 or libm (no 8-lane form)
void erfc_f32(const float* in, float* out, int64_t n);
void gelu_f32(const float* in, float* out, int64_t n);       // x erfc(-x / sqrt(2)) / 2 (exact GELU)
void gelu_tanh_f32(const float* in, float* out, int64_t n);  // GELU's tanh approximation
void floor_f32(const float* in, float* out, int64_t n);
void ceil_f32(const float* in, float* out, int64_t n);
void round_f32(const float* in, float* out, int64_t n);  // half to even
void rsqrt_f32(const float* in, float* out, int64_t n);  // 1 / sqrt(x), correctly rounded steps

// out[i] = atan2(y[i], x[i]).
void atan2_f32(const float* y, const float* x, float* out, int64_t n);

// Minimum / maximum of x[0, n) (NaN if any element is NaN; +inf / -inf when n == 0).
float min_f32(const float* x, int64_t n);
float max_f32(const float* x, int64_t n);

// acc[j] += the sum of column j of x ([rows, inner], row-major) in double, j in [0, inner).
void column_sums_f32(const float* x, int64_t rows, int64_t inner, double* acc);

// Index of the first largest (smallest) element of x[0, n), n >= 1; the first NaN if any.
int64_t argmax_f32(const float* x, int64_t n);
int64_t argmin_f32(const float* x, int64_t n);

}  // namespace vec
}  // namespace opforge
