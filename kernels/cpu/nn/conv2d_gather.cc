// Conv2D as a row-gathered GEMM (sgemm_avx512_gather.cc): no patch matrix. Each output pixel's
// row of the product is kh runs of kw * cin input values (one per filter row; kh * kw runs of
// cin with a dilated width) read where they lie in the input, or in a zero-padded copy of it
// when the convolution pads. The copy is the input's size; im2col writes and reads kh * kw times
// that, which on a 5x5 convolution over 32 channels was a fifth of the convolution's time.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cpu/nn/conv2d_internal.h"
#include "src/constant_cache.h"
#include "src/cpu_kernels.h"
#include "src/sgemm_avx512.h"

namespace opforge {
namespace conv2d {

namespace {

// n floats of scratch as a tensor from the runtime's allocator (64-byte aligned: the packed
// filter's vector loads); std::bad_alloc when the memory cannot be had, as the GEMM's buffers.
Tensor scratch_floats(int64_t n) {
  Tensor t;
  if (!Tensor::Allocate(DType::kFloat, Shape({std::max<int64_t>(n, 1)}), &t).ok()) throw std::bad_alloc();
  return t;
}

// The filter packed for the gathered product, once per constant filter (inference), else per
// call (a training step's filter changes every step; packing it is k * cout copies).
std::shared_ptr<const Tensor> packed_filter(const Tensor* filter, const float* filt, const ConvGeom& g) {
  const auto make = [&] {
    auto p = std::make_shared<Tensor>(scratch_floats(blas::gather_packed_b_size(g.k(), g.cout)));
    blas::pack_b_gather(filt, g.cout, g.k(), g.cout, p->data<float>());
    return p;
  };
  if (filter == nullptr) return make();
  return derived_from_constant<Tensor>(*filter, "conv-gather " + std::to_string(g.k()) + "x" + std::to_string(g.cout),
                                       static_cast<size_t>(blas::gather_packed_b_size(g.k(), g.cout)) * sizeof(float),
                                       make);
}

// Output pixels per call of the gathered product within a thread's share: its rows of C (and
// the epilogue after them) stay in cache.
constexpr int64_t kBlockPixels = 96;
// Output pixels per block of the filter gradient: a block's dy (256 x cout) and input rows stay
// in L2 while every block of dfilter runs down them.
constexpr int64_t kFilterBlockPixels = 256;

std::atomic<bool> g_gather{true};

// The input as the gathered products read it: base (the input itself, or a zero-padded copy
// cropped to what the output reads, held here), H x W pixels of cin per image, and each output
// pixel's runs: run t at (its top-left tap) + off[t], len values each.
struct GatheredInput {
  Tensor padded;  // (empty unless the convolution pads)
  const float* base = nullptr;
  int64_t H = 0, W = 0, len = 0;
  std::vector<int64_t> off;

