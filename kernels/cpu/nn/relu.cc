// Relu: max(features, 0). NaN stays NaN, as in NumPy's maximum; -0 gives +0, as TensorFlow.
#include <cmath>

#include "cpu/cpu_util.h"
#include "opforge/ops/nn/relu.h"

namespace opforge {
namespace {

template <typename T>
Status ReluCpu(ops::ReluArgs& a) {
  cpu::map_unary<T, T>(a.features, a.activations, [](T v) {
    auto c = static_cast<cpu::compute_t<T>>(v);
    return c <= 0 ? T(0) : v;  // -0 gives +0, as TensorFlow; NaN stays NaN
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(Relu, CPU, ReluCpu, inplace_args(0), bfloat16, half, float, double, uint8_t, int8_t,
                                int16_t, int32_t, int64_t)

}  // namespace opforge
