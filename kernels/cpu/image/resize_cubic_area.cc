// ResizeBicubic, its gradient and ResizeArea, NHWC, with TensorFlow's arithmetic: the cubic
// kernel's coefficients come from the same 1024-entry table (Keys's a = -0.5 with half-pixel
// centers, taps outside the image dropped and the rest renormalized; a = -0.75 otherwise, taps
// clamped to the border), interpolation runs along y then x in float; the area kernel weighs
// each covered input cell by the fraction its footprint covers.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image/image_util.h"
#include "opforge/ops/image/resize_area.h"
#include "opforge/ops/image/resize_bicubic.h"
#include "opforge/ops/image/resize_bicubic_grad.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

using image::check_flags;
using image::check_images;
using image::read_size;
using image::resize_scale;

constexpr int64_t kTableSize = 1024;

// coeffs[2 i] is the kernel at distance i / kTableSize, coeffs[2 i + 1] at 1 + i / kTableSize.
std::array<float, (kTableSize + 1) * 2> coefficients(float a) {
  std::array<float, (kTableSize + 1) * 2> t{};
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(i) / static_cast<float>(kTableSize);
    t[static_cast<size_t>(i * 2)] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x += 1.0f;
    t[static_cast<size_t>(i * 2 + 1)] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  }
  return t;
}

const std::array<float, (kTableSize + 1) * 2>& table(bool keys) {
  static const auto keys_table = coefficients(-0.5f);
  static const auto legacy_table = coefficients(-0.75f);
  return keys ? keys_table : legacy_table;
}

struct Taps {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
};

int64_t bound(int64_t v, int64_t limit) { return std::min(limit - 1, std::max<int64_t>(0, v)); }

// The four input positions output position `out` reads, and their weights.
Taps taps(float scale, int64_t out, int64_t limit, bool half_pixel) {
  const float in = half_pixel ? (static_cast<float>(out) + 0.5f) * scale - 0.5f : static_cast<float>(out) * scale;
  const int64_t base = static_cast<int64_t>(std::floor(in));
  const float delta = in - static_cast<float>(base);
  const int64_t offset = std::lrintf(delta * static_cast<float>(kTableSize));
  const auto& t = table(half_pixel);
  Taps r;
  r.weight = {t[static_cast<size_t>(offset * 2 + 1)], t[static_cast<size_t>(offset * 2)],
              t[static_cast<size_t>((kTableSize - offset) * 2)], t[static_cast<size_t>((kTableSize - offset) * 2 + 1)]};
  for (int k = 0; k < 4; ++k) r.index[static_cast<size_t>(k)] = bound(base - 1 + k, limit);
  if (half_pixel) {  // Keys's kernel: taps outside the image drop out, the rest sum to 1
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      if (r.index[static_cast<size_t>(k)] != base - 1 + k) r.weight[static_cast<size_t>(k)] = 0;
      sum += r.weight[static_cast<size_t>(k)];
    }
    if (std::fabs(sum) >= 1000.0f * FLT_MIN) {
      const float inv = 1.0f / sum;
      for (float& w : r.weight) w *= inv;
    }
  }
  return r;
}

std::vector<Taps> all_taps(int64_t out, int64_t in, float scale, bool half_pixel) {
  std::vector<Taps> v(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) v[static_cast<size_t>(i)] = taps(scale, i, in, half_pixel);
  return v;
}

