// Conv2D and its gradients Conv2DBackpropInput / Conv2DBackpropFilter.
//
// Everything runs in NHWC (NCHW tensors are converted on the way in and out). The forward pass
// is im2col + GEMM over tiles of output pixels: each tile's patch matrix is sized to stay in
// cache (not a whole-image buffer) and multiplied by the [KH*KW*Cin, Cout] filter (blas.h);
// tiles are spread over the runtime's threads, each calling a single-threaded GEMM (a GEMM
// inside a parallel region runs inline). A 1x1 convolution with stride 1 and no padding is one
// GEMM over the input; float32 3x3 stride-1 convolutions over enough channels and tiles use
// Winograd F(2x2, 3x3); float32 convolutions over at most 16 input channels run the direct
// AVX-512 kernel (conv_direct_avx512.h) where the CPU has it. float16/bfloat16 compute in
// float32, int32 with a wrapping integer GEMM.
//
// _FusedConv2D (Grappler's Conv2D + BiasAdd/FusedBatchNorm + activation) runs the same code
// with its epilogue (fused_epilogue.h): a bias / batch norm with no activation, Relu or Relu6
// applied in registers by the GEMM or the Winograd output transform (blas::ColumnEpilogue),
// others on each tile of output right after it is computed, while it is in cache.
#include <algorithm>
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

// The number of groups of a convolution: TensorFlow allows an input depth that is a multiple of
// the filter's in_channels, the output channels then split evenly over the groups.
Status conv_groups(const std::string& op, int64_t in_depth, int64_t filter_depth, int64_t out_depth,
                   int64_t* groups) {
  *groups = 1;
  if (filter_depth == 0) {  // TensorFlow's Conv2D refuses a convolution over no channels
    return errors::InvalidArgument(op, ": filter depth must be strictly positive, got 0");
  }
  if (in_depth == filter_depth) return Status::OK();
  if (filter_depth <= 0 || in_depth % filter_depth != 0) {
    return errors::InvalidArgument(op, ": input depth must be evenly divisible by filter depth: ", in_depth,
                                   " vs ", filter_depth);
  }
  *groups = in_depth / filter_depth;
  if (out_depth % *groups != 0) {
    return errors::InvalidArgument(op, ": output depth must be evenly divisible by number of groups: ",
                                   out_depth, " vs ", *groups);
  }
  return Status::OK();
}

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
  OPF_RETURN_IF_ERROR(conv_groups(op, w.c, filter.dim(2), filter.dim(3), &groups));
  *g = ConvGeom{w.n, w.h.in, w.w.in, w.c, filter.dim(0), filter.dim(1), filter.dim(3),
                w.h.out, w.w.out, w.h.s, w.w.s, w.h.d, w.w.d, w.h.pad_before, w.w.pad_before};
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


// ---------------------------------------------------------------------------- Winograd F(2x2, 3x3)
//
// For 3x3 filters with stride 1 and no dilation (float32, enough channels to pay for the
// transforms): each 2x2 block of outputs comes from a 4x4 input tile through
//   Y = A^T [ (G g G^T) (.) (B^T d B) ] A,
// so the 36 multiplies per output of the direct form become 16 per 2x2 block (2.25x fewer).
// The element-wise product over channels is 16 GEMMs [tiles x Cin] x [Cin x Cout], run on
// cache-sized chunks of tiles, chunks split over the threads.

constexpr int64_t kWinogradChunkBytes = 2048 * 1024;

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

bool use_winograd(const ConvGeom& g) {
  if (!(g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 && g.cin >= 16 &&
        g.cout >= 16 && g.oh >= 2 && g.ow >= 2)) {
    return false;
  }
  // Every call transforms the whole filter (16 * cin * cout values): with few 2x2 output
  // tiles that costs more than Winograd saves (measured: a 7x7x512 image, 16 tiles, 5.9 ms
  // against 3.0 ms through im2col; 98 tiles of 14x14x256, 2.1 against 3.1 ms).
  const int64_t tiles = g.n * ((g.oh + 1) / 2) * ((g.ow + 1) / 2);
  return tiles >= kMinWinogradTiles;
}

