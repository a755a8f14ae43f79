// Shape functions of the quantization ops (opdefs/quantization/): fake quantization and its
// gradients, QuantizeV2 and Dequantize. They also check the ranks of min/max, as TensorFlow's
// shape functions do, so a bad graph fails when it is built.
#include <string>

#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

const AttrValue& attr(ShapeContext& c, const char* name) { return c.attr(c.op().attr_index(name)); }

Status need_rank(ShapeContext& c, int arg, const char* what, int rank) {
  const Shape& s = c.input_shape(arg);
  if (!s.unknown_rank() && s.rank() != rank) {
    return c.error(what, " must be rank ", rank, ", got shape ", s.to_string());
  }
  return Status::OK();
}

// The channel count (the last dimension of inputs, else the length of min or max); -1 unknown.
Status per_channel(ShapeContext& c, int inputs, int first_range, int64_t* channels) {
  OPF_RETURN_IF_ERROR(need_rank(c, first_range, "min", 1));
  OPF_RETURN_IF_ERROR(need_rank(c, first_range + 1, "max", 1));
  const Shape& x = c.input_shape(inputs);
  if (!x.unknown_rank() && x.rank() < 1) return c.error("inputs must have rank at least 1, got a scalar");
  int64_t d = x.unknown_rank() ? -1 : x.dim(x.rank() - 1);
  for (int arg : {first_range, first_range + 1}) {
    const Shape& v = c.input_shape(arg);
    if (v.unknown_rank() || v.dim(0) < 0) continue;
    if (d >= 0 && v.dim(0) != d) {
      return c.error(arg == first_range ? "min" : "max", " must have ", d,
                     " elements (the last dimension of inputs), got ", v.dim(0));
    }
    d = v.dim(0);
  }
  *channels = d;
  return Status::OK();
}

Status FakeQuantVarsShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(need_rank(c, 1, "min", 0));
  OPF_RETURN_IF_ERROR(need_rank(c, 2, "max", 0));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// gradients and inputs must agree; the result takes what either knows.
Status merged_gradient_shape(ShapeContext& c, Shape* out) {
  const Shape& g = c.input_shape(0);
  const Shape& x = c.input_shape(1);
  if (!g.is_compatible_with(x)) {
    return c.error("gradients and inputs must have the same shape, got ", g.to_string(), " and ", x.to_string());
  }
  if (g.unknown_rank()) {
    *out = x;
    return Status::OK();
  }
  *out = g;
  for (int i = 0; !x.unknown_rank() && i < g.rank(); ++i) {
    if (g.dim(i) < 0) out->mutable_dims()[static_cast<size_t>(i)] = x.dim(i);
  }
  return Status::OK();
}

Status FakeQuantArgsGradientShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(merged_gradient_shape(c, &s));
  c.set_output(0, std::move(s));
  return Status::OK();
}

Status FakeQuantVarsGradientShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(merged_gradient_shape(c, &s));
  OPF_RETURN_IF_ERROR(need_rank(c, 2, "min", 0));
  OPF_RETURN_IF_ERROR(need_rank(c, 3, "max", 0));
  c.set_output(0, std::move(s));
  c.set_output(1, Shape());
  c.set_output(2, Shape());
  return Status::OK();
}

Status FakeQuantPerChannelShape(ShapeContext& c) {
  int64_t d = -1;
  OPF_RETURN_IF_ERROR(per_channel(c, 0, 1, &d));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

Status FakeQuantPerChannelGradientShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(merged_gradient_shape(c, &s));
  int64_t d = -1;
  OPF_RETURN_IF_ERROR(per_channel(c, 1, 2, &d));
  c.set_output(0, std::move(s));
  c.set_output(1, Shape({d}));
  c.set_output(2, Shape({d}));
  return Status::OK();
}

// QuantizeV2 / Dequantize: the data keeps its shape; with axis >= 0 the ranges are vectors of
// the axis' length, else scalars.
Status RangeQuantizeShape(ShapeContext& c) {
  const int64_t axis = attr(c, "axis").i;
  const Shape& x = c.input_shape(0);
  if (axis < -1) return c.error("axis should be at least -1, got ", axis);
  int64_t d = -1;
  if (axis >= 0) {
    if (!x.unknown_rank() && axis >= x.rank()) {
      return c.error("axis ", axis, " is out of range for input of rank ", x.rank());
    }
    OPF_RETURN_IF_ERROR(need_rank(c, 1, "min_range", 1));
    OPF_RETURN_IF_ERROR(need_rank(c, 2, "max_range", 1));
    if (!x.unknown_rank()) d = x.dim(static_cast<int>(axis));
    for (int arg : {1, 2}) {
      const Shape& v = c.input_shape(arg);
      if (v.unknown_rank() || v.dim(0) < 0) continue;
      if (d >= 0 && v.dim(0) != d) {
        return c.error(arg == 1 ? "min_range" : "max_range", " must have ", d, " elements (dimension ", axis,
                       " of input), got ", v.dim(0));
      }
      d = v.dim(0);
    }
  } else {
    OPF_RETURN_IF_ERROR(need_rank(c, 1, "min_range", 0));
    OPF_RETURN_IF_ERROR(need_rank(c, 2, "max_range", 0));
  }
  c.set_output(0, x);
  for (int i = 1; i < c.num_outputs(); ++i) c.set_output(i, axis >= 0 ? Shape({d}) : Shape());
  return Status::OK();
}

[[maybe_unused]] const bool quantization_shapes_registered = [] {
  shape_fns::register_custom("FakeQuantWithMinMaxArgsGradient", FakeQuantArgsGradientShape);
  shape_fns::register_custom("FakeQuantWithMinMaxVars", FakeQuantVarsShape);
  shape_fns::register_custom("FakeQuantWithMinMaxVarsGradient", FakeQuantVarsGradientShape);
  shape_fns::register_custom("FakeQuantWithMinMaxVarsPerChannel", FakeQuantPerChannelShape);
  shape_fns::register_custom("FakeQuantWithMinMaxVarsPerChannelGradient", FakeQuantPerChannelGradientShape);
  shape_fns::register_custom("QuantizeV2", RangeQuantizeShape);
  shape_fns::register_custom("Dequantize", RangeQuantizeShape);
  return true;
}();

}  // namespace
}  // namespace opforge
