// The shape functions of the parsing ops whose opdefs say shape_fn: "custom" (op semantics:
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

// ---- decode_csv (the kernels: kernels/cpu/parsing/decode_csv.cc)

Status DecodeCSVShape(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(0));
  return Status::OK();
}

[[maybe_unused]] const bool decode_csv_shape_registered = [] {
  shape_fns::register_custom("DecodeCSV", DecodeCSVShape);
  return true;
}();

}  // namespace
}  // namespace opforge
