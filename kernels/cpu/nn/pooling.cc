// MaxPool, AvgPool and their gradients MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad.
//
// The kernels run in NHWC, where the channels of one pixel are contiguous and the innermost
// loops vectorize; NCHW tensors are converted on the way in and out. Windows never include
// padding: a max ignores it, an average divides by the number of real elements (TensorFlow).
// The max gradients route each output's gradient to the first maximum of its window,
// scanning rows then columns (TensorFlow's tie rule).
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/avg_pool.h"
#include "opforge/ops/nn/avg_pool_grad.h"
#include "opforge/ops/nn/max_pool.h"
#include "opforge/ops/nn/max_pool_grad.h"
#include "opforge/ops/nn/max_pool_grad_grad.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

using nn::Layout;

using nn_semantics::PoolGeom;

using nn_semantics::pool_geom;

// Rows [r0, r1) and cols [c0, c1) of the input under output (oh, ow).
struct Win {
  int64_t r0, r1, c0, c1;
  int64_t count() const { return (r1 - r0) * (c1 - c0); }
};

inline Win window_at(const PoolGeom& g, int64_t oh, int64_t ow) {
  const int64_t r = oh * g.sh - g.pt, c = ow * g.sw - g.pl;
  return Win{std::max<int64_t>(r, 0), std::min(r + g.kh, g.h), std::max<int64_t>(c, 0), std::min(c + g.kw, g.w)};
}

template <typename T>
using pool_t = std::conditional_t<std::is_integral_v<T>, T, nn::acc_t<T>>;

// Wrapping addition for integers.
template <typename V>
V add(V a, V b) {
  if constexpr (std::is_integral_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<V>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The most taps a window has once clipped to the image (a window's size may exceed the image
// by its padding, which holds no taps).
inline size_t window_taps(const PoolGeom& g) { return static_cast<size_t>(std::min(g.kh, g.h) * std::min(g.kw, g.w)); }

// The first maximum of each channel in window wn of image n, found without a branch per
// element (random data makes those branches unpredictable; this way they vectorize): per
// channel, which tap of the window won (taps numbered row-major over the window), and
// offset[t] = the flat NHWC index of tap t's channel 0. The window must not be empty.
template <typename V>
void argmax_taps(const V* x, const PoolGeom& g, int64_t n, const Win& wn, int32_t* __restrict tap, V* __restrict best,
                 int64_t* offset) {
  int32_t t = 0;
  for (int64_t r = wn.r0; r < wn.r1; ++r) {
    for (int64_t q = wn.c0; q < wn.c1; ++q, ++t) {
      const int64_t base = ((n * g.h + r) * g.w + q) * g.c;
      offset[t] = base;
      const V* __restrict px = x + base;
      if (t == 0) {
        for (int64_t c = 0; c < g.c; ++c) {
          best[c] = px[c];
          tap[c] = 0;
        }
        continue;
      }
      int64_t c = 0;
#if defined(__SSE2__)
      if constexpr (std::is_same_v<V, float>) {  // (GCC keeps the select below a branch)
        const __m128i tv = _mm_set1_epi32(t);
        for (; c + 4 <= g.c; c += 4) {
          const __m128 v = _mm_loadu_ps(px + c), b = _mm_loadu_ps(best + c);
          const __m128 gt = _mm_cmpgt_ps(v, b);
          _mm_storeu_ps(best + c, _mm_or_ps(_mm_and_ps(gt, v), _mm_andnot_ps(gt, b)));
          const __m128i m = _mm_castps_si128(gt);
          const __m128i old = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tap + c));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(tap + c),
                           _mm_or_si128(_mm_and_si128(m, tv), _mm_andnot_si128(m, old)));
        }
      }
#endif
      for (; c < g.c; ++c) {
        const bool gt = px[c] > best[c];
        best[c] = gt ? px[c] : best[c];
        tap[c] = gt ? t : tap[c];
      }
    }
  }
}

