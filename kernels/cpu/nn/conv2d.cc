// Conv2D and its gradients Conv2DBackpropInput / Conv2DBackpropFilter.
//
// Everything runs in NHWC (NCHW tensors are converted on the way in and out). The forward pass
// is im2col + GEMM over tiles of output pixels: each tile's patch matrix is sized to stay in
// cache (not a whole-image buffer) and multiplied by the [KH*KW*Cin, Cout] filter (blas.h);
// tiles are spread over the runtime's threads, each calling a single-threaded GEMM (a GEMM
// inside a parallel region runs inline). A 1x1 convolution with stride 1 and no padding is one
// GEMM over the input; float32 3x3 stride-1 convolutions over enough channels and tiles use
// Winograd F(4x4, 3x3) or F(2x2, 3x3); float32 convolutions over at most 16 input channels run the direct
// AVX-512 kernel (conv_direct_avx512.h) where the CPU has it. float16/bfloat16 compute in
// float32, int32 with a wrapping integer GEMM.
//
// _FusedConv2D (Grappler's Conv2D + BiasAdd/FusedBatchNorm + activation) runs the same code
// with its epilogue (fused_epilogue.h): a bias / batch norm with no activation, Relu or Relu6
// applied in registers by the GEMM or the Winograd output transform (blas::ColumnEpilogue),
// others on each tile of output right after it is computed, while it is in cache.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

#include "opforge/constant_cache.h"
#include "cpu/nn/conv_direct_avx512.h"
#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/_fused_conv2d.h"
#include "opforge/ops/nn/conv2d.h"
#include "opforge/ops/nn/conv2d_backprop_filter.h"
#include "opforge/ops/nn/conv2d_backprop_input.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using nn::Layout;

// Bytes of patch matrix per tile: about half of a typical L2.
constexpr int64_t kTileBytes = 256 * 1024;
constexpr int64_t kMinTilePixels = 128;
constexpr int64_t kWholeImageBytes = 4 << 20;
constexpr int64_t kMinWinogradTiles = 64;

struct ConvGeom {
  int64_t n, h, w, cin, kh, kw, cout, oh, ow, sh, sw, dh, dw, pt, pl;
  // Grouped convolution (TensorFlow: input depth = groups * filter in_channels): cin and cout
  // count all channels; group_slice() gives the geometry of one group. cs is the channel
  // stride of an input pixel (== cin except in a group slice).
  int64_t groups = 1, cs = 0;
  int64_t k() const { return kh * kw * cin; }
  int64_t pixels() const { return n * oh * ow; }
  bool is_pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && oh == h && ow == w;
  }
};

// Geometry from the input shape and filter shape [kh, kw, cin / groups, cout] (all known).
Status conv_geom(const std::string& op, const Shape& input, const Shape& filter, const Layout& l,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                 const std::string& padding, const std::vector<int64_t>& explicit_paddings,
                 ConvGeom* g) {
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "filter", filter, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "input", input, 4));
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(nn::window2d(op, input, l, filter.dim(0), filter.dim(1), strides, dilations,
                                   padding, explicit_paddings, &w));
  int64_t groups = 1;
  OPF_RETURN_IF_ERROR(nn::conv_groups(op, w.c, filter.dim(2), filter.dim(3), &groups));
  *g = ConvGeom{w.n, w.h.in, w.w.in, w.c, filter.dim(0), filter.dim(1), filter.dim(3),
                w.h.out, w.w.out, w.h.kernel_stride(), w.w.kernel_stride(), w.h.d, w.w.d, w.h.pad_before,
                w.w.pad_before};
  g->groups = groups;
  g->cs = w.c;
  return Status::OK();
}

// One group of a grouped convolution: cin / cout of that group, pixels still cs channels apart
// (the group's input, filter and output start at channel gi * cin, gi * cout of the whole).
ConvGeom group_slice(const ConvGeom& g) {
  ConvGeom s = g;
  s.cin = g.cin / g.groups;
  s.cout = g.cout / g.groups;
  s.groups = 1;
  return s;
}

// n values from src to dst. The rows of a patch are often short (a 3-channel image's row of taps
// is 9 floats), where a call to memcpy per row costs more than the copy: short rows move in
// 16-byte pieces, inline.
template <typename C>
inline void copy_row(C* dst, const C* src, int64_t n) {
  const int64_t bytes = n * static_cast<int64_t>(sizeof(C));
  if (bytes >= 256) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  auto* d = reinterpret_cast<unsigned char*>(dst);
  const auto* s = reinterpret_cast<const unsigned char*>(src);
  int64_t i = 0;
  for (; i + 16 <= bytes; i += 16) __builtin_memcpy(d + i, s + i, 16);
  for (; i + 4 <= bytes; i += 4) __builtin_memcpy(d + i, s + i, 4);
  for (; i < bytes; ++i) d[i] = s[i];
}

// Rows [p0, p1) of the patch matrix (output pixel x (kh, kw, cin)). The pixel's image, row and
// column advance with it (no division per pixel: for a 3-channel image that was half the time).
template <typename C>
void im2col(const C* in, const ConvGeom& g, int64_t p0, int64_t p1, C* col) {
  const int64_t k = g.k(), row = g.kw * g.cin;
  int64_t n = p0 / (g.oh * g.ow), oh = (p0 % (g.oh * g.ow)) / g.ow, ow = p0 % g.ow;
  for (int64_t p = p0; p < p1; ++p) {
    C* dst = col + (p - p0) * k;
    const int64_t ih0 = oh * g.sh - g.pt, iw0 = ow * g.sw - g.pl;
    const bool w_inside = iw0 >= 0 && iw0 + (g.kw - 1) * g.dw < g.w && g.cs == g.cin;
    for (int64_t i = 0; i < g.kh; ++i, dst += row) {
      const int64_t ih = ih0 + i * g.dh;
      if (ih < 0 || ih >= g.h) {
        std::fill(dst, dst + row, C(0));
        continue;
      }
      const C* src = in + ((n * g.h + ih) * g.w) * g.cs;
      if (w_inside && g.dw == 1) {
        copy_row(dst, src + iw0 * g.cin, row);
        continue;
      }
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t iw = iw0 + j * g.dw;
        C* d = dst + j * g.cin;
        if (iw < 0 || iw >= g.w) {
          std::fill(d, d + g.cin, C(0));
        } else {
          copy_row(d, src + iw * g.cs, g.cin);
        }
      }
    }
    if (++ow == g.ow) {
      ow = 0;
      if (++oh == g.oh) {
        oh = 0;
        ++n;
      }
    }
  }
}

