// Conv2D by im2col + GEMM: each tile of output pixels gets its patch matrix (sized to stay in
// cache) multiplied by the [KH*KW*Cin, Cout] filter; tiles are spread over the runtime's threads,
// each calling a single-threaded GEMM (a GEMM inside a parallel region runs inline). A 1x1
// convolution with stride 1 and no padding is one GEMM over the input. A grouped convolution
// runs this once per group. int32 uses a wrapping integer GEMM.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "cpu/nn/conv2d_internal.h"
#include "src/constant_cache.h"

namespace opforge {
namespace conv2d {

namespace {

// The filter as the right-hand operand of a convolution's GEMMs ([k x cout]), packed once per
// constant filter (Const's buffer, see constant_cache.h), else per call.
// `filter` is null when the filter pointer is not the tensor's own float32 data.
template <typename C>
std::shared_ptr<const nn::RightOperand<C>> filter_operand(const Tensor* filter, const C* filt, const ConvGeom& g) {
  const auto make = [&] { return std::make_shared<const nn::RightOperand<C>>(filt, g.cout, g.k(), g.cout); };
  if (!std::is_same_v<C, float> || filter == nullptr) return make();
  return derived_from_constant<nn::RightOperand<C>>(*filter,
                                                    "conv-gemm " + std::to_string(g.k()) + "x" + std::to_string(g.cout),
                                                    static_cast<size_t>(g.k() * g.cout) * sizeof(C), make);
}

}  // namespace

template <typename C, typename Post>
void im2col_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post, const Tensor* filter,
                    const blas::ColumnEpilogue* ep) {
  const int64_t k = g.k();
  if (g.is_pointwise()) {
    const std::shared_ptr<const nn::RightOperand<C>> fp = filter_operand(filter, filt, g);
    const nn::RightOperand<C>& f = *fp;  // packed once, shared by the tiles
    if (Post::kNone || ep != nullptr) {
      f.gemm_into(g.pixels(), in, k, out, g.cout, C(0), ep);
    } else {  // the same GEMM cut into row tiles, each finished by the epilogue while in cache
      // A float32 transcendental activation: the GEMM adds the bias as it stores, the tile then
      // takes the activation alone.
      blas::ColumnEpilogue shift_ep;
      bool split = false;
      if constexpr (std::is_same_v<Post, nn::Epilogue<float>>) split = post.shift_as_column_epilogue(&shift_ep);
      const int64_t tp = std::max<int64_t>(48, kTileBytes / static_cast<int64_t>(sizeof(C) * (k + g.cout)));
      const int64_t tiles = (g.pixels() + tp - 1) / tp;
      const auto run_tiles = [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t p0 = t * tp, p1 = std::min(g.pixels(), p0 + tp);
          C* tile = out + p0 * g.cout;
          if constexpr (std::is_same_v<Post, nn::Epilogue<float>>) {
            if (split) {
              f.gemm_into(p1 - p0, in + p0 * k, k, tile, g.cout, C(0), &shift_ep);
              post.activation_post()(tile, p1 - p0);
              continue;
            }
          }
          f.gemm_into(p1 - p0, in + p0 * k, k, tile, g.cout);
          post(tile, p1 - p0);
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
  const std::shared_ptr<const nn::RightOperand<C>> fp = filter_operand(filter, filt, g);
  const nn::RightOperand<C>& f = *fp;  // packed once, shared by the tiles
  for_tiles<C>(g, 0, g.pixels(), [&](int64_t p0, int64_t p1, C* col) {
    im2col(in, g, p0, p1, col);
    f.gemm_into(p1 - p0, col, k, out + p0 * g.cout, g.cout, C(0), ep);
    if (ep == nullptr) post(out + p0 * g.cout, p1 - p0);
  });
}

// ---------------------------------------------------------------------------- grouped convolution
//
// Group gi convolves input channels [gi * cin, (gi + 1) * cin) with filter columns (and output
// channels) [gi * cout, (gi + 1) * cout), cin and cout per group: the im2col + GEMM path of an
// ungrouped convolution run once per group, on strided slices of the input, filter and output
// (the GEMMs' leading dimensions are the whole tensors' channel counts). The two gradients
// (conv2d_backprop.cc) loop over the groups themselves; the forward pass has its own loop so that the
// ungrouped forward keeps its Winograd and pointwise paths.

template <typename C, typename Post>
void grouped_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post) {
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

#define OPF_CONV_FORWARD(C, Post)                                                                            \
  template void im2col_forward<C, Post>(const C*, const C*, C*, const ConvGeom&, const Post&, const Tensor*, \
                                        const blas::ColumnEpilogue*);                                        \
  template void grouped_forward<C, Post>(const C*, const C*, C*, const ConvGeom&, const Post&);
OPF_CONV_FORWARD(float, NoPost)
OPF_CONV_FORWARD(double, NoPost)
OPF_CONV_FORWARD(int32_t, NoPost)
OPF_CONV_FORWARD(float, nn::Epilogue<float>)
OPF_CONV_FORWARD(double, nn::Epilogue<double>)
#undef OPF_CONV_FORWARD

}  // namespace conv2d
}  // namespace opforge