// dst[c] = gy[c] where tap t won channel c (tap[c] == t), else 0: one tap's pixel of a
// window's input gradient when windows do not overlap.
template <typename V>
void route_tap(const int32_t* __restrict tap, int32_t t, const V* __restrict gy, V* __restrict dst, int64_t n) {
  int64_t c = 0;
#if defined(__SSE2__)
  if constexpr (std::is_same_v<V, float>) {
    const __m128i tv = _mm_set1_epi32(t);
    for (; c + 4 <= n; c += 4) {
      const __m128i won = _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tap + c)), tv);
      _mm_storeu_ps(dst + c, _mm_and_ps(_mm_castsi128_ps(won), _mm_loadu_ps(gy + c)));
    }
  }
#endif
  for (; c < n; ++c) dst[c] = tap[c] == t ? gy[c] : V(0);
}

// off[t] = the flat NHWC index of channel 0 of tap t of window wn of image n (taps row-major).
inline void window_offsets(const PoolGeom& g, int64_t n, const Win& wn, int64_t* off) {
  int t = 0;
  for (int64_t r = wn.r0; r < wn.r1; ++r)
    for (int64_t q = wn.c0; q < wn.c1; ++q) off[t++] = ((n * g.h + r) * g.w + q) * g.c;
}

// Windows of at most this many taps take the one-pass float32 paths below when they do not
// overlap (the separable rows of pool_rows_f32 copy each pixel once more into phase rows).
constexpr int kMaxWindowTaps = 64;

// Output row oh of image n of a float32 MaxPool whose windows do not overlap (stride >= window:
// 2x2/2): each output pixel the max of its taps, eight channels at a time, a NaN winning (as
// max_into); a window with no taps (all padding) is -inf.
OPF_SIMD_CLONES
void max_pool_row_f32(const float* x, float* y, const PoolGeom& g, int64_t n, int64_t oh) {
  typedef float V8 __attribute__((vector_size(32)));
  int64_t off[kMaxWindowTaps];
  for (int64_t ow = 0; ow < g.ow; ++ow) {
    const Win wn = window_at(g, oh, ow);
    float* o = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
    const int taps = static_cast<int>(std::max<int64_t>(wn.count(), 0));
    if (taps == 0) {
      std::fill(o, o + g.c, -std::numeric_limits<float>::infinity());
      continue;
    }
    window_offsets(g, n, wn, off);
    int64_t c = 0;
    for (; c + 8 <= g.c; c += 8) {
      V8 best;
      std::memcpy(&best, x + off[0] + c, sizeof(best));
      for (int k = 1; k < taps; ++k) {
        V8 v;
        std::memcpy(&v, x + off[k] + c, sizeof(v));
        best = (v > best) | (v != v) ? v : best;
      }
      std::memcpy(o + c, &best, sizeof(best));
    }
    for (; c < g.c; ++c) {
      float best = x[off[0] + c];
      for (int k = 1; k < taps; ++k) {
        const float v = x[off[k] + c];
        best = (v > best || v != v) ? v : best;
      }
      o[c] = best;
    }
  }
}

// Output row oh of image n of a float32 MaxPoolGrad whose windows do not overlap (stride >=
// window, as LeNet's 2x2/2): for each window and eight channels at a time, the first maximum's
// tap by vector compares (a NaN wins only as the first tap, as argmax_taps), then every tap's
// pixel written: the gradient where it won, 0 elsewhere. Per window and per tap, the generic
// path's calls and 4-wide loops took 3x TensorFlow's time on LeNet's pools.
OPF_SIMD_CLONES
void max_pool_grad_row_f32(const float* x, const float* gy, float* dx, const PoolGeom& g, int64_t n, int64_t oh) {
  typedef float V8 __attribute__((vector_size(32)));
  typedef int I8 __attribute__((vector_size(32)));
  int64_t off[kMaxWindowTaps];
  for (int64_t ow = 0; ow < g.ow; ++ow) {
    const Win wn = window_at(g, oh, ow);
    const int taps = static_cast<int>(wn.count());
    if (taps <= 0) continue;
    window_offsets(g, n, wn, off);
    const float* gr = gy + ((n * g.oh + oh) * g.ow + ow) * g.c;
    int64_t c = 0;
    for (; c + 8 <= g.c; c += 8) {
      V8 best;
      std::memcpy(&best, x + off[0] + c, sizeof(best));
      I8 won = {};
      for (int k = 1; k < taps; ++k) {
        V8 v;
        std::memcpy(&v, x + off[k] + c, sizeof(v));
        const I8 gt = v > best;
        best = gt ? v : best;
        won = gt ? I8{} + k : won;
      }
      V8 grad;
      std::memcpy(&grad, gr + c, sizeof(grad));
      for (int k = 0; k < taps; ++k) {
        const V8 out = won == k ? grad : V8{};
        std::memcpy(dx + off[k] + c, &out, sizeof(out));
      }
    }
    for (; c < g.c; ++c) {
      float best = x[off[0] + c];
      int won = 0;
      for (int k = 1; k < taps; ++k) {
        const float v = x[off[k] + c];
        won = v > best ? k : won;
        best = v > best ? v : best;
      }
      for (int k = 0; k < taps; ++k) dx[off[k] + c] = k == won ? gr[c] : 0.0f;
    }
  }
}

