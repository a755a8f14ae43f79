// Conv2D's gradients through the patch matrix: Conv2DBackpropInput is col2im(dy * filter^T),
// Conv2DBackpropFilter the sum over tiles of im2col(x)^T * dy; both group by group.
#include <algorithm>
#include <vector>

#include "cpu/nn/conv2d_internal.h"

namespace opforge {
namespace conv2d {

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
  nn::OrderedPartials<std::vector<C>> partials;
  const int64_t tp = tile_pixels(s, sizeof(C));
  const int64_t tiles = (g.pixels() + tp - 1) / tp;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 21) / std::max<int64_t>(1, tp * k * g.cout));
  parallel_for(tiles, grain, [&](int64_t t0, int64_t t1) {
    std::vector<C> col(static_cast<size_t>(tp * k)), part(static_cast<size_t>(k * g.cout), C(0));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p0 = t * tp, p1 = std::min(g.pixels(), p0 + tp);
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        im2col(in + gi * s.cin, s, p0, p1, col.data());
        nn::gemm<C>(true, false, k, s.cout, p1 - p0, col.data(), k, dy + p0 * g.cout + gi * s.cout, g.cout, C(1),
                    part.data() + gi * s.cout, g.cout);
      }
    }
    partials.add(t0, std::move(part));
  });
  partials.merge_in_order([&](const std::vector<C>& part) {
    for (size_t i = 0; i < part.size(); ++i) df[i] += part[i];
  });
}

template void conv_backprop_input<float>(const float*, const float*, float*, const ConvGeom&);
template void conv_backprop_input<double>(const double*, const double*, double*, const ConvGeom&);
template void conv_backprop_input<int32_t>(const int32_t*, const int32_t*, int32_t*, const ConvGeom&);
template void conv_backprop_filter<float>(const float*, const float*, float*, const ConvGeom&);
template void conv_backprop_filter<double>(const double*, const double*, double*, const ConvGeom&);

}  // namespace conv2d
}  // namespace opforge