// U[k][cin][cout] = (G g G^T)[k] for the 16 positions k of the 4x4 transformed filter.
std::vector<float> winograd_filter(const float* filt, const ConvGeom& g) {
  const int64_t ci = g.cin, co = g.cout, plane = ci * co;
  std::vector<float> u(static_cast<size_t>(16 * plane));
  parallel_for(ci, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, co)), [&](int64_t c0, int64_t c1) {
    std::vector<float> t(static_cast<size_t>(12 * co));  // G g: 4 rows x 3 cols, per cout
    for (int64_t c = c0; c < c1; ++c) {
      const auto w = [&](int i, int j) { return filt + ((i * 3 + j) * ci + c) * co; };
      for (int j = 0; j < 3; ++j) {
        float* t0 = &t[static_cast<size_t>((0 * 3 + j) * co)];
        float* t1 = &t[static_cast<size_t>((1 * 3 + j) * co)];
        float* t2 = &t[static_cast<size_t>((2 * 3 + j) * co)];
        float* t3 = &t[static_cast<size_t>((3 * 3 + j) * co)];
        const float *g0 = w(0, j), *g1 = w(1, j), *g2 = w(2, j);
        for (int64_t o = 0; o < co; ++o) {
          t0[o] = g0[o];
          t1[o] = 0.5f * (g0[o] + g1[o] + g2[o]);
          t2[o] = 0.5f * (g0[o] - g1[o] + g2[o]);
          t3[o] = g2[o];
        }
      }
      for (int i = 0; i < 4; ++i) {
        const float *a = &t[static_cast<size_t>((i * 3 + 0) * co)], *b = &t[static_cast<size_t>((i * 3 + 1) * co)],
                    *d = &t[static_cast<size_t>((i * 3 + 2) * co)];
        float* u0 = &u[static_cast<size_t>((i * 4 + 0) * plane + c * co)];
        float* u1 = &u[static_cast<size_t>((i * 4 + 1) * plane + c * co)];
        float* u2 = &u[static_cast<size_t>((i * 4 + 2) * plane + c * co)];
        float* u3 = &u[static_cast<size_t>((i * 4 + 3) * plane + c * co)];
        for (int64_t o = 0; o < co; ++o) {
          u0[o] = a[o];
          u1[o] = 0.5f * (a[o] + b[o] + d[o]);
          u2[o] = 0.5f * (a[o] - b[o] + d[o]);
          u3[o] = d[o];
        }
      }
    }
  });
  return u;
}