int64_t row_grain(const PoolGeom& g) {
  return std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, g.ow * g.kh * g.kw * g.c));
}

// o[c] = max(o[c], px[c]) over n channels, NaN propagating (a NaN in the window wins).
template <typename V>
inline void max_into(V* __restrict o, const V* __restrict px, int64_t n) {
  for (int64_t c = 0; c < n; ++c) {
    const V v = px[c];
    o[c] = (v > o[c] || v != v) ? v : o[c];
  }
}

// Float32 pooling one output row at a time, separably (a max or a sum over the window is the
// same over its rows, then over its columns). The window's input rows are reduced element by
// element into one row of W * C values (one long vector loop whatever C is); that row sits in
// `sw` phase rows with the padding as the reduction's identity (phase r holds padded columns
// r, r + sw, r + 2 sw, ...), so each of the kw window columns is one contiguous run of OW * C
// values of a phase, reduced into the output row. An average then divides each output pixel
// by the number of real elements in its window. Pixel by pixel, NASNet's 11- and 44-channel
// pools spent their time in per-pixel calls and scalar channel tails.
template <bool kMax>
void pool_rows_f32(const float* x, float* y, const PoolGeom& g) {
  const int64_t c = g.c, row = g.ow * c;
  const int64_t plen = ((g.ow - 1) * g.sw + g.kw + g.sw - 1) / g.sw;  // pixels per phase row
  const float fill = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  // One pass over `taps` runs of n values into out: their max, or their sum times scale.
  auto reduce = [](float* out, const float* const* src, int taps, int64_t n, float scale) {
    if (kMax) {
      nn::tap_max(out, src, taps, n);
    } else {
      nn::tap_sum(out, src, nullptr, taps, n, scale);
    }
  };
  parallel_for(g.n * g.oh, row_grain(g), [&](int64_t b, int64_t e) {
    std::vector<float> phases(static_cast<size_t>(g.sw * plen * c), fill);  // padding stays `fill`
    std::vector<float> vrow(g.sw > 1 ? static_cast<size_t>(g.w * c) : 0);
    std::vector<const float*> src(static_cast<size_t>(std::max(g.kh, g.kw)));
    auto phase_at = [&](int64_t q) { return phases.data() + ((q % g.sw) * plen + q / g.sw) * c; };
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / g.oh, oh = r % g.oh;
      const Win wn = window_at(g, oh, 0);
      // The window's rows reduced; with stride 1 straight into phase 0, from column pl on. A
      // single row (1 x k windows, or cut by the border) is read where it is.
      const int64_t rows = wn.r1 - wn.r0;
      const float* v = x + (n * g.h + wn.r0) * g.w * c;
      if (rows > 1 || g.sw == 1) {
        float* reduced = g.sw > 1 ? vrow.data() : phase_at(g.pl);
        for (int64_t ih = wn.r0; ih < wn.r1; ++ih) src[static_cast<size_t>(ih - wn.r0)] = x + (n * g.h + ih) * g.w * c;
        reduce(reduced, src.data(), static_cast<int>(rows), g.w * c, 1.0f);
        v = reduced;
      }
      float* o = y + r * row;
      if (g.kw == 1 && g.sw > 1) {  // one column per window (no padding): a strided pick
        for (int64_t ow = 0; ow < g.ow; ++ow) std::copy(v + ow * g.sw * c, v + (ow * g.sw + 1) * c, o + ow * c);
        if (!kMax && rows > 1) {
          const float inv = 1.0f / static_cast<float>(rows);
          for (int64_t k = 0; k < row; ++k) o[k] *= inv;
        }
        continue;
      }
      if (g.sw > 1) {
        // (Columns past the last window, which a VALID stride can leave, are not laid out.)
        const int64_t last = std::min(g.w, plen * g.sw - g.pl);
        for (int64_t iw = 0; iw < last; ++iw) std::copy(v + iw * c, v + (iw + 1) * c, phase_at(iw + g.pl));
      }
      // Then its columns: an average divides by the window's real elements, rows x kw inside
      // the image and fewer columns at the edges (fixed up below).
      for (int64_t j = 0; j < g.kw; ++j) src[static_cast<size_t>(j)] = phase_at(j);
      reduce(o, src.data(), static_cast<int>(g.kw), row, 1.0f / static_cast<float>(rows * g.kw));
      if (!kMax) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const Win w = window_at(g, oh, ow);
          if (w.c1 - w.c0 == g.kw) continue;
          const float fix = static_cast<float>(g.kw) / static_cast<float>(w.c1 - w.c0);
          for (int64_t k = 0; k < c; ++k) o[ow * c + k] *= fix;
        }
      }
    }
  });
}

