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
  if constexpr (kWeighted)
    return load8(src[t] + c) * load8(w[t] + c);
  else
    return load8(src[t] + c);
}

template <bool kWeighted>
inline void sum_taps(float* out, const float* const* src, const float* const* w, int taps, int64_t channels,
                     float scale) {
  // Sums start from the first tap (not from 0, which would turn a sum of -0.0 into +0.0).
  int64_t c = 0;
  for (; c + 32 <= channels; c += 32) {  // four independent accumulators hide the add latency
    V8 a0 = tap8<kWeighted>(src, w, 0, c), a1 = tap8<kWeighted>(src, w, 0, c + 8),
       a2 = tap8<kWeighted>(src, w, 0, c + 16), a3 = tap8<kWeighted>(src, w, 0, c + 24);
    for (int t = 1; t < taps; ++t) {
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
    V8 acc = tap8<kWeighted>(src, w, 0, c);
    for (int t = 1; t < taps; ++t) acc += tap8<kWeighted>(src, w, t, c);
    store8(out + c, acc * scale);
  }
  for (; c < channels; ++c) {
    float acc = kWeighted ? src[0][c] * w[0][c] : src[0][c];
    for (int t = 1; t < taps; ++t) acc += kWeighted ? src[t][c] * w[t][c] : src[t][c];
    out[c] = acc * scale;
  }
}

// max(m, v) where a NaN in v wins (TensorFlow's max pooling propagates NaN).
inline V8 max_nan(V8 m, V8 v) { return ((v > m) | (v != v)) ? v : m; }

}  // namespace

OPF_SIMD_CLONES
void tap_max(float* out, const float* const* src, int taps, int64_t len) {
  int64_t c = 0;
  for (; c + 32 <= len; c += 32) {
    V8 a0 = load8(src[0] + c), a1 = load8(src[0] + c + 8), a2 = load8(src[0] + c + 16), a3 = load8(src[0] + c + 24);
    for (int t = 1; t < taps; ++t) {
      a0 = max_nan(a0, load8(src[t] + c));
      a1 = max_nan(a1, load8(src[t] + c + 8));
      a2 = max_nan(a2, load8(src[t] + c + 16));
      a3 = max_nan(a3, load8(src[t] + c + 24));
    }
    store8(out + c, a0);
    store8(out + c + 8, a1);
    store8(out + c + 16, a2);
    store8(out + c + 24, a3);
  }
  for (; c + 8 <= len; c += 8) {
    V8 a = load8(src[0] + c);
    for (int t = 1; t < taps; ++t) a = max_nan(a, load8(src[t] + c));
    store8(out + c, a);
  }
  for (; c < len; ++c) {
    float m = src[0][c];
    for (int t = 1; t < taps; ++t) {
      const float v = src[t][c];
      m = (v > m || v != v) ? v : m;
    }
    out[c] = m;
  }
}

OPF_SIMD_CLONES
void tap_sum_periodic(float* out, const float* const* src, const float* weights, int64_t wstride, int64_t period,
                      int taps, int64_t len) {
  int64_t c = 0, off = 0;  // off = c % period
  auto advance = [&](int64_t n) {
    c += n;
    off += n;
    while (off >= period) off -= period;
  };
  // Eight accumulators: two FMA pipes with four cycles of latency each need eight sums in flight.
  while (c + 64 <= len) {
    V8 a[8] = {};
    const float* w = weights + off;
    for (int t = 0; t < taps; ++t, w += wstride) {
      const float* x = src[t] + c;
      for (int k = 0; k < 4; ++k) a[k] += load8(x + 8 * k) * load8(w + 8 * k);
      // The second half's weights sit 32 further on, wrapped into the period.
      const float* w2 = w + (off + 32 >= period ? 32 - period : 32);
      for (int k = 0; k < 4; ++k) a[4 + k] += load8(x + 32 + 8 * k) * load8(w2 + 8 * k);
    }
    for (int k = 0; k < 8; ++k) store8(out + c + 8 * k, a[k]);
    advance(64);
  }
  while (c + 8 <= len) {
    V8 acc = {};
    const float* w = weights + off;
    for (int t = 0; t < taps; ++t, w += wstride) acc += load8(src[t] + c) * load8(w);
    store8(out + c, acc);
    advance(8);
  }
  for (int64_t k = 0; c < len; ++c, ++k) {
    float acc = 0;
    for (int t = 0; t < taps; ++t) acc += src[t][c] * weights[t * wstride + off + k];
    out[c] = acc;
  }
}

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
