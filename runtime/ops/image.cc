// The shape functions of the image ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

const AttrValue& named_attr(ShapeContext& c, const char* name) { return c.attr(c.op().attr_index(name)); }

// ---- resize (the kernels: kernels/cpu/image/resize.cc, resize_cubic_area.cc)

// The (height, width) a 2-element int32 input says: its values where known, else what graph
// construction knows of them (TensorFlow's constant-value propagation: tf.shape(x)[1:3] * 2),
// -1 where unknown. InvalidArgument if a known value is not positive.
Status size_pair(ShapeContext& c, int arg, const char* what, int64_t* h, int64_t* w) {
  std::vector<int64_t> size;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, arg, &size, &known));
  *h = *w = -1;
  if (known) {
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
      return c.error(what, " must hold 2 positive values (height, width)");
    }
    *h = size[0];
    *w = size[1];
  } else if (const Shape* partial = c.input_partial_value(arg);
             partial != nullptr && !partial->unknown_rank() && partial->rank() == 2) {
    *h = partial->dim(0);
    *w = partial->dim(1);
    if (*h == 0 || *w == 0) return c.error(what, " must hold 2 positive values (height, width)");
  }
  return Status::OK();
}

Status ResizeShape(ShapeContext& c) {
  const Shape& im = c.input_shape(0);
  if (!im.unknown_rank() && im.rank() != 4) return c.error("images must be 4-dimensional, got shape ", im.to_string());
  const Shape& sz = c.input_shape(1);
  if (!sz.unknown_rank() && (sz.rank() != 1 || (sz.dim(0) >= 0 && sz.dim(0) != 2))) {
    return c.error("size must be a 1-D int32 Tensor of 2 elements, got shape ", sz.to_string());
  }
  int64_t h, w;
  OPF_RETURN_IF_ERROR(size_pair(c, 1, "size", &h, &w));
  const int64_t b = im.unknown_rank() ? -1 : im.dim(0), ch = im.unknown_rank() ? -1 : im.dim(3);
  c.set_output(0, Shape({b, h, w, ch}));
  return Status::OK();
}

Status BilinearGradShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

// ---- crop_and_resize (kernels/cpu/image/crop_and_resize.cc)

Status CropAndResizeShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 2, "2-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 1, "1-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 3, 1, "1-D"));
  const Shape& boxes = c.input_shape(1);
  const Shape& ind = c.input_shape(2);
  if (!boxes.unknown_rank() && boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return c.error("boxes must have 4 columns, got shape ", boxes.to_string());
  }
  int64_t n = boxes.unknown_rank() ? -1 : boxes.dim(0);
  const int64_t n2 = ind.unknown_rank() ? -1 : ind.dim(0);
  if (n >= 0 && n2 >= 0 && n != n2) {
    return c.error("boxes and box_ind have incompatible shapes ", boxes.to_string(), " and ", ind.to_string());
  }
  if (n < 0) n = n2;
  int64_t h, w;
  OPF_RETURN_IF_ERROR(size_pair(c, 3, "crop_size", &h, &w));
  const Shape& im = c.input_shape(0);
  c.set_output(0, Shape({n, h, w, im.unknown_rank() ? -1 : im.dim(3)}));
  return Status::OK();
}

// The output has the shape image_size says (4 values).
Status CropAndResizeGradImageShape(ShapeContext& c) {
  c.set_output(0, shape_fns::partial_shape_input(c, 3));
  const Shape& out = c.outputs()[0];
  if (!out.unknown_rank() && out.rank() != 4) return c.error("image_size must hold 4 values, got ", out.to_string());
  return Status::OK();
}

Status CropAndResizeGradBoxesShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(2));
  return Status::OK();
}

