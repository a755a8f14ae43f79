// Semantics of the math ops that both their shape functions (runtime/ops/) and their kernels
// use: argument parsing and output geometry, defined once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace opforge {
namespace math_semantics {

// Batch dims of a shape of rank >= 2.
inline Shape batch_of(const Shape& s) { return Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2)); }

}  // namespace math_semantics
}  // namespace opforge
