// Bitcast: the output is a view of the input's buffer under another dtype and the shape the
// shape function computed (the byte counts agree by construction; checked again here).
#include "opforge/ops/array/bitcast.h"

namespace opforge {
namespace {

template <typename T>
Status BitcastCpu(ops::BitcastArgs& a) {
  const Shape& shape = a.ctx.output_shape(0);
  if (shape.unknown_rank() || shape.num_elements() < 0 ||
      static_cast<size_t>(shape.num_elements()) * dtype_size(a.type) != a.input.nbytes()) {
    return a.ctx.error("cannot bitcast a tensor of shape ", a.input.shape().to_string(), " to shape ",
                       shape.to_string());
  }
  a.output = Tensor::FromBuffer(a.type, shape, a.input.buffer());
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Bitcast, CPU, BitcastCpu, bfloat16, half, float, double, int64_t, int32_t, uint8_t,
                                   int8_t, int16_t)

}  // namespace opforge
