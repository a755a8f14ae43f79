// The shape functions of the logging ops whose opdefs say shape_fn: "custom" (op semantics:
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

// ---- print_assert (the kernels: kernels/cpu/logging/print_assert.cc)

Status AssertShape(ShapeContext& c) {
  const Shape& cond = c.input_shape(0);
  if (!cond.unknown_rank() && cond.rank() != 0)
    return c.error("condition must be a scalar, got shape ", cond.to_string());
  return Status::OK();
}

[[maybe_unused]] const bool assert_shape_registered = [] {
  shape_fns::register_custom("Assert", AssertShape);
  return true;
}();

}  // namespace
}  // namespace opforge