template <typename T>
Status MaxPoolCpu(ops::MaxPoolArgs& a) {
  using V = pool_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  PoolGeom g;
  OPF_RETURN_IF_ERROR(pool_geom("MaxPool", a.input.shape(), l, a.ksize, a.strides, a.padding, a.explicit_paddings, &g));
  if (a.output.num_elements() == 0) return Status::OK();  // (no pass over a batch of empty images)
  nn::Nhwc<T, V> in(a.input, l);
  nn::NhwcOut<T, V> out(a.output, l);
  const V* x = in.data();
  V* y = out.data();
  if constexpr (std::is_same_v<V, float>) {
    if (g.sh >= g.kh && g.sw >= g.kw && window_taps(g) <= kMaxWindowTaps) {
      parallel_for(g.n * g.oh, row_grain(g), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) max_pool_row_f32(x, y, g, r / g.oh, r % g.oh);
      });
    } else {
      pool_rows_f32<true>(x, y, g);
    }
    out.finish();
    return Status::OK();
  }
  parallel_for(g.n * g.oh, row_grain(g), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const Win wn = window_at(g, oh, ow);
        V* o = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
        for (int64_t c = 0; c < g.c; ++c) o[c] = std::numeric_limits<V>::lowest();
        if constexpr (!std::is_integral_v<V>) {
          for (int64_t c = 0; c < g.c; ++c) o[c] = -std::numeric_limits<V>::infinity();
        }
        for (int64_t r = wn.r0; r < wn.r1; ++r) {
          for (int64_t q = wn.c0; q < wn.c1; ++q) {
            const V* px = x + ((n * g.h + r) * g.w + q) * g.c;
            max_into<V>(o, px, g.c);
          }
        }
      }
    }
  });
  out.finish();
  return Status::OK();
}

template <typename T>
Status AvgPoolCpu(ops::AvgPoolArgs& a) {
  using V = pool_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  PoolGeom g;
  OPF_RETURN_IF_ERROR(pool_geom("AvgPool", a.value.shape(), l, a.ksize, a.strides, a.padding, {}, &g));
  if (a.output.num_elements() == 0) return Status::OK();  // (no pass over a batch of empty images)
  nn::Nhwc<T, V> in(a.value, l);
  nn::NhwcOut<T, V> out(a.output, l);
  const V* x = in.data();
  V* y = out.data();
  if constexpr (std::is_same_v<V, float>) {
    pool_rows_f32<false>(x, y, g);
    out.finish();
    return Status::OK();
  }
  parallel_for(g.n * g.oh, row_grain(g), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const Win wn = window_at(g, oh, ow);
        V* o = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
        std::fill(o, o + g.c, V(0));
        for (int64_t r = wn.r0; r < wn.r1; ++r) {
          for (int64_t q = wn.c0; q < wn.c1; ++q) {
            const V* px = x + ((n * g.h + r) * g.w + q) * g.c;
            for (int64_t c = 0; c < g.c; ++c) o[c] += px[c];
          }
        }
        const V inv = V(1) / static_cast<V>(wn.count());
        for (int64_t c = 0; c < g.c; ++c) o[c] *= inv;
      }
    }
  });
  out.finish();
  return Status::OK();
}

