// CropAndResize and its gradients (image, boxes), as TensorFlow computes them: box i,
// [y1, x1, y2, x2] in normalized coordinates, samples image box_ind[i] at
// y1 * (h - 1) + y * (y2 - y1) * (h - 1) / (crop_h - 1) (the box's middle for a crop of one),
// bilinearly or at the nearest pixel; samples outside the image take extrapolation_value.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image/image_util.h"
#include "opforge/ops/image/crop_and_resize.h"
#include "opforge/ops/image/crop_and_resize_grad_boxes.h"
#include "opforge/ops/image/crop_and_resize_grad_image.h"
#include "opforge/parallel.h"

namespace opforge {
namespace {

// boxes [n, 4] and box_ind [n] with every index in [0, batch).
Status check_boxes(const KernelContext& ctx, const Tensor& boxes, const Tensor& box_ind, int64_t batch) {
  if (boxes.rank() != 2 || boxes.dim(1) != 4) {
    return ctx.error("boxes must be 2-D [num_boxes, 4], got shape ", boxes.shape().to_string());
  }
  if (box_ind.rank() != 1 || box_ind.dim(0) != boxes.dim(0)) {
    return ctx.error("box_ind must be 1-D [num_boxes], got shape ", box_ind.shape().to_string(), " for ", boxes.dim(0),
                     " boxes");
  }
  const int32_t* ind = box_ind.data<int32_t>();
  for (int64_t i = 0; i < box_ind.dim(0); ++i) {
    if (ind[i] < 0 || ind[i] >= batch) {
      return ctx.error("box_ind has values outside [0, batch_size): box_ind[", i, "] = ", ind[i], ", batch_size ",
                       batch);
    }
  }
  return Status::OK();
}

// Where crop row (column) i of a box samples the image, in pixels: one coordinate per output.
struct Sampling {
  float start, scale;  // sample i is at start + i * scale
  bool single;         // a crop of one: the box's middle
  float middle;
};

Sampling sampling(float lo, float hi, int64_t image, int64_t crop) {
  const float extent = static_cast<float>(image - 1);
  Sampling s;
  s.single = crop <= 1;
  s.scale = crop > 1 ? (hi - lo) * extent / static_cast<float>(crop - 1) : 0.0f;
  s.start = lo * extent;
  s.middle =
      static_cast<float>(0.5 * static_cast<double>(lo + hi) * static_cast<double>(image - 1));  // as TF: in double
  return s;
}

// dst += v in T's compute type (half has no +=).
template <typename T>
void add(T& dst, float v) {
  dst = static_cast<T>(static_cast<cpu::compute_t<T>>(dst) + static_cast<cpu::compute_t<T>>(v));
}

float at(const Sampling& s, int64_t i) { return s.single ? s.middle : s.start + static_cast<float>(i) * s.scale; }

template <typename T>
Status CropAndResizeCpu(ops::CropAndResizeArgs& a) {
  OPF_RETURN_IF_ERROR(image::check_images(a.ctx, a.image, "image"));
  int64_t chh, cw;
  OPF_RETURN_IF_ERROR(image::read_size(a.ctx, a.crop_size, &chh, &cw, "crop_size"));
  const int64_t batch = a.image.dim(0), ih = a.image.dim(1), iw = a.image.dim(2), depth = a.image.dim(3);
  OPF_RETURN_IF_ERROR(check_boxes(a.ctx, a.boxes, a.box_ind, batch));
  const int64_t n = a.boxes.dim(0);
  const float* boxes = a.boxes.data<float>();
  const int32_t* ind = a.box_ind.data<int32_t>();
  const T* img = a.image.template data<T>();
  float* out = a.crops.template data<float>();
  const float extrapolation = a.extrapolation_value;
  const bool bilinear = a.method == "bilinear";
  parallel_for(n, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const float* bx = boxes + b * 4;
      const Sampling sy = sampling(bx[0], bx[2], ih, chh), sx = sampling(bx[1], bx[3], iw, cw);
      const T* im = img + static_cast<int64_t>(ind[b]) * ih * iw * depth;
      for (int64_t y = 0; y < chh; ++y) {
        float* row = out + (b * chh + y) * cw * depth;
        const float in_y = at(sy, y);
        if (in_y < 0 || in_y > static_cast<float>(ih - 1)) {
          std::fill(row, row + cw * depth, extrapolation);
          continue;
        }
        const int64_t top = static_cast<int64_t>(std::floor(in_y)), bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        const int64_t near_y = static_cast<int64_t>(std::round(in_y));
        for (int64_t x = 0; x < cw; ++x) {
          float* o = row + x * depth;
          const float in_x = at(sx, x);
          if (in_x < 0 || in_x > static_cast<float>(iw - 1)) {
            std::fill(o, o + depth, extrapolation);
            continue;
          }
          if (!bilinear) {
            const T* p = im + (near_y * iw + static_cast<int64_t>(std::round(in_x))) * depth;
            for (int64_t d = 0; d < depth; ++d) o[d] = static_cast<float>(p[d]);
            continue;
          }
          const int64_t left = static_cast<int64_t>(std::floor(in_x)), right = static_cast<int64_t>(std::ceil(in_x));
          const float x_lerp = in_x - static_cast<float>(left);
          const T *tl = im + (top * iw + left) * depth, *tr = im + (top * iw + right) * depth;
          const T *bl = im + (bottom * iw + left) * depth, *br = im + (bottom * iw + right) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float t =
                static_cast<float>(tl[d]) + (static_cast<float>(tr[d]) - static_cast<float>(tl[d])) * x_lerp;
            const float bt =
                static_cast<float>(bl[d]) + (static_cast<float>(br[d]) - static_cast<float>(bl[d])) * x_lerp;
            o[d] = t + (bt - t) * y_lerp;
          }
        }
      }
    }
  });
  return Status::OK();
}

