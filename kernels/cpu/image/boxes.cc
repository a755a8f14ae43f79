// Box ops: NonMaxSuppression (V1, V2, V3: TensorFlow's greedy hard suppression, highest score
// first, ties to the lower index) and DrawBoundingBoxes (V1, V2: one-pixel outlines).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/image/draw_bounding_boxes.h"
#include "opforge/ops/image/draw_bounding_boxes_v2.h"
#include "opforge/ops/image/non_max_suppression.h"
#include "opforge/ops/image/non_max_suppression_v2.h"
#include "opforge/ops/image/non_max_suppression_v3.h"

namespace opforge {
namespace {

// Intersection over union of boxes i and j (any diagonal pair of corners); 0 for empty boxes.
float iou(const float* a, const float* b) {
  const float ay0 = std::min(a[0], a[2]), ax0 = std::min(a[1], a[3]), ay1 = std::max(a[0], a[2]),
              ax1 = std::max(a[1], a[3]);
  const float by0 = std::min(b[0], b[2]), bx0 = std::min(b[1], b[3]), by1 = std::max(b[0], b[2]),
              bx1 = std::max(b[1], b[3]);
  const float area_a = (ay1 - ay0) * (ax1 - ax0), area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ih = std::max(std::min(ay1, by1) - std::max(ay0, by0), 0.0f);
  const float iw = std::max(std::min(ax1, bx1) - std::max(ax0, bx0), 0.0f);
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

template <typename T>
float scalar(const Tensor& t) {
  return static_cast<float>(t.data<T>()[0]);
}

// Checks the inputs and runs the greedy selection; writes the selected indices as output 0.
template <typename T>
Status suppress(KernelContext& ctx, const Tensor& boxes_t, const Tensor& scores_t, const Tensor& max_t, float iou_thr,
                float score_thr) {
  if (boxes_t.rank() != 2 || boxes_t.dim(1) != 4) {
    return ctx.error("boxes must be 2-D [num_boxes, 4], got shape ", boxes_t.shape().to_string());
  }
  const int64_t n = boxes_t.dim(0);
  if (scores_t.rank() != 1 || scores_t.dim(0) != n) {
    return ctx.error("scores must be 1-D [num_boxes] with num_boxes = ", n, ", got shape ",
                     scores_t.shape().to_string());
  }
  if (max_t.rank() != 0) return ctx.error("max_output_size must be 0-D, got shape ", max_t.shape().to_string());
  const int64_t max_out = max_t.data<int32_t>()[0];
  if (max_out < 0) return ctx.error("max_output_size must be non-negative, got ", max_out);
  if (!(iou_thr >= 0 && iou_thr <= 1)) return ctx.error("iou_threshold must be in [0, 1], got ", iou_thr);
  std::vector<float> boxes(static_cast<size_t>(n * 4)), scores(static_cast<size_t>(n));
  const T* bp = boxes_t.data<T>();
  const T* sp = scores_t.data<T>();
  for (int64_t i = 0; i < n * 4; ++i) boxes[static_cast<size_t>(i)] = static_cast<float>(bp[i]);
  for (int64_t i = 0; i < n; ++i) scores[static_cast<size_t>(i)] = static_cast<float>(sp[i]);
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (scores[static_cast<size_t>(i)] > score_thr) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t i, int64_t j) { return scores[static_cast<size_t>(i)] > scores[static_cast<size_t>(j)]; });
  std::vector<int32_t> selected;
  for (int64_t i : order) {
    if (static_cast<int64_t>(selected.size()) >= max_out) break;
    bool keep = true;
    for (int32_t s : selected) {
      if (iou(&boxes[static_cast<size_t>(i * 4)], &boxes[static_cast<size_t>(s) * 4]) > iou_thr) {
        keep = false;
        break;
      }
    }
    if (keep) selected.push_back(static_cast<int32_t>(i));
  }
  Tensor& out = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({static_cast<int64_t>(selected.size())}), &out));
  std::copy(selected.begin(), selected.end(), out.data<int32_t>());
  return Status::OK();
}

Status NonMaxSuppressionCpu(ops::NonMaxSuppressionArgs& a) {
  return suppress<float>(a.ctx, a.boxes, a.scores, a.max_output_size, a.iou_threshold,
                         std::numeric_limits<float>::lowest());
}

Status check_scalar(const KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.rank() != 0) return ctx.error(what, " must be 0-D, got shape ", t.shape().to_string());
  return Status::OK();
}

template <typename T>
Status NonMaxSuppressionV2Cpu(ops::NonMaxSuppressionV2Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  const float thr = a.T_threshold == DType::kHalf ? scalar<half>(a.iou_threshold) : scalar<float>(a.iou_threshold);
  return suppress<T>(a.ctx, a.boxes, a.scores, a.max_output_size, thr, std::numeric_limits<float>::lowest());
}

template <typename T>
Status NonMaxSuppressionV3Cpu(ops::NonMaxSuppressionV3Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.score_threshold, "score_threshold"));
  const bool h = a.T_threshold == DType::kHalf;
  const float thr = h ? scalar<half>(a.iou_threshold) : scalar<float>(a.iou_threshold);
  const float score = h ? scalar<half>(a.score_threshold) : scalar<float>(a.score_threshold);
  return suppress<T>(a.ctx, a.boxes, a.scores, a.max_output_size, thr, score);
}

