// The shape functions of the state ops whose opdefs say shape_fn: "custom" (op semantics:
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

// ---- variable_ops (the kernels: kernels/cpu/state/variable_ops.cc)

// Assign, AssignAdd, AssignSub: the value must fit the variable's declared shape (unless
// Assign's validate_shape is false); the output is the variable, with the merged shape.
Status AssignShape(ShapeContext& c) {
  const Shape& ref = c.input_shape(0);
  const Shape& value = c.input_shape(1);
  bool validate = true;
  for (size_t i = 0; i < c.op().attrs.size(); ++i) {
    if (c.op().attrs[i].name == "validate_shape") validate = c.attr(static_cast<int>(i)).b;
  }
  if (!validate || ref.unknown_rank()) {
    c.set_output(0, value);
    return Status::OK();
  }
  if (value.unknown_rank()) {
    c.set_output(0, ref);
    return Status::OK();
  }
  if (ref.rank() != value.rank()) {
    return c.error("shapes must be equal: the variable has shape ", ref.to_string(), ", the value ", value.to_string());
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < ref.rank(); ++i) {
    int64_t a = ref.dim(i), b = value.dim(i);
    if (a >= 0 && b >= 0 && a != b) {
      return c.error("shapes must be equal: the variable has shape ", ref.to_string(), ", the value ",
                     value.to_string());
    }
    dims.push_back(a >= 0 ? a : b);
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

[[maybe_unused]] const bool assign_shapes_registered = [] {
  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) shape_fns::register_custom(op, AssignShape);
  return true;
}();

}  // namespace
}  // namespace opforge
