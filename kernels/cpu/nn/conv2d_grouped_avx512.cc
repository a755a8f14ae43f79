// Grouped convolutions with a few channels per group (ResNeXt's and RegNet's 3x3 layers: 2 to 16
// input and as many output channels per group) on AVX-512 CPUs (conv2d_internal.h).
//
// Per group, im2col + GEMM would multiply a patch matrix by a filter of q = 2..16 columns,
// which leaves most of the GEMM's vector lanes empty (4-12x TensorFlow's oneDNN time). Here a
// block of 8 output pixels x 16 output channels (16 / q whole groups) lives in 8 vector
// registers, as in the depthwise kernel. For each tap the block's 8 input pixels load their 16
// channels (the same channels as the block's outputs, since each group has q of each), and
// input channel ci of every group is spread over its group's q lanes by one permute: lane o
// takes input channel (o / q) q + ci, times the filter's 16 weights for (tap, ci). So a tap
// costs 8 loads, q weight loads, and 8 q permutes and FMAs.
//
// Everything that executes AVX-512 instructions carries a target attribute and the file is
// compiled for the baseline ISA: nothing here runs unless the CPU says it has AVX-512F.
#include <algorithm>

#include "cpu/nn/conv2d_internal.h"
#include "src/cpu_kernels.h"  // dw_avx512_enabled

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define OPF_HAVE_AVX512_GROUPED 1
#endif

namespace opforge {
namespace conv2d {

#ifdef OPF_HAVE_AVX512_GROUPED
namespace {

constexpr int kPixels = 8;  // output pixels per block

// Lane o of permutation ci (for q channels per group): (o / q) q + ci.
struct Lanes {
  alignas(64) int idx[16][16];
  explicit Lanes(int q) {
    for (int ci = 0; ci < q; ++ci) {
      for (int o = 0; o < 16; ++o) idx[ci][o] = (o / q) * q + ci;
    }
  }
};

// Output row (n, oh): every pixel block, and within one every 16-channel block.
template <int Q>
__attribute__((target("avx512f"))) void grouped_row(const float* x, const float* f, float* out, const ConvGeom& g,
                                                    int64_t n, int64_t oh) {
  static const Lanes lanes(Q);
  const int64_t c = g.cin;
  for (int64_t ow0 = 0; ow0 < g.ow; ow0 += kPixels) {
    const int np = static_cast<int>(std::min<int64_t>(kPixels, g.ow - ow0));
    for (int64_t c0 = 0; c0 < c; c0 += 16) {
      __m512 acc[kPixels];
      for (auto& a : acc) a = _mm512_setzero_ps();
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t ih = oh * g.sh - g.pt + i * g.dh;
        if (ih < 0 || ih >= g.h) continue;
        const float* xrow = x + (n * g.h + ih) * g.w * c + c0;
        for (int64_t j = 0; j < g.kw; ++j) {
          __m512 xv[kPixels];
          for (int p = 0; p < kPixels; ++p) {
            const int64_t iw = (ow0 + p) * g.sw - g.pl + j * g.dw;
            xv[p] = p < np && iw >= 0 && iw < g.w ? _mm512_loadu_ps(xrow + iw * c) : _mm512_setzero_ps();
          }
          const float* ft = f + (i * g.kw + j) * Q * c + c0;  // filter [kh][kw][Q][c]
          for (int ci = 0; ci < Q; ++ci) {
            const __m512 w = _mm512_loadu_ps(ft + ci * c);
            const __m512i idx = _mm512_load_si512(lanes.idx[ci]);
            for (int p = 0; p < kPixels; ++p)
              acc[p] = _mm512_fmadd_ps(_mm512_maskz_permutexvar_ps(0xFFFF, idx, xv[p]), w, acc[p]);
          }
        }
      }
      float* o = out + ((n * g.oh + oh) * g.ow + ow0) * c + c0;
      for (int p = 0; p < np; ++p) _mm512_storeu_ps(o + p * c, acc[p]);
    }
  }
}

using RowFn = void (*)(const float*, const float*, float*, const ConvGeom&, int64_t, int64_t);

RowFn row_for(int64_t q) {
  switch (q) {
    case 2:
      return grouped_row<2>;
    case 4:
      return grouped_row<4>;
    case 8:
      return grouped_row<8>;
    case 16:
      return grouped_row<16>;
    default:
      return nullptr;
  }
}

}  // namespace

bool grouped_avx512_applies(const ConvGeom& g) {
  const int64_t q = g.groups > 0 ? g.cin / g.groups : 0;
  return nn::dw_avx512_enabled() && g.groups > 1 && g.cin == g.cout && g.cs == g.cin && g.cin % 16 == 0 &&
         row_for(q) != nullptr;
}

void grouped_avx512_forward(const float* in, const float* filt, float* out, const ConvGeom& g,
                            const std::function<void(float*, int64_t)>& post) {
  const RowFn row = row_for(g.cin / g.groups);
  const int64_t per_row = g.ow * g.kh * g.kw * g.cout * (g.cin / g.groups);
  parallel_for(g.n * g.oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_row)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   row(in, filt, out, g, r / g.oh, r % g.oh);
                   if (post) post(out + r * g.ow * g.cout, g.ow);
                 }
               });
}

#else  // no AVX-512 code on this target

bool grouped_avx512_applies(const ConvGeom&) { return false; }
void grouped_avx512_forward(const float*, const float*, float*, const ConvGeom&,
                            const std::function<void(float*, int64_t)>&) {}

#endif

}  // namespace conv2d
}  // namespace opforge