Status check_grads(const KernelContext& ctx, const Tensor& grads, const Tensor& boxes) {
  if (grads.rank() != 4) return ctx.error("grads must be 4-D, got shape ", grads.shape().to_string());
  if (grads.dim(1) <= 0 || grads.dim(2) <= 0) return ctx.error("grads dimensions must be positive");
  if (boxes.rank() != 2 || grads.dim(0) != boxes.dim(0)) {
    return ctx.error("boxes and grads have incompatible shapes ", boxes.shape().to_string(), " and ",
                     grads.shape().to_string());
  }
  return Status::OK();
}

template <typename T>
Status CropAndResizeGradImageCpu(ops::CropAndResizeGradImageArgs& a) {
  OPF_RETURN_IF_ERROR(check_grads(a.ctx, a.grads, a.boxes));
  if (a.image_size.rank() != 1 || a.image_size.num_elements() != 4) {
    return a.ctx.error("image_size must be 1-D with 4 elements, got shape ", a.image_size.shape().to_string());
  }
  const int32_t* size = a.image_size.data<int32_t>();
  const int64_t batch = size[0], ih = size[1], iw = size[2], depth = size[3];
  if (ih <= 0 || iw <= 0 || batch < 0)
    return a.ctx.error("image dimensions must be positive, got image_size ", a.image_size.shape().to_string());
  if (depth != a.grads.dim(3))
    return a.ctx.error("image_size and grads are incompatible: depth ", depth, " vs ", a.grads.dim(3));
  OPF_RETURN_IF_ERROR(check_boxes(a.ctx, a.boxes, a.box_ind, batch));
  Tensor& out_t = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape({batch, ih, iw, depth}), &out_t));
  T* out = out_t.template data<T>();
  std::fill(out, out + out_t.num_elements(), T(0));
  const int64_t n = a.boxes.dim(0), chh = a.grads.dim(1), cw = a.grads.dim(2);
  const float* boxes = a.boxes.data<float>();
  const int32_t* ind = a.box_ind.data<int32_t>();
  const float* g = a.grads.data<float>();
  const bool bilinear = a.method == "bilinear";
  for (int64_t b = 0; b < n; ++b) {  // boxes may share an image: serial accumulation
    const float* bx = boxes + b * 4;
    const Sampling sy = sampling(bx[0], bx[2], ih, chh), sx = sampling(bx[1], bx[3], iw, cw);
    T* im = out + static_cast<int64_t>(ind[b]) * ih * iw * depth;
    for (int64_t y = 0; y < chh; ++y) {
      const float in_y = at(sy, y);
      if (in_y < 0 || in_y > static_cast<float>(ih - 1)) continue;
      const int64_t top = static_cast<int64_t>(std::floor(in_y)), bottom = static_cast<int64_t>(std::ceil(in_y));
      const float y_lerp = in_y - static_cast<float>(top);
      for (int64_t x = 0; x < cw; ++x) {
        const float in_x = at(sx, x);
        if (in_x < 0 || in_x > static_cast<float>(iw - 1)) continue;
        const float* gp = g + ((b * chh + y) * cw + x) * depth;
        if (!bilinear) {
          T* p = im + (static_cast<int64_t>(std::round(in_y)) * iw + static_cast<int64_t>(std::round(in_x))) * depth;
          for (int64_t d = 0; d < depth; ++d) add(p[d], gp[d]);
          continue;
        }
        const int64_t left = static_cast<int64_t>(std::floor(in_x)), right = static_cast<int64_t>(std::ceil(in_x));
        const float x_lerp = in_x - static_cast<float>(left);
        for (int64_t d = 0; d < depth; ++d) {
          const float dtop = (1 - y_lerp) * gp[d], dbottom = y_lerp * gp[d];
          add(im[(top * iw + left) * depth + d], (1 - x_lerp) * dtop);
          add(im[(top * iw + right) * depth + d], x_lerp * dtop);
          add(im[(bottom * iw + left) * depth + d], (1 - x_lerp) * dbottom);
          add(im[(bottom * iw + right) * depth + d], x_lerp * dbottom);
        }
      }
    }
  }
  return Status::OK();
}