Status check_same(const std::string& op, const char* what, const Shape& got, const Shape& want) {
  if (!(got == want)) {
    return errors::InvalidArgument(op, ": ", what, " has shape ", got.to_string(), ", expected ", want.to_string());
  }
  return Status::OK();
}

template <typename T>
Status MaxPoolGradCpu(ops::MaxPoolGradArgs& a) {
  using V = pool_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  PoolGeom g;
  OPF_RETURN_IF_ERROR(
      pool_geom("MaxPoolGrad", a.orig_input.shape(), l, a.ksize, a.strides, a.padding, a.explicit_paddings, &g));
  const Shape out_shape = nn::shape4(l, g.n, g.oh, g.ow, g.c);
  OPF_RETURN_IF_ERROR(check_same("MaxPoolGrad", "orig_output", a.orig_output.shape(), out_shape));
  OPF_RETURN_IF_ERROR(check_same("MaxPoolGrad", "grad", a.grad.shape(), out_shape));
  if (a.output.num_elements() == 0) return Status::OK();
  nn::Nhwc<T, V> in(a.orig_input, l);
  nn::Nhwc<T, V> dy(a.grad, l);
  nn::NhwcOut<T, V> dx(a.output, l);
  V* d = dx.data();
  const int64_t per_image = g.oh * g.ow * g.kh * g.kw * g.c, image = g.h * g.w * g.c;
  // Windows that do not overlap (stride >= window, as in LeNet's 2x2/2) give each input pixel
  // at most one window: its taps are written (the gradient at the winner, 0 elsewhere) rather
  // than accumulated, and when the windows tile the whole image nothing is zeroed first.
  const bool disjoint = g.sh >= g.kh && g.sw >= g.kw;
  const bool tiling =
      disjoint && g.sh == g.kh && g.sw == g.kw && g.pt == 0 && g.pl == 0 && g.oh * g.sh >= g.h && g.ow * g.sw >= g.w;
  parallel_for(g.n, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_image)), [&](int64_t n0, int64_t n1) {
    // (each thread zeroes its own images, while in cache)
    if (!tiling) std::fill(d + n0 * image, d + n1 * image, V(0));
    if constexpr (std::is_same_v<V, float>) {
      if (disjoint && window_taps(g) <= kMaxWindowTaps) {
        for (int64_t n = n0; n < n1; ++n)
          for (int64_t oh = 0; oh < g.oh; ++oh) max_pool_grad_row_f32(in.data(), dy.data(), d, g, n, oh);
        return;
      }
    }
    std::vector<int32_t> tap(static_cast<size_t>(g.c));
    std::vector<V> best(static_cast<size_t>(g.c));
    std::vector<int64_t> offset(window_taps(g));
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const Win wn = window_at(g, oh, ow);
          if (wn.count() <= 0) continue;
          argmax_taps(in.data(), g, n, wn, tap.data(), best.data(), offset.data());
          const V* gy = dy.data() + ((n * g.oh + oh) * g.ow + ow) * g.c;
          if (disjoint) {
            for (int32_t t = 0; t < static_cast<int32_t>(wn.count()); ++t) {
              route_tap(tap.data(), t, gy, d + offset[static_cast<size_t>(t)], g.c);
            }
            continue;
          }
          for (int64_t c = 0; c < g.c; ++c) {
            V& dst = d[offset[static_cast<size_t>(tap[c])] + c];
            dst = add(dst, gy[c]);
          }
        }
      }
    }
  });
  dx.finish();
  return Status::OK();
}

