// The shape function of SobolSample (kernels/cpu/random/sobol_sample.cc): [num_results, dim],
// each known when its input's value is; the values' ranges are checked here, which the kernel
// relies on (TensorFlow's bounds: dim in [1, 21200], num_results >= 1, skip >= 0).
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

constexpr int64_t kMaxSobolDim = 21200;

Status SobolSampleShape(ShapeContext& c) {
  int64_t v[3] = {0, 0, 0};
  bool known[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) {
    OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 0, "a scalar"));
    std::vector<int64_t> vals;
    OPF_RETURN_IF_ERROR(array::known_ints(c, i, &vals, &known[i]));
    known[i] = known[i] && vals.size() == 1;
    if (known[i]) v[i] = vals[0];
  }
  if (known[0] && (v[0] < 1 || v[0] > kMaxSobolDim)) {
    return c.error("dim must be in [1, ", kMaxSobolDim, "], got ", v[0]);
  }
  if (known[1] && v[1] < 1) return c.error("num_results must be at least one, got ", v[1]);
  if (known[2] && v[2] < 0) return c.error("skip must be non-negative, got ", v[2]);
  if (known[1] && known[2] && v[1] >= std::numeric_limits<int32_t>::max() - v[2]) {
    return c.error("num_results + skip must be less than ", std::numeric_limits<int32_t>::max());
  }
  c.set_output(0, Shape({known[1] ? v[1] : Shape::kUnknownDim, known[0] ? v[0] : Shape::kUnknownDim}));
  return Status::OK();
}

[[maybe_unused]] const bool sobol_shape_registered = [] {
  shape_fns::register_custom("SobolSample", SobolSampleShape);
  return true;
}();

}  // namespace
}  // namespace opforge
