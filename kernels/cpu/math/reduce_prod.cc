// Prod over axes. Floats multiply in double; integers in uint64, so that overflow wraps. The
// reducers and the reduction engine are in reduce_util.h.
#include <vector>

#include "cpu/math/reduce_util.h"
#include "opforge/ops/math/prod.h"

namespace opforge {
namespace {

using namespace cpu::reduction;

template <typename T>
Status ProdCpu(ops::ProdArgs& a) {
  return reduce_kernel<T, ProdR<T>>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Prod, CPU, ProdCpu, OPF_NUMERIC)

}  // namespace opforge