// Adds rows [p0, p1) of a patch-shaped matrix back into the (NHWC) input gradient.
template <typename C>
void col2im(const C* col, const ConvGeom& g, int64_t p0, int64_t p1, C* dx) {
  const int64_t k = g.k();
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t n = p / (g.oh * g.ow), r = p % (g.oh * g.ow), oh = r / g.ow, ow = r % g.ow;
    const C* src = col + (p - p0) * k;
    const int64_t ih0 = oh * g.sh - g.pt, iw0 = ow * g.sw - g.pl;
    for (int64_t i = 0; i < g.kh; ++i) {
      const int64_t ih = ih0 + i * g.dh;
      if (ih < 0 || ih >= g.h) continue;
      C* drow = dx + ((n * g.h + ih) * g.w) * g.cs;
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t iw = iw0 + j * g.dw;
        if (iw < 0 || iw >= g.w) continue;
        const C* s = src + (i * g.kw + j) * g.cin;
        C* d = drow + iw * g.cs;
        for (int64_t c = 0; c < g.cin; ++c) d[c] += s[c];
      }
    }
  }
}

// Output pixels per im2col tile: the patch matrix should stay in cache, but every tile's GEMM
// also streams the whole filter, so a tile is never so small that the filter traffic
// outweighs its work (a 3x3x512x512 filter is 9 MB: 14-pixel tiles made a 7x7 conv
// memory-bound at a fifth of the GEMM's speed).
int64_t tile_pixels(const ConvGeom& g, size_t elem) {
  const int64_t t = kTileBytes / std::max<int64_t>(1, g.k() * static_cast<int64_t>(elem));
  return std::max<int64_t>(kMinTilePixels, t);
}

// Calls fn(p0, p1, scratch) over tiles of output pixels, tiles split over the threads.
template <typename C, typename F>
void for_tiles(const ConvGeom& g, int64_t first, int64_t count, F fn) {
  int64_t tp = tile_pixels(g, sizeof(C));
  // A small image whose whole patch matrix fits the last-level cache is one tile: one GEMM
  // split over the threads beats a few smaller ones.
  if (count * g.k() * static_cast<int64_t>(sizeof(C)) <= kWholeImageBytes && count < 2 * num_threads() * tp) tp = count;
  const int64_t tiles = (count + tp - 1) / tp;
  const int64_t flops_per_tile = tp * g.k() * g.cout;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, flops_per_tile));
  if (tiles < 2 * num_threads()) {
    // Too few tiles to share out evenly (a small image): tile after tile on this thread, each
    // GEMM split over the threads by blas::gemm instead.
    std::vector<C> col(static_cast<size_t>(std::min(tp, count) * g.k()));
    for (int64_t t = 0; t < tiles; ++t) {
      const int64_t p0 = first + t * tp, p1 = std::min(first + count, p0 + tp);
      fn(p0, p1, col.data());
    }
    return;
  }
  parallel_for(tiles, grain, [&](int64_t t0, int64_t t1) {
    std::vector<C> col(static_cast<size_t>(tp * g.k()));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p0 = first + t * tp, p1 = std::min(first + count, p0 + tp);
      fn(p0, p1, col.data());
    }
  });
}


// The direct AVX-512 kernel (conv_direct_avx512.h) where the depth per tap is small: at most
// kMaxDirectCin input channels. Measured at batch 8 against im2col + GEMM and Winograd: 3
// channels 224x224 3x3/2 -> 32 1.04 -> 0.59 ms, 7x7/2 -> 64 5.3 -> 4.3 ms; 16 channels
// 128x128 3x3 -> 16 3.0 -> 1.7 ms, 64x64 3x3 -> 32 0.87 -> 0.64 ms; at 32 channels no faster.
constexpr int64_t kMaxDirectCin = 16;

bool use_direct(const ConvGeom& g) {
  return nn::direct_conv_avx512_enabled() && g.groups == 1 && g.cin <= kMaxDirectCin && !g.is_pointwise();
}

// Rows of output over the threads, each computed by the direct kernel and finished by the
// epilogue while in cache. Output channels are padded to whole vectors in a copy of the filter.
template <typename Post>
void direct_forward(const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post) {
  const int64_t cp = (g.cout + 15) / 16 * 16, taps = g.kh * g.kw * g.cin;
  std::vector<float> padded;
  const float* f = filt;
  if (cp != g.cout) {
    padded.assign(static_cast<size_t>(taps * cp), 0.0f);
    for (int64_t t = 0; t < taps; ++t) std::copy(filt + t * g.cout, filt + (t + 1) * g.cout, &padded[t * cp]);
    f = padded.data();
  }
  const nn::DirectConvGeom dg{g.h, g.w, g.cin, g.kh, g.kw, g.cout, cp, g.oh, g.ow,
                              g.sh, g.sw, g.dh, g.dw, g.pt, g.pl};
  const int64_t row_work = std::max<int64_t>(1, g.ow * taps * g.cout);
  parallel_for(g.n * g.oh, std::max<int64_t>(1, cpu::kGrain / row_work), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* o = out + r * g.ow * g.cout;
      nn::conv_row_avx512(in + (r / g.oh) * g.h * g.w * g.cin, f, o, dg, r % g.oh);
      post(o, g.ow);
    }
  });
}

// ---------------------------------------------------------------------------- Winograd F(m x m, 3x3)
//
// For 3x3 filters with stride 1 and no dilation (float32, enough channels to pay for the
// transforms): each m x m block of outputs comes from a (m+2) x (m+2) input tile through
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A,
// the element-wise product over channels being (m+2)^2 GEMMs [tiles x Cin] x [Cin x Cout], run
// on cache-sized chunks of tiles, chunks split over the threads. Two tile sizes (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks"):
//   F(2x2, 3x3): 16 products per 4 outputs, 2.25x fewer multiplies than the direct 9 per output;
//   F(4x4, 3x3): 36 products per 16 outputs, 4x fewer, with larger transforms and about ten
//                times the rounding error (~1e-5 of the output's scale, F(2x2) ~1e-6).
// F(4x4) is the default where it needs at most 3/4 of F(2x2)'s products (see winograd_tile).

// The transformed tiles of one chunk (V and M) take about this much: half a core's L2.
// Medians at batch 8, against 256 KiB / 1 MiB / 2 MiB: 56x56x64 -> 64 2.09 ms (2.30 / 2.41 /
// 2.44), 128x128x32 -> 16 3.67 (3.76 / 3.91 / 3.97), 72x72x32 -> 64 2.26 (2.31 / 2.44 / 2.42).
constexpr int64_t kWinogradChunkBytes = 512 * 1024;

// The tile size in use (2 or 4; 0: choose per shape); set_winograd_tile switches it for tests.
std::atomic<int> g_winograd_tile{0};

