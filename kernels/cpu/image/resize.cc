// Image resizing: ResizeBilinear, ResizeNearestNeighbor and their gradients, NHWC, with
// TensorFlow's coordinate conventions (align_corners, half_pixel_centers) and its float
// arithmetic, so results match TensorFlow's bit for bit where the inputs are exact.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "cpu/image/image_util.h"
#include "opforge/ops/image/resize_bilinear.h"
#include "opforge/ops/image/resize_bilinear_grad.h"
#include "opforge/ops/image/resize_nearest_neighbor.h"
#include "opforge/ops/image/resize_nearest_neighbor_grad.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

using image::check_flags;
using image::check_images;
using image::read_size;
using image::resize_scale;

// Where output coordinate i samples the input: (i + 0.5) * scale - 0.5 with half-pixel
// centers, i * scale otherwise.
float source(int64_t i, float scale, bool half_pixel) {
  return half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
}

struct Interp {
  int64_t lower, upper;
  float lerp;
};

std::vector<Interp> interpolation(int64_t out, int64_t in, float scale, bool half_pixel) {
  std::vector<Interp> w(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float s = source(i, scale, half_pixel);
    const float f = std::floor(s);
    w[static_cast<size_t>(i)] = {std::max(static_cast<int64_t>(f), int64_t{0}),
                                 std::min(static_cast<int64_t>(std::ceil(s)), in - 1), s - f};
  }
  return w;
}

// The input row (column) an output row (column) copies from.
std::vector<int64_t> nearest(int64_t out, int64_t in, float scale, bool align_corners, bool half_pixel) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float s = half_pixel ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t v = std::min(static_cast<int64_t>(align_corners ? std::round(s) : std::floor(s)), in - 1);
    if (half_pixel) v = std::max(v, int64_t{0});
    idx[static_cast<size_t>(i)] = v;
  }
  return idx;
}

// The shape functions of these ops are op semantics: runtime/ops/image.cc.

// ---- kernels

template <typename T>
Status ResizeBilinearCpu(ops::ResizeBilinearArgs& a) {
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.images));
  int64_t oh, ow;
  OPF_RETURN_IF_ERROR(read_size(a.ctx, a.size, &oh, &ow));
  const int64_t b = a.images.dim(0), ih = a.images.dim(1), iw = a.images.dim(2), ch = a.images.dim(3);
  if (a.resized_images.num_elements() == 0) return Status::OK();  // (no pass over empty images)
  const auto ys = interpolation(oh, ih, resize_scale(ih, oh, a.align_corners), a.half_pixel_centers);
  const auto xs = interpolation(ow, iw, resize_scale(iw, ow, a.align_corners), a.half_pixel_centers);
  const T* in = a.images.template data<T>();
  float* out = a.resized_images.template data<float>();
  parallel_for(b * oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, ow * ch)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / oh, y = r % oh;
      const Interp& wy = ys[static_cast<size_t>(y)];
      const T* top = in + ((n * ih + wy.lower) * iw) * ch;
      const T* bottom = in + ((n * ih + wy.upper) * iw) * ch;
      float* o = out + (n * oh + y) * ow * ch;
      for (int64_t x = 0; x < ow; ++x) {
        const Interp& wx = xs[static_cast<size_t>(x)];
        for (int64_t k = 0; k < ch; ++k) {
          const float tl = static_cast<float>(top[wx.lower * ch + k]), tr = static_cast<float>(top[wx.upper * ch + k]);
          const float bl = static_cast<float>(bottom[wx.lower * ch + k]),
                      br = static_cast<float>(bottom[wx.upper * ch + k]);
          const float t = tl + (tr - tl) * wx.lerp, bt = bl + (br - bl) * wx.lerp;
          o[x * ch + k] = t + (bt - t) * wy.lerp;
        }
      }
    }
  });
  return Status::OK();
}

