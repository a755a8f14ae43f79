// PyFunc, PyFuncStateless and EagerPyFunc: call the Python function registered under the op's
// token (through the runtime's host-callback hook, py_func_hook.h) and check what it returns
// against Tout: as many results as Tout lists, each of its dtype, on the host.
// Registered as forwarding kernels: the outputs are the function's results, whose shapes are
// known only once it returns (nothing is allocated ahead).
#include <string>
#include <vector>

#include "opforge/ops/script/eager_py_func.h"
#include "opforge/ops/script/py_func.h"
#include "opforge/ops/script/py_func_stateless.h"
#include "opforge/resource.h"
#include "src/py_func_hook.h"

namespace opforge {
namespace {

Status RunPyFunc(KernelContext& ctx, const char* op_type, const std::string& token, TensorList input,
                 const std::vector<DType>& tout) {
  static const std::string kNoNode;
  const std::string op(op_type);
  const std::string& node = ctx.env() && ctx.env()->node_name ? *ctx.env()->node_name : kNoNode;
  PyFuncCall call{op, node, token, {}, tout};
  call.inputs.reserve(static_cast<size_t>(input.size));
  for (int i = 0; i < input.size; ++i) call.inputs.push_back(input[i]);
  std::vector<Tensor> results;
  OPF_RETURN_IF_ERROR(call_py_func(call, &results));
  if (results.size() != tout.size()) {
    return errors::InvalidArgument(op, ": function '", token, "' returned ", results.size(), " values, Tout lists ",
                                   tout.size());
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].dtype() != tout[i]) {
      return errors::InvalidArgument(op, ": function '", token, "' returned ", dtype_name(results[i].dtype()),
                                     " for output ", i, ", Tout says ", dtype_name(tout[i]));
    }
    ctx.output(static_cast<int>(i)) = std::move(results[i]);
  }
  return Status::OK();
}

Status PyFuncCpu(ops::PyFuncArgs& a) { return RunPyFunc(a.ctx, "PyFunc", a.token, a.input, a.Tout); }
Status PyFuncStatelessCpu(ops::PyFuncStatelessArgs& a) {
  return RunPyFunc(a.ctx, "PyFuncStateless", a.token, a.input, a.Tout);
}
Status EagerPyFuncCpu(ops::EagerPyFuncArgs& a) { return RunPyFunc(a.ctx, "EagerPyFunc", a.token, a.input, a.Tout); }

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(PyFunc, CPU, PyFuncCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(PyFuncStateless, CPU, PyFuncStatelessCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(EagerPyFunc, CPU, EagerPyFuncCpu)

}  // namespace opforge
