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

// Scatter*: the output is the variable; updates must be indices.shape + ref.shape[1:]
// (ScatterNd*: indices.shape[:-1] + ref.shape[indices.shape[-1]:]) where the shapes are known.
Status ScatterShape(ShapeContext& c, bool nd) {
  const Shape& ref = c.input_shape(0);
  const Shape& idx = c.input_shape(1);
  const Shape& upd = c.input_shape(2);
  c.set_output(0, ref);
  if (ref.unknown_rank() || idx.unknown_rank() || upd.unknown_rank()) return Status::OK();
  int64_t k = 1;
  if (nd) {
    if (idx.rank() < 1) return c.error("indices must be at least 1-D, got shape ", idx.to_string());
    k = idx.dim(idx.rank() - 1);
    if (k < 0) return Status::OK();
    if (k > ref.rank()) {
      return c.error("the last dimension of indices (", k, ") exceeds the rank of ref (", ref.rank(), ")");
    }
  } else if (ref.rank() < 1) {
    return c.error("ref must be at least 1-D, got shape ", ref.to_string());
  }
  std::vector<int64_t> want(idx.dims().begin(), idx.dims().end() - (nd ? 1 : 0));
  want.insert(want.end(), ref.dims().begin() + k, ref.dims().end());
  bool ok = upd.rank() == static_cast<int>(want.size());
  for (int i = 0; ok && i < upd.rank(); ++i) {
    const int64_t a = upd.dim(i), b = want[static_cast<size_t>(i)];
    ok = a < 0 || b < 0 || a == b;
  }
  if (!ok) {
    return c.error("updates must have shape ",
                   nd ? "indices.shape[:-1] + ref.shape[indices.shape[-1]:]" : "indices.shape + ref.shape[1:]", " = ",
                   Shape(want).to_string(), ", got ", upd.to_string());
  }
  return Status::OK();
}

[[maybe_unused]] const bool scatter_shapes_registered = [] {
  for (const char* op :
       {"ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMin", "ScatterMax"}) {
    shape_fns::register_custom(op, [](ShapeContext& c) { return ScatterShape(c, false); });
  }
  for (const char* op : {"ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub", "TensorScatterUpdate", "TensorScatterAdd",
                         "TensorScatterSub", "TensorScatterMin", "TensorScatterMax"}) {
    shape_fns::register_custom(op, [](ShapeContext& c) { return ScatterShape(c, true); });
  }
  return true;
}();

[[maybe_unused]] const bool assign_shapes_registered = [] {
  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) shape_fns::register_custom(op, AssignShape);
  return true;
}();

}  // namespace
}  // namespace opforge
