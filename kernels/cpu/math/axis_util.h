// Shared by the kernels that work along one axis given as a scalar tensor (arg_reduce.h,
// cumsum.cc): reading and normalizing the axis, and the [outer, n, inner] view around it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opforge/status.h"
#include "opforge/tensor.h"
#include "ops/shape_util.h"

namespace opforge {
namespace cpu {

using array::scalar_axis;  // ops/shape_util.h

// The input viewed as [outer, n, inner] around one axis.
struct AxisLayout {
  int64_t outer = 1, n = 1, inner = 1;
};

inline AxisLayout axis_layout(const Shape& s, int axis) {
  AxisLayout l;
  for (int i = 0; i < s.rank(); ++i) {
    if (i < axis)
      l.outer *= s.dim(i);
    else if (i == axis)
      l.n = s.dim(i);
    else
      l.inner *= s.dim(i);
  }
  return l;
}

}  // namespace cpu
}  // namespace opforge
