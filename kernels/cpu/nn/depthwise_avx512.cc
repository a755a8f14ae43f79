// Float32 depthwise convolution for AVX-512 CPUs (depthwise_avx512.h).
//
// A block of 8 output pixels x 16 channels lives in 8 vector registers while every tap of the
// window adds its input pixels times the tap's 16 weights (one weight load per 8 FMAs, one
// input load per FMA, from L1: a pixel is reused by the window's next columns). Blocks walk
// the output row pixel block by pixel block, and within one all the channel blocks, so the
// input rows under a block are read while they are in cache. A channel count that is not a
// multiple of 16 masks its last block. Blocks whose window lies inside the image skip the
// border checks.
//
// Everything that executes AVX-512 instructions carries a target attribute and the file is
// compiled for the baseline ISA: nothing here runs unless the CPU says it has AVX-512F.
#include "cpu/nn/depthwise_avx512.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "src/sgemm_avx512_parts.h"  // activate: the GEMM's register epilogue
#define OPF_HAVE_AVX512_DW 1
#endif

namespace opforge {
namespace nn {

#ifdef OPF_HAVE_AVX512_DW
namespace {

bool cpu_has_avx512f() { return __builtin_cpu_supports("avx512f"); }

std::atomic<bool> g_enabled{cpu_has_avx512f()};

constexpr int kUr = 8;  // output pixels per block

// 16 floats at p: a plain load, or a masked one where the floats past the mask may not be
// readable. A masked load costs far more than a plain one on this CPU (it doubled the whole
// kernel's time), so even a channel tail loads plainly wherever the 16 floats lie inside the
// tensor (the lanes past the channels read the next pixel's values, and are never stored).
template <bool kPlain>
__attribute__((target("avx512f"))) inline __m512 load16(const float* p, __mmask16 mask) {
  return kPlain ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask, p);
}

// A block's accumulators start at the epilogue's shift (the bias) where there is no scale, so
// the bias costs no instruction per pixel (an FMA per pixel and channel block was a tenth of
// the window's); else at zero.
template <bool kFull>
__attribute__((target("avx512f"), always_inline)) inline __m512 initial_acc(const blas::ColumnEpilogue* ep, int64_t c0,
                                                                            __mmask16 mask) {
  if (ep != nullptr && ep->scale == nullptr) return load16<kFull>(ep->shift + c0, mask);
  return _mm512_setzero_ps();
}

// The first count of a block's pixels (acc) to o (one pixel every c floats), channels c0 on:
// all 16 when kFull, else the lanes of mask; through the epilogue ep when given (its shift
// already in acc where initial_acc put it there).
template <bool kFull>
__attribute__((target("avx512f"), always_inline)) inline void store_block(__m512* acc, float* o, int64_t c, int count,
                                                                          __mmask16 mask,
                                                                          const blas::ColumnEpilogue* ep, int64_t c0) {
  if (ep != nullptr) {
    if (ep->scale != nullptr) {
      const __m512 shift = load16<kFull>(ep->shift + c0, mask), scale = load16<kFull>(ep->scale + c0, mask);
      for (int p = 0; p < kUr; ++p) acc[p] = _mm512_fmadd_ps(acc[p], scale, shift);
    }
    if (ep->act != blas::kActNone)
      for (int p = 0; p < kUr; ++p) acc[p] = blas::avx512::activate(acc[p], ep->act);
  }
  const auto store = [&](int p) __attribute__((target("avx512f"))) {
    if (kFull) {
      _mm512_storeu_ps(o + p * c, acc[p]);
    } else {
      _mm512_mask_storeu_ps(o + p * c, mask, acc[p]);
    }
  };
  if (count == kUr) {  // (a loop of known length: unrolled, no branch per pixel)
#pragma GCC unroll 8
    for (int p = 0; p < kUr; ++p) store(p);
  } else {
    for (int p = 0; p < count; ++p) store(p);
  }
}

// Output pixels [ow0, ow0 + count) of row oh, channels [c0, c0 + 16): all 16 when kFull, else
// the lanes of mask (only those are stored); kPlain: plain loads (see load16). kEdge: some tap
// of the block may fall outside the image; else all kUr pixels' taps are inside its rows (also
// those past count, which are computed and not stored). The geometry is
// copied into locals and the accumulators are eight named registers: written as an array
// behind a reference to the geometry, GCC kept them in memory.
template <bool kEdge, bool kFull, bool kPlain = kFull>
__attribute__((target("avx512f"))) inline void dw_block(const float* xn, const float* f, float* out, const DwGeom& g,
                                                        int64_t oh, int64_t ow0, int count, int64_t c0, __mmask16 mask,
                                                        int64_t i0, int64_t i1, const blas::ColumnEpilogue* ep) {
  const int64_t c = g.c, w = g.w, kw = g.kw, dw = g.dw, sw = g.sw;
  const int64_t step = sw * c;  // floats from one output pixel's input to the next's
  __m512 a0 = initial_acc<kFull>(ep, c0, mask), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (int64_t i = i0; i < i1; ++i) {
    const float* xr = xn + (oh * g.sh - g.pt + i * g.dh) * w * c + c0;
    const float* fr = f + i * kw * c + c0;
    for (int64_t j = 0; j < kw; ++j) {
      const __m512 wv = load16<kPlain>(fr + j * c, mask);
      const int64_t base = ow0 * sw - g.pl + j * dw;  // input column of the block's first pixel
      const float* xp = xr + base * c;
      if (!kEdge) {
        a0 = _mm512_fmadd_ps(load16<kPlain>(xp, mask), wv, a0);
        a1 = _mm512_fmadd_ps(load16<kPlain>(xp + step, mask), wv, a1);
        a2 = _mm512_fmadd_ps(load16<kPlain>(xp + 2 * step, mask), wv, a2);
        a3 = _mm512_fmadd_ps(load16<kPlain>(xp + 3 * step, mask), wv, a3);
        a4 = _mm512_fmadd_ps(load16<kPlain>(xp + 4 * step, mask), wv, a4);
        a5 = _mm512_fmadd_ps(load16<kPlain>(xp + 5 * step, mask), wv, a5);
        a6 = _mm512_fmadd_ps(load16<kPlain>(xp + 6 * step, mask), wv, a6);
        a7 = _mm512_fmadd_ps(load16<kPlain>(xp + 7 * step, mask), wv, a7);
      } else {
        // Pixels outside the image (or past count) add nothing.
        auto tap = [&](int p, __m512 acc) __attribute__((target("avx512f"))) {
          const int64_t iw = base + p * sw;
          const bool in = p < count && iw >= 0 && iw < w;
          return in ? _mm512_fmadd_ps(load16<kPlain>(xp + p * step, mask), wv, acc) : acc;
        };
        a0 = tap(0, a0);
        a1 = tap(1, a1);
        a2 = tap(2, a2);
        a3 = tap(3, a3);
        a4 = tap(4, a4);
        a5 = tap(5, a5);
        a6 = tap(6, a6);
        a7 = tap(7, a7);
      }
    }
  }
  __m512 acc[kUr] = {a0, a1, a2, a3, a4, a5, a6, a7};
  store_block<kFull>(acc, out + ow0 * c + c0, c, count, mask, ep, c0);
}

// The same block for an undilated window KW wide at column stride S: each input pixel of a
// window row is loaded once and multiplied by every tap weight it meets (S * 7 + KW loads per
// row of the window, not 8 * KW), so the FMAs, not the loads, set the pace. kEdge: columns
// outside the row (padding) are skipped, a test per column rather than per tap and pixel.
template <int KW, int S, bool kEdge, bool kFull, bool kPlain = kFull>
__attribute__((target("avx512f"))) inline void dw_block_slide(const float* xn, const float* f, float* out,
                                                              const DwGeom& g, int64_t oh, int64_t ow0, int count,
                                                              int64_t c0, __mmask16 mask, int64_t i0, int64_t i1,
                                                              const blas::ColumnEpilogue* ep) {
  const int64_t c = g.c, w = g.w;
  constexpr int kCols = S * (kUr - 1) + KW;  // input columns the block reads
  const int64_t first_col = ow0 * S - g.pl;  // the row's column under the block's column 0
  const int64_t q_lo = kEdge ? std::max<int64_t>(0, -first_col) : 0;
  const int64_t q_hi = kEdge ? std::min<int64_t>(kCols, w - first_col) : kCols;
  __m512 acc[kUr];
  const __m512 init = initial_acc<kFull>(ep, c0, mask);
#pragma GCC unroll 8
  for (int p = 0; p < kUr; ++p) acc[p] = init;
  for (int64_t i = i0; i < i1; ++i) {
    const float* xp = xn + (oh * g.sh - g.pt + i * g.dh) * w * c + first_col * c + c0;
    const float* fr = f + i * KW * c + c0;
    __m512 wv[KW];
#pragma GCC unroll 8
    for (int j = 0; j < KW; ++j) wv[j] = load16<kPlain>(fr + j * c, mask);
#pragma GCC unroll 32
    for (int q = 0; q < kCols; ++q) {  // input column q of the block: pixel p's tap q - S p
      if (kEdge && (q < q_lo || q >= q_hi)) continue;
      const __m512 v = load16<kPlain>(xp + q * c, mask);
#pragma GCC unroll 8
      for (int j = 0; j < KW; ++j) {
        const int p = (q - j) / S;
        if (q >= j && (q - j) % S == 0 && p < kUr) acc[p] = _mm512_fmadd_ps(v, wv[j], acc[p]);
      }
    }
  }
  store_block<kFull>(acc, out + ow0 * c + c0, c, count, mask, ep, c0);
}

// A block (kEdge: some of its taps over padding): the sliding kernel where the window slides
// (KW > 0, see slide_width), the general one for the rest.
template <int KW, int S, bool kEdge, bool kFull, bool kPlain = kFull>
__attribute__((target("avx512f"))) inline void any_block(const float* xn, const float* f, float* out, const DwGeom& g,
                                                         int64_t oh, int64_t ow0, int count, int64_t c0, __mmask16 mask,
                                                         int64_t i0, int64_t i1, const blas::ColumnEpilogue* ep) {
  if constexpr (KW == 0) {
    dw_block<kEdge, kFull, kPlain>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep);
  } else {
    dw_block_slide<KW, S, kEdge, kFull, kPlain>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep);
  }
}