// ---- extract_glimpse: [batch, glimpse_height, glimpse_width, channels]
Status ExtractGlimpseShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 2, "2-D [batch_size, 2]"));
  const Shape& sz = c.input_shape(1);
  if (!sz.unknown_rank() && (sz.rank() != 1 || (sz.dim(0) >= 0 && sz.dim(0) != 2))) {
    return c.error("size must be a 1-D int32 Tensor of 2 elements, got shape ", sz.to_string());
  }
  int64_t h, w;
  OPF_RETURN_IF_ERROR(size_pair(c, 1, "size", &h, &w));
  const Shape& im = c.input_shape(0);
  const Shape& off = c.input_shape(2);
  int64_t b = im.unknown_rank() ? -1 : im.dim(0);
  if (b < 0 && !off.unknown_rank()) b = off.dim(0);
  c.set_output(0, Shape({b, h, w, im.unknown_rank() ? -1 : im.dim(3)}));
  return Status::OK();
}

// ---- colour ops (kernels/cpu/image/colour.cc): the images' shape; the last dim holds 3 channels

Status ColourShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  if (!s.unknown_rank()) {
    if (s.rank() < 1) return c.error("input must be at least 1-D, got shape ", s.to_string());
    if (s.dim(s.rank() - 1) >= 0 && s.dim(s.rank() - 1) != 3) {
      return c.error("input must have 3 channels but input only has ", s.dim(s.rank() - 1), " channels");
    }
  }
  c.set_output(0, s);
  return Status::OK();
}

// AdjustContrastv2, AdjustHue, AdjustSaturation: images of rank >= 3 and a scalar factor.
Status AdjustShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  if (!s.unknown_rank() && s.rank() < 3) return c.error("input must be at least 3-D, got shape ", s.to_string());
  if (c.op().name != "AdjustContrastv2") OPF_RETURN_IF_ERROR(ColourShape(c));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  c.set_output(0, s);
  return Status::OK();
}

// ---- non-max suppression (kernels/cpu/image/non_max_suppression.cc): the selected count is
// known only from the data.
Status NonMaxSuppressionShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 2, "2-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "1-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  for (int i = 3; i < static_cast<int>(c.op().inputs.size()); ++i) {
    OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 0, "a scalar"));
  }
  const Shape& boxes = c.input_shape(0);
  const bool overlaps = c.op().name == "NonMaxSuppressionWithOverlaps";
  if (!boxes.unknown_rank() && !overlaps && boxes.dim(1) >= 0 && boxes.dim(1) != 4) {
    return c.error("boxes must have 4 columns, got shape ", boxes.to_string());
  }
  // Padded to max_output_size where that is asked for and known; else known only from the data.
  int64_t n = -1;
  const int pad = c.op().attr_index("pad_to_max_output_size");
  if (pad >= 0 && c.attr(pad).b) {
    std::vector<int64_t> m;
    bool known;
    OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &m, &known));
    if (known && m.size() == 1 && m[0] >= 0) n = m[0];
  }
  c.set_output(0, Shape({n}));
  if (c.num_outputs() == 2) c.set_output(1, Shape({}));  // V4's valid_outputs
  if (c.num_outputs() == 3) {                            // V5's selected_scores, valid_outputs
    c.set_output(1, Shape({n}));
    c.set_output(2, Shape({}));
  }
  return Status::OK();
}

// ---- combined non-max suppression: [batch, max_detections, ...], max_detections from the sizes
Status CombinedNmsShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-D [batch, num_boxes, q, 4]"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 3, "3-D [batch, num_boxes, num_classes]"));
  for (int i = 2; i < 6; ++i) OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 0, "a scalar"));
  const Shape& b = c.input_shape(0);
  const Shape& s = c.input_shape(1);
  const int64_t batch = !b.unknown_rank() ? b.dim(0) : (!s.unknown_rank() ? s.dim(0) : -1);
  const int64_t classes = s.unknown_rank() ? -1 : s.dim(2);
  std::vector<int64_t> per, total;
  bool per_known, total_known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &per, &per_known));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 3, &total, &total_known));
  int64_t n = -1;
  if (total_known && total.size() == 1) {
    n = total[0];
    if (named_attr(c, "pad_per_class").b) {
      n = (per_known && per.size() == 1 && classes >= 0) ? std::min(per[0] * classes, total[0]) : -1;
    }
  }
  c.set_output(0, Shape({batch, n, 4}));
  c.set_output(1, Shape({batch, n}));
  c.set_output(2, Shape({batch, n}));
  c.set_output(3, Shape({batch}));
  return Status::OK();
}

