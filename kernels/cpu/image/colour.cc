// The colour ops, with TensorFlow's formulas: RGBToHSV and HSVToRGB (the last dimension holds
// the 3 channels), AdjustContrastv2 (per image and channel, (x - mean) * factor + mean),
// AdjustHue (a rotation of the hue in TensorFlow's hue/value-range form) and
// AdjustSaturation (through HSV, the saturation scaled and clipped to [0, 1]).
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/image/adjust_contrastv2.h"
#include "opforge/ops/image/adjust_hue.h"
#include "opforge/ops/image/adjust_saturation.h"
#include "opforge/ops/image/hsv_to_rgb.h"
#include "opforge/ops/image/rgb_to_hsv.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

using cpu::compute_t;

Status check_channels(const KernelContext& ctx, const Tensor& images, int min_rank) {
  if (images.rank() < min_rank) {
    return ctx.error("input must be at least ", min_rank, "-D, got shape ", images.shape().to_string());
  }
  const int64_t ch = images.dim(images.rank() - 1);
  if (ch != 3) return ctx.error("input must have 3 channels but input only has ", ch, " channels.");
  return Status::OK();
}

// One pixel's RGB to HSV in C, the hue's offsets (2/6, 4/6) added in K (the RGBToHSV op adds
// them in C; AdjustSaturation, like TensorFlow's kernel, in double).
template <typename C, typename K = C>
void rgb_to_hsv(C r, C g, C b, C* h, C* s, C* v) {
  const C vv = std::max(r, std::max(g, b));
  const C range = vv - std::min(r, std::min(g, b));
  *s = vv > C(0) ? range / vv : C(0);
  const C norm = C(1) / (C(6) * range);
  C hh = r == vv   ? norm * (g - b)
         : g == vv ? static_cast<C>(static_cast<K>(norm * (b - r)) + K(2) / K(6))
                   : static_cast<C>(static_cast<K>(norm * (r - g)) + K(4) / K(6));
  if (!(range > C(0))) hh = C(0);
  if (hh < C(0)) hh += C(1);
  *h = hh;
  *v = vv;
}

template <typename T>
Status RGBToHSVCpu(ops::RGBToHSVArgs& a) {
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.images, 1));
  using C = compute_t<T>;
  const T* in = a.images.template data<T>();
  T* out = a.output.template data<T>();
  parallel_for(a.images.num_elements() / 3, cpu::kGrain / 3, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      C h, s, v;
      rgb_to_hsv<C>(static_cast<C>(in[3 * p]), static_cast<C>(in[3 * p + 1]), static_cast<C>(in[3 * p + 2]), &h, &s,
                    &v);
      out[3 * p] = static_cast<T>(h);
      out[3 * p + 1] = static_cast<T>(s);
      out[3 * p + 2] = static_cast<T>(v);
    }
  });
  return Status::OK();
}

template <typename T>
Status HSVToRGBCpu(ops::HSVToRGBArgs& a) {
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.images, 1));
  using C = compute_t<T>;
  const T* in = a.images.template data<T>();
  T* out = a.output.template data<T>();
  auto clip = [](C x) { return std::min(C(1), std::max(C(0), x)); };
  parallel_for(a.images.num_elements() / 3, cpu::kGrain / 3, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const C h = static_cast<C>(in[3 * p]), s = static_cast<C>(in[3 * p + 1]), v = static_cast<C>(in[3 * p + 2]);
      const C dh = h * C(6);
      const C dr = clip(std::abs(dh - C(3)) - C(1));
      const C dg = clip(-std::abs(dh - C(2)) + C(2));
      const C db = clip(-std::abs(dh - C(4)) + C(2));
      const C one_s = -s + C(1);
      out[3 * p] = static_cast<T>((one_s + s * dr) * v);
      out[3 * p + 1] = static_cast<T>((one_s + s * dg) * v);
      out[3 * p + 2] = static_cast<T>((one_s + s * db) * v);
    }
  });
  return Status::OK();
}

Status read_factor(const KernelContext& ctx, const Tensor& t, const char* what, float* out) {
  if (t.rank() != 0) return ctx.error(what, " must be scalar, got shape ", t.shape().to_string());
  *out = t.data<float>()[0];
  return Status::OK();
}

template <typename T>
Status AdjustContrastv2Cpu(ops::AdjustContrastv2Args& a) {
  if (a.images.rank() < 3) {
    return a.ctx.error("input must be at least 3-D, got shape ", a.images.shape().to_string());
  }
  float factor;
  OPF_RETURN_IF_ERROR(read_factor(a.ctx, a.contrast_factor, "contrast_factor", &factor));
  const int r = a.images.rank();
  const int64_t ch = a.images.dim(r - 1), hw = a.images.dim(r - 2) * a.images.dim(r - 3);
  const int64_t n = ch * hw == 0 ? 0 : a.images.num_elements() / (ch * hw);
  const T* in = a.images.template data<T>();
  T* out = a.output.template data<T>();
  parallel_for(n, 1, [&](int64_t i0, int64_t i1) {
    std::vector<float> mean(static_cast<size_t>(ch));
    for (int64_t i = i0; i < i1; ++i) {
      const T* im = in + i * hw * ch;
      T* o = out + i * hw * ch;
      std::fill(mean.begin(), mean.end(), 0.0f);
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t c = 0; c < ch; ++c) mean[static_cast<size_t>(c)] += static_cast<float>(im[p * ch + c]);
      for (float& m : mean) m /= static_cast<float>(hw);
      for (int64_t p = 0; p < hw; ++p) {
        for (int64_t c = 0; c < ch; ++c) {
          const float m = mean[static_cast<size_t>(c)];
          o[p * ch + c] = static_cast<T>((static_cast<float>(im[p * ch + c]) - m) * factor + m);
        }
      }
    }
  });
  return Status::OK();
}