// The output pixels whose every tap column is inside the rows: [lo, hi). hi may pass the
// output's width, where the rows are wider than the output reads (as dw_padded_width makes them).
struct InsidePixels {
  int64_t lo, hi;
};
InsidePixels inside_pixels(const DwGeom& g) {
  const int64_t last_tap = (g.kw - 1) * g.dw - g.pl;  // iw = ow * sw + last_tap must be < w
  return {(g.pl + g.sw - 1) / g.sw, g.w - last_tap > 0 ? (g.w - last_tap - 1) / g.sw + 1 : 0};
}

// An input this large is read from L3 or memory, not L2: each output row then prefetches the
// input rows the next one adds. The hardware's prefetchers left the window's loads waiting:
// [8,56,56,144] under a 3x3 window 4.9 -> 2.8 ms on one thread (bias and Relu6 fused),
// [8,112,112,96] at stride 2 5.2 -> 3.6, [8,112,112,32] 2.1 -> 1.55. Inputs of 2-5 MB did not
// gain ([1,112,112,96] at stride 2: 7% slower), so they are left to the hardware.
constexpr int64_t kPrefetchInputBytes = int64_t{8} << 20;

// The row width of the zero-padded copy of x the general kernel runs over (0: none, its border
// blocks check their taps). The copy is a pass over the input: it pays where border blocks
// (their taps checked pixel by pixel) make much of the work: narrow rows, wide windows
// (measured before those windows slid: [8,14,14,88] under 5x5 183 -> 111 us, [8,56,56,11]
// under 7x7 576 -> 457), not a 3x3 over wide rows (112 wide: 40% slower).
int64_t general_padded_width(const DwGeom& g) {
  const int64_t blocks = (g.ow + kUr - 1) / kUr;
  const int64_t reads = (blocks * kUr - 1) * g.sw + (g.kw - 1) * g.dw + 1;  // columns the last block reads
  const InsidePixels in = inside_pixels(g);  // blocks inside: those from in.lo up to in.hi
  const int64_t inside = std::max<int64_t>(0, in.hi / kUr - (in.lo + kUr - 1) / kUr);
  const int64_t border = blocks - std::min(blocks, inside);
  return border * g.kh * g.kw >= 6 * blocks ? std::max(reads, g.pl + g.w) : 0;
}