  GatheredInput(const float* in, const ConvGeom& g) {
    // The input extent the output reads, in padded coordinates (pixel (0, 0)'s top-left tap at 0).
    const int64_t hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1, wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    const bool pads = g.pt > 0 || g.pl > 0 || hp > g.h || wp > g.w;
    const int64_t c = g.cin;
    H = pads ? hp : g.h;
    W = pads ? wp : g.w;
    base = in;
    if (pads) {
      padded = scratch_floats(g.n * H * W * c);
      float* pb = padded.data<float>();
      const int64_t x0 = std::max<int64_t>(0, g.pl), x1 = std::min(W, g.pl + g.w);  // columns from the input
      parallel_for(g.n * H, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, W * c)),
                   [&](int64_t r0, int64_t r1) {
                     for (int64_t r = r0; r < r1; ++r) {
                       float* dst = pb + r * W * c;
                       const int64_t iy = r % H - g.pt;
                       if (iy < 0 || iy >= g.h || x1 <= x0) {
                         std::fill(dst, dst + W * c, 0.0f);
                         continue;
                       }
                       std::fill(dst, dst + x0 * c, 0.0f);
                       std::memcpy(dst + x0 * c, in + ((r / H * g.h + iy) * g.w + (x0 - g.pl)) * c,
                                   static_cast<size_t>((x1 - x0) * c) * sizeof(float));
                       std::fill(dst + x1 * c, dst + W * c, 0.0f);
                     }
                   });
      base = pb;
    }
    if (g.dw == 1) {  // one run per filter row: kw * cin consecutive values
      len = g.kw * c;
      for (int64_t i = 0; i < g.kh; ++i) off.push_back(i * g.dh * W * c);
    } else {
      len = c;
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) off.push_back((i * g.dh * W + j * g.dw) * c);
    }
    group_columns(g);
  }
  int pieces() const { return static_cast<int>(off.size()); }
  // Whether some filter row of some output pixel lies wholly in the vertical padding.
  bool pads_rows(const ConvGeom& g) const { return g.pt > 0 || H > g.h + g.pt; }
  // The filter rows [first, end) over input rows (not padding) at output row oy.
  void live_filter_rows(const ConvGeom& g, int64_t oy, int64_t* first, int64_t* end) const {
    const int64_t top = oy * g.sh - g.pt;  // input row of filter row 0
    *first = top >= 0 ? 0 : std::min<int64_t>(g.kh, (-top + g.dh - 1) / g.dh);
    *end = g.h - top <= 0 ? 0 : std::min<int64_t>(g.kh, (g.h - top + g.dh - 1) / g.dh);
  }
  // The pieces of a row of the product at output row oy that read input rows.
  blas::PieceRange live(const ConvGeom& g, int64_t oy) const {
    const int64_t per_row = static_cast<int64_t>(off.size()) / g.kh;  // pieces per filter row
    int64_t first = 0, end = 0;
    live_filter_rows(g, oy, &first, &end);
    return {static_cast<int>(first * per_row), static_cast<int>(std::max(first, end) * per_row)};
  }
  // The top-left tap of output pixel p (image n, output row oy, column ox).
  const float* row(const ConvGeom& g, int64_t n, int64_t oy, int64_t ox) const {
    return base + ((n * H + oy * g.sh) * W + ox * g.sw) * g.cin;
  }
  // out[p - p0] = the top-left tap of output pixel p, for p in [p0, p1) (counters, not divisions).
  void rows(const ConvGeom& g, int64_t p0, int64_t p1, const float** out) const {
    const int64_t per_image = g.oh * g.ow;
    int64_t n = p0 / per_image, oy = p0 % per_image / g.ow, ox = p0 % g.ow;
    for (int64_t p = p0; p < p1; ++p) {
      out[p - p0] = row(g, n, oy, ox);
      if (++ox == g.ow) {
        ox = 0;
        if (++oy == g.oh) oy = 0, ++n;
      }
    }
  }