template <int kM>
struct Winograd {
  static constexpr int kT = kM + 2;    // input tile side
  static constexpr int kP = kT * kT;   // positions of the transformed tile: one GEMM each
};

// U[k][cin][cout] = (G g G^T)[k] for the kP positions k of the transformed filter, computed in
// double and rounded once.
template <int kM>
std::vector<float> winograd_filter(const float* filt, const ConvGeom& g) {
  constexpr int kT = Winograd<kM>::kT, kP = Winograd<kM>::kP;
  static constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                       {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                       {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  const auto G = [](int i, int k) { return kM == 2 ? kG2[i][k] : kG4[i][k]; };
  const int64_t ci = g.cin, co = g.cout, plane = ci * co;
  std::vector<float> u(static_cast<size_t>(kP * plane));
  parallel_for(ci, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, co)), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      for (int64_t o = 0; o < co; ++o) {
        double w[3][3], t[kT][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) w[i][j] = filt[((i * 3 + j) * ci + c) * co + o];
        for (int i = 0; i < kT; ++i)  // t = G w
          for (int j = 0; j < 3; ++j) t[i][j] = G(i, 0) * w[0][j] + G(i, 1) * w[1][j] + G(i, 2) * w[2][j];
        for (int i = 0; i < kT; ++i)  // U = t G^T
          for (int j = 0; j < kT; ++j)
            u[static_cast<size_t>((i * kT + j) * plane + c * co + o)] =
                static_cast<float>(t[i][0] * G(j, 0) + t[i][1] * G(j, 1) + t[i][2] * G(j, 2));
      }
    }
  });
  return u;
}

// The transformed filter, packed for the kP GEMMs (kept across runs for a constant filter).
struct WinogradFilter {
  template <int kM>
  static std::shared_ptr<const WinogradFilter> make(const float* filt, const ConvGeom& g) {
    auto f = std::make_shared<WinogradFilter>();
    f->u = winograd_filter<kM>(filt, g);
    const int64_t plane = g.cin * g.cout;
    f->uk.reserve(Winograd<kM>::kP);
    for (int p = 0; p < Winograd<kM>::kP; ++p) f->uk.emplace_back(&f->u[static_cast<size_t>(p * plane)], g.cout, g.cin, g.cout);
    return f;
  }
  std::vector<float> u;
  std::vector<nn::RightOperand<float>> uk;  // points into u
};

// The filter as the right-hand operand of a convolution's GEMMs ([k x cout]), or its Winograd
// transform: derived once per constant filter (Const's buffer, see constant_cache.h), else per call.
// `filter` is null when the filter pointer is not the tensor's own float32 data.
template <typename C>
std::shared_ptr<const nn::RightOperand<C>> filter_operand(const Tensor* filter, const C* filt, const ConvGeom& g) {
  const auto make = [&] { return std::make_shared<const nn::RightOperand<C>>(filt, g.cout, g.k(), g.cout); };
  if (!std::is_same_v<C, float> || filter == nullptr) return make();
  return derived_from_constant<nn::RightOperand<C>>(
      *filter, "conv-gemm " + std::to_string(g.k()) + "x" + std::to_string(g.cout),
      static_cast<size_t>(g.k() * g.cout) * sizeof(C), make);
}

template <int kM>
std::shared_ptr<const WinogradFilter> winograd_operand(const Tensor* filter, const float* filt, const ConvGeom& g) {
  const auto make = [&] { return WinogradFilter::make<kM>(filt, g); };
  if (filter == nullptr) return make();
  return derived_from_constant<WinogradFilter>(
      *filter, "conv-winograd" + std::to_string(kM) + " " + std::to_string(g.cin) + "x" + std::to_string(g.cout),
      static_cast<size_t>(2 * Winograd<kM>::kP * g.cin * g.cout) * sizeof(float), make);
}

// The per-tile transforms work across channels, so each loop below is plain arithmetic over
// contiguous rows: written with restrict-qualified outputs they vectorize (OPF_SIMD_CLONES adds
// an AVX2 build picked at load time).

// ---- F(2x2, 3x3)

// V = B^T d B for one tile: d[i*4+j] is input pixel (i, j) of the 4x4 tile (ci channels), and
// v + k*vstride receives position k of the transform.
OPF_SIMD_CLONES void winograd2_input_tile(const float* const d[16], int64_t ci, float* __restrict v,
                                          int64_t vstride) {
  // Row i of B^T d is row ra[i] + sg[i] * row rb[i]; the column pass (times B) follows in the same loop.
  static constexpr int ra[4] = {0, 1, 2, 1}, rb[4] = {2, 2, 1, 3};
  static constexpr float sg[4] = {-1.0f, 1.0f, -1.0f, -1.0f};
  for (int i = 0; i < 4; ++i) {
    const float *p0 = d[ra[i] * 4 + 0], *p1 = d[ra[i] * 4 + 1], *p2 = d[ra[i] * 4 + 2], *p3 = d[ra[i] * 4 + 3];
    const float *q0 = d[rb[i] * 4 + 0], *q1 = d[rb[i] * 4 + 1], *q2 = d[rb[i] * 4 + 2], *q3 = d[rb[i] * 4 + 3];
    const float s = sg[i];
    float* __restrict o0 = v + (i * 4 + 0) * vstride;
    float* __restrict o1 = v + (i * 4 + 1) * vstride;
    float* __restrict o2 = v + (i * 4 + 2) * vstride;
    float* __restrict o3 = v + (i * 4 + 3) * vstride;
    for (int64_t c = 0; c < ci; ++c) {
      const float t0 = p0[c] + s * q0[c], t1 = p1[c] + s * q1[c];
      const float t2 = p2[c] + s * q2[c], t3 = p3[c] + s * q3[c];
      o0[c] = t0 - t2;
      o1[c] = t1 + t2;
      o2[c] = t2 - t1;
      o3[c] = t1 - t3;
    }
  }
}

// The epilogue of a transformed output value: kAct < 0 none; else act(v * scale + shift) per
// channel (kAct 0 none, 1 Relu, 2 Relu6; kScale false: scale 1).
template <int kAct, bool kScale>
__attribute__((always_inline)) inline float finish(float v, const float* __restrict scale, const float* __restrict shift, int64_t o) {
  if (kAct < 0) return v;
  v = kScale ? v * scale[o] + shift[o] : v + shift[o];
  if (kAct >= 1) v = v < 0.0f ? 0.0f : v;
  if (kAct == 2) v = v > 6.0f ? 6.0f : v;
  return v;
}