// The window width the sliding kernel runs (0: the general kernel): undilated windows 3, 5 or 7
// wide at column stride 1, 5 or 7 wide at stride 2, and 3 wide at stride 2 where the general
// kernel would copy the rows padded (narrow rows: MobileNet's [8,8,8,512] -> [8,4,4,512] 206 ->
// 70 us; over wide rows the general kernel is quicker: [8,112,112,64] 2.56 against 2.96 ms).
int slide_width(const DwGeom& g) {
  if (g.dw != 1 || (g.kw != 3 && g.kw != 5 && g.kw != 7)) return 0;
  if (g.sw == 1 || (g.sw == 2 && g.kw != 3)) return static_cast<int>(g.kw);
  if (g.sw == 2 && general_padded_width(g) > 0) return 3;
  return 0;
}

}  // namespace

bool dw_avx512_enabled() { return g_enabled.load(std::memory_order_relaxed); }

int64_t dw_padded_width(const DwGeom& g) {
  if (slide_width(g) != 0) return 0;  // the sliding kernel's border blocks skip padding columns
  return general_padded_width(g);
}

bool set_dw_avx512(bool on) {
  g_enabled.store(on && cpu_has_avx512f());
  return g_enabled.load();
}

namespace {

template <int KW, int S>
__attribute__((target("avx512f"))) void dw_row(const float* x, const float* f, float* out, const DwGeom& g, int64_t n,
                                               int64_t oh, const blas::ColumnEpilogue* ep) {
  // The window rows inside the image: ih = oh * sh - pt + i * dh in [0, h).
  int64_t i0 = 0, i1 = g.kh;
  while (i0 < i1 && oh * g.sh - g.pt + i0 * g.dh < 0) ++i0;
  while (i1 > i0 && oh * g.sh - g.pt + (i1 - 1) * g.dh >= g.h) --i1;
  const float* xn = x + n * g.h * g.w * g.c;
  const float* x_end = x + g.n * g.h * g.w * g.c;
  const InsidePixels in = inside_pixels(g);
  // The input rows the next output row adds to the window (sh of them below this window's
  // last), prefetched block by block into L2 over the columns this row's blocks read.
  const bool prefetch = oh + 1 < g.oh && g.n * g.h * g.w * g.c * int64_t{sizeof(float)} >= kPrefetchInputBytes;
  const int64_t next_row = oh * g.sh - g.pt + (g.kh - 1) * g.dh + 1;
  const int64_t pf_r0 = std::max<int64_t>(0, next_row), pf_r1 = std::min(g.h, next_row + g.sh);
  int64_t pf_col = 0;  // columns before it are prefetched
  for (int64_t ow0 = 0; ow0 < g.ow; ow0 += kUr) {
    const int count = static_cast<int>(std::min<int64_t>(kUr, g.ow - ow0));
    const bool inside = ow0 >= in.lo && ow0 + kUr <= in.hi;
    if (prefetch) {
      const int64_t col1 = std::min(g.w, (ow0 + count - 1) * g.sw - g.pl + (g.kw - 1) * g.dw + 1);
      for (int64_t r = pf_r0; r < pf_r1; ++r) {
        const char* p = reinterpret_cast<const char*>(xn + (r * g.w + pf_col) * g.c);
        const char* end = reinterpret_cast<const char*>(xn + (r * g.w + col1) * g.c);
        for (; p < end; p += 64) _mm_prefetch(p, _MM_HINT_T1);
      }
      pf_col = std::max(pf_col, col1);
    }
    int64_t c0 = 0;
    for (; c0 + 16 <= g.c; c0 += 16) {
      if (inside) {
        any_block<KW, S, false, true>(xn, f, out, g, oh, ow0, count, c0, 0xFFFF, i0, i1, ep);
      } else {
        any_block<KW, S, true, true>(xn, f, out, g, oh, ow0, count, c0, 0xFFFF, i0, i1, ep);
      }
    }
    if (c0 < g.c) {
      const auto mask = static_cast<__mmask16>((1u << (g.c - c0)) - 1);
      // Plain loads when the last 16 floats the block reads end inside the input (all but
      // the tensor's last few pixels); the filter has 16 readable floats past its end.
      const int64_t ih = oh * g.sh - g.pt + (i1 - 1) * g.dh;
      const int64_t iw = std::min(g.w - 1, (ow0 + count - 1) * g.sw - g.pl + (g.kw - 1) * g.dw);
      const bool plain = i1 > i0 && xn + (ih * g.w + iw) * g.c + c0 + 16 <= x_end;
      if (inside) {
        plain ? any_block<KW, S, false, false, true>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep)
              : any_block<KW, S, false, false, false>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep);
      } else {
        plain ? any_block<KW, S, true, false, true>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep)
              : any_block<KW, S, true, false, false>(xn, f, out, g, oh, ow0, count, c0, mask, i0, i1, ep);
      }
    }
  }
}

}  // namespace

