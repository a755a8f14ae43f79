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
  std::vector<int> axes;
  OPF_RETURN_IF_ERROR(axes_of(a, &axes));
  reduce<T, MaxR<T>>(a.input, axes, a.output);
  return Status::OK();
}

template <typename T>
Status MinCpu(ops::MinArgs& a) {
  std::vector<int> axes;
  OPF_RETURN_IF_ERROR(axes_of(a, &axes));
  reduce<T, MinR<T>>(a.input, axes, a.output);
  return Status::OK();
}

// All and Any dispatch on Tidx (their data is always bool): Tidx is unused here.
template <typename Tidx>
Status AllCpu(ops::AllArgs& a) {
  std::vector<int> axes;
  OPF_RETURN_IF_ERROR(axes_of(a, &axes));
  reduce<bool, AllR>(a.input, axes, a.output);
  return Status::OK();
}

template <typename Tidx>
Status AnyCpu(ops::AnyArgs& a) {
  std::vector<int> axes;
  OPF_RETURN_IF_ERROR(axes_of(a, &axes));
  reduce<bool, AnyR>(a.input, axes, a.output);
  return Status::OK();
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Max, CPU, MaxCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Min, CPU, MinCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(All, CPU, AllCpu, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(Any, CPU, AnyCpu, int32_t, int64_t)

}  // namespace opforge
