// EditDistance's shape function: max(hypothesis_shape, truth_shape)[:-1] when both shape values
// are known (TensorFlow's rule); otherwise a rank of len(shape) - 1 where that length is known.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status EditDistanceShape(ShapeContext& c) {
  for (int i : {0, 3}) OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 2, "a matrix"));
  for (int i : {1, 4}) OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 1, "a vector"));
  for (int i : {2, 5}) OPF_RETURN_IF_ERROR(array::expect_rank(c, i, 1, "a vector"));
  std::vector<int64_t> h, t;
  bool hk = false, tk = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &h, &hk));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 5, &t, &tk));
  if (hk && tk) {
    if (h.size() != t.size() || h.empty()) {
      return c.error("hypothesis_shape and truth_shape must have the same length >= 1, got ", h.size(), " and ",
                     t.size());
    }
    std::vector<int64_t> dims(h.size() - 1);
    for (size_t d = 0; d + 1 < h.size(); ++d) dims[d] = std::max(h[d], t[d]);
    c.set_output(0, Shape(dims));
    return Status::OK();
  }
  for (int i : {2, 5}) {
    const Shape& s = c.input_shape(i);
    if (!s.unknown_rank() && s.dim(0) >= 1) {
      c.set_output(0, array::unknown_dims(static_cast<int>(s.dim(0)) - 1));
      return Status::OK();
    }
  }
  c.set_output(0, Shape::UnknownRank());
  return Status::OK();
}

const array::CustomShape edit_distance_shape("EditDistance", EditDistanceShape);

}  // namespace
}  // namespace opforge