// Y = A^T M A for one tile: m[k] is position k of the 16 products (co channels); y[r*2+s] is
// output pixel (r, s) of the 2x2 block, finished before the store.
template <int kAct, bool kScale>
__attribute__((always_inline)) inline void output_tile2(const float* const m[16], int64_t co, float* const y[4], const float* __restrict scale,
                         const float* __restrict shift) {
  float* __restrict y00 = y[0];
  float* __restrict y01 = y[1];
  float* __restrict y10 = y[2];
  float* __restrict y11 = y[3];
  for (int64_t o = 0; o < co; ++o) {
    // rows of A^T M: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (per column j)
    const float s00 = m[0][o] + m[4][o] + m[8][o], s10 = m[4][o] - m[8][o] - m[12][o];
    const float s01 = m[1][o] + m[5][o] + m[9][o], s11 = m[5][o] - m[9][o] - m[13][o];
    const float s02 = m[2][o] + m[6][o] + m[10][o], s12 = m[6][o] - m[10][o] - m[14][o];
    const float s03 = m[3][o] + m[7][o] + m[11][o], s13 = m[7][o] - m[11][o] - m[15][o];
    y00[o] = finish<kAct, kScale>(s00 + s01 + s02, scale, shift, o);
    y01[o] = finish<kAct, kScale>(s01 - s02 - s03, scale, shift, o);
    y10[o] = finish<kAct, kScale>(s10 + s11 + s12, scale, shift, o);
    y11[o] = finish<kAct, kScale>(s11 - s12 - s13, scale, shift, o);
  }
}

// ---- F(4x4, 3x3)
//
// Both transforms are separable: a 1-D transform down the columns of the tile into a buffer,
// then along its rows. Channels go in blocks of kBlock so the buffer stays in L1.

constexpr int64_t kBlock = 64;

// r_k = (B^T x)_k, k < 6, for 6-point columns x (n channels):
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
__attribute__((always_inline)) inline void input_1d4(const float* const x[6], float* const r[6], int64_t n) {
  const float *__restrict x0 = x[0], *__restrict x1 = x[1], *__restrict x2 = x[2];
  const float *__restrict x3 = x[3], *__restrict x4 = x[4], *__restrict x5 = x[5];
  float *__restrict r0 = r[0], *__restrict r1 = r[1], *__restrict r2 = r[2];
  float *__restrict r3 = r[3], *__restrict r4 = r[4], *__restrict r5 = r[5];
  for (int64_t c = 0; c < n; ++c) {
    const float a = x4[c] - 4.0f * x2[c], b = x3[c] - 4.0f * x1[c];  // rows 1, 2
    const float e = x4[c] - x2[c], f = 2.0f * (x3[c] - x1[c]);       // rows 3, 4
    r0[c] = 4.0f * x0[c] - 5.0f * x2[c] + x4[c];
    r1[c] = a + b;
    r2[c] = a - b;
    r3[c] = e + f;
    r4[c] = e - f;
    r5[c] = 4.0f * x1[c] - 5.0f * x3[c] + x5[c];
  }
}

// V = B^T d B for one tile: d[i*6+j] is input pixel (i, j) of the 6x6 tile (ci channels), and
// v + k*vstride receives position k of the transform.
OPF_SIMD_CLONES void winograd4_input_tile(const float* const d[36], int64_t ci, float* __restrict v,
                                          int64_t vstride) {
  alignas(64) float t[36 * kBlock];  // B^T d for one block of channels: t[(i*6+j)*kBlock + c]
  for (int64_t c0 = 0; c0 < ci; c0 += kBlock) {
    const int64_t n = std::min(kBlock, ci - c0);
    for (int j = 0; j < 6; ++j) {  // down column j
      const float* x[6];
      float* r[6];
      for (int i = 0; i < 6; ++i) {
        x[i] = d[i * 6 + j] + c0;
        r[i] = t + (i * 6 + j) * kBlock;
      }
      input_1d4(x, r, n);
    }
    for (int i = 0; i < 6; ++i) {  // along row i
      const float* x[6];
      float* r[6];
      for (int j = 0; j < 6; ++j) {
        x[j] = t + (i * 6 + j) * kBlock;
        r[j] = v + (i * 6 + j) * vstride + c0;
      }
      input_1d4(x, r, n);
    }
  }
}

// Y = A^T M A for one tile: m[k] is position k of the 36 products (co channels); y[r*4+s] is
// output pixel (r, s) of the 4x4 block, finished before the store.
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
template <int kAct, bool kScale>
__attribute__((always_inline)) inline void output_tile4(const float* const m[36], int64_t co, float* const y[16], const float* __restrict scale,
                         const float* __restrict shift) {
  alignas(64) float t[24 * kBlock];  // A^T M for one block of channels: t[(r*6+j)*kBlock + c]
  for (int64_t o0 = 0; o0 < co; o0 += kBlock) {
    const int64_t n = std::min(kBlock, co - o0);
    for (int j = 0; j < 6; ++j) {  // down column j
      const float *__restrict x0 = m[j] + o0, *__restrict x1 = m[6 + j] + o0, *__restrict x2 = m[12 + j] + o0;
      const float *__restrict x3 = m[18 + j] + o0, *__restrict x4 = m[24 + j] + o0, *__restrict x5 = m[30 + j] + o0;
      float *__restrict r0 = t + j * kBlock, *__restrict r1 = t + (6 + j) * kBlock;
      float *__restrict r2 = t + (12 + j) * kBlock, *__restrict r3 = t + (18 + j) * kBlock;
      for (int64_t c = 0; c < n; ++c) {
        const float a = x1[c] + x2[c], b = x1[c] - x2[c], p = x3[c] + x4[c], q = x3[c] - x4[c];
        r0[c] = x0[c] + a + p;
        r1[c] = b + 2.0f * q;
        r2[c] = a + 4.0f * p;
        r3[c] = b + 8.0f * q + x5[c];
      }
    }
    for (int r = 0; r < 4; ++r) {  // along row r, finished and stored
      const float *__restrict x0 = t + (r * 6) * kBlock, *__restrict x1 = x0 + kBlock, *__restrict x2 = x1 + kBlock;
      const float *__restrict x3 = x2 + kBlock, *__restrict x4 = x3 + kBlock, *__restrict x5 = x4 + kBlock;
      float *__restrict y0 = y[r * 4] + o0, *__restrict y1 = y[r * 4 + 1] + o0;
      float *__restrict y2 = y[r * 4 + 2] + o0, *__restrict y3 = y[r * 4 + 3] + o0;
      const float* sc = kScale ? scale + o0 : nullptr;
      const float* sh = kAct >= 0 ? shift + o0 : nullptr;
      for (int64_t c = 0; c < n; ++c) {
        const float a = x1[c] + x2[c], b = x1[c] - x2[c], p = x3[c] + x4[c], q = x3[c] - x4[c];
        y0[c] = finish<kAct, kScale>(x0[c] + a + p, sc, sh, c);
        y1[c] = finish<kAct, kScale>(b + 2.0f * q, sc, sh, c);
        y2[c] = finish<kAct, kScale>(a + 4.0f * p, sc, sh, c);
        y3[c] = finish<kAct, kScale>(b + 8.0f * q + x5[c], sc, sh, c);
      }
    }
  }
}

