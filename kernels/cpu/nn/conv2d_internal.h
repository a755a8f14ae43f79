// Conv2D's pieces shared by its algorithms (private to kernels/cpu/nn/conv2d*.cc): the geometry,
// the patch matrix (im2col / col2im) over tiles of output pixels, and the entry point of each
// algorithm. Everything runs in NHWC; the kernels in conv2d.cc convert NCHW on the way.
//
//   conv2d.cc                 the kernels and their registration; picks the algorithm
//   conv2d_im2col.cc          im2col + GEMM (pointwise: one GEMM), grouped convolution
//   conv2d_direct.cc          the direct AVX-512 kernel for few input channels
//   conv2d_winograd.cc        Winograd F(2x2, 3x3) and F(4x4, 3x3): filter transform, driver
//   conv2d_winograd_tiles.cc  Winograd's per-tile input and output transforms
//   conv2d_backprop.cc        Conv2DBackpropInput / Conv2DBackpropFilter
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"
#include "src/blas.h"
#include "opforge/tensor.h"

namespace opforge {
namespace conv2d {

using nn::Layout;

// Bytes of patch matrix per tile: about half of a typical L2.
constexpr int64_t kTileBytes = 256 * 1024;
constexpr int64_t kMinTilePixels = 128;
constexpr int64_t kWholeImageBytes = 4 << 20;

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
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
                 const std::vector<int64_t>& explicit_paddings, ConvGeom* g);

// One group of a grouped convolution: cin / cout of that group, pixels still cs channels apart
// (the group's input, filter and output start at channel gi * cin, gi * cout of the whole).
inline ConvGeom group_slice(const ConvGeom& g) {
  ConvGeom s = g;
  s.cin = g.cin / g.groups;
  s.cout = g.cout / g.groups;
  s.groups = 1;
  return s;
}

// post(pixels, n): the epilogue over n consecutive output pixels (NoPost: none).
struct NoPost {
  static constexpr bool kNone = true;
  template <typename C>
  void operator()(C*, int64_t) const {}
};

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
inline int64_t tile_pixels(const ConvGeom& g, size_t elem) {
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

// ---- the algorithms (C: the compute type, float, double or int32_t; Post: NoPost or the fused
// convolution's nn::Epilogue<C>). `filter` is the filter tensor when filt is its own float32
// data (what is derived from a constant filter is cached with it), else null.

// im2col + GEMM over tiles of output pixels (a pointwise convolution: one GEMM over the input);
// ep: the epilogue the GEMM applies as it stores (then post is not called).
template <typename C, typename Post>
void im2col_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post, const Tensor* filter,
                    const blas::ColumnEpilogue* ep);
// A grouped convolution (groups > 1): im2col + GEMM once per group.
template <typename C, typename Post>
void grouped_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post);

// A float32 grouped convolution with q = 2, 4, 8 or 16 input and output channels per group and
// channels a multiple of 16, on AVX-512 (conv2d_grouped_avx512.cc): where it applies, and the
// kernel, which calls post(row, pixels) on each output row as it is done (when post is set).
bool grouped_avx512_applies(const ConvGeom& g);
void grouped_avx512_forward(const float* in, const float* filt, float* out, const ConvGeom& g,
                            const std::function<void(float*, int64_t)>& post);

// Whether the direct AVX-512 kernel takes this float32 convolution.
bool use_direct(const ConvGeom& g);
template <typename Post>
void direct_forward(const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post);

// Whether the row-gathered AVX-512 product (conv2d_gather.cc) takes this float32 convolution,
// and that path: no patch matrix.
bool use_gather(const ConvGeom& g);
template <typename Post>
void gather_forward(const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post,
                    const Tensor* filter, const blas::ColumnEpilogue* ep);
// Conv2DBackpropFilter the same way (use_gather_filter(g) says where: also filters with few taps).
bool use_gather_filter(const ConvGeom& g);
void gather_backprop_filter(const float* in, const float* dy, float* df, const ConvGeom& g);

// The Winograd tile for this float32 convolution: 4 or 2, or 0 where Winograd should not run.
int winograd_tile(const ConvGeom& g);
// Winograd F(m x m, 3x3), m = winograd_tile(g).
template <typename Post>
void winograd_forward(int m, const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post,
                      const Tensor* filter, const blas::ColumnEpilogue* ep);

// Winograd's per-tile transforms (conv2d_winograd_tiles.cc): V = B^T d B of the (m+2) x (m+2)
// input tile d (pixel pointers, ci channels each) into v + k * vstride for each position k, and
// Y = A^T M A of the products m (co channels) into the m x m output pixels y, finished by ep
// (the fused convolution's bias / batch norm and Relu/Relu6) when given.
void winograd2_input_tile(const float* const d[16], int64_t ci, float* __restrict v, int64_t vstride);
void winograd4_input_tile(const float* const d[36], int64_t ci, float* __restrict v, int64_t vstride);
void winograd2_output_tile(const float* const m[16], int64_t co, float* const y[4], const blas::ColumnEpilogue* ep);
void winograd4_output_tile(const float* const m[36], int64_t co, float* const y[16], const blas::ColumnEpilogue* ep);

template <typename C>
void conv_backprop_input(const C* dy, const C* filt, C* dx, const ConvGeom& g);
template <typename C>
void conv_backprop_filter(const C* in, const C* dy, C* df, const ConvGeom& g);

}  // namespace conv2d
}  // namespace opforge
