// The shape functions of the control_flow ops whose opdefs say shape_fn: "custom" (op semantics:
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

// ---- control_flow_ops (the kernels: kernels/cpu/control_flow/control_flow_ops.cc)

Status SwitchShape(ShapeContext& c) {
  const Shape& pred = c.input_shape(1);
  if (!pred.unknown_rank() && pred.rank() != 0) {
    return c.error("pred must be a scalar, got shape ", pred.to_string());
  }
  c.set_output(0, c.input_shape(0));
  c.set_output(1, c.input_shape(0));
  return Status::OK();
}

// The most specific shape every input has: equal dims stay, differing dims become unknown,
// differing ranks an unknown rank.
Status MergeShape(ShapeContext& c) {
  Shape s = c.input_shape(0, 0);
  for (int i = 1; i < c.num_inputs(0); ++i) s = s.relaxed(c.input_shape(0, i));
  c.set_output(0, s);
  c.set_output(1, Shape({}));
  return Status::OK();
}

const array::CustomShape switch_shape("Switch", SwitchShape);

const array::CustomShape merge_shape("Merge", MergeShape);

}  // namespace
}  // namespace opforge