template <int kM, int kAct, bool kScale>
__attribute__((always_inline)) inline void output_tile(const float* const m[Winograd<kM>::kP], int64_t co, float* const y[kM * kM],
                        const float* scale, const float* shift) {
  if constexpr (kM == 2) {
    output_tile2<kAct, kScale>(m, co, y, scale, shift);
  } else {
    output_tile4<kAct, kScale>(m, co, y, scale, shift);
  }
}

// The output transform, finished by ep when given (the fused convolution's bias / batch norm
// and Relu/Relu6, while the values are in registers).
template <int kM>
OPF_SIMD_CLONES void winograd_output_tile(const float* const m[Winograd<kM>::kP], int64_t co,
                                          float* const y[kM * kM], const blas::ColumnEpilogue* ep) {
  if (ep == nullptr) return output_tile<kM, -1, false>(m, co, y, nullptr, nullptr);
  const float *sc = ep->scale, *sh = ep->shift;
  switch (ep->act * 2 + (sc != nullptr ? 1 : 0)) {
    case 0: return output_tile<kM, 0, false>(m, co, y, sc, sh);
    case 1: return output_tile<kM, 0, true>(m, co, y, sc, sh);
    case 2: return output_tile<kM, 1, false>(m, co, y, sc, sh);
    case 3: return output_tile<kM, 1, true>(m, co, y, sc, sh);
    case 4: return output_tile<kM, 2, false>(m, co, y, sc, sh);
    default: return output_tile<kM, 2, true>(m, co, y, sc, sh);
  }
}

template <int kM>
void winograd_input_tile(const float* const d[Winograd<kM>::kP], int64_t ci, float* v, int64_t vstride) {
  if constexpr (kM == 2) {
    winograd2_input_tile(d, ci, v, vstride);
  } else {
    winograd4_input_tile(d, ci, v, vstride);
  }
}

// post(pixels, n): the epilogue over n consecutive output pixels (NoPost: none).
struct NoPost {
  static constexpr bool kNone = true;
  template <typename C>
  void operator()(C*, int64_t) const {}
};

// Beyond this many bytes of transformed filter (kP * cin * cout floats: more than a core's L2
// holds), the tiles of a chunk are shared by the threads phase by phase instead of chunk by
// chunk, so each transformed filter matrix is read once per chunk rather than once per chunk
// per thread, and chunks are larger. Measured at batch 8 (chunk by chunk -> phase by phase):
// 7x7x512 -> 512 F(4x4) 3.7 -> 2.3 ms, F(2x2) 3.5 -> 2.8; 8x8x384 -> 384 F(2x2) 1.9 -> 1.5.
constexpr int64_t kWinogradSharedFilterBytes = 1 << 20;
constexpr int64_t kWinogradSharedChunkBytes = 8 << 20;

template <int kM, typename Post>
void winograd_forward(const float* in, const WinogradFilter& wf, float* out, const ConvGeom& g, const Post& post,
                      const blas::ColumnEpilogue* ep) {
  constexpr int kT = Winograd<kM>::kT, kP = Winograd<kM>::kP;
  const int64_t ci = g.cin, co = g.cout;
  const int64_t th = (g.oh + kM - 1) / kM, tw = (g.ow + kM - 1) / kM, tiles = g.n * th * tw;
  const std::vector<nn::RightOperand<float>>& uk = wf.uk;
  const std::vector<float> zeros(static_cast<size_t>(ci), 0.0f);
  // V = B^T d B for tiles [t0, t1), tile t at row t - t0 of each position's [chunk x ci] block.
  const auto input_tiles = [&](int64_t t0, int64_t t1, int64_t base, float* v, int64_t chunk) {
    const float* d[kP];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
      for (int i = 0; i < kT; ++i) {
        const int64_t ih = kM * ty - g.pt + i;
        for (int j = 0; j < kT; ++j) {
          const int64_t iw = kM * tx - g.pl + j;
          d[i * kT + j] = (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) ? zeros.data()
                                                                       : in + ((n * g.h + ih) * g.w + iw) * ci;
        }
      }
      winograd_input_tile<kM>(d, ci, v + (t - base) * ci, chunk * ci);
    }
  };
  // The element-wise products of positions [p0, p1) for nt tiles, as GEMMs over channels.
  const auto products = [&](int64_t p0, int64_t p1, int64_t nt, const float* v, float* m, int64_t chunk) {
    for (int64_t p = p0; p < p1; ++p) {
      uk[static_cast<size_t>(p)].gemm_into(nt, v + p * chunk * ci, ci, m + p * chunk * co, co);
    }
  };
  // Y = A^T M A for tiles [t0, t1), stored (through an edge buffer where the border cuts them).
  const auto output_tiles = [&](int64_t t0, int64_t t1, int64_t base, const float* m, int64_t chunk) {
    std::vector<float> edge(static_cast<size_t>(kM * kM * co));
    const float* mp[kP];
    float* y[kM * kM];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
      for (int p = 0; p < kP; ++p) mp[p] = m + p * chunk * co + (t - base) * co;
      const int64_t rows = std::min<int64_t>(kM, g.oh - kM * ty), cols = std::min<int64_t>(kM, g.ow - kM * tx);
      float* y0 = out + ((n * g.oh + kM * ty) * g.ow + kM * tx) * co;
      if (rows == kM && cols == kM) {
        for (int i = 0; i < kM; ++i)
          for (int j = 0; j < kM; ++j) y[i * kM + j] = y0 + (i * g.ow + j) * co;
        winograd_output_tile<kM>(mp, co, y, ep);
        if (ep == nullptr) {
          for (int i = 0; i < kM; ++i) post(y[i * kM], kM);
        }
        continue;
      }
      float* e = edge.data();
      for (int i = 0; i < kM * kM; ++i) y[i] = e + i * co;
      winograd_output_tile<kM>(mp, co, y, ep);
      if (ep == nullptr) post(e, kM * kM);
      for (int64_t i = 0; i < rows; ++i) std::copy(e + i * kM * co, e + (i * kM + cols) * co, y0 + i * g.ow * co);
    }
  };
  const int64_t tile_bytes = static_cast<int64_t>(sizeof(float)) * kP * (ci + co);
  if (static_cast<int64_t>(sizeof(float)) * kP * ci * co > kWinogradSharedFilterBytes) {
    // Large filter: each chunk's three phases split over the threads (tiles, then positions,
    // then tiles), so a transformed filter matrix is read once per chunk.
    const int64_t chunk = std::clamp<int64_t>(kWinogradSharedChunkBytes / tile_bytes, 8, tiles);
    std::vector<float> v(static_cast<size_t>(kP * chunk * ci)), m(static_cast<size_t>(kP * chunk * co));
    for (int64_t t0 = 0; t0 < tiles; t0 += chunk) {
      const int64_t t1 = std::min(tiles, t0 + chunk), nt = t1 - t0;
      parallel_for(nt, 1, [&](int64_t a, int64_t b) { input_tiles(t0 + a, t0 + b, t0, v.data(), chunk); });
      parallel_for(kP, 1, [&](int64_t a, int64_t b) { products(a, b, nt, v.data(), m.data(), chunk); });
      parallel_for(nt, 1, [&](int64_t a, int64_t b) { output_tiles(t0 + a, t0 + b, t0, m.data(), chunk); });
    }
    return;
  }
  // Small filter: chunks of tiles sized for a core's cache, chunk after chunk on each thread.
  const int64_t chunk = std::clamp<int64_t>(kWinogradChunkBytes / tile_bytes, 8, 256);
  const int64_t chunks = (tiles + chunk - 1) / chunk;
  parallel_for(chunks, 1, [&](int64_t k0, int64_t k1) {
    std::vector<float> v(static_cast<size_t>(kP * chunk * ci)), m(static_cast<size_t>(kP * chunk * co));
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t t0 = k * chunk, t1 = std::min(tiles, t0 + chunk);
      input_tiles(t0, t1, t0, v.data(), chunk);
      products(0, kP, t1 - t0, v.data(), m.data(), chunk);
      output_tiles(t0, t1, t0, m.data(), chunk);
    }
  });
}

