// Elementwise LogicalAnd and LogicalOr on bool tensors, with NumPy broadcasting.
#include "cpu/cpu_util.h"
#include "opforge/ops/math/logical_and.h"
#include "opforge/ops/math/logical_or.h"

namespace opforge {
namespace {

Status LogicalAndCpu(ops::LogicalAndArgs& a) {
  cpu::map_binary<bool, bool>(a.x, a.y, a.z, [](bool x, bool y) { return x && y; });
  return Status::OK();
}

Status LogicalOrCpu(ops::LogicalOrArgs& a) {
  cpu::map_binary<bool, bool>(a.x, a.y, a.z, [](bool x, bool y) { return x || y; });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_KERNEL(LogicalAnd, CPU, LogicalAndCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(LogicalOr, CPU, LogicalOrCpu)

}  // namespace opforge
