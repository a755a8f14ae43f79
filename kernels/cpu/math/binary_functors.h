// Shared by the elementwise binary kernels (binary_*.cc): the kernel bodies that map a
// functor over x and y with NumPy broadcasting into z. Each shard defines its own functors
// (struct with a templated `operator()(T a, T b)`) and wraps them in a typed kernel.
#pragma once

#include "cpu/cpu_util.h"
#include "opforge/status.h"

namespace opforge {
namespace cpu {

// z = F()(x, y), elementwise with broadcasting; z has the type of x and y.
template <typename T, typename F, typename Args>
Status binary_kernel(Args& args) {
  map_binary<T, T>(args.x, args.y, args.z, [](T a, T b) { return F()(a, b); });
  return Status::OK();
}

// z = F()(x, y) as bool, elementwise with broadcasting (comparisons).
template <typename T, typename F, typename Args>
Status compare_kernel(Args& args) {
  map_binary<T, bool>(args.x, args.y, args.z, [](T a, T b) { return F()(a, b); });
  return Status::OK();
}

}  // namespace cpu
}  // namespace opforge
