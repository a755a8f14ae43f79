// ArgMax: the index of the largest element along an axis (shape function: runtime/ops/math.cc). The
// kernel is shared with ArgMin (arg_reduce.h).
#include "cpu/math/arg_reduce.h"
#include "opforge/ops/math/arg_max.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

template <typename T>
Status ArgMaxCpu(ops::ArgMaxArgs& a) {
  return cpu::arg_kernel<true, T>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(ArgMax, CPU, ArgMaxCpu, bool, OPF_NUMERIC)

}  // namespace opforge
