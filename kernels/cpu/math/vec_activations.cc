// swish_f32, elu_f32, gelu_f32 and gelu_tanh_f32 (cpu/vec_math.h): the 16-lane forms where the
// CPU has AVX-512, else a chunk at a time from the 8-lane sigmoid / expm1 (into a stack buffer),
// then the product or the select (GELU: libm per element).
#include <algorithm>
#include <cmath>

#include "cpu/math/vec_math_avx512.h"
#include "cpu/vec_math.h"

namespace opforge {
namespace vec {

namespace {

// out[i] = combine(in[i], f(in)[i]), f a block function run a chunk at a time into a buffer.
template <typename Combine>
void chunked(const float* in, float* out, int64_t n, void (*f)(const float*, float*, int64_t), Combine combine) {
  constexpr int64_t kChunk = 512;
  float tmp[kChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t m = std::min(kChunk, n - i0);
    f(in + i0, tmp, m);
    for (int64_t i = 0; i < m; ++i) out[i0 + i] = combine(in[i0 + i], tmp[i]);
  }
}

}  // namespace

void swish_f32(const float* in, float* out, int64_t n) {
  if (avx512::enabled()) return avx512::swish(in, out, n);
  chunked(in, out, n, sigmoid_f32, [](float x, float s) { return x * s; });
}

void elu_f32(const float* in, float* out, int64_t n) {
  if (avx512::enabled()) return avx512::elu(in, out, n);
  chunked(in, out, n, expm1_f32, [](float x, float e) { return x < 0.0f ? e : x; });
}

void gelu_f32(const float* in, float* out, int64_t n) {
  if (avx512::enabled()) return avx512::gelu(in, out, n);
  for (int64_t i = 0; i < n; ++i) out[i] = 0.5f * in[i] * std::erfc(-in[i] * 0.70710678118654752f);
}

void gelu_tanh_f32(const float* in, float* out, int64_t n) {
  if (avx512::enabled()) return avx512::gelu_tanh(in, out, n);
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    out[i] = 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
}

}  // namespace vec
}  // namespace opforge