  // Output columns that read the same values [lo, hi) of each run: those whose taps of a filter
  // row all lie over input columns read whole runs, those at the left and right edges only the
  // part of each run over the input (the rest is the horizontal padding's zeros). The products
  // take each group's pixels together over just that part (an undilated 5x5 filter over a 14 x 14
  // image: 8.6% of the work). One group of every column when nothing pads horizontally.
  struct Columns {
    int64_t lo = 0, hi = 0;
    std::vector<int64_t> ox;
  };
  std::vector<Columns> columns;
  // Calls f(i, p, n, oy, ox) for pixels i in [i0, i1) of group c: its output columns in order,
  // over every image, output row by output row (pixel p: image n, output row oy, column ox). A
  // block of pixels then mostly lies in one output row, whose filter rows over the vertical
  // padding its products skip (the edge groups hold one column each: in image order, a block
  // would span many output rows). (Counters, not divisions: the filter gradient of a 3x3
  // 16 -> 16 convolution spent a third of its time finding its pixels.)
  template <typename F>
  void for_pixels(const Columns& c, int64_t i0, int64_t i1, F f) const {
    const int64_t per_row = static_cast<int64_t>(c.ox.size()), per_oy = n_ * per_row;
    int64_t oy = i0 / per_oy, n = i0 % per_oy / per_row, j = i0 % per_row;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t ox = c.ox[static_cast<size_t>(j)];
      f(i - i0, (n * oh_ + oy) * ow_ + ox, n, oy, ox);
      if (++j == per_row) {
        j = 0;
        if (++n == n_) n = 0, ++oy;
      }
    }
  }
  int64_t pixels(const ConvGeom& g, const Columns& c) const { return g.n * g.oh * static_cast<int64_t>(c.ox.size()); }
  // Blocks of at most `size` pixels of one group each, group after group.
  struct Block {
    int group;
    int64_t i0, i1;
  };
  std::vector<Block> blocks(const ConvGeom& g, int64_t size) const {
    std::vector<Block> out;
    for (size_t c = 0; c < columns.size(); ++c)
      for (int64_t i0 = 0, m = pixels(g, columns[c]); i0 < m; i0 += size)
        out.push_back({static_cast<int>(c), i0, std::min(m, i0 + size)});
    return out;
  }

 private:
  int64_t n_ = 0, oh_ = 0, ow_ = 0;
  void group_columns(const ConvGeom& g) {
    n_ = g.n;
    oh_ = g.oh;
    ow_ = g.ow;
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      int64_t lo = 0, hi = len;
      if (g.dw == 1) {                          // (a dilated filter's runs are single taps: nothing to cut)
        const int64_t left = ox * g.sw - g.pl;  // input column of tap 0
        const int64_t j0 = std::clamp<int64_t>(-left, 0, g.kw), j1 = std::clamp<int64_t>(g.w - left, 0, g.kw);
        if (j0 < j1) lo = j0 * g.cin, hi = j1 * g.cin;  // (none over the input: read the zeros)
      }
      auto it =
          std::find_if(columns.begin(), columns.end(), [&](const Columns& c) { return c.lo == lo && c.hi == hi; });
      if (it == columns.end()) it = columns.insert(columns.end(), Columns{lo, hi, {}});
      it->ox.push_back(ox);
    }
  }
};

}  // namespace

namespace {

// Whether x can be read in place as runs of at least 16 values (one vector of the filter
// gradient's product), which keeps the per-run setup small against the products.
bool gatherable(const ConvGeom& g) {
  if (!g_gather.load(std::memory_order_relaxed)) return false;
  const int64_t run = g.dw == 1 ? g.kw * g.cin : g.cin;
  return blas::sgemm_avx512_active() && g.groups == 1 && g.cs == g.cin && !g.is_pointwise() && run >= 16;
}

}  // namespace

// (Below 256 deep, im2col's patch matrix is small and the forward product it feeds no slower.)
bool use_gather(const ConvGeom& g) { return gatherable(g) && g.k() >= 256; }

template <typename Post>
void gather_forward(const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post,
                    const Tensor* filter, const blas::ColumnEpilogue* ep) {
  const GatheredInput x(in, g);
  const std::shared_ptr<const Tensor> pf = packed_filter(filter, filt, g);
  const float* packed = pf->data<float>();
  const bool pads_rows = x.pads_rows(g);  // (filter rows over padding are skipped, not multiplied by zeros)
  const std::vector<GatheredInput::Block> blocks = x.blocks(g, kBlockPixels);
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 20) / std::max<int64_t>(1, kBlockPixels * g.k() * g.cout));
  parallel_for(static_cast<int64_t>(blocks.size()), grain, [&](int64_t b0, int64_t b1) {
    const float* rows[kBlockPixels];
    float* crows[kBlockPixels];
    blas::PieceRange live[kBlockPixels];
    for (int64_t b = b0; b < b1; ++b) {
      const GatheredInput::Block& blk = blocks[static_cast<size_t>(b)];
      const GatheredInput::Columns& cols = x.columns[static_cast<size_t>(blk.group)];
      const int64_t m = blk.i1 - blk.i0;
      x.for_pixels(cols, blk.i0, blk.i1, [&](int64_t i, int64_t p, int64_t n, int64_t oy, int64_t ox) {
        rows[i] = x.row(g, n, oy, ox);
        crows[i] = out + p * g.cout;
        if (pads_rows) live[i] = x.live(g, oy);
      });
      blas::sgemm_avx512_gather(m, g.cout, rows, x.off.data(), x.pieces(), x.len, cols.lo, cols.hi, packed, crows, ep,
                                pads_rows ? live : nullptr);
      if (ep != nullptr) continue;
      for (int64_t i = 0, j = 1; i < m; i = j++) {  // the post-op over runs of consecutive pixels
        while (j < m && crows[j] == crows[j - 1] + g.cout) ++j;
        post(crows[i], j - i);
      }
    }
  });
}

