// Box ops: NonMaxSuppression (V1 to V5 and WithOverlaps: TensorFlow's greedy suppression,
// highest score first, ties to the lower index, Soft-NMS in V5) and DrawBoundingBoxes (V1, V2:
// one-pixel outlines).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/parallel.h"
#include "opforge/ops/image/combined_non_max_suppression.h"
#include "opforge/ops/image/draw_bounding_boxes.h"
#include "opforge/ops/image/draw_bounding_boxes_v2.h"
#include "opforge/ops/image/non_max_suppression.h"
#include "opforge/ops/image/non_max_suppression_v2.h"
#include "opforge/ops/image/non_max_suppression_v3.h"
#include "opforge/ops/image/non_max_suppression_v4.h"
#include "opforge/ops/image/non_max_suppression_v5.h"
#include "opforge/ops/image/non_max_suppression_with_overlaps.h"

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

Status check_scalar(const KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.rank() != 0) return ctx.error(what, " must be 0-D, got shape ", t.shape().to_string());
  return Status::OK();
}

struct Selection {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

// TensorFlow's DoNonMaxSuppressionOp: candidates above score_threshold, highest score first
// (ties to the lower index); a candidate is compared with the boxes selected since it was last
// looked at; hard NMS drops it when a similarity exceeds the threshold, Soft-NMS (sigma > 0)
// scales its score by exp(-sim^2 / (2 sigma)) whatever the similarity and queues it again while
// above score_threshold.
template <typename Similarity>
Selection greedy(const std::vector<float>& scores, int64_t max_out, float threshold, float score_threshold, float sigma,
                 Similarity similarity) {
  struct Candidate {
    int32_t index;
    float score;
    size_t begin;  // selected boxes before this one were compared already
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (size_t i = 0; i < scores.size(); ++i)
    if (scores[i] > score_threshold) queue.push({static_cast<int32_t>(i), scores[i], 0});
  const bool soft = sigma > 0;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  Selection out;
  while (static_cast<int64_t>(out.indices.size()) < max_out && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool hard = false;
    for (size_t j = out.indices.size(); j-- > c.begin;) {
      const float sim = similarity(c.index, out.indices[j]);
      c.score *= soft || sim <= threshold ? std::exp(scale * sim * sim) : 0.0f;  // Soft-NMS ignores the threshold
      if (!soft && sim > threshold) {
        hard = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.begin = out.indices.size();
    if (hard) continue;
    if (c.score == original) {
      out.indices.push_back(c.index);
      out.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return out;
}

// The selection's outputs: indices (padded with zeros to max_out if asked), scores (as T, the
// same padding) when `scores_out`, the valid count when `valid_out`.
template <typename T>
Status write_selection(KernelContext& ctx, const Selection& sel, int64_t max_out, bool pad, Tensor* scores_out,
                       Tensor* valid_out) {
  const int64_t n = pad ? max_out : static_cast<int64_t>(sel.indices.size());
  Tensor& idx = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({n}), &idx));
  std::fill(idx.data<int32_t>(), idx.data<int32_t>() + n, 0);
  std::copy(sel.indices.begin(), sel.indices.end(), idx.data<int32_t>());
  if (scores_out != nullptr) {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape({n}), scores_out));
    T* p = scores_out->data<T>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<T>(i < static_cast<int64_t>(sel.scores.size()) ? sel.scores[static_cast<size_t>(i)] : 0.0f);
  }
  if (valid_out != nullptr) {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({}), valid_out));
    valid_out->data<int32_t>()[0] = static_cast<int32_t>(sel.indices.size());
  }
  return Status::OK();
}

