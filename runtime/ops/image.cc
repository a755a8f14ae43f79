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

// ---- resize (the kernels: kernels/cpu/image/resize.cc)

Status ResizeShape(ShapeContext& c) {
  const Shape& im = c.input_shape(0);
  if (!im.unknown_rank() && im.rank() != 4) return c.error("images must be 4-dimensional, got shape ", im.to_string());
  const Shape& sz = c.input_shape(1);
  if (!sz.unknown_rank() && (sz.rank() != 1 || (sz.dim(0) >= 0 && sz.dim(0) != 2))) {
    return c.error("size must be a 1-D int32 Tensor of 2 elements, got shape ", sz.to_string());
  }
  std::vector<int64_t> size;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &size, &known));
  if (known && (size.size() != 2 || size[0] <= 0 || size[1] <= 0)) {
    return c.error("size must hold 2 positive values (new_height, new_width)");
  }
  const int64_t b = im.unknown_rank() ? -1 : im.dim(0), ch = im.unknown_rank() ? -1 : im.dim(3);
  c.set_output(0, Shape({b, known ? size[0] : -1, known ? size[1] : -1, ch}));
  return Status::OK();
}

Status BilinearGradShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

const array::CustomShape bilinear_shape("ResizeBilinear", ResizeShape);

const array::CustomShape nearest_shape("ResizeNearestNeighbor", ResizeShape);

const array::CustomShape nearest_grad_shape("ResizeNearestNeighborGrad", ResizeShape);

const array::CustomShape bilinear_grad_shape("ResizeBilinearGrad", BilinearGradShape);

}  // namespace
}  // namespace opforge