namespace {

// Filters with at most this many taps (kh * kw * cin) take their gradient with the taps as the
// rows of the product and output channels as its vectors (the first layer of an image model).
constexpr int64_t kMaxFilterTaps = 64;

bool few_taps(const ConvGeom& g) {
  return g_gather.load(std::memory_order_relaxed) && blas::sgemm_avx512_active() && g.groups == 1 && g.cs == g.cin &&
         !g.is_pointwise() && g.k() <= kMaxFilterTaps && g.cout >= 16;
}

}  // namespace

// The filter gradient gathers at every depth: im2col's patch matrix, written and read once per
// step, is 9x x for a 3x3 filter (ResNet-20's 3x3 16->16 gradient, two threads: 4.3 -> 1.7 ms).
bool use_gather_filter(const ConvGeom& g) { return few_taps(g) || gatherable(g); }

// dfilter = im2col(x)^T * dy without the patch matrix: each thread accumulates a partial over its
// blocks of output pixels, a block's rows of x gathered in place; the partials are summed in
// block order (results independent of scheduling). Filters with few taps accumulate dfilter
// itself (vectors along dy's channels, one gathered value per tap), over blocks of consecutive
// pixels. Deep filters accumulate dfilter^T ([cout x k], vectors along the runs of x) and turn it
// at the end, over blocks of one column group (GatheredInput::columns), each filter row over
// just the pixels whose taps of that row lie over input rows and just the part of the run over
// input columns: the padding's zeros add nothing.
void gather_backprop_filter(const float* in, const float* dy, float* df, const ConvGeom& g) {
  const GatheredInput x(in, g);
  const int64_t k = g.k(), n = g.cout, pixels = g.pixels();
  const bool taps = few_taps(g);
  std::vector<int64_t> tap_off;
  if (taps) {
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j)
        for (int64_t ci = 0; ci < g.cin; ++ci) tap_off.push_back((i * g.dh * x.W + j * g.dw) * g.cin + ci);
  }
  // Filter row i reads input rows (not padding) at output rows [oy_first[i], oy_end[i]).
  const bool pads_rows = !taps && x.pads_rows(g);
  std::vector<int64_t> oy_first(g.kh, 0), oy_end(g.kh, g.oh);
  if (pads_rows) {
    std::fill(oy_first.begin(), oy_first.end(), g.oh);
    std::fill(oy_end.begin(), oy_end.end(), 0);
  }
  for (int64_t oy = 0; pads_rows && oy < g.oh; ++oy) {
    int64_t first = 0, end = 0;
    x.live_filter_rows(g, oy, &first, &end);
    for (int64_t i = first; i < end; ++i) {
      oy_first[i] = std::min(oy_first[i], oy);
      oy_end[i] = oy + 1;
    }
  }
  const std::vector<GatheredInput::Block> blocks =
      taps ? std::vector<GatheredInput::Block>{} : x.blocks(g, kFilterBlockPixels);
  const int64_t nblocks =
      taps ? (pixels + kFilterBlockPixels - 1) / kFilterBlockPixels : static_cast<int64_t>(blocks.size());
  const int64_t per_row = x.pieces() / g.kh;  // pieces per filter row
  nn::OrderedPartials<std::vector<float>> partials;
  parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> part(static_cast<size_t>(n * k), 0.0f);
    const float* rows[kFilterBlockPixels];
    const float* dys[kFilterBlockPixels];
    const float* xs[kFilterBlockPixels];  // the block's pixels' top-left taps, dy rows, output rows
    const float* all_dys[kFilterBlockPixels];
    int64_t oys[kFilterBlockPixels];
    for (int64_t b = b0; b < b1; ++b) {
      if (taps) {
        const int64_t p0 = b * kFilterBlockPixels, p1 = std::min(pixels, p0 + kFilterBlockPixels);
        x.rows(g, p0, p1, rows);
        blas::sgemm_avx512_gather_taps_tn(p1 - p0, k, rows, tap_off.data(), dy + p0 * n, n, part.data());
        continue;
      }
      const GatheredInput::Block& blk = blocks[static_cast<size_t>(b)];
      const GatheredInput::Columns& cols = x.columns[static_cast<size_t>(blk.group)];
      const int64_t m = blk.i1 - blk.i0;
      x.for_pixels(cols, blk.i0, blk.i1, [&](int64_t i, int64_t p, int64_t img, int64_t oy, int64_t ox) {
        xs[i] = x.row(g, img, oy, ox);
        all_dys[i] = dy + p * n;
        oys[i] = oy;
      });
      for (int t = 0; t < x.pieces(); ++t) {
        const int64_t fr = t / per_row;  // the piece's filter row
        const float* const* r = xs;
        const float* const* d = all_dys;
        int64_t live = m;
        if (pads_rows) {  // just the pixels whose filter row fr lies over input rows
          live = 0;
          for (int64_t i = 0; i < m; ++i) {
            if (oys[i] < oy_first[fr] || oys[i] >= oy_end[fr]) continue;
            rows[live] = xs[i];
            dys[live++] = all_dys[i];
          }
          r = rows;
          d = dys;
        }
        if (live == 0) continue;
        blas::sgemm_avx512_gather_tn(live, n, d, r, x.off[t] + cols.lo, cols.hi - cols.lo,
                                     part.data() + t * x.len + cols.lo, k);
      }
    }
    partials.add(b0, std::move(part));
  });
  // The partials summed into the first, element by element in block order (over the threads:
  // one thread adding eight 200 KiB partials cost LeNet's gradient a tenth of its time).
  const std::vector<std::vector<float>*> parts = partials.in_order();
  float* sum = parts[0]->data();
  parallel_for(k * n, cpu::kGrain, [&](int64_t e0, int64_t e1) {
    for (size_t j = 1; j < parts.size(); ++j) {
      const float* part = parts[j]->data();
      for (int64_t e = e0; e < e1; ++e) sum[e] += part[e];
    }
  });
  if (taps) {
    std::copy(sum, sum + k * n, df);
    return;
  }
  parallel_for(k, std::max<int64_t>(1, cpu::kGrain / n), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t co = 0; co < n; ++co) df[i * n + co] = sum[co * k + i];
  });
}

template void gather_forward<NoPost>(const float*, const float*, float*, const ConvGeom&, const NoPost&, const Tensor*,
                                     const blas::ColumnEpilogue*);
template void gather_forward<nn::Epilogue<float>>(const float*, const float*, float*, const ConvGeom&,
                                                  const nn::Epilogue<float>&, const Tensor*,
                                                  const blas::ColumnEpilogue*);

}  // namespace conv2d

namespace nn {
bool conv_gather_enabled() { return conv2d::g_gather.load() && blas::sgemm_avx512_active(); }
bool set_conv_gather(bool on) {
  conv2d::g_gather.store(on);
  return conv_gather_enabled();
}
}  // namespace nn

}  // namespace opforge