void dw_row_avx512(const float* x, const float* f, float* out, const DwGeom& g, int64_t n, int64_t oh,
                   const blas::ColumnEpilogue* ep) {
  const int kw = slide_width(g);
  if (kw == 0) return dw_row<0, 1>(x, f, out, g, n, oh, ep);
  if (g.sw == 2) {
    if (kw == 3) return dw_row<3, 2>(x, f, out, g, n, oh, ep);
    return kw == 5 ? dw_row<5, 2>(x, f, out, g, n, oh, ep) : dw_row<7, 2>(x, f, out, g, n, oh, ep);
  }
  if (kw == 3) return dw_row<3, 1>(x, f, out, g, n, oh, ep);
  if (kw == 5) return dw_row<5, 1>(x, f, out, g, n, oh, ep);
  dw_row<7, 1>(x, f, out, g, n, oh, ep);
}

#else  // no AVX-512 kernel on this platform

bool dw_avx512_enabled() { return false; }
bool set_dw_avx512(bool) { return false; }
int64_t dw_padded_width(const DwGeom&) { return 0; }
void dw_row_avx512(const float*, const float*, float*, const DwGeom&, int64_t, int64_t, const blas::ColumnEpilogue*) {}

#endif

}  // namespace nn
}  // namespace opforge
