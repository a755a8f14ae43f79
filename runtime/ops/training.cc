// The shape functions of the training ops whose opdefs say shape_fn: "custom" (the kernels:
// kernels/cpu/training/).
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// SdcaFprint: [N, 2] for a vector of N strings.
Status SdcaFprintShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  if (!in.unknown_rank() && in.rank() != 1) return c.error("input must be a vector, got shape ", in.to_string());
  c.set_output(0, Shape{in.unknown_rank() ? Shape::kUnknownDim : in.dim(0), 2});
  return Status::OK();
}

[[maybe_unused]] const bool training_shapes_registered = [] {
  shape_fns::register_custom("SdcaFprint", SdcaFprintShape);
  return true;
}();

}  // namespace
}  // namespace opforge
