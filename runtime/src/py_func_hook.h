// The host-callback hook of PyFunc, PyFuncStateless and EagerPyFunc (kernels/cpu/script/py_func.cc).
// The runtime knows nothing of Python: the Python bindings (runtime/python/script.cc) install a
// callback that takes the GIL, calls the Python function registered under the op's token and
// hands back its results. Without bindings (a C++-only embedding) the ops fail with
// FailedPrecondition.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "opforge/dtype.h"
#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {

struct PyFuncCall {
  const std::string& op_type;    // PyFunc, PyFuncStateless or EagerPyFunc
  const std::string& node_name;  // empty when running eagerly
  const std::string& token;
  std::vector<Tensor> inputs;
  const std::vector<DType>& tout;
};

using PyFuncCallback = std::function<Status(const PyFuncCall& call, std::vector<Tensor>* outputs)>;

// Installs (or, with an empty function, removes) the callback; thread-safe.
void set_py_func_callback(PyFuncCallback fn);
// Calls it; FailedPrecondition when none is installed.
Status call_py_func(const PyFuncCall& call, std::vector<Tensor>* outputs);

}  // namespace opforge