template <typename T>
Status ResizeBilinearGradCpu(ops::ResizeBilinearGradArgs& a) {
  using C = cpu::compute_t<T>;
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.original_image, "original_image"));
  if (a.grads.rank() != 4 || a.grads.dim(0) != a.original_image.dim(0) || a.grads.dim(3) != a.original_image.dim(3)) {
    return a.ctx.error("grads of shape ", a.grads.shape().to_string(), " do not fit original_image of shape ",
                       a.original_image.shape().to_string());
  }
  const int64_t b = a.grads.dim(0), gh = a.grads.dim(1), gw = a.grads.dim(2), ch = a.grads.dim(3);
  const int64_t ih = a.original_image.dim(1), iw = a.original_image.dim(2);
  const auto ys = interpolation(gh, ih, resize_scale(ih, gh, a.align_corners), a.half_pixel_centers);
  const auto xs = interpolation(gw, iw, resize_scale(iw, gw, a.align_corners), a.half_pixel_centers);
  const float* g = a.grads.template data<float>();
  T* out = a.output.template data<T>();
  parallel_for(b, 1, [&](int64_t n0, int64_t n1) {
    std::vector<C> acc(static_cast<size_t>(ih * iw * ch));
    for (int64_t n = n0; n < n1; ++n) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t y = 0; y < gh; ++y) {
        const Interp& wy = ys[static_cast<size_t>(y)];
        for (int64_t x = 0; x < gw; ++x) {
          const Interp& wx = xs[static_cast<size_t>(x)];
          const float* gp = g + ((n * gh + y) * gw + x) * ch;
          for (int64_t k = 0; k < ch; ++k) {
            const C dtop = static_cast<C>((1 - wy.lerp) * gp[k]), dbottom = static_cast<C>(wy.lerp * gp[k]);
            acc[static_cast<size_t>((wy.lower * iw + wx.lower) * ch + k)] += dtop * static_cast<C>(1 - wx.lerp);
            acc[static_cast<size_t>((wy.lower * iw + wx.upper) * ch + k)] += dtop * static_cast<C>(wx.lerp);
            acc[static_cast<size_t>((wy.upper * iw + wx.lower) * ch + k)] += dbottom * static_cast<C>(1 - wx.lerp);
            acc[static_cast<size_t>((wy.upper * iw + wx.upper) * ch + k)] += dbottom * static_cast<C>(wx.lerp);
          }
        }
      }
      T* o = out + n * ih * iw * ch;
      for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
    }
  });
  return Status::OK();
}

template <typename T>
Status ResizeNearestNeighborCpu(ops::ResizeNearestNeighborArgs& a) {
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.images));
  int64_t oh, ow;
  OPF_RETURN_IF_ERROR(read_size(a.ctx, a.size, &oh, &ow));
  const int64_t b = a.images.dim(0), ih = a.images.dim(1), iw = a.images.dim(2), ch = a.images.dim(3);
  if (a.resized_images.num_elements() == 0) return Status::OK();  // (no pass over empty images)
  const auto ys = nearest(oh, ih, resize_scale(ih, oh, a.align_corners), a.align_corners, a.half_pixel_centers);
  const auto xs = nearest(ow, iw, resize_scale(iw, ow, a.align_corners), a.align_corners, a.half_pixel_centers);
  const T* in = a.images.template data<T>();
  T* out = a.resized_images.template data<T>();
  parallel_for(b * oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, ow * ch)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / oh, y = r % oh;
      const T* row = in + (n * ih + ys[static_cast<size_t>(y)]) * iw * ch;
      T* o = out + (n * oh + y) * ow * ch;
      for (int64_t x = 0; x < ow; ++x)
        std::copy(row + xs[static_cast<size_t>(x)] * ch, row + (xs[static_cast<size_t>(x)] + 1) * ch, o + x * ch);
    }
  });
  return Status::OK();
}

template <typename T>
Status ResizeNearestNeighborGradCpu(ops::ResizeNearestNeighborGradArgs& a) {
  using C = cpu::compute_t<T>;
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.grads, "grads"));
  int64_t oh, ow;  // the original image's size
  OPF_RETURN_IF_ERROR(read_size(a.ctx, a.size, &oh, &ow));
  const int64_t b = a.grads.dim(0), gh = a.grads.dim(1), gw = a.grads.dim(2), ch = a.grads.dim(3);
  if (a.output.num_elements() == 0) return Status::OK();
  // The forward mapping: grads row y came from original row ys[y].
  const auto ys = nearest(gh, oh, resize_scale(oh, gh, a.align_corners), a.align_corners, a.half_pixel_centers);
  const auto xs = nearest(gw, ow, resize_scale(ow, gw, a.align_corners), a.align_corners, a.half_pixel_centers);
  const T* g = a.grads.template data<T>();
  T* out = a.output.template data<T>();
  parallel_for(b, 1, [&](int64_t n0, int64_t n1) {
    std::vector<C> acc(static_cast<size_t>(oh * ow * ch));
    for (int64_t n = n0; n < n1; ++n) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t y = 0; y < gh; ++y) {
        for (int64_t x = 0; x < gw; ++x) {
          const T* gp = g + ((n * gh + y) * gw + x) * ch;
          C* o = acc.data() + (ys[static_cast<size_t>(y)] * ow + xs[static_cast<size_t>(x)]) * ch;
          for (int64_t k = 0; k < ch; ++k) o[k] += static_cast<C>(gp[k]);
        }
      }
      T* dst = out + n * oh * ow * ch;
      for (size_t i = 0; i < acc.size(); ++i) dst[i] = static_cast<T>(acc[i]);
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(ResizeBilinear, CPU, ResizeBilinearCpu, int8_t, uint8_t, int16_t, int32_t, int64_t, half,
                        bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(ResizeBilinearGrad, CPU, ResizeBilinearGradCpu, float, bfloat16, half, double)
OPFORGE_REGISTER_KERNEL(ResizeNearestNeighbor, CPU, ResizeNearestNeighborCpu, int8_t, uint8_t, int16_t, int32_t,
                        int64_t, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(ResizeNearestNeighborGrad, CPU, ResizeNearestNeighborGradCpu, uint8_t, int8_t, int32_t, half,
                        float, double, bfloat16)

}  // namespace opforge
