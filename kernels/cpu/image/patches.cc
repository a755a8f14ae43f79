// ExtractImagePatches: each output position holds the patch of ksizes pixels, sampled every
// `rates` pixels, that starts at position * strides (less the SAME padding), flattened in
// (row, column, channel) order; samples in the padding are zeros.
#include <algorithm>
#include <cstring>

#include "cpu/cpu_util.h"
#include "opforge/ops/image/extract_image_patches.h"
#include "opforge/ops/image/extract_volume_patches.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

template <typename T>
Status ExtractImagePatchesCpu(ops::ExtractImagePatchesArgs& a) {
  if (a.images.rank() != 4) return a.ctx.error("images must be 4-D, got shape ", a.images.shape().to_string());
  const int64_t b = a.images.dim(0), ih = a.images.dim(1), iw = a.images.dim(2), ch = a.images.dim(3);
  const int64_t kh = a.ksizes[1], kw = a.ksizes[2], sh = a.strides[1], sw = a.strides[2], rh = a.rates[1],
                rw = a.rates[2];
  const int64_t oh = a.patches.dim(1), ow = a.patches.dim(2);
  const int64_t eh = kh + (kh - 1) * (rh - 1), ew = kw + (kw - 1) * (rw - 1);
  const int64_t pad_top = a.padding == "SAME" ? std::max<int64_t>(0, (oh - 1) * sh + eh - ih) / 2 : 0;
  const int64_t pad_left = a.padding == "SAME" ? std::max<int64_t>(0, (ow - 1) * sw + ew - iw) / 2 : 0;
  const T* in = a.images.template data<T>();
  T* out = a.patches.template data<T>();
  if (a.patches.num_elements() == 0) return Status::OK();
  const int64_t depth = kh * kw * ch;
  parallel_for(b * oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, ow * depth)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t n = r / oh, y = r % oh;
                   T* o = out + r * ow * depth;
                   for (int64_t x = 0; x < ow; ++x) {
                     T* p = o + x * depth;
                     for (int64_t i = 0; i < kh; ++i) {
                       const int64_t yy = y * sh - pad_top + i * rh;
                       for (int64_t j = 0; j < kw; ++j) {
                         const int64_t xx = x * sw - pad_left + j * rw;
                         T* dst = p + (i * kw + j) * ch;
                         if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) {
                           std::fill(dst, dst + ch, T(0));
                         } else {
                           const T* src = in + ((n * ih + yy) * iw + xx) * ch;
                           std::copy(src, src + ch, dst);
                         }
                       }
                     }
                   }
                 }
               });
  return Status::OK();
}

// ExtractVolumePatches: the same over [batch, planes, rows, cols, depth] (no rates).
template <typename T>
Status ExtractVolumePatchesCpu(ops::ExtractVolumePatchesArgs& a) {
  if (a.input.rank() != 5) return a.ctx.error("input must be 5-D, got shape ", a.input.shape().to_string());
  const int64_t b = a.input.dim(0), id = a.input.dim(1), ih = a.input.dim(2), iw = a.input.dim(3), ch = a.input.dim(4);
  const int64_t kd = a.ksizes[1], kh = a.ksizes[2], kw = a.ksizes[3];
  const int64_t sd = a.strides[1], sh = a.strides[2], sw = a.strides[3];
  const int64_t od = a.patches.dim(1), oh = a.patches.dim(2), ow = a.patches.dim(3);
  const bool same = a.padding == "SAME";
  const int64_t pf = same ? std::max<int64_t>(0, (od - 1) * sd + kd - id) / 2 : 0;
  const int64_t pt = same ? std::max<int64_t>(0, (oh - 1) * sh + kh - ih) / 2 : 0;
  const int64_t pl = same ? std::max<int64_t>(0, (ow - 1) * sw + kw - iw) / 2 : 0;
  if (a.patches.num_elements() == 0) return Status::OK();
  const T* in = a.input.template data<T>();
  T* out = a.patches.template data<T>();
  const int64_t depth = kd * kh * kw * ch;
  parallel_for(b * od * oh, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, ow * depth)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t n = r / (od * oh), z = (r / oh) % od, y = r % oh;
                   for (int64_t x = 0; x < ow; ++x) {
                     T* p = out + (r * ow + x) * depth;
                     for (int64_t i = 0; i < kd; ++i) {
                       const int64_t zz = z * sd - pf + i;
                       for (int64_t j = 0; j < kh; ++j) {
                         const int64_t yy = y * sh - pt + j;
                         for (int64_t k = 0; k < kw; ++k) {
                           const int64_t xx = x * sw - pl + k;
                           T* dst = p + ((i * kh + j) * kw + k) * ch;
                           if (zz < 0 || zz >= id || yy < 0 || yy >= ih || xx < 0 || xx >= iw) {
                             std::fill(dst, dst + ch, T(0));
                           } else {
                             const T* src = in + (((n * id + zz) * ih + yy) * iw + xx) * ch;
                             std::copy(src, src + ch, dst);
                           }
                         }
                       }
                     }
                   }
                 }
               });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(ExtractVolumePatches, CPU, ExtractVolumePatchesCpu, float, double, int32_t, uint8_t, int16_t,
                        int8_t, int64_t, bfloat16, half)
OPFORGE_REGISTER_KERNEL(ExtractImagePatches, CPU, ExtractImagePatchesCpu, bfloat16, half, float, double, int8_t,
                        int16_t, int32_t, int64_t, uint8_t, bool)

}  // namespace opforge
