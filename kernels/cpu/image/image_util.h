// What the image kernels share: TensorFlow's resize scale, and the checks of images and
// of (height, width) size inputs, each error naming the op.
#pragma once

#include <cstdint>

#include "opforge/kernel.h"

namespace opforge {
namespace image {

// in / out, or (in - 1) / (out - 1) with align_corners (TensorFlow's CalculateResizeScale).
inline float resize_scale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

inline Status check_flags(const KernelContext& ctx, bool align_corners, bool half_pixel) {
  if (align_corners && half_pixel) return ctx.error("If half_pixel_centers is True, align_corners must be False.");
  return Status::OK();
}

// A (height, width) from a vector of 2 positive int32 values (a resize's size, a crop_size).
inline Status read_size(const KernelContext& ctx, const Tensor& size, int64_t* h, int64_t* w,
                        const char* what = "size") {
  if (size.rank() != 1 || size.num_elements() != 2) {
    return ctx.error(what, " must be a 1-D int32 Tensor of 2 elements: new_height, new_width, got shape ",
                     size.shape().to_string());
  }
  *h = size.data<int32_t>()[0];
  *w = size.data<int32_t>()[1];
  if (*h <= 0 || *w <= 0) return ctx.error(what, ": output dimensions must be positive, got ", *h, "x", *w);
  return Status::OK();
}

// A 4-D [batch, height, width, channels] tensor of non-empty images.
inline Status check_images(const KernelContext& ctx, const Tensor& images, const char* what = "images") {
  if (images.rank() != 4) return ctx.error(what, " must be 4-dimensional, got shape ", images.shape().to_string());
  if (images.dim(1) <= 0 || images.dim(2) <= 0) {
    return ctx.error("input image must be of non-zero size, got shape ", images.shape().to_string());
  }
  return Status::OK();
}

}  // namespace image
}  // namespace opforge