// Checks boxes [n, 4] (or overlaps [n, n]), scores [n] and max_output_size, and reads them as float.
template <typename T>
Status read_inputs(const KernelContext& ctx, const Tensor& boxes_t, const Tensor& scores_t, const Tensor& max_t,
                   bool overlaps, std::vector<float>* boxes, std::vector<float>* scores, int64_t* max_out) {
  const int64_t n = boxes_t.rank() == 2 ? boxes_t.dim(0) : -1;
  if (overlaps ? (n < 0 || boxes_t.dim(1) != n) : (n < 0 || boxes_t.dim(1) != 4)) {
    return ctx.error(
        overlaps ? "overlaps must be a square 2-D matrix [num_boxes, num_boxes]" : "boxes must be 2-D [num_boxes, 4]",
        ", got shape ", boxes_t.shape().to_string());
  }
  if (scores_t.rank() != 1 || scores_t.dim(0) != n) {
    return ctx.error("scores must be 1-D [num_boxes] with num_boxes = ", n, ", got shape ",
                     scores_t.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(check_scalar(ctx, max_t, "max_output_size"));
  *max_out = max_t.data<int32_t>()[0];
  if (*max_out < 0) return ctx.error("max_output_size must be non-negative, got ", *max_out);
  boxes->resize(static_cast<size_t>(boxes_t.num_elements()));
  scores->resize(static_cast<size_t>(n));
  const T* bp = boxes_t.data<T>();
  const T* sp = scores_t.data<T>();
  for (size_t i = 0; i < boxes->size(); ++i) (*boxes)[i] = static_cast<float>(bp[i]);
  for (size_t i = 0; i < scores->size(); ++i) (*scores)[i] = static_cast<float>(sp[i]);
  return Status::OK();
}

// The box ops: IoU similarity over [n, 4] boxes.
template <typename T>
Status suppress_boxes(KernelContext& ctx, const Tensor& boxes_t, const Tensor& scores_t, const Tensor& max_t,
                      float iou_thr, float score_thr, float sigma, bool pad, Tensor* scores_out, Tensor* valid_out) {
  std::vector<float> boxes, scores;
  int64_t max_out;
  OPF_RETURN_IF_ERROR(read_inputs<T>(ctx, boxes_t, scores_t, max_t, false, &boxes, &scores, &max_out));
  if (!(iou_thr >= 0 && iou_thr <= 1)) return ctx.error("iou_threshold must be in [0, 1], got ", iou_thr);
  if (!(sigma >= 0)) return ctx.error("soft_nms_sigma must be non-negative, got ", sigma);
  const Selection sel = greedy(scores, max_out, iou_thr, score_thr, sigma, [&](int32_t i, int32_t j) {
    return iou(&boxes[static_cast<size_t>(i) * 4], &boxes[static_cast<size_t>(j) * 4]);
  });
  return write_selection<T>(ctx, sel, max_out, pad, scores_out, valid_out);
}

constexpr float kNoScoreThreshold = std::numeric_limits<float>::lowest();

Status NonMaxSuppressionCpu(ops::NonMaxSuppressionArgs& a) {
  return suppress_boxes<float>(a.ctx, a.boxes, a.scores, a.max_output_size, a.iou_threshold, kNoScoreThreshold, 0,
                               false, nullptr, nullptr);
}

// A threshold input of dtype T_threshold (half or float).
float threshold(const Tensor& t) { return t.dtype() == DType::kHalf ? scalar<half>(t) : scalar<float>(t); }

template <typename T>
Status NonMaxSuppressionV2Cpu(ops::NonMaxSuppressionV2Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  return suppress_boxes<T>(a.ctx, a.boxes, a.scores, a.max_output_size, threshold(a.iou_threshold), kNoScoreThreshold,
                           0, false, nullptr, nullptr);
}

template <typename T>
Status NonMaxSuppressionV3Cpu(ops::NonMaxSuppressionV3Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.score_threshold, "score_threshold"));
  return suppress_boxes<T>(a.ctx, a.boxes, a.scores, a.max_output_size, threshold(a.iou_threshold),
                           threshold(a.score_threshold), 0, false, nullptr, nullptr);
}

template <typename T>
Status NonMaxSuppressionV4Cpu(ops::NonMaxSuppressionV4Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.score_threshold, "score_threshold"));
  return suppress_boxes<T>(a.ctx, a.boxes, a.scores, a.max_output_size, threshold(a.iou_threshold),
                           threshold(a.score_threshold), 0, a.pad_to_max_output_size, nullptr, &a.ctx.output(1));
}

