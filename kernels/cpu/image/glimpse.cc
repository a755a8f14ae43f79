// ExtractGlimpse and ExtractGlimpseV2 (TensorFlow's eigen_attention.h ExtractGlimpses): a window
// of the requested size per image, its top-left corner from the offset by the version's rules,
// the part outside the image filled with noise (uniform between the image's extremes, Gaussian
// with its per-channel mean and deviation, or zeros).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image/image_util.h"
#include "opforge/ops/image/extract_glimpse.h"
#include "opforge/ops/image/extract_glimpse_v2.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

std::mt19937& noise_engine() {  // noise as TensorFlow's: not seeded, fresh per run
  thread_local std::mt19937 engine{std::random_device{}()};
  return engine;
}

Status glimpse(KernelContext& ctx, int version, const Tensor& input, const Tensor& size, const Tensor& offsets,
               bool centered, bool normalized, bool uniform_noise, const std::string& noise, Tensor& out) {
  if (input.rank() != 4) return ctx.error("input must be 4-D, got shape ", input.shape().to_string());
  int64_t gh = 0, gw = 0;
  OPF_RETURN_IF_ERROR(image::read_size(ctx, size, &gh, &gw));
  const int64_t b = input.dim(0), ih = input.dim(1), iw = input.dim(2), ch = input.dim(3);
  if (offsets.rank() != 2 || offsets.dim(0) != b || offsets.dim(1) != 2) {
    return ctx.error("offsets must be 2-D [batch_size, 2] with batch_size ", b, ", got shape ",
                     offsets.shape().to_string());
  }
  if (noise != "uniform" && noise != "gaussian" && noise != "zero" && !noise.empty()) {
    return ctx.error("noise must be one of 'uniform', 'gaussian', 'zero', got '", noise, "'");
  }
  if (uniform_noise && !noise.empty() && noise != "uniform") {
    return ctx.error("The uniform_noise and noise could not be specified at the same time");
  }
  const std::string kind = noise == "uniform" || noise.empty() ? (uniform_noise ? "uniform" : "gaussian") : noise;
  const float* in = input.data<float>();
  const float* off = offsets.data<float>();
  float* o = out.data<float>();
  for (int64_t n = 0; n < b; ++n) {  // serial: the noise engine is per thread and cheap
    float y = off[n * 2], x = off[n * 2 + 1];
    const float fw = static_cast<float>(iw), fh = static_cast<float>(ih);
    if (!std::isfinite(x) || !std::isfinite(y)) return ctx.error("offsets must be finite, got (", y, ", ", x, ")");
    if (version == 1) {
      if (normalized) x *= fw, y *= fh;
      if (centered) x = x / 2.0f + fw / 2.0f, y = y / 2.0f + fh / 2.0f;
      x -= static_cast<float>(gw) / 2.0f;
      y -= static_cast<float>(gh) / 2.0f;
    } else if (normalized) {
      x *= fw, y *= fh;
      if (centered) {
        x = x / 2.0f + fw / 2.0f - static_cast<float>(gw) / 2.0f;
        y = y / 2.0f + fh / 2.0f - static_cast<float>(gh) / 2.0f;
      }
    } else if (centered) {
      x += fw / 2.0f, y += fh / 2.0f;
    }
    if (std::fabs(x) > 1e15f || std::fabs(y) > 1e15f) return ctx.error("offsets are out of range: (", y, ", ", x, ")");
    const int64_t ox = static_cast<int64_t>(x), oy = static_cast<int64_t>(y);
    const float* im = in + n * ih * iw * ch;
    float* g = o + n * gh * gw * ch;
    const bool partial = ox < 0 || oy < 0 || ox + gw >= iw || oy + gh >= ih;
    if (partial) {
      if (kind == "zero" || ih * iw == 0) {
        std::fill(g, g + gh * gw * ch, 0.0f);
      } else if (kind == "uniform") {
        const auto mm = std::minmax_element(im, im + ih * iw * ch);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        for (int64_t i = 0; i < gh * gw * ch; ++i) g[i] = *mm.first + u(noise_engine()) * (*mm.second - *mm.first);
      } else {
        std::vector<double> mean(static_cast<size_t>(ch), 0.0), sq(static_cast<size_t>(ch), 0.0);
        for (int64_t p = 0; p < ih * iw; ++p)
          for (int64_t c = 0; c < ch; ++c) {
            mean[static_cast<size_t>(c)] += im[p * ch + c];
            sq[static_cast<size_t>(c)] += static_cast<double>(im[p * ch + c]) * im[p * ch + c];
          }
        std::normal_distribution<float> z(0.0f, 1.0f);
        for (int64_t c = 0; c < ch; ++c) {
          const double m = mean[static_cast<size_t>(c)] / static_cast<double>(ih * iw);
          const double sd = std::sqrt(std::max(0.0, sq[static_cast<size_t>(c)] / static_cast<double>(ih * iw) - m * m));
          for (int64_t p = 0; p < gh * gw; ++p) g[p * ch + c] = static_cast<float>(m + sd * z(noise_engine()));
        }
      }
    }
    // The part of the window inside the image.
    const int64_t y0 = std::max<int64_t>(oy, 0), y1 = std::min(oy + gh, ih);
    const int64_t x0 = std::max<int64_t>(ox, 0), x1 = std::min(ox + gw, iw);
    for (int64_t yy = y0; yy < y1; ++yy) {
      if (x1 <= x0) break;
      std::copy(im + (yy * iw + x0) * ch, im + (yy * iw + x1) * ch, g + ((yy - oy) * gw + (x0 - ox)) * ch);
    }
  }
  return Status::OK();
}

Status ExtractGlimpseCpu(ops::ExtractGlimpseArgs& a) {
  return glimpse(a.ctx, 1, a.input, a.size, a.offsets, a.centered, a.normalized, a.uniform_noise, a.noise, a.glimpse);
}

Status ExtractGlimpseV2Cpu(ops::ExtractGlimpseV2Args& a) {
  return glimpse(a.ctx, 2, a.input, a.size, a.offsets, a.centered, a.normalized, a.uniform_noise, a.noise, a.glimpse);
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_KERNEL(ExtractGlimpse, CPU, ExtractGlimpseCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(ExtractGlimpseV2, CPU, ExtractGlimpseV2Cpu)

}  // namespace opforge
