// Max and Min over axes, and their logical counterparts on bool tensors: All (a minimum)
// and Any (a maximum). The reducers and the reduction engine are in reduce_util.h. As in
// TensorFlow, an empty reduction gives the reducer's identity: Max -inf (lowest for integers),
// Min +inf (highest), All true, Any false.
#include <vector>

#include "cpu/math/reduce_util.h"
#include "opforge/ops/math/all.h"
#include "opforge/ops/math/any.h"
#include "opforge/ops/math/max.h"
#include "opforge/ops/math/min.h"

namespace opforge {
namespace {

using namespace cpu::reduction;

template <typename T>
Status MaxCpu(ops::MaxArgs& a) {
  return reduce_kernel<T, MaxR<T>>(a);
}

template <typename T>
Status MinCpu(ops::MinArgs& a) {
  return reduce_kernel<T, MinR<T>>(a);
}

// All and Any dispatch on Tidx (their data is always bool): Tidx is unused here.
template <typename Tidx>
Status AllCpu(ops::AllArgs& a) {
  return reduce_kernel<bool, AllR>(a);
}

template <typename Tidx>
Status AnyCpu(ops::AnyArgs& a) {
  return reduce_kernel<bool, AnyR>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Max, CPU, MaxCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Min, CPU, MinCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(All, CPU, AllCpu, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(Any, CPU, AnyCpu, int32_t, int64_t)

}  // namespace opforge