template <typename T>
Status ResizeBicubicCpu(ops::ResizeBicubicArgs& a) {
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.images));
  int64_t oh, ow;
  OPF_RETURN_IF_ERROR(read_size(a.ctx, a.size, &oh, &ow));
  const int64_t b = a.images.dim(0), ih = a.images.dim(1), iw = a.images.dim(2), ch = a.images.dim(3);
  if (a.resized_images.num_elements() == 0) return Status::OK();
  const auto ys = all_taps(oh, ih, resize_scale(ih, oh, a.align_corners), a.half_pixel_centers);
  const auto xs = all_taps(ow, iw, resize_scale(iw, ow, a.align_corners), a.half_pixel_centers);
  const T* in = a.images.template data<T>();
  float* out = a.resized_images.template data<float>();
  // Per output row: the y interpolation of every input column once (the same sums a pixel's four
  // x taps would each compute), then the x interpolation of those.
  parallel_for(
      b * oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, 4 * (iw + ow) * ch)),
      [&](int64_t r0, int64_t r1) {
        std::vector<float> column(static_cast<size_t>(iw * ch));
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t n = r / oh, y = r % oh;
          const Taps& ty = ys[static_cast<size_t>(y)];
          const T* rows[4];
          for (int k = 0; k < 4; ++k) rows[k] = in + (n * ih + ty.index[static_cast<size_t>(k)]) * iw * ch;
          for (int64_t at = 0; at < iw * ch; ++at) {
            column[static_cast<size_t>(at)] =
                static_cast<float>(rows[0][at]) * ty.weight[0] + static_cast<float>(rows[1][at]) * ty.weight[1] +
                static_cast<float>(rows[2][at]) * ty.weight[2] + static_cast<float>(rows[3][at]) * ty.weight[3];
          }
          float* o = out + (n * oh + y) * ow * ch;
          for (int64_t x = 0; x < ow; ++x) {
            const Taps& tx = xs[static_cast<size_t>(x)];
            const float* c0 = column.data() + tx.index[0] * ch;
            const float* c1 = column.data() + tx.index[1] * ch;
            const float* c2 = column.data() + tx.index[2] * ch;
            const float* c3 = column.data() + tx.index[3] * ch;
            for (int64_t c = 0; c < ch; ++c) {
              o[x * ch + c] = c0[c] * tx.weight[0] + c1[c] * tx.weight[1] + c2[c] * tx.weight[2] + c3[c] * tx.weight[3];
            }
          }
        }
      });
  return Status::OK();
}

template <typename T>
Status ResizeBicubicGradCpu(ops::ResizeBicubicGradArgs& a) {
  OPF_RETURN_IF_ERROR(check_flags(a.ctx, a.align_corners, a.half_pixel_centers));
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.original_image, "original_image"));
  if (a.grads.rank() != 4 || a.grads.dim(0) != a.original_image.dim(0) || a.grads.dim(3) != a.original_image.dim(3)) {
    return a.ctx.error("grads of shape ", a.grads.shape().to_string(), " do not fit original_image of shape ",
                       a.original_image.shape().to_string());
  }
  const int64_t b = a.grads.dim(0), gh = a.grads.dim(1), gw = a.grads.dim(2), ch = a.grads.dim(3);
  const int64_t ih = a.original_image.dim(1), iw = a.original_image.dim(2);
  T* out = a.output.template data<T>();
  std::fill(out, out + a.output.num_elements(), T(0));
  if (gh == 0 || gw == 0) return Status::OK();
  const auto ys = all_taps(gh, ih, resize_scale(ih, gh, a.align_corners), a.half_pixel_centers);
  const auto xs = all_taps(gw, iw, resize_scale(iw, gw, a.align_corners), a.half_pixel_centers);
  const float* g = a.grads.template data<float>();
  parallel_for(b, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      T* o = out + n * ih * iw * ch;
      for (int64_t y = 0; y < gh; ++y) {
        const Taps& ty = ys[static_cast<size_t>(y)];
        for (int64_t x = 0; x < gw; ++x) {
          const Taps& tx = xs[static_cast<size_t>(x)];
          const float* gp = g + ((n * gh + y) * gw + x) * ch;
          for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
              T* dst = o + (ty.index[static_cast<size_t>(i)] * iw + tx.index[static_cast<size_t>(j)]) * ch;
              const float w = ty.weight[static_cast<size_t>(i)] * tx.weight[static_cast<size_t>(j)];
              for (int64_t c = 0; c < ch; ++c) dst[c] += static_cast<T>(gp[c] * w);
            }
          }
        }
      }
    }
  });
  return Status::OK();
}

// The input cells [start, end) output cell i covers, and the covered fraction of the first and
// the last (the cells between are covered whole).
struct AreaSpan {
  int64_t start, end;
  float start_scale, end_scale;
};

