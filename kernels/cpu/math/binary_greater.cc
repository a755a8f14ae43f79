// Elementwise Greater and GreaterEqual with NumPy broadcasting. 16-bit floats compare in float;
// the output is bool. Less and LessEqual are in binary_less.cc.
#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/greater.h"
#include "opforge/ops/math/greater_equal.h"

namespace opforge {
namespace {

using cpu::compute_t;

struct GreaterF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) > static_cast<compute_t<T>>(b);
  }
};
struct GreaterEqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) >= static_cast<compute_t<T>>(b);
  }
};

template <typename T>
Status GreaterCpu(ops::GreaterArgs& a) {
  return cpu::compare_kernel<T, GreaterF>(a);
}
template <typename T>
Status GreaterEqualCpu(ops::GreaterEqualArgs& a) {
  return cpu::compare_kernel<T, GreaterEqualF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Greater, CPU, GreaterCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(GreaterEqual, CPU, GreaterEqualCpu, OPF_NUMERIC)

}  // namespace opforge
