// Direct float32 convolution for AVX-512 CPUs (conv_direct_avx512.h).
//
// A block of 8 output pixels x 16 or 32 output channels stays in 8 or 16 vector registers; for
// every tap of the window and every input channel, the tap's weights for those output
// channels are one or two vector loads and each pixel's input value is broadcast into one FMA
// per vector. There is no patch matrix: with 3 input channels and a 3x3 window the whole
// depth is 27, and im2col cost as much as the multiply. Blocks whose window lies inside the
// image skip the border checks; the last output-channel block stores under a mask (the
// filter is padded with zeros to whole vectors, so every weight load is a plain one).
//
// Everything that executes AVX-512 instructions carries a target attribute and the file is
// compiled for the baseline ISA: nothing here runs unless the CPU says it has AVX-512F.
#include "cpu/nn/conv_direct_avx512.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define OPF_HAVE_AVX512_DIRECT_CONV 1
#endif

namespace opforge {
namespace nn {

#ifdef OPF_HAVE_AVX512_DIRECT_CONV
namespace {

std::atomic<bool> g_enabled{__builtin_cpu_supports("avx512f") != 0};

constexpr int kUr = 8;  // output pixels per block

// Pixels [ow0, ow0 + count) x output channels [co0, co0 + 16 * kNv) of row oh. kEdge: some tap
// may fall outside the image (count may then be below kUr). `mask` covers the output channels
// of the last vector that exist.
template <int kNv, bool kEdge>
__attribute__((target("avx512f"))) void conv_block(const float* xn, const float* f, float* out, const DirectConvGeom& g,
                                                   int64_t oh, int64_t ow0, int count, int64_t co0, __mmask16 mask,
                                                   int64_t i0, int64_t i1) {
  const int64_t cin = g.cin, w = g.w, kw = g.kw, dw = g.dw, sw = g.sw, cp = g.cout_padded;
  const int64_t step = sw * cin;  // floats from one output pixel's input to the next's
  __m512 acc[kUr][kNv];
  for (int p = 0; p < kUr; ++p) {
    for (int v = 0; v < kNv; ++v) acc[p][v] = _mm512_setzero_ps();
  }
  for (int64_t i = i0; i < i1; ++i) {
    const float* xr = xn + (oh * g.sh - g.pt + i * g.dh) * w * cin;
    for (int64_t j = 0; j < kw; ++j) {
      const int64_t base = ow0 * sw - g.pl + j * dw;  // input column of the block's first pixel
      const float* xp = xr + base * cin;
      const float* fj = f + ((i * kw + j) * cin) * cp + co0;
      bool in[kUr];
      for (int p = 0; p < kUr; ++p) {
        const int64_t iw = base + p * sw;
        in[p] = !kEdge || (p < count && iw >= 0 && iw < w);
      }
      for (int64_t ci = 0; ci < cin; ++ci) {
        __m512 wv[kNv];
        for (int v = 0; v < kNv; ++v) wv[v] = _mm512_loadu_ps(fj + ci * cp + 16 * v);
#pragma GCC unroll 8
        for (int p = 0; p < kUr; ++p) {
          if (kEdge && !in[p]) continue;
          const __m512 xv = _mm512_set1_ps(xp[p * step + ci]);
          for (int v = 0; v < kNv; ++v) acc[p][v] = _mm512_fmadd_ps(xv, wv[v], acc[p][v]);
        }
      }
    }
  }
  float* o = out + ow0 * g.cout + co0;
  for (int p = 0; p < (kEdge ? count : kUr); ++p) {
    for (int v = 0; v < kNv; ++v) {
      if (v == kNv - 1 && mask != 0xFFFF) {
        _mm512_mask_storeu_ps(o + p * g.cout + 16 * v, mask, acc[p][v]);
      } else {
        _mm512_storeu_ps(o + p * g.cout + 16 * v, acc[p][v]);
      }
    }
  }
}

template <int kNv>
__attribute__((target("avx512f"))) void conv_blocks(const float* xn, const float* f, float* out,
                                                    const DirectConvGeom& g, int64_t oh, int64_t ow0, int count,
                                                    bool inside, int64_t co0, __mmask16 mask, int64_t i0, int64_t i1) {
  if (inside) {
    conv_block<kNv, false>(xn, f, out, g, oh, ow0, kUr, co0, mask, i0, i1);
  } else {
    conv_block<kNv, true>(xn, f, out, g, oh, ow0, count, co0, mask, i0, i1);
  }
}

}  // namespace

bool direct_conv_avx512_enabled() { return g_enabled.load(std::memory_order_relaxed); }

bool set_direct_conv_avx512(bool on) {
  g_enabled.store(on && __builtin_cpu_supports("avx512f"));
  return g_enabled.load();
}

void conv_row_avx512(const float* xn, const float* f, float* out, const DirectConvGeom& g, int64_t oh) {
  // The window rows inside the image: ih = oh * sh - pt + i * dh in [0, h).
  int64_t i0 = 0, i1 = g.kh;
  while (i0 < i1 && oh * g.sh - g.pt + i0 * g.dh < 0) ++i0;
  while (i1 > i0 && oh * g.sh - g.pt + (i1 - 1) * g.dh >= g.h) --i1;
  // Output pixels whose every tap column is inside the image: [lo, hi).
  const int64_t lo = std::min(g.ow, (g.pl + g.sw - 1) / g.sw);
  const int64_t last_tap = (g.kw - 1) * g.dw - g.pl;
  const int64_t hi = std::max(lo, std::min(g.ow, g.w - last_tap > 0 ? (g.w - last_tap - 1) / g.sw + 1 : 0));
  for (int64_t ow0 = 0; ow0 < g.ow; ow0 += kUr) {
    const int count = static_cast<int>(std::min<int64_t>(kUr, g.ow - ow0));
    const bool inside = ow0 >= lo && ow0 + kUr <= hi;
    int64_t co0 = 0;
    for (; co0 + 32 <= g.cout; co0 += 32) conv_blocks<2>(xn, f, out, g, oh, ow0, count, inside, co0, 0xFFFF, i0, i1);
    const int64_t left = g.cout - co0;  // 0 to 31 output channels
    if (left > 16) {
      const auto mask = static_cast<__mmask16>(left == 32 ? 0xFFFF : (1u << (left - 16)) - 1);
      conv_blocks<2>(xn, f, out, g, oh, ow0, count, inside, co0, mask, i0, i1);
    } else if (left > 0) {
      const auto mask = static_cast<__mmask16>(left == 16 ? 0xFFFF : (1u << left) - 1);
      conv_blocks<1>(xn, f, out, g, oh, ow0, count, inside, co0, mask, i0, i1);
    }
  }
}

#else  // no AVX-512 kernel on this platform

bool direct_conv_avx512_enabled() { return false; }
bool set_direct_conv_avx512(bool) { return false; }
void conv_row_avx512(const float*, const float*, float*, const DirectConvGeom&, int64_t) {}

#endif

}  // namespace nn
}  // namespace opforge