// The tile size for a convolution that may take Winograd (0: it should not): F(4x4) or F(2x2)
// by the products each needs, 36 per 4x4 block against 16 per 2x2, each over the blocks that
// cover oh x ow (a 10x10 image takes 3x3 blocks of F(4x4) but 5x5 of F(2x2)). Every call transforms the whole
// filter when it is not a constant, so few blocks do not pay for it (measured with F(2x2): a
// 7x7x512 image, 16 blocks, 5.9 ms against 3.0 ms through im2col; 98 blocks of 14x14x256, 2.1
// against 3.1 ms).
int winograd_tile(const ConvGeom& g) {
  if (!(g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.cin >= 16 &&
        g.cout >= 16 && g.oh >= 2 && g.ow >= 2)) {
    return 0;
  }
  const auto blocks = [&](int64_t m) { return g.n * ((g.oh + m - 1) / m) * ((g.ow + m - 1) / m); };
  if (blocks(2) < kMinWinogradTiles) return 0;
  const int forced = g_winograd_tile.load(std::memory_order_relaxed);
  if (forced != 0) return forced;
  // F(4x4)'s transforms cost more per product: it wins where it needs at most 3/4 of F(2x2)'s
  // products (measured at batch 8: 10x10x128 -> 32, 0.21 ms against 0.18 with F(2x2); 14x14x256
  // -> 256, 2.1 against 2.2; 56x56x64 -> 64, 2.4 against 3.9).
  return 4 * 36 * blocks(4) <= 3 * 16 * blocks(2) ? 4 : 2;
}

template <typename C, typename Post = NoPost>
void conv_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post = Post(),
                  const Tensor* filter = nullptr) {
  const int64_t k = g.k();
  if (g.pixels() == 0 || g.cout == 0) return;
  if (k == 0) {
    std::fill(out, out + g.pixels() * g.cout, C(0));
    parallel_for(g.pixels(), std::max<int64_t>(1, cpu::kGrain / g.cout),
                 [&](int64_t p0, int64_t p1) { post(out + p0 * g.cout, p1 - p0); });
    return;
  }
  // A float32 bias / batch norm with no activation, Relu or Relu6 is applied by the GEMM as it
  // stores C (no second pass over the output, no cutting the product into cache-sized tiles).
  blas::ColumnEpilogue reg_ep;
  const blas::ColumnEpilogue* ep = nullptr;
  if constexpr (std::is_same_v<Post, nn::Epilogue<float>>) {
    if (post.as_column_epilogue(&reg_ep)) ep = &reg_ep;
  }
  if (g.is_pointwise()) {
    const std::shared_ptr<const nn::RightOperand<C>> fp = filter_operand(filter, filt, g);
    const nn::RightOperand<C>& f = *fp;  // packed once, shared by the tiles
    if (Post::kNone || ep != nullptr) {
      f.gemm_into(g.pixels(), in, k, out, g.cout, C(0), ep);
    } else {  // the same GEMM cut into row tiles, each finished by the epilogue while in cache
      const int64_t tp = std::max<int64_t>(48, kTileBytes / static_cast<int64_t>(sizeof(C) * (k + g.cout)));
      const int64_t tiles = (g.pixels() + tp - 1) / tp;
      const auto run_tiles = [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t p0 = t * tp, p1 = std::min(g.pixels(), p0 + tp);
          f.gemm_into(p1 - p0, in + p0 * k, k, out + p0 * g.cout, g.cout);
          post(out + p0 * g.cout, p1 - p0);
        }
      };
      if (tiles < 2 * num_threads()) {
        run_tiles(0, tiles);  // too few to share out: tile after tile, each GEMM split
      } else {
        parallel_for(tiles, 1, run_tiles);
      }
    }
    return;
  }
  if constexpr (std::is_same_v<C, float>) {
    if (use_direct(g)) {
      direct_forward(in, filt, out, g, post);
      return;
    }
    if (const int m = winograd_tile(g); m == 4) {
      winograd_forward<4>(in, *winograd_operand<4>(filter, filt, g), out, g, post, ep);
      return;
    } else if (m == 2) {
      winograd_forward<2>(in, *winograd_operand<2>(filter, filt, g), out, g, post, ep);
      return;
    }
  }
  const std::shared_ptr<const nn::RightOperand<C>> fp = filter_operand(filter, filt, g);
  const nn::RightOperand<C>& f = *fp;  // packed once, shared by the tiles
  for_tiles<C>(g, 0, g.pixels(), [&](int64_t p0, int64_t p1, C* col) {
    im2col(in, g, p0, p1, col);
    f.gemm_into(p1 - p0, col, k, out + p0 * g.cout, g.cout, C(0), ep);
    if (ep == nullptr) post(out + p0 * g.cout, p1 - p0);
  });
}

