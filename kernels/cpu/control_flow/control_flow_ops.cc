// TensorFlow 1's control-flow ops: Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// ControlTrigger.
//
// In a graph these never reach a kernel: the Session's control-flow executor
// (runtime/src/control_flow.h) gives them their meaning (dead tensors, frames, iterations).
// The kernels below are what an eager call gets, where every tensor is live and there are no
// frames: Enter, Exit, NextIteration and LoopCond forward their input, Merge forwards its
// first input; Switch, which must leave one output dead, has no eager meaning (of.cond is
// the eager spelling).
#include "opforge/complex.h"
#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/control_flow/control_trigger.h"
#include "opforge/ops/control_flow/enter.h"
#include "opforge/ops/control_flow/exit.h"
#include "opforge/ops/control_flow/loop_cond.h"
#include "opforge/ops/control_flow/merge.h"
#include "opforge/ops/control_flow/next_iteration.h"
#include "opforge/ops/control_flow/switch.h"

namespace opforge {
namespace {

template <typename T>
Status SwitchCpu(ops::SwitchArgs& a) {
  return a.ctx.error(
      "runs only in a graph run by a Session, where one of its outputs is dead; "
      "eager code branches with of.cond or a Python if");
}

template <typename T>
Status MergeCpu(ops::MergeArgs& a) {
  a.ctx.output(0) = a.ctx.input(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({}), &a.ctx.output(1)));
  a.ctx.output(1).data<int32_t>()[0] = 0;
  return Status::OK();
}

template <typename Args>
Status forward_data(Args& a) {
  a.ctx.output(0) = a.ctx.input(0);
  return Status::OK();
}

template <typename T>
Status EnterCpu(ops::EnterArgs& a) {
  return forward_data(a);
}
template <typename T>
Status ExitCpu(ops::ExitArgs& a) {
  return forward_data(a);
}
template <typename T>
Status NextIterationCpu(ops::NextIterationArgs& a) {
  return forward_data(a);
}
Status LoopCondCpu(ops::LoopCondArgs& a) { return forward_data(a); }
Status ControlTriggerCpu(ops::ControlTriggerArgs&) { return Status::OK(); }

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag, VariantTag

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Switch, CPU, SwitchCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Merge, CPU, MergeCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Enter, CPU, EnterCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Exit, CPU, ExitCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(NextIteration, CPU, NextIterationCpu, OPF_ALL)
OPFORGE_REGISTER_UNTYPED_KERNEL(LoopCond, CPU, LoopCondCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(ControlTrigger, CPU, ControlTriggerCpu)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_FORWARDING_KERNEL(Switch, CPU, SwitchCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Merge, CPU, MergeCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Enter, CPU, EnterCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Exit, CPU, ExitCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(NextIteration, CPU, NextIterationCpu, complex64, complex128)

}  // namespace opforge