float cover(int64_t v, float lo, float hi, float scale) {
  return static_cast<float>(v) < lo ? (static_cast<float>(v + 1) > hi ? scale : static_cast<float>(v + 1) - lo)
                                    : (static_cast<float>(v + 1) > hi ? hi - static_cast<float>(v) : 1.0f);
}

std::vector<AreaSpan> area_spans(int64_t out, float scale) {
  std::vector<AreaSpan> v(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float lo = static_cast<float>(i) * scale, hi = static_cast<float>(i + 1) * scale;
    AreaSpan& s = v[static_cast<size_t>(i)];
    s.start = static_cast<int64_t>(std::floor(lo));
    s.end = static_cast<int64_t>(std::ceil(hi));
    s.start_scale = cover(s.start, lo, hi, scale);
    s.end_scale = cover(s.end - 1, lo, hi, scale);
  }
  return v;
}

template <typename T>
Status ResizeAreaCpu(ops::ResizeAreaArgs& a) {
  OPF_RETURN_IF_ERROR(check_images(a.ctx, a.images));
  int64_t oh, ow;
  OPF_RETURN_IF_ERROR(read_size(a.ctx, a.size, &oh, &ow));
  const int64_t b = a.images.dim(0), ih = a.images.dim(1), iw = a.images.dim(2), ch = a.images.dim(3);
  if (a.resized_images.num_elements() == 0) return Status::OK();
  const float hs = resize_scale(ih, oh, a.align_corners), ws = resize_scale(iw, ow, a.align_corners);
  const auto ys = area_spans(oh, hs);
  const auto xs = area_spans(ow, ws);
  const float scale = 1.0f / (hs * ws);
  const T* in = a.images.template data<T>();
  float* out = a.resized_images.template data<float>();
  parallel_for(b * oh, 1, [&](int64_t r0, int64_t r1) {
    std::vector<float> sum_y(static_cast<size_t>(ch)), sum_x(static_cast<size_t>(ch));
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / oh, y = r % oh;
      const float lo = static_cast<float>(y) * hs, hi = static_cast<float>(y + 1) * hs;
      const AreaSpan& sy = ys[static_cast<size_t>(y)];
      float* o = out + (n * oh + y) * ow * ch;
      for (int64_t x = 0; x < ow; ++x) {
        const AreaSpan& sx = xs[static_cast<size_t>(x)];
        std::fill(sum_y.begin(), sum_y.end(), 0.0f);
        for (int64_t i = sy.start; i < sy.end; ++i) {
          const float scale_y = cover(i, lo, hi, hs);
          const T* row = in + (n * ih + std::min(ih - 1, std::max<int64_t>(0, i))) * iw * ch;
          auto at = [&](int64_t j) { return row + std::min(iw - 1, std::max<int64_t>(0, j)) * ch; };
          const T* p = at(sx.start);
          for (int64_t c = 0; c < ch; ++c) sum_x[static_cast<size_t>(c)] = static_cast<float>(p[c]) * sx.start_scale;
          if (sx.end - sx.start > 1) {
            for (int64_t j = sx.start + 1; j < sx.end - 1; ++j) {
              p = at(j);
              for (int64_t c = 0; c < ch; ++c) sum_x[static_cast<size_t>(c)] += static_cast<float>(p[c]);
            }
            p = at(sx.end - 1);
            for (int64_t c = 0; c < ch; ++c) sum_x[static_cast<size_t>(c)] += static_cast<float>(p[c]) * sx.end_scale;
          }
          for (int64_t c = 0; c < ch; ++c) sum_y[static_cast<size_t>(c)] += sum_x[static_cast<size_t>(c)] * scale_y;
        }
        for (int64_t c = 0; c < ch; ++c) o[x * ch + c] = sum_y[static_cast<size_t>(c)] * scale;
      }
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(ResizeBicubic, CPU, ResizeBicubicCpu, int8_t, uint8_t, int16_t, int32_t, int64_t, half,
                        bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(ResizeBicubicGrad, CPU, ResizeBicubicGradCpu, float, double)
OPFORGE_REGISTER_KERNEL(ResizeArea, CPU, ResizeAreaCpu, int8_t, uint8_t, int16_t, int32_t, int64_t, half, bfloat16,
                        float, double)

}  // namespace opforge