// ---- DrawBoundingBoxes

const std::vector<std::array<float, 4>> kPalette = {
    {1, 1, 0, 1}, {0, 0, 1, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {0.5f, 0, 0.5f, 1},
    {0.5f, 0.5f, 0, 1}, {0.5f, 0, 0, 1}, {0, 0, 0.5f, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}};

template <typename T>
Status draw(KernelContext& ctx, const Tensor& images, const Tensor& boxes_t, std::vector<std::array<float, 4>> colours,
            Tensor& out_t) {
  if (images.rank() != 4) return ctx.error("images must be 4-D, got shape ", images.shape().to_string());
  const int64_t batch = images.dim(0), h = images.dim(1), w = images.dim(2), depth = images.dim(3);
  if (depth != 1 && depth != 3 && depth != 4) {
    return ctx.error("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), got ", depth);
  }
  if (boxes_t.rank() != 3 || boxes_t.dim(0) != batch || boxes_t.dim(2) != 4) {
    return ctx.error("boxes must be 3-D [batch, num_boxes, 4] with batch ", batch, ", got shape ",
                     boxes_t.shape().to_string());
  }
  if (depth == 1) {  // as TensorFlow: boxes on gray images are white
    for (auto& c : colours) c[0] = 1;
  }
  const T* in = images.data<T>();
  T* out = out_t.data<T>();
  std::copy(in, in + images.num_elements(), out);
  if (h == 0 || w == 0) return Status::OK();
  const int64_t nb = boxes_t.dim(1);
  const float* boxes = boxes_t.data<float>();
  auto to_pixel = [](float v, int64_t extent) {
    const float p = v * static_cast<float>(extent - 1);
    // Out-of-range coordinates only need to stay out of range (TensorFlow converts to int64).
    if (!(p > -1e18f)) return int64_t{-1} << 60;
    if (p > 1e18f) return int64_t{1} << 60;
    return static_cast<int64_t>(p);
  };
  for (int64_t b = 0; b < batch; ++b) {
    T* im = out + b * h * w * depth;
    for (int64_t k = 0; k < nb; ++k) {
      const float* bx = boxes + (b * nb + k) * 4;
      const auto& colour = colours[static_cast<size_t>(k) % colours.size()];
      const int64_t r0 = to_pixel(bx[0], h), r1 = to_pixel(bx[2], h), c0 = to_pixel(bx[1], w), c1 = to_pixel(bx[3], w);
      if (r0 > r1 || c0 > c1) continue;                     // inverted: not drawn
      if (r0 >= h || r1 < 0 || c0 >= w || c1 < 0) continue;  // outside the image
      const int64_t r0c = std::max<int64_t>(r0, 0), r1c = std::min(r1, h - 1);
      const int64_t c0c = std::max<int64_t>(c0, 0), c1c = std::min(c1, w - 1);
      auto paint = [&](int64_t r, int64_t c) {
        for (int64_t d = 0; d < depth; ++d) im[(r * w + c) * depth + d] = static_cast<T>(colour[static_cast<size_t>(d)]);
      };
      if (r0 >= 0)
        for (int64_t c = c0c; c <= c1c; ++c) paint(r0, c);
      if (r1 < h)
        for (int64_t c = c0c; c <= c1c; ++c) paint(r1, c);
      if (c0 >= 0)
        for (int64_t r = r0c; r <= r1c; ++r) paint(r, c0);
      if (c1 < w)
        for (int64_t r = r0c; r <= r1c; ++r) paint(r, c1);
    }
  }
  return Status::OK();
}

template <typename T>
Status DrawBoundingBoxesCpu(ops::DrawBoundingBoxesArgs& a) {
  return draw<T>(a.ctx, a.images, a.boxes, kPalette, a.output);
}

template <typename T>
Status DrawBoundingBoxesV2Cpu(ops::DrawBoundingBoxesV2Args& a) {
  std::vector<std::array<float, 4>> colours = kPalette;
  if (a.colors.num_elements() > 0) {
    if (a.colors.rank() != 2 || a.colors.dim(1) < 4) {  // TF reads 4 values per colour
      return a.ctx.error("colors must be a 2-D [num_colors, 4] matrix, got shape ", a.colors.shape().to_string());
    }
    colours.clear();
    const float* c = a.colors.data<float>();
    for (int64_t i = 0; i < a.colors.dim(0); ++i) {
      const float* row = c + i * a.colors.dim(1);
      colours.push_back({row[0], row[1], row[2], row[3]});
    }
  }
  return draw<T>(a.ctx, a.images, a.boxes, colours, a.output);
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(NonMaxSuppression, CPU, NonMaxSuppressionCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(NonMaxSuppressionV2, CPU, NonMaxSuppressionV2Cpu, half, float)
OPFORGE_REGISTER_FORWARDING_KERNEL(NonMaxSuppressionV3, CPU, NonMaxSuppressionV3Cpu, half, float)
OPFORGE_REGISTER_KERNEL(DrawBoundingBoxes, CPU, DrawBoundingBoxesCpu, float, half)
OPFORGE_REGISTER_KERNEL(DrawBoundingBoxesV2, CPU, DrawBoundingBoxesV2Cpu, float, half)

}  // namespace opforge
