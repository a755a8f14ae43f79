// Elementwise Maximum and Minimum with NumPy broadcasting. NaN propagates (NumPy's maximum /
// minimum, not fmax / fmin).
#include <cmath>

#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/maximum.h"
#include "opforge/ops/math/minimum.h"

namespace opforge {
namespace {

using cpu::compute_t;

struct MaxF {
  template <typename T>
  T operator()(T a, T b) const {
    auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(x) || std::isnan(y)) return static_cast<T>(x + y);
    }
    return x >= y ? a : b;
  }
};
struct MinF {
  template <typename T>
  T operator()(T a, T b) const {
    auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(x) || std::isnan(y)) return static_cast<T>(x + y);
    }
    return x <= y ? a : b;
  }
};

template <typename T>
Status MaximumCpu(ops::MaximumArgs& a) {
  return cpu::binary_kernel<T, MaxF>(a);
}
template <typename T>
Status MinimumCpu(ops::MinimumArgs& a) {
  return cpu::binary_kernel<T, MinF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(Maximum, CPU, MaximumCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Minimum, CPU, MinimumCpu, inplace_args(0, 1), OPF_NUMERIC)

}  // namespace opforge
