// What the elementwise unary float kernels share: f computed in compute_t<T> (16-bit floats in
// float), and float32 through a vectorized block function of cpu/vec_math.h where one exists.
#pragma once

#include <type_traits>

#include "cpu/cpu_util.h"
#include "opforge/parallel.h"

namespace opforge {
namespace cpu {

// y = f(x) for floats, computed in compute_t<T>.
template <typename T, typename Args, typename F>
Status float_map(Args& a, F f) {
  map_unary<T, T>(a.x, a.y, [&](T v) { return static_cast<T>(f(static_cast<compute_t<T>>(v))); });
  return Status::OK();
}

// float32 through a vectorized block function when one exists, else elementwise.
template <typename T, typename Args, typename Scalar, typename Block>
Status float_map_vec(Args& a, Scalar f, Block block) {
  if constexpr (std::is_same_v<T, float>) {
    const float* in = a.x.template data<float>();
    float* out = a.y.template data<float>();
    parallel_for(a.x.num_elements(), kGrain, [&](int64_t b, int64_t e) { block(in + b, out + b, e - b); });
    return Status::OK();
  } else {
    return float_map<T>(a, f);
  }
}

}  // namespace cpu
}  // namespace opforge