template <typename T>
Status MaxPoolGradGradCpu(ops::MaxPoolGradGradArgs& a) {
  using V = pool_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  PoolGeom g;
  OPF_RETURN_IF_ERROR(pool_geom("MaxPoolGradGrad", a.orig_input.shape(), l, a.ksize, a.strides, a.padding, {}, &g));
  const Shape out_shape = nn::shape4(l, g.n, g.oh, g.ow, g.c);
  OPF_RETURN_IF_ERROR(check_same("MaxPoolGradGrad", "orig_output", a.orig_output.shape(), out_shape));
  OPF_RETURN_IF_ERROR(check_same("MaxPoolGradGrad", "grad", a.grad.shape(), a.orig_input.shape()));
  if (a.output.num_elements() == 0) return Status::OK();
  nn::Nhwc<T, V> in(a.orig_input, l);
  nn::Nhwc<T, V> gx(a.grad, l);
  nn::NhwcOut<T, V> out(a.output, l);
  V* y = out.data();
  parallel_for(g.n * g.oh, row_grain(g), [&](int64_t b, int64_t e) {
    std::vector<int32_t> tap(static_cast<size_t>(g.c));
    std::vector<V> best(static_cast<size_t>(g.c));
    std::vector<int64_t> offset(window_taps(g));
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, oh = row % g.oh;
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        V* o = y + ((n * g.oh + oh) * g.ow + ow) * g.c;
        const Win wn = window_at(g, oh, ow);
        if (wn.count() <= 0) {  // (never with valid geometry)
          std::fill(o, o + g.c, V(0));
          continue;
        }
        argmax_taps(in.data(), g, n, wn, tap.data(), best.data(), offset.data());
        for (int64_t c = 0; c < g.c; ++c) o[c] = gx.data()[offset[static_cast<size_t>(tap[c])] + c];
      }
    }
  });
  out.finish();
  return Status::OK();
}

using nn_semantics::read_shape4;

template <typename T>
Status AvgPoolGradCpu(ops::AvgPoolGradArgs& a) {
  using V = pool_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  Shape in_shape;
  OPF_RETURN_IF_ERROR(read_shape4("AvgPoolGrad", a.orig_input_shape, &in_shape));
  PoolGeom g;
  OPF_RETURN_IF_ERROR(pool_geom("AvgPoolGrad", in_shape, l, a.ksize, a.strides, a.padding, {}, &g));
  OPF_RETURN_IF_ERROR(check_same("AvgPoolGrad", "grad", a.grad.shape(), nn::shape4(l, g.n, g.oh, g.ow, g.c)));
  if (a.output.num_elements() == 0) return Status::OK();
  nn::Nhwc<T, V> dy(a.grad, l);
  nn::NhwcOut<T, V> dx(a.output, l);
  V* d = dx.data();
  std::fill(d, d + a.output.num_elements(), V(0));
  const int64_t per_image = g.oh * g.ow * g.kh * g.kw * g.c;
  parallel_for(g.n, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_image)), [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const Win wn = window_at(g, oh, ow);
          const V* gy = dy.data() + ((n * g.oh + oh) * g.ow + ow) * g.c;
          const V inv = V(1) / static_cast<V>(wn.count());
          for (int64_t r = wn.r0; r < wn.r1; ++r) {
            for (int64_t q = wn.c0; q < wn.c1; ++q) {
              V* px = d + ((n * g.h + r) * g.w + q) * g.c;
              for (int64_t c = 0; c < g.c; ++c) px[c] += gy[c] * inv;
            }
          }
        }
      }
    }
  });
  dx.finish();
  return Status::OK();
}

// The shape functions of these ops are op semantics: runtime/ops/nn_conv.cc.

}  // namespace

OPFORGE_REGISTER_KERNEL(MaxPool, CPU, MaxPoolCpu, bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t,
                        int64_t)
OPFORGE_REGISTER_KERNEL(AvgPool, CPU, AvgPoolCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(MaxPoolGrad, CPU, MaxPoolGradCpu, bfloat16, half, float, double, uint8_t, int8_t, int16_t,
                        int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(MaxPoolGradGrad, CPU, MaxPoolGradGradCpu, bfloat16, half, float, double, uint8_t, int8_t,
                        int16_t, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(AvgPoolGrad, CPU, AvgPoolGradCpu, bfloat16, half, float, double)

}  // namespace opforge