// The transformed filter, packed for the 16 GEMMs (kept across runs for a constant filter).
struct WinogradFilter {
  WinogradFilter(const float* filt, const ConvGeom& g) : u(winograd_filter(filt, g)) {
    const int64_t plane = g.cin * g.cout;
    uk.reserve(16);
    for (int p = 0; p < 16; ++p) uk.emplace_back(&u[static_cast<size_t>(p * plane)], g.cout, g.cin, g.cout);
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

std::shared_ptr<const WinogradFilter> winograd_operand(const Tensor* filter, const float* filt, const ConvGeom& g) {
  const auto make = [&] { return std::make_shared<const WinogradFilter>(filt, g); };
  if (filter == nullptr) return make();
  return derived_from_constant<WinogradFilter>(
      *filter, "conv-winograd " + std::to_string(g.cin) + "x" + std::to_string(g.cout),
      static_cast<size_t>(32 * g.cin * g.cout) * sizeof(float), make);
}

// The per-tile transforms work across channels, so each loop below is plain arithmetic over
// contiguous rows: written with restrict-qualified outputs they vectorize (OPF_SIMD_CLONES adds
// an AVX2 build picked at load time).

// V = B^T d B for one tile: d[i*4+j] is input pixel (i, j) of the 4x4 tile (ci channels), and
// v + k*vstride receives position k of the transform.
OPF_SIMD_CLONES void winograd_input_tile(const float* const d[16], int64_t ci, float* __restrict v,
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

// Y = A^T M A for one tile: m[k] is position k of the 16 products (co channels); y[r*2+s] is
// output pixel (r, s) of the 2x2 block. kAct < 0: no epilogue; else act(y * scale + shift) per
// channel (kAct 0 none, 1 Relu, 2 Relu6; scale null: 1), applied before the store.
template <int kAct, bool kScale>
inline void output_tile(const float* const m[16], int64_t co, float* __restrict y00, float* __restrict y01,
                        float* __restrict y10, float* __restrict y11, const float* __restrict scale,
                        const float* __restrict shift) {
  auto fin = [&](float v, int64_t o) {
    if (kAct < 0) return v;
    v = kScale ? v * scale[o] + shift[o] : v + shift[o];
    if (kAct >= 1) v = v < 0.0f ? 0.0f : v;
    if (kAct == 2) v = v > 6.0f ? 6.0f : v;
    return v;
  };
  for (int64_t o = 0; o < co; ++o) {
    // rows of A^T M: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (per column j)
    const float s00 = m[0][o] + m[4][o] + m[8][o], s10 = m[4][o] - m[8][o] - m[12][o];
    const float s01 = m[1][o] + m[5][o] + m[9][o], s11 = m[5][o] - m[9][o] - m[13][o];
    const float s02 = m[2][o] + m[6][o] + m[10][o], s12 = m[6][o] - m[10][o] - m[14][o];
    const float s03 = m[3][o] + m[7][o] + m[11][o], s13 = m[7][o] - m[11][o] - m[15][o];
    y00[o] = fin(s00 + s01 + s02, o);
    y01[o] = fin(s01 - s02 - s03, o);
    y10[o] = fin(s10 + s11 + s12, o);
    y11[o] = fin(s11 - s12 - s13, o);
  }
}

// The output transform, finished by ep when given (the fused convolution's bias / batch norm
// and Relu/Relu6, while the values are in registers; before, the epilogue was a call per pair
// of output pixels).
OPF_SIMD_CLONES void winograd_output_tile(const float* const m[16], int64_t co, float* y00, float* y01, float* y10,
                                          float* y11, const blas::ColumnEpilogue* ep) {
  if (ep == nullptr) return output_tile<-1, false>(m, co, y00, y01, y10, y11, nullptr, nullptr);
  const float *sc = ep->scale, *sh = ep->shift;
  switch (ep->act * 2 + (sc != nullptr ? 1 : 0)) {
    case 0: return output_tile<0, false>(m, co, y00, y01, y10, y11, sc, sh);
    case 1: return output_tile<0, true>(m, co, y00, y01, y10, y11, sc, sh);
    case 2: return output_tile<1, false>(m, co, y00, y01, y10, y11, sc, sh);
    case 3: return output_tile<1, true>(m, co, y00, y01, y10, y11, sc, sh);
    case 4: return output_tile<2, false>(m, co, y00, y01, y10, y11, sc, sh);
    default: return output_tile<2, true>(m, co, y00, y01, y10, y11, sc, sh);
  }
}

// post(pixels, n): the epilogue over n consecutive output pixels (NoPost: none).
struct NoPost {
  static constexpr bool kNone = true;
  template <typename C>
  void operator()(C*, int64_t) const {}
};

template <typename Post>
void winograd_forward(const float* in, const WinogradFilter& wf, float* out, const ConvGeom& g, const Post& post,
                      const blas::ColumnEpilogue* ep) {
  const int64_t ci = g.cin, co = g.cout;
  const int64_t th = (g.oh + 1) / 2, tw = (g.ow + 1) / 2, tiles = g.n * th * tw;
  const std::vector<nn::RightOperand<float>>& uk = wf.uk;
  const int64_t chunk = std::clamp<int64_t>(kWinogradChunkBytes / (64 * (ci + co)), 8, 256);
  const int64_t chunks = (tiles + chunk - 1) / chunk;
  const std::vector<float> zeros(static_cast<size_t>(ci), 0.0f);
  parallel_for(chunks, 1, [&](int64_t k0, int64_t k1) {
    std::vector<float> v(static_cast<size_t>(16 * chunk * ci)), m(static_cast<size_t>(16 * chunk * co));
    std::vector<float> edge(static_cast<size_t>(4 * co));  // a 2x2 block cut by the bottom/right border
    const float* d[16];
    const float* mp[16];
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t t0 = k * chunk, t1 = std::min(tiles, t0 + chunk), nt = t1 - t0;
      for (int64_t t = t0; t < t1; ++t) {  // input transform: V = B^T d B
        const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
        for (int i = 0; i < 4; ++i) {
          const int64_t ih = 2 * ty - g.pt + i;
          for (int j = 0; j < 4; ++j) {
            const int64_t iw = 2 * tx - g.pl + j;
            d[i * 4 + j] = (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w)
                               ? zeros.data()
                               : in + ((n * g.h + ih) * g.w + iw) * ci;
          }
        }
        winograd_input_tile(d, ci, &v[static_cast<size_t>((t - t0) * ci)], chunk * ci);
      }
      for (int p = 0; p < 16; ++p) {  // the element-wise products, as GEMMs over channels
        uk[static_cast<size_t>(p)].gemm_into(nt, &v[static_cast<size_t>(p * chunk * ci)], ci,
                                             &m[static_cast<size_t>(p * chunk * co)], co);
      }
      for (int64_t t = t0; t < t1; ++t) {  // output transform: Y = A^T M A
        const int64_t n = t / (th * tw), r = t % (th * tw), ty = r / tw, tx = r % tw;
        for (int p = 0; p < 16; ++p) mp[p] = &m[static_cast<size_t>(p * chunk * co + (t - t0) * co)];
        float* y00 = out + ((n * g.oh + 2 * ty) * g.ow + 2 * tx) * co;
        const bool right = 2 * tx + 1 < g.ow, down = 2 * ty + 1 < g.oh;
        if (right && down) {
          winograd_output_tile(mp, co, y00, y00 + co, y00 + g.ow * co, y00 + (g.ow + 1) * co, ep);
          if (ep == nullptr) {
            post(y00, 2);
            post(y00 + g.ow * co, 2);
          }
          continue;
        }
        float* e = edge.data();
        winograd_output_tile(mp, co, e, e + co, e + 2 * co, e + 3 * co, ep);
        if (ep == nullptr) post(e, 4);
        std::copy(e, e + co, y00);
        if (right) std::copy(e + co, e + 2 * co, y00 + co);
        if (down) std::copy(e + 2 * co, e + 3 * co, y00 + g.ow * co);
      }
    }
  });
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
    if (use_winograd(g)) {
      winograd_forward(in, *winograd_operand(filter, filt, g), out, g, post, ep);
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
    OPF_RETURN_IF_ERROR(conv_groups(c.op().name, w.c, f.dim(2), cout < 0 ? 0 : cout, &groups));
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

}  // namespace opforge
