// Ops whose output shares the input's buffer under a new shape: ExpandDims, Squeeze,
// StopGradient (the identity; autodiff treats it as a wall).
#include "opforge/complex.h"
#include "common/relabel.h"
#include "cpu/array/array_util.h"
#include "opforge/ops/array/expand_dims.h"
#include "opforge/ops/array/squeeze.h"
#include "opforge/ops/array/stop_gradient.h"

namespace opforge {
namespace {

template <typename T>
Status StopGradientCpu(ops::StopGradientArgs& a) {
  a.output = a.input;
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ExpandDims, CPU, kernels::RelabelInput, OPF_ALL, OPF_QUANTIZED_TYPES,
                                   OPF_WIDE_UNSIGNED_TYPES, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(Squeeze, CPU, kernels::RelabelInput, OPF_ALL, OPF_QUANTIZED_TYPES,
                                   OPF_WIDE_UNSIGNED_TYPES, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(StopGradient, CPU, StopGradientCpu, OPF_ALL, OPF_QUANTIZED_TYPES,
                                   OPF_WIDE_UNSIGNED_TYPES, StringTag)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_FORWARDING_KERNEL(ExpandDims, CPU, kernels::RelabelInput, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Squeeze, CPU, kernels::RelabelInput, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(StopGradient, CPU, StopGradientCpu, complex64, complex128)

}  // namespace opforge
