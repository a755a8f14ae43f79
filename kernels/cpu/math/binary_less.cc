// Elementwise Less and LessEqual with NumPy broadcasting. 16-bit floats compare in float;
// the output is bool. Greater and GreaterEqual are in binary_greater.cc.
#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/less.h"
#include "opforge/ops/math/less_equal.h"

namespace opforge {
namespace {

using cpu::compute_t;

struct LessF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) < static_cast<compute_t<T>>(b);
  }
};
struct LessEqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) <= static_cast<compute_t<T>>(b);
  }
};

template <typename T>
Status LessCpu(ops::LessArgs& a) {
  return cpu::compare_kernel<T, LessF>(a);
}
template <typename T>
Status LessEqualCpu(ops::LessEqualArgs& a) {
  return cpu::compare_kernel<T, LessEqualF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Less, CPU, LessCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(LessEqual, CPU, LessEqualCpu, OPF_NUMERIC)

}  // namespace opforge