template <typename T>
Status CropAndResizeGradBoxesCpu(ops::CropAndResizeGradBoxesArgs& a) {
  OPF_RETURN_IF_ERROR(check_grads(a.ctx, a.grads, a.boxes));
  OPF_RETURN_IF_ERROR(image::check_images(a.ctx, a.image, "image"));
  const int64_t batch = a.image.dim(0), ih = a.image.dim(1), iw = a.image.dim(2), depth = a.image.dim(3);
  if (depth != a.grads.dim(3))
    return a.ctx.error("image and grads are incompatible: depth ", depth, " vs ", a.grads.dim(3));
  OPF_RETURN_IF_ERROR(check_boxes(a.ctx, a.boxes, a.box_ind, batch));
  const int64_t n = a.boxes.dim(0), chh = a.grads.dim(1), cw = a.grads.dim(2);
  const float* boxes = a.boxes.data<float>();
  const int32_t* ind = a.box_ind.data<int32_t>();
  const float* g = a.grads.data<float>();
  const T* img = a.image.template data<T>();
  float* out = a.output.data<float>();
  std::fill(out, out + a.output.num_elements(), 0.0f);
  const float hr = chh > 1 ? static_cast<float>(ih - 1) / static_cast<float>(chh - 1) : 0.0f;
  const float wr = cw > 1 ? static_cast<float>(iw - 1) / static_cast<float>(cw - 1) : 0.0f;
  parallel_for(n, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const float* bx = boxes + b * 4;
      float* ob = out + b * 4;
      const Sampling sy = sampling(bx[0], bx[2], ih, chh), sx = sampling(bx[1], bx[3], iw, cw);
      const T* im = img + static_cast<int64_t>(ind[b]) * ih * iw * depth;
      for (int64_t y = 0; y < chh; ++y) {
        const float in_y = at(sy, y);
        if (in_y < 0 || in_y > static_cast<float>(ih - 1)) continue;
        const int64_t top = static_cast<int64_t>(std::floor(in_y)), bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - static_cast<float>(top);
        for (int64_t x = 0; x < cw; ++x) {
          const float in_x = at(sx, x);
          if (in_x < 0 || in_x > static_cast<float>(iw - 1)) continue;
          const int64_t left = static_cast<int64_t>(std::floor(in_x)), right = static_cast<int64_t>(std::ceil(in_x));
          const float x_lerp = in_x - static_cast<float>(left);
          const float* gp = g + ((b * chh + y) * cw + x) * depth;
          for (int64_t d = 0; d < depth; ++d) {
            const float tl = static_cast<float>(im[(top * iw + left) * depth + d]);
            const float tr = static_cast<float>(im[(top * iw + right) * depth + d]);
            const float bl = static_cast<float>(im[(bottom * iw + left) * depth + d]);
            const float br = static_cast<float>(im[(bottom * iw + right) * depth + d]);
            const float gy = (1 - x_lerp) * (bl - tl) + x_lerp * (br - tr);
            const float gx = (1 - y_lerp) * (tr - tl) + y_lerp * (br - bl);
            const float vy = gp[d] * gy, vx = gp[d] * gx;
            if (chh > 1) {
              ob[0] += vy * (static_cast<float>(ih - 1) - static_cast<float>(y) * hr);
              ob[2] += vy * (static_cast<float>(y) * hr);
            } else {
              ob[0] += vy * 0.5f * static_cast<float>(ih - 1);
              ob[2] += vy * 0.5f * static_cast<float>(ih - 1);
            }
            if (cw > 1) {
              ob[1] += vx * (static_cast<float>(iw - 1) - static_cast<float>(x) * wr);
              ob[3] += vx * (static_cast<float>(x) * wr);
            } else {
              ob[1] += vx * 0.5f * static_cast<float>(iw - 1);
              ob[3] += vx * 0.5f * static_cast<float>(iw - 1);
            }
          }
        }
      }
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(CropAndResize, CPU, CropAndResizeCpu, uint8_t, int8_t, int16_t, int32_t, int64_t, half,
                        bfloat16, float, double)
OPFORGE_REGISTER_FORWARDING_KERNEL(CropAndResizeGradImage, CPU, CropAndResizeGradImageCpu, float, half, double)
OPFORGE_REGISTER_KERNEL(CropAndResizeGradBoxes, CPU, CropAndResizeGradBoxesCpu, uint8_t, int8_t, int16_t, int32_t,
                        int64_t, half, bfloat16, float, double)

}  // namespace opforge
