// ExtractImagePatches: each output position holds the patch of ksizes pixels, sampled every
// `rates` pixels, that starts at position * strides (less the SAME padding), flattened in
// (row, column, channel) order; samples in the padding are zeros.
#include <algorithm>
#include <cstring>

#include "cpu/cpu_util.h"
#include "opforge/ops/image/extract_image_patches.h"
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

}  // namespace

OPFORGE_REGISTER_KERNEL(ExtractImagePatches, CPU, ExtractImagePatchesCpu, bfloat16, half, float, double, int8_t,
                        int16_t, int32_t, int64_t, uint8_t, bool)

}  // namespace opforge