// ---- draw_bounding_boxes: the images' shape
Status DrawBoxesShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-D"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 3, "3-D"));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// ---- extract_image_patches: [batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]

// ExtractImagePatches (4-D, with rates) and ExtractVolumePatches (5-D): the spatial dims as a
// convolution's, the last ksize product * depth.
Status PatchesShape(ShapeContext& c) {
  const bool volume = c.op().name == "ExtractVolumePatches";
  const int rank = volume ? 5 : 4;
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, rank, volume ? "5-D" : "4-D"));
  const auto& ks = named_attr(c, "ksizes").list_i;
  const auto& st = named_attr(c, "strides").list_i;
  const std::vector<int64_t> ones(static_cast<size_t>(rank), 1);
  const auto& rt = volume ? ones : named_attr(c, "rates").list_i;
  const char* names[] = {"ksizes", "strides", "rates"};
  const std::vector<int64_t>* lists[] = {&ks, &st, &rt};
  for (int k = 0; k < 3; ++k) {
    const auto& v = *lists[k];
    if (static_cast<int>(v.size()) != rank) return c.error(names[k], " must have ", rank, " elements, got ", v.size());
    if (v[0] != 1 || v[static_cast<size_t>(rank - 1)] != 1) return c.error("Only support ", names[k], " across space.");
    for (int d = 1; d < rank - 1; ++d) {
      if (v[static_cast<size_t>(d)] <= 0 || v[static_cast<size_t>(d)] > std::numeric_limits<int32_t>::max()) {
        return c.error(names[k], " must be positive and below 2^31, got ", v[static_cast<size_t>(d)]);
      }
    }
  }
  const bool same = named_attr(c, "padding").s == "SAME";
  const Shape& im = c.input_shape(0);
  if (im.unknown_rank()) {
    c.set_output(0, array::unknown_dims(rank));
    return Status::OK();
  }
  std::vector<int64_t> out(static_cast<size_t>(rank), -1);
  out[0] = im.dim(0);
  int64_t window = 1;
  for (int k = 1; k < rank - 1; ++k) {
    const size_t u = static_cast<size_t>(k);
    const int64_t in = im.dim(k), eff = ks[u] + (ks[u] - 1) * (rt[u] - 1), s = st[u];
    window *= ks[u];
    if (in >= 0) out[u] = same ? (in + s - 1) / s : (in >= eff ? (in - eff) / s + 1 : 0);
  }
  if (im.dim(rank - 1) >= 0) out[static_cast<size_t>(rank - 1)] = window * im.dim(rank - 1);
  c.set_output(0, Shape(out));
  return Status::OK();
}

// ---- codecs (kernels/cpu/image/png.cc, jpeg.cc): a scalar string in, an image of rank 3 out
// whose height and width come from the data.
Status DecodeShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 0, "a scalar"));
  const int64_t ch = named_attr(c, "channels").i;
  if (ch != 0 && ch != 1 && ch != 3 && ch != 4) return c.error("channels must be 0, 1, 3 or 4, got ", ch);
  if (c.op().name == "DecodeImage" && !named_attr(c, "expand_animations").b) {
    c.set_output(0, Shape({-1, -1, ch == 0 ? -1 : ch}));
  } else if (c.op().name == "DecodeImage") {
    c.set_output(0, Shape::UnknownRank());  // a GIF decodes to 4-D: TensorFlow's shape too
  } else {
    c.set_output(0, Shape({-1, -1, ch == 0 ? -1 : ch}));
  }
  if (c.op().name == "DecodeAndCropJpeg") OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "1-D"));
  return Status::OK();
}

