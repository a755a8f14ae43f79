// tap_sum (nn_util.h): the inner loop of float32 depthwise convolution and average pooling.
#include "cpu/nn/nn_util.h"

namespace opforge {
namespace nn {
namespace {

// Eight floats in one vector (one AVX register in the AVX2 clone, two SSE registers otherwise).
typedef float V8 __attribute__((vector_size(32)));

inline V8 load8(const float* p) {
  V8 v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}
inline void store8(float* p, V8 v) { __builtin_memcpy(p, &v, sizeof(v)); }

// The tap's value at channel block c: weighted or plain.
template <bool kWeighted>
inline V8 tap8(const float* const* src, const float* const* w, int t, int64_t c) {
  if constexpr (kWeighted) return load8(src[t] + c) * load8(w[t] + c);
  else return load8(src[t] + c);
}

template <bool kWeighted>
inline void sum_taps(float* out, const float* const* src, const float* const* w, int taps, int64_t channels,
                     float scale) {
  int64_t c = 0;
  for (; c + 32 <= channels; c += 32) {  // four independent accumulators hide the add latency
    V8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int t = 0; t < taps; ++t) {
      a0 += tap8<kWeighted>(src, w, t, c);
      a1 += tap8<kWeighted>(src, w, t, c + 8);
      a2 += tap8<kWeighted>(src, w, t, c + 16);
      a3 += tap8<kWeighted>(src, w, t, c + 24);
    }
    store8(out + c, a0 * scale);
    store8(out + c + 8, a1 * scale);
    store8(out + c + 16, a2 * scale);
    store8(out + c + 24, a3 * scale);
  }
  for (; c + 8 <= channels; c += 8) {
    V8 acc = {};
    for (int t = 0; t < taps; ++t) acc += tap8<kWeighted>(src, w, t, c);
    store8(out + c, acc * scale);
  }
  for (; c < channels; ++c) {
    float acc = 0;
    for (int t = 0; t < taps; ++t) acc += kWeighted ? src[t][c] * w[t][c] : src[t][c];
    out[c] = acc * scale;
  }
}

}  // namespace

OPF_SIMD_CLONES
void tap_sum(float* out, const float* const* src, const float* const* weights, int taps, int64_t channels,
             float scale) {
  if (weights != nullptr) {
    sum_taps<true>(out, src, weights, taps, channels, scale);
  } else {
    sum_taps<false>(out, src, weights, taps, channels, scale);
  }
}

}  // namespace nn
}  // namespace opforge
