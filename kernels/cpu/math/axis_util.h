// Shared by the kernels that work along one axis given as a scalar tensor (arg_reduce.h,
// cumsum.cc): reading and normalizing the axis, and the [outer, n, inner] view around it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace cpu {

// Reads a scalar axis and normalizes it against `rank`.
inline Status scalar_axis(const std::string& op, const Tensor& t, int rank, int* axis) {
  if (t.rank() != 0) {
    return errors::InvalidArgument(op, ": the axis must be a scalar, got shape ", t.shape().to_string());
  }
  std::vector<int64_t> raw;
  if (t.dtype() == DType::kInt16) {  // ArgMax's Tidx allows int16
    raw.push_back(t.data<int16_t>()[0]);
  } else {
    OPF_RETURN_IF_ERROR(read_int_vector(t, &raw));
  }
  if (raw[0] < -rank || raw[0] >= rank) {
    return errors::InvalidArgument(op, ": axis ", raw[0], " is out of range for a tensor of rank ", rank,
                                   " (expected [", -rank, ", ", rank, "))");
  }
  *axis = static_cast<int>(raw[0] < 0 ? raw[0] + rank : raw[0]);
  return Status::OK();
}

// The input viewed as [outer, n, inner] around one axis.
struct AxisLayout {
  int64_t outer = 1, n = 1, inner = 1;
};

inline AxisLayout axis_layout(const Shape& s, int axis) {
  AxisLayout l;
  for (int i = 0; i < s.rank(); ++i) {
    if (i < axis) l.outer *= s.dim(i);
    else if (i == axis) l.n = s.dim(i);
    else l.inner *= s.dim(i);
  }
  return l;
}

}  // namespace cpu
}  // namespace opforge
