// Vectorized float32 math over contiguous blocks (kernels/cpu/math/vec_math.cc): polynomial
// approximations accurate to a few ulp, dispatched at run time to an AVX2+FMA build where the
// CPU has it. Each function computes out[i] = f(in[i]) for i in [0, n); in and out may alias.
#pragma once

#include <cstdint>

namespace opforge {
namespace vec {

void sin_f32(const float* in, float* out, int64_t n);
void cos_f32(const float* in, float* out, int64_t n);

// Index of the first largest (smallest) element of x[0, n), n >= 1; the first NaN if any.
int64_t argmax_f32(const float* x, int64_t n);
int64_t argmin_f32(const float* x, int64_t n);

}  // namespace vec
}  // namespace opforge
