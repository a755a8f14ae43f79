// The shape functions of the collective ops whose opdefs say shape_fn: "custom" (the kernels:
// kernels/cpu/collective/collective.cc). As TensorFlow's: an all-reduce keeps its input's
// shape, an all-gather leaves dimension 0 unknown (the processes' may differ), a broadcast
// receiver has the shape it is given.
#include <cstdint>
#include <vector>

#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// group_size, group_key and instance_key (inputs 1-3 of the V2 ops, 0-2 of the receiver)
// are scalars.
Status check_keys(ShapeContext& c, int first) {
  static const char* const kNames[] = {"group_size", "group_key", "instance_key"};
  for (int k = 0; k < 3; ++k) {
    const Shape& s = c.input_shape(first + k);
    if (!s.unknown_rank() && s.rank() != 0) {
      return c.error(kNames[k], " must be a scalar, got shape ", s.to_string());
    }
  }
  return Status::OK();
}

Status ReduceV2Shape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(check_keys(c, 1));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

// The fused all-reduce: output i has input i's shape.
Status ReduceGroupShape(ShapeContext& c) {
  const int n = c.num_inputs(0);
  OPF_RETURN_IF_ERROR(check_keys(c, 1));
  for (int i = 0; i < n; ++i) c.set_output(i, c.input_shape(0, i));
  return Status::OK();
}

Status GatherV2Shape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(check_keys(c, 1));
  const Shape& in = c.input_shape(0);
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (in.rank() < 1) return c.error("the input must have rank >= 1, got a scalar");
  std::vector<int64_t> dims = in.dims();
  dims[0] = -1;
  c.set_output(0, Shape(dims));
  return Status::OK();
}

// TF1's CollectiveGather: every process's input has the `shape` attr, so the output's first
// dimension is group_size times shape[0].
Status GatherShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  if (!in.unknown_rank() && in.rank() < 1) return c.error("the input must have rank >= 1, got a scalar");
  const int64_t group_size = c.attr(c.op().attr_index("group_size")).i;
  const Shape& attr = c.attr(c.op().attr_index("shape")).shape;
  Shape base = attr.unknown_rank() ? in : attr;
  if (base.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (base.rank() < 1) return c.error("shape must have rank >= 1, got ", base.to_string());
  std::vector<int64_t> dims = base.dims();
  if (dims[0] >= 0) dims[0] *= group_size;
  c.set_output(0, Shape(dims));
  return Status::OK();
}

Status BcastRecvV2Shape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(check_keys(c, 0));
  return shape_fns::fill(c, 3);  // the shape's value, or what is known of it
}

[[maybe_unused]] const bool collective_shapes_registered = [] {
  shape_fns::register_custom("CollectiveReduceV2", ReduceV2Shape);
  shape_fns::register_custom("_CollectiveReduceGroup", ReduceGroupShape);
  shape_fns::register_custom("CollectiveGatherV2", GatherV2Shape);
  shape_fns::register_custom("CollectiveGather", GatherShape);
  shape_fns::register_custom("CollectiveBcastRecvV2", BcastRecvV2Shape);
  return true;
}();

}  // namespace
}  // namespace opforge