// dx = col2im(dy * filter^T), group by group (one group: the whole filter). Images are
// independent, so they are split over the threads.
template <typename C>
void conv_backprop_input(const C* dy, const C* filt, C* dx, const ConvGeom& g) {
  const ConvGeom s = group_slice(g);
  const int64_t k = s.k();
  std::fill(dx, dx + g.n * g.h * g.w * g.cin, C(0));
  if (g.pixels() == 0 || k == 0 || g.cout == 0) return;
  if (g.groups == 1 && g.is_pointwise()) {
    nn::gemm<C>(false, true, g.pixels(), k, g.cout, dy, g.cout, filt, g.cout, C(0), dx, k);
    return;
  }
  const int64_t per_image = g.oh * g.ow;
  const int64_t tp = tile_pixels(s, sizeof(C));
  const int64_t flops = per_image * k * g.cout;
  parallel_for(g.n, std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, flops)),
               [&](int64_t n0, int64_t n1) {
                 std::vector<C> col(static_cast<size_t>(std::min(tp, per_image) * k));
                 for (int64_t n = n0; n < n1; ++n) {
                   for (int64_t gi = 0; gi < g.groups; ++gi) {
                     for (int64_t p0 = n * per_image; p0 < (n + 1) * per_image; p0 += tp) {
                       const int64_t p1 = std::min((n + 1) * per_image, p0 + tp);
                       nn::gemm<C>(false, true, p1 - p0, k, s.cout, dy + p0 * g.cout + gi * s.cout, g.cout,
                                   filt + gi * s.cout, g.cout, C(0), col.data(), k);
                       col2im(col.data(), s, p0, p1, dx + gi * s.cin);
                     }
                   }
                 }
               });
}

// dfilter = sum over tiles of im2col(x)^T * dy, group by group; each thread accumulates its own
// partial sum.
template <typename C>
void conv_backprop_filter(const C* in, const C* dy, C* df, const ConvGeom& g) {
  const ConvGeom s = group_slice(g);
  const int64_t k = s.k();
  std::fill(df, df + k * g.cout, C(0));
  if (g.pixels() == 0 || k == 0 || g.cout == 0) return;
  if (g.groups == 1 && g.is_pointwise()) {
    nn::gemm<C>(true, false, k, g.cout, g.pixels(), in, k, dy, g.cout, C(0), df, g.cout);
    return;
  }
  std::mutex mu;
  const int64_t tp = tile_pixels(s, sizeof(C));
  const int64_t tiles = (g.pixels() + tp - 1) / tp;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, tp * k * g.cout));
  parallel_for(tiles, grain, [&](int64_t t0, int64_t t1) {
    std::vector<C> col(static_cast<size_t>(tp * k)), part(static_cast<size_t>(k * g.cout), C(0));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p0 = t * tp, p1 = std::min(g.pixels(), p0 + tp);
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        im2col(in + gi * s.cin, s, p0, p1, col.data());
        nn::gemm<C>(true, false, k, s.cout, p1 - p0, col.data(), k, dy + p0 * g.cout + gi * s.cout, g.cout,
                    C(1), part.data() + gi * s.cout, g.cout);
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < part.size(); ++i) df[i] += part[i];
  });
}

// ---------------------------------------------------------------------------- grouped convolution
//
// Group gi convolves input channels [gi * cin, (gi + 1) * cin) with filter columns (and output
// channels) [gi * cout, (gi + 1) * cout), cin and cout per group: the im2col + GEMM path of an
// ungrouped convolution run once per group, on strided slices of the input, filter and output
// (the GEMMs' leading dimensions are the whole tensors' channel counts). The two gradients
// above loop over the groups themselves; the forward pass has its own loop so that the
// ungrouped forward keeps its Winograd and pointwise paths.

template <typename C, typename Post = NoPost>
void grouped_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post = Post()) {
  const ConvGeom s = group_slice(g);
  const int64_t k = s.k();
  if (g.pixels() == 0 || g.cout == 0) return;
  if (k == 0) {
    std::fill(out, out + g.pixels() * g.cout, C(0));
  } else {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const C* gin = in + gi * s.cin;
      const C* gf = filt + gi * s.cout;
      C* gout = out + gi * s.cout;
      for_tiles<C>(s, 0, g.pixels(), [&](int64_t p0, int64_t p1, C* col) {
        im2col(gin, s, p0, p1, col);
        nn::gemm<C>(false, false, p1 - p0, s.cout, k, col, k, gf, g.cout, C(0), gout + p0 * g.cout, g.cout);
      });
    }
  }
  if constexpr (!Post::kNone) {
    parallel_for(g.pixels(), std::max<int64_t>(1, cpu::kGrain / g.cout),
                 [&](int64_t p0, int64_t p1) { post(out + p0 * g.cout, p1 - p0); });
  }
}

// The filter in compute type C (borrowed when T == C).
template <typename T, typename C>
struct Flat {
  explicit Flat(const Tensor& t) {
    if constexpr (std::is_same_v<T, C>) {
      ptr = t.data<T>();
    } else {
      own.resize(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < own.size(); ++i) own[i] = static_cast<C>(t.data<T>()[i]);
      ptr = own.data();
    }
  }
  const C* ptr = nullptr;
  std::vector<C> own;
};

template <typename T>
using conv_t = std::conditional_t<std::is_integral_v<T>, T, nn::acc_t<T>>;

Status read_sizes(const std::string& op, const char* what, const Tensor& t, Shape* out) {
  std::vector<int64_t> v;
  OPF_RETURN_IF_ERROR(read_int_vector(t, &v));
  if (v.size() != 4) {
    return errors::InvalidArgument(op, ": ", what, " must have 4 elements, got ", v.size());
  }
  for (int64_t d : v) {
    if (d < 0) return errors::InvalidArgument(op, ": ", what, " must be non-negative, got ", d);
  }
  *out = Shape(std::move(v));
  return Status::OK();
}

Status check_out_backprop(const std::string& op, const ConvGeom& g, const Layout& l,
                          const Shape& dy) {
  Shape want = nn::shape4(l, g.n, g.oh, g.ow, g.cout);
  if (!(dy == want)) {
    return errors::InvalidArgument(op, ": out_backprop has shape ", dy.to_string(),
                                   " but the convolution's output shape is ", want.to_string());
  }
  return Status::OK();
}

// The filter tensor when the kernel multiplies its own float32 data (so what is derived from
// it may be cached with it), else null.
template <typename T, typename C>
const Tensor* own_filter(const Tensor& filter, const C* ptr) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
    if (filter.on_host() && static_cast<const void*>(ptr) == filter.raw_data()) return &filter;
  }
  return nullptr;
}