template <typename T>
Status NonMaxSuppressionV5Cpu(ops::NonMaxSuppressionV5Args& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.iou_threshold, "iou_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.score_threshold, "score_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.soft_nms_sigma, "soft_nms_sigma"));
  return suppress_boxes<T>(a.ctx, a.boxes, a.scores, a.max_output_size, scalar<T>(a.iou_threshold),
                           scalar<T>(a.score_threshold), scalar<T>(a.soft_nms_sigma), a.pad_to_max_output_size,
                           &a.ctx.output(1), &a.ctx.output(2));
}

Status NonMaxSuppressionWithOverlapsCpu(ops::NonMaxSuppressionWithOverlapsArgs& a) {
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.overlap_threshold, "overlap_threshold"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.score_threshold, "score_threshold"));
  std::vector<float> overlaps, scores;
  int64_t max_out;
  OPF_RETURN_IF_ERROR(
      read_inputs<float>(a.ctx, a.overlaps, a.scores, a.max_output_size, true, &overlaps, &scores, &max_out));
  const size_t n = scores.size();
  const Selection sel = greedy(scores, max_out, scalar<float>(a.overlap_threshold), scalar<float>(a.score_threshold), 0,
                               [&](int32_t i, int32_t j) { return overlaps[static_cast<size_t>(i) * n + j]; });
  return write_selection<float>(a.ctx, sel, max_out, false, nullptr, nullptr);
}

// ---- CombinedNonMaxSuppression

struct Detection {
  float score;
  int32_t cls;
  std::array<float, 4> box;
};

Status CombinedNonMaxSuppressionCpu(ops::CombinedNonMaxSuppressionArgs& a) {
  const Tensor &bt = a.boxes, &st = a.scores;
  if (bt.rank() != 4 || bt.dim(3) != 4) {
    return a.ctx.error("boxes must be 4-D [batch_size, num_boxes, q, 4], got shape ", bt.shape().to_string());
  }
  if (st.rank() != 3 || st.dim(0) != bt.dim(0) || st.dim(1) != bt.dim(1)) {
    return a.ctx.error("scores must be 3-D [batch_size, num_boxes, num_classes] matching boxes ",
                       bt.shape().to_string(), ", got shape ", st.shape().to_string());
  }
  const int64_t batch = bt.dim(0), n = bt.dim(1), q = bt.dim(2), classes = st.dim(2);
  if (q != 1 && q != classes) {
    return a.ctx.error("third dimension of boxes must be either 1 or num classes, got ", q, " for ", classes,
                       " classes");
  }
  const Tensor* scalars[] = {&a.max_output_size_per_class, &a.max_total_size, &a.iou_threshold, &a.score_threshold};
  const char* names[] = {"max_output_size_per_class", "max_total_size", "iou_threshold", "score_threshold"};
  for (int i = 0; i < 4; ++i) OPF_RETURN_IF_ERROR(check_scalar(a.ctx, *scalars[i], names[i]));
  const int64_t per_class = a.max_output_size_per_class.data<int32_t>()[0];
  const int64_t total = a.max_total_size.data<int32_t>()[0];
  const float iou_thr = scalar<float>(a.iou_threshold), score_thr = scalar<float>(a.score_threshold);
  if (per_class <= 0) return a.ctx.error("max_output_size_per_class must be > 0, got ", per_class);
  if (total <= 0) return a.ctx.error("max_total_size must be > 0, got ", total);
  if (!(iou_thr >= 0 && iou_thr <= 1)) return a.ctx.error("iou_threshold must be in [0, 1], got ", iou_thr);
  const int64_t max_det = a.pad_per_class ? std::min(per_class * classes, total) : total;
  Tensor outs[4];
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat, Shape({batch, max_det, 4}), &outs[0]));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat, Shape({batch, max_det}), &outs[1]));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat, Shape({batch, max_det}), &outs[2]));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({batch}), &outs[3]));
  float* ob = outs[0].data<float>();
  float* os = outs[1].data<float>();
  float* oc = outs[2].data<float>();
  int32_t* ov = outs[3].data<int32_t>();
  std::fill(ob, ob + outs[0].num_elements(), 0.0f);
  std::fill(os, os + outs[1].num_elements(), 0.0f);
  std::fill(oc, oc + outs[2].num_elements(), 0.0f);
  const float* boxes = bt.data<float>();
  const float* scores = st.data<float>();
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
    std::vector<float> class_boxes(static_cast<size_t>(n * 4)), class_scores(static_cast<size_t>(n));
    for (int64_t b = b0; b < b1; ++b) {
      std::vector<Detection> found;
      for (int64_t k = 0; k < classes; ++k) {
        for (int64_t i = 0; i < n; ++i) {
          class_scores[static_cast<size_t>(i)] = scores[(b * n + i) * classes + k];
          const float* src = boxes + ((b * n + i) * q + (q > 1 ? k : 0)) * 4;
          std::copy(src, src + 4, class_boxes.begin() + i * 4);
        }
        const Selection sel =
            greedy(class_scores, std::min(per_class, n), iou_thr, score_thr, 0, [&](int32_t i, int32_t j) {
              return iou(&class_boxes[static_cast<size_t>(i) * 4], &class_boxes[static_cast<size_t>(j) * 4]);
            });
        for (size_t s = 0; s < sel.indices.size(); ++s) {
          const float* bx = &class_boxes[static_cast<size_t>(sel.indices[s]) * 4];
          found.push_back({sel.scores[s], static_cast<int32_t>(k), {bx[0], bx[1], bx[2], bx[3]}});
        }
      }
      std::stable_sort(found.begin(), found.end(),
                       [](const Detection& x, const Detection& y) { return x.score > y.score; });
      const int64_t valid = std::min<int64_t>(static_cast<int64_t>(found.size()), max_det);
      ov[b] = static_cast<int32_t>(valid);
      for (int64_t d = 0; d < valid; ++d) {
        const Detection& det = found[static_cast<size_t>(d)];
        for (int c = 0; c < 4; ++c) {
          const float v = det.box[static_cast<size_t>(c)];
          ob[(b * max_det + d) * 4 + c] = a.clip_boxes ? std::max(std::min(v, 1.0f), 0.0f) : v;
        }
        os[b * max_det + d] = det.score;
        oc[b * max_det + d] = static_cast<float>(det.cls);
      }
    }
  });
  for (int i = 0; i < 4; ++i) a.ctx.output(i) = outs[i];
  return Status::OK();
}