Status EncodeShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 3, "3-D"));
  c.set_output(0, Shape({}));
  return Status::OK();
}

Status ExtractJpegShapeShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 0, "a scalar"));
  c.set_output(0, Shape({3}));
  return Status::OK();
}

const array::CustomShape bicubic_shape("ResizeBicubic", ResizeShape);
const array::CustomShape area_shape("ResizeArea", ResizeShape);
const array::CustomShape bicubic_grad_shape("ResizeBicubicGrad", BilinearGradShape);
const array::CustomShape crop_shape("CropAndResize", CropAndResizeShape);
const array::CustomShape crop_grad_image_shape("CropAndResizeGradImage", CropAndResizeGradImageShape);
const array::CustomShape crop_grad_boxes_shape("CropAndResizeGradBoxes", CropAndResizeGradBoxesShape);
const array::CustomShape rgb_to_hsv_shape("RGBToHSV", ColourShape);
const array::CustomShape hsv_to_rgb_shape("HSVToRGB", ColourShape);
const array::CustomShape contrast_shape("AdjustContrastv2", AdjustShape);
const array::CustomShape hue_shape("AdjustHue", AdjustShape);
const array::CustomShape saturation_shape("AdjustSaturation", AdjustShape);
const array::CustomShape nms_shape("NonMaxSuppression", NonMaxSuppressionShape);
const array::CustomShape nms2_shape("NonMaxSuppressionV2", NonMaxSuppressionShape);
const array::CustomShape nms3_shape("NonMaxSuppressionV3", NonMaxSuppressionShape);
const array::CustomShape nms4_shape("NonMaxSuppressionV4", NonMaxSuppressionShape);
const array::CustomShape nms5_shape("NonMaxSuppressionV5", NonMaxSuppressionShape);
const array::CustomShape nms_overlaps_shape("NonMaxSuppressionWithOverlaps", NonMaxSuppressionShape);
const array::CustomShape glimpse_shape("ExtractGlimpse", ExtractGlimpseShape);
const array::CustomShape glimpse2_shape("ExtractGlimpseV2", ExtractGlimpseShape);
const array::CustomShape combined_nms_shape("CombinedNonMaxSuppression", CombinedNmsShape);
const array::CustomShape boxes_shape("DrawBoundingBoxes", DrawBoxesShape);
const array::CustomShape boxes2_shape("DrawBoundingBoxesV2", DrawBoxesShape);
const array::CustomShape patches_shape("ExtractImagePatches", PatchesShape);
const array::CustomShape volume_patches_shape("ExtractVolumePatches", PatchesShape);
const array::CustomShape decode_png_shape("DecodePng", DecodeShape);
const array::CustomShape decode_jpeg_shape("DecodeJpeg", DecodeShape);
const array::CustomShape decode_crop_jpeg_shape("DecodeAndCropJpeg", DecodeShape);
const array::CustomShape decode_image_shape("DecodeImage", DecodeShape);
const array::CustomShape encode_png_shape("EncodePng", EncodeShape);
const array::CustomShape encode_jpeg_shape("EncodeJpeg", EncodeShape);
const array::CustomShape encode_jpeg_quality_shape("EncodeJpegVariableQuality", EncodeShape);
const array::CustomShape jpeg_shape_shape("ExtractJpegShape", ExtractJpegShapeShape);

const array::CustomShape bilinear_shape("ResizeBilinear", ResizeShape);

const array::CustomShape nearest_shape("ResizeNearestNeighbor", ResizeShape);

const array::CustomShape nearest_grad_shape("ResizeNearestNeighborGrad", ResizeShape);

const array::CustomShape bilinear_grad_shape("ResizeBilinearGrad", BilinearGradShape);

}  // namespace
}  // namespace opforge