template <typename T>
Status Conv2DCpu(ops::Conv2DArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv_geom("Conv2D", a.input.shape(), a.filter.shape(), l, a.strides,
                                a.dilations, a.padding, a.explicit_paddings, &g));
  nn::Nhwc<T, C> in(a.input, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> out(a.output, l);
  if (g.groups > 1) {
    grouped_forward<C>(in.data(), filt.ptr, out.data(), g);
  } else {
    conv_forward<C>(in.data(), filt.ptr, out.data(), g, NoPost(), own_filter<T, C>(a.filter, filt.ptr));
  }
  out.finish();
  return Status::OK();
}

// _FusedConv2D: Conv2D with the BiasAdd/FusedBatchNorm + activation epilogue per tile.
template <typename T>
Status FusedConv2DCpu(ops::_FusedConv2DArgs& a) {
  using C = nn::acc_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv_geom("_FusedConv2D", a.input.shape(), a.filter.shape(), l, a.strides,
                                a.dilations, a.padding, a.explicit_paddings, &g));
  if (a.host_args.size != 0) {
    return errors::Unimplemented("_FusedConv2D: host_args (quantized variants) are not supported");
  }
  nn::Epilogue<C> post;
  OPF_RETURN_IF_ERROR(nn::Epilogue<C>::template make<T>("_FusedConv2D", a.fused_ops, a.args, g.cout,
                                                        a.epsilon, a.leakyrelu_alpha, &post));
  nn::Nhwc<T, C> in(a.input, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> out(a.output, l);
  if (g.groups > 1) {
    grouped_forward<C>(in.data(), filt.ptr, out.data(), g, post);
  } else {
    conv_forward<C>(in.data(), filt.ptr, out.data(), g, post, own_filter<T, C>(a.filter, filt.ptr));
  }
  out.finish();
  return Status::OK();
}

template <typename T>
Status Conv2DBackpropInputCpu(ops::Conv2DBackpropInputArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  Shape input;
  OPF_RETURN_IF_ERROR(read_sizes("Conv2DBackpropInput", "input_sizes", a.input_sizes, &input));
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv_geom("Conv2DBackpropInput", input, a.filter.shape(), l, a.strides,
                                a.dilations, a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_out_backprop("Conv2DBackpropInput", g, l, a.out_backprop.shape()));
  nn::Nhwc<T, C> dy(a.out_backprop, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> dx(a.output, l);
  conv_backprop_input<C>(dy.data(), filt.ptr, dx.data(), g);
  dx.finish();
  return Status::OK();
}

template <typename T>
Status Conv2DBackpropFilterCpu(ops::Conv2DBackpropFilterArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  Shape fshape;
  OPF_RETURN_IF_ERROR(read_sizes("Conv2DBackpropFilter", "filter_sizes", a.filter_sizes, &fshape));
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv_geom("Conv2DBackpropFilter", a.input.shape(), fshape, l, a.strides,
                                a.dilations, a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_out_backprop("Conv2DBackpropFilter", g, l, a.out_backprop.shape()));
  nn::Nhwc<T, C> in(a.input, l);
  nn::Nhwc<T, C> dy(a.out_backprop, l);
  T* out = a.output.data<T>();
  if constexpr (std::is_same_v<T, C>) {
    conv_backprop_filter<C>(in.data(), dy.data(), out, g);
  } else {
    std::vector<C> df(static_cast<size_t>(a.output.num_elements()));
    conv_backprop_filter<C>(in.data(), dy.data(), df.data(), g);
    for (size_t i = 0; i < df.size(); ++i) out[i] = static_cast<T>(df[i]);
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------- shape functions

Status Conv2DShape(ShapeContext& c) {
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  const Shape& in = c.input_shape(0);
  const Shape& f = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", f, 4));
  const int64_t kh = f.unknown_rank() ? 1 : f.dim(0), kw = f.unknown_rank() ? 1 : f.dim(1);
  nn::Window2D w;
  w.h.out = w.w.out = -1;
  w.n = w.c = -1;
  OPF_RETURN_IF_ERROR(nn::window2d(c.op().name, in, l, kh < 0 ? 1 : kh, kw < 0 ? 1 : kw,
                                   nn::attr(c, "strides").list_i, nn::attr(c, "dilations").list_i,
                                   nn::attr(c, "padding").s, nn::attr(c, "explicit_paddings").list_i, &w));
  if (kh < 0) w.h.out = -1;
  if (kw < 0) w.w.out = -1;
  const int64_t cout = f.unknown_rank() ? -1 : f.dim(3);
  if (!f.unknown_rank() && w.c >= 0 && f.dim(2) >= 0) {
    int64_t groups = 1;
    OPF_RETURN_IF_ERROR(nn::conv_groups(c.op().name, w.c, f.dim(2), cout < 0 ? 0 : cout, &groups));
  }
  c.set_output(0, nn::shape4(l, w.n, w.h.out, w.w.out, cout));
  return Status::OK();
}

// Conv2DBackpropInput / Conv2DBackpropFilter: the shape held by input_sizes / filter_sizes.
Status SizesShape(ShapeContext& c, int arg) {
  const Tensor* v = c.input_value(arg);
  if (v == nullptr) {
    c.set_output(0, Shape({-1, -1, -1, -1}));
    return Status::OK();
  }
  Shape s;
  OPF_RETURN_IF_ERROR(read_sizes(c.op().name, arg == 0 ? "input_sizes" : "filter_sizes", *v, &s));
  c.set_output(0, std::move(s));
  return Status::OK();
}

[[maybe_unused]] const bool conv_shapes_registered = [] {
  shape_fns::register_custom("Conv2D", Conv2DShape);
  shape_fns::register_custom("_FusedConv2D", Conv2DShape);
  shape_fns::register_custom("Conv2DBackpropInput", [](ShapeContext& c) { return SizesShape(c, 0); });
  shape_fns::register_custom("Conv2DBackpropFilter", [](ShapeContext& c) { return SizesShape(c, 1); });
  return true;
}();

}  // namespace

OPFORGE_REGISTER_KERNEL(Conv2D, CPU, Conv2DCpu, bfloat16, half, float, double, int32_t)
OPFORGE_REGISTER_KERNEL(_FusedConv2D, CPU, FusedConv2DCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(Conv2DBackpropInput, CPU, Conv2DBackpropInputCpu, bfloat16, half, float,
                        double, int32_t)
OPFORGE_REGISTER_KERNEL(Conv2DBackpropFilter, CPU, Conv2DBackpropFilterCpu, bfloat16, half, float,
                        double)

namespace nn {

int winograd_tile_setting() { return g_winograd_tile.load(); }

int set_winograd_tile(int m) {
  if (m == 0 || m == 2 || m == 4) g_winograd_tile.store(m);
  return g_winograd_tile.load();
}

}  // namespace nn
}  // namespace opforge
