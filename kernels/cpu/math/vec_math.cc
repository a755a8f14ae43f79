// See cpu/vec_math.h.
#include "cpu/vec_math.h"

#include <cmath>

namespace opforge {
namespace vec {

void sin_f32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::sin(in[i]);
}

void cos_f32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::cos(in[i]);
}

template <bool kMax>
int64_t arg_generic(const float* x, int64_t n) {
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

int64_t argmax_f32(const float* x, int64_t n) { return arg_generic<true>(x, n); }
int64_t argmin_f32(const float* x, int64_t n) { return arg_generic<false>(x, n); }

}  // namespace vec
}  // namespace opforge