// TensorFlow's AdjustHue works on (hue in [0, 6), min, max): the hue's sextant says which
// channel is the max, the min and the middle one.
void rgb_to_hv_range(float r, float g, float b, float* h, float* v_min, float* v_max) {
  float v_mid;
  int category;
  if (r < g) {
    if (b < r) {
      *v_max = g, v_mid = r, *v_min = b, category = 1;
    } else if (b > g) {
      *v_max = b, v_mid = g, *v_min = r, category = 3;
    } else {
      *v_max = g, v_mid = b, *v_min = r, category = 2;
    }
  } else {
    if (b < g) {
      *v_max = r, v_mid = g, *v_min = b, category = 0;
    } else if (b > r) {
      *v_max = b, v_mid = r, *v_min = g, category = 4;
    } else {
      *v_max = r, v_mid = b, *v_min = g, category = 5;
    }
  }
  if (*v_max == *v_min) {
    *h = 0;
    return;
  }
  const float ratio = (v_mid - *v_min) / (*v_max - *v_min);
  *h = static_cast<float>(category) + ((category & 1) == 0 ? ratio : 1 - ratio);
}

void hv_range_to_rgb(float h, float v_min, float v_max, float* r, float* g, float* b) {
  const int category = static_cast<int>(h);
  float ratio = h - static_cast<float>(category);
  if ((category & 1) != 0) ratio = 1 - ratio;
  const float v_mid = v_min + ratio * (v_max - v_min);
  switch (category) {
    case 0:
      *r = v_max, *g = v_mid, *b = v_min;
      break;
    case 1:
      *r = v_mid, *g = v_max, *b = v_min;
      break;
    case 2:
      *r = v_min, *g = v_max, *b = v_mid;
      break;
    case 3:
      *r = v_min, *g = v_mid, *b = v_max;
      break;
    case 4:
      *r = v_mid, *g = v_min, *b = v_max;
      break;
    default:
      *r = v_max, *g = v_min, *b = v_mid;
  }
}

template <typename T>
Status AdjustHueCpu(ops::AdjustHueArgs& a) {
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.images, 3));
  float delta;
  OPF_RETURN_IF_ERROR(read_factor(a.ctx, a.delta, "delta", &delta));
  if (!std::isfinite(delta)) return a.ctx.error("delta must be finite, got ", delta);
  const float delta_h = delta * 6.0f;
  const T* in = a.images.template data<T>();
  T* out = a.output.template data<T>();
  parallel_for(a.images.num_elements() / 3, cpu::kGrain / 3, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      float h, lo, hi, r, g, b;
      rgb_to_hv_range(static_cast<float>(in[3 * p]), static_cast<float>(in[3 * p + 1]),
                      static_cast<float>(in[3 * p + 2]), &h, &lo, &hi);
      h += delta_h;
      h = std::fmod(h, 6.0f);  // TensorFlow's while loops, without their cost for a huge delta
      if (h < 0) h += 6.0f;
      if (h >= 6.0f) h -= 6.0f;
      hv_range_to_rgb(h, lo, hi, &r, &g, &b);
      out[3 * p] = static_cast<T>(r);
      out[3 * p + 1] = static_cast<T>(g);
      out[3 * p + 2] = static_cast<T>(b);
    }
  });
  return Status::OK();
}

// AdjustSaturation's own HSV -> RGB (TensorFlow's: by the hue's sextant).
void hsv_to_rgb_sextant(float h, float s, float v, float* r, float* g, float* b) {
  const float c = s * v, m = v - c, dh = h * 6;
  const int category = static_cast<int>(dh);
  float fmodu = std::fmod(dh, 2.0f);
  if (fmodu <= 0) fmodu += 2.0f;
  if (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  float rr = 0, gg = 0, bb = 0;
  switch (category) {
    case 0:
      rr = c, gg = x;
      break;
    case 1:
      rr = x, gg = c;
      break;
    case 2:
      gg = c, bb = x;
      break;
    case 3:
      gg = x, bb = c;
      break;
    case 4:
      rr = x, bb = c;
      break;
    case 5:
      rr = c, bb = x;
      break;
    default:
      break;
  }
  *r = rr + m, *g = gg + m, *b = bb + m;
}

template <typename T>
Status AdjustSaturationCpu(ops::AdjustSaturationArgs& a) {
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.images, 3));
  float scale;
  OPF_RETURN_IF_ERROR(read_factor(a.ctx, a.scale, "scale", &scale));
  const T* in = a.images.template data<T>();
  T* out = a.output.template data<T>();
  parallel_for(a.images.num_elements() / 3, cpu::kGrain / 3, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      float h, s, v, r, g, b;
      rgb_to_hsv<float, double>(static_cast<float>(in[3 * p]), static_cast<float>(in[3 * p + 1]),
                                static_cast<float>(in[3 * p + 2]), &h, &s, &v);
      s = std::min(1.0f, std::max(0.0f, s * scale));
      hsv_to_rgb_sextant(h, s, v, &r, &g, &b);
      out[3 * p] = static_cast<T>(r);
      out[3 * p + 1] = static_cast<T>(g);
      out[3 * p + 2] = static_cast<T>(b);
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(RGBToHSV, CPU, RGBToHSVCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(HSVToRGB, CPU, HSVToRGBCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(AdjustContrastv2, CPU, AdjustContrastv2Cpu, half, float)
OPFORGE_REGISTER_KERNEL(AdjustHue, CPU, AdjustHueCpu, half, float)
OPFORGE_REGISTER_KERNEL(AdjustSaturation, CPU, AdjustSaturationCpu, half, float)

}  // namespace opforge
