// CPU kernel of ZeroOut (opdefs/zero_out.pbtxt). ops::ZeroOutArgs is generated from the
// opdef by opforge_add_op_library: the input and output by name, already validated, the
// output allocated with the shape the shape function computed.
#include <algorithm>

#include "opforge/ops/zero_out_ops.h"

namespace opforge {
namespace {

template <typename T>
Status ZeroOutCpu(ops::ZeroOutArgs& a) {
  const T* in = a.to_zero.data<T>();
  T* out = a.zeroed.data<T>();
  const int64_t n = a.to_zero.num_elements();
  std::fill(out, out + n, T(0));
  if (n > 0) out[0] = in[0];
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(ZeroOut, CPU, ZeroOutCpu, int32_t, float, double)

}  // namespace opforge
