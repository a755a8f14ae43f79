// Variables (VariableV2, the Assign family and CountUpTo) and NoOp. These need the graph executor's
// environment: the Session's variable store and the node name.
#include <cstring>

#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/state/assign.h"
#include "opforge/ops/state/assign_add.h"
#include "opforge/ops/state/assign_sub.h"
#include "opforge/ops/state/count_up_to.h"
#include "opforge/ops/state/is_variable_initialized.h"
#include "opforge/ops/state/no_op.h"
#include "opforge/ops/state/variable_v2.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

template <typename T>
Status VariableV2Cpu(ops::VariableV2Args& a) {
  ExecEnv* env = a.ctx.env();
  if (env == nullptr || env->resources == nullptr) {
    return a.ctx.error("variables of this kind live in a Session: build them in a graph (eager code uses of.Variable)");
  }
  const std::string& name = a.shared_name.empty() ? *env->node_name : a.shared_name;
  Variable* v = nullptr;
  OPF_RETURN_IF_ERROR(env->resources->lookup_or_create(name, a.dtype, a.shape, &v));
  a.ctx.set_ref_output(0, v);
  return Status::OK();
}

bool shape_compatible(const Shape& declared, const Shape& actual) {
  if (declared.unknown_rank()) return true;
  if (declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i)
    if (declared.dim(i) >= 0 && declared.dim(i) != actual.dim(i)) return false;
  return true;
}

template <typename T>
Status AssignCpu(ops::AssignArgs& a) {
  Variable* v = a.ctx.ref_input(0);
  if (v == nullptr) return a.ctx.error("input 'ref' must be a variable");
  if (a.validate_shape && !shape_compatible(v->shape, a.value.shape())) {
    return a.ctx.error("cannot assign a value of shape ", a.value.shape().to_string(), " to variable '", v->name,
                       "' of shape ", v->shape.to_string());
  }
  // The variable owns its storage, as in TensorFlow: a value in memory the runtime did not
  // allocate (a fed NumPy array, which its owner may change after the run) or a constant's
  // buffer is copied; any other value (an op's result) is shared, tensors being immutable. Owned,
  // the variable is also updated in place by the first training step (Apply*) rather than
  // copied then.
  Tensor value = a.value;
  const std::shared_ptr<Buffer>& buf = a.value.buffer();
  if (buf && a.value.on_host() && a.value.strings() == nullptr && a.value.variant() == nullptr &&
      (!buf->owns_memory() || buf->is_constant())) {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(value.dtype(), value.shape(), &value));
    if (a.value.nbytes() > 0) std::memcpy(value.raw_data(), a.value.raw_data(), a.value.nbytes());
  }
  {
    std::lock_guard<std::mutex> lock(v->mu);
    v->value = std::move(value);
    v->initialized = true;
  }
  a.ctx.set_ref_output(0, v);
  return Status::OK();
}

template <typename T, bool kAdd>
Status update(Variable* v, const Tensor& delta, KernelContext& ctx) {
  if (v == nullptr) return ctx.error("input 'ref' must be a variable");
  std::lock_guard<std::mutex> lock(v->mu);
  if (!v->initialized) {
    return Status(Code::kFailedPrecondition, ctx.op().name + ": Attempting to use uninitialized value " + v->name);
  }
  if (v->value.shape() != delta.shape()) {
    return ctx.error("variable '", v->name, "' has shape ", v->value.shape().to_string(), " but the update has shape ",
                     delta.shape().to_string());
  }
  Tensor next;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(v->value.dtype(), v->value.shape(), &next));
  const T* x = v->value.data<T>();
  const T* d = delta.data<T>();
  T* out = next.data<T>();
  parallel_for(next.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      using C = cpu::compute_t<T>;
      out[i] = static_cast<T>(kAdd ? static_cast<C>(x[i]) + static_cast<C>(d[i])
                                   : static_cast<C>(x[i]) - static_cast<C>(d[i]));
    }
  });
  v->value = std::move(next);
  ctx.set_ref_output(0, v);
  return Status::OK();
}

template <typename T>
Status AssignAddCpu(ops::AssignAddArgs& a) {
  return update<T, true>(a.ctx.ref_input(0), a.value, a.ctx);
}
template <typename T>
Status AssignSubCpu(ops::AssignSubArgs& a) {
  return update<T, false>(a.ctx.ref_input(0), a.value, a.ctx);
}

// The variable's value before the increment; OutOfRange once it has reached the limit.
template <typename T>
Status CountUpToCpu(ops::CountUpToArgs& a) {
  Variable* v = a.ctx.ref_input(0);
  if (v == nullptr) return a.ctx.error("input 'ref' must be a variable");
  std::lock_guard<std::mutex> lock(v->mu);
  if (!v->initialized) {
    return Status(Code::kFailedPrecondition, a.ctx.op().name + ": Attempting to use uninitialized value " + v->name);
  }
  if (v->value.shape().rank() != 0) {
    return a.ctx.error("variable '", v->name, "' is not a scalar: ", v->value.shape().to_string());
  }
  const T before = v->value.data<T>()[0];
  if (before >= a.limit) {
    return errors::OutOfRange(a.ctx.op().name, ": Reached limit of ", a.limit);
  }
  Tensor out, next;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(v->value.dtype(), Shape(), &out));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(v->value.dtype(), Shape(), &next));
  out.data<T>()[0] = before;
  next.data<T>()[0] = static_cast<T>(before + 1);
  v->value = std::move(next);
  a.output = std::move(out);
  return Status::OK();
}

// Whether the variable has a value; reading an uninitialized one is the point, not an error.
template <typename T>
Status IsVariableInitializedCpu(ops::IsVariableInitializedArgs& a) {
  Variable* v = a.ctx.ref_input(0);
  if (v == nullptr) return a.ctx.error("input 'ref' must be a variable");
  Tensor out;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, Shape(), &out));
  {
    std::lock_guard<std::mutex> lock(v->mu);
    out.data<bool>()[0] = v->initialized;
  }
  a.is_initialized = std::move(out);
  return Status::OK();
}

Status NoOpCpu(ops::NoOpArgs&) { return Status::OK(); }

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double
#define OPF_NUMERIC uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(VariableV2, CPU, VariableV2Cpu, OPF_ALL, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(Assign, CPU, AssignCpu, OPF_ALL, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(AssignAdd, CPU, AssignAddCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(AssignSub, CPU, AssignSubCpu, OPF_NUMERIC)
OPFORGE_REGISTER_FORWARDING_KERNEL(IsVariableInitialized, CPU, IsVariableInitializedCpu, OPF_ALL, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(CountUpTo, CPU, CountUpToCpu, int32_t, int64_t)
OPFORGE_REGISTER_UNTYPED_KERNEL(NoOp, CPU, NoOpCpu)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_FORWARDING_KERNEL(VariableV2, CPU, VariableV2Cpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Assign, CPU, AssignCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(IsVariableInitialized, CPU, IsVariableInitializedCpu, complex64, complex128)

}  // namespace opforge
