// The shape functions of the random ops whose opdefs say shape_fn: "custom" (op semantics:
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

// ---- random_ops (the kernels: kernels/cpu/random/random_ops.cc)

Status CandidateSamplerShape(ShapeContext& c) {
  const Shape& t = c.input_shape(0);
  if (!t.unknown_rank() && t.rank() != 2) return c.error("true_classes must be a matrix, got shape ", t.to_string());
  const int64_t num_sampled = c.attr(1).i;
  c.set_output(0, Shape({num_sampled}));
  c.set_output(1, t);
  c.set_output(2, Shape({num_sampled}));
  return Status::OK();
}

[[maybe_unused]] const bool candidate_sampler_shape_registered = [] {
  shape_fns::register_custom("LogUniformCandidateSampler", CandidateSamplerShape);
  return true;
}();

}  // namespace
}  // namespace opforge