// ---- DrawBoundingBoxes

const std::vector<std::array<float, 4>> kPalette = {
    {1, 1, 0, 1},       {0, 0, 1, 1},    {1, 0, 0, 1},    {0, 1, 0, 1}, {0.5f, 0, 0.5f, 1},
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
      if (r0 > r1 || c0 > c1) continue;                      // inverted: not drawn
      if (r0 >= h || r1 < 0 || c0 >= w || c1 < 0) continue;  // outside the image
      const int64_t r0c = std::max<int64_t>(r0, 0), r1c = std::min(r1, h - 1);
      const int64_t c0c = std::max<int64_t>(c0, 0), c1c = std::min(c1, w - 1);
      auto paint = [&](int64_t r, int64_t c) {
        for (int64_t d = 0; d < depth; ++d)
          im[(r * w + c) * depth + d] = static_cast<T>(colour[static_cast<size_t>(d)]);
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
OPFORGE_REGISTER_FORWARDING_KERNEL(NonMaxSuppressionV4, CPU, NonMaxSuppressionV4Cpu, half, float)
OPFORGE_REGISTER_FORWARDING_KERNEL(NonMaxSuppressionV5, CPU, NonMaxSuppressionV5Cpu, half, float)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(NonMaxSuppressionWithOverlaps, CPU, NonMaxSuppressionWithOverlapsCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(CombinedNonMaxSuppression, CPU, CombinedNonMaxSuppressionCpu)
OPFORGE_REGISTER_KERNEL(DrawBoundingBoxes, CPU, DrawBoundingBoxesCpu, float, half)
OPFORGE_REGISTER_KERNEL(DrawBoundingBoxesV2, CPU, DrawBoundingBoxesV2Cpu, float, half)

}  // namespace opforge
