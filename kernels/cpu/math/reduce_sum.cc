// Sum and Mean over axes (Prod is in reduce_prod.cc). The reducers and the reduction engine
// are in reduce_util.h.
#include <vector>

#include "cpu/math/reduce_util.h"
#include "opforge/ops/math/mean.h"
#include "opforge/ops/math/sum.h"

namespace opforge {
namespace {

using namespace cpu::reduction;

template <typename T>
Status SumCpu(ops::SumArgs& a) {
  return reduce_kernel<T, SumR<T>>(a);
}

template <typename T>
Status MeanCpu(ops::MeanArgs& a) {  // over nothing: NaN for floats, 0 for integers (TensorFlow)
  return reduce_kernel<T, MeanR<T>>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Sum, CPU, SumCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Mean, CPU, MeanCpu, OPF_NUMERIC)

}  // namespace opforge
