// bind_script: the host callback of PyFunc, PyFuncStateless and EagerPyFunc (src/py_func_hook.h).
// opforge.ops.script_ops installs one Python dispatcher, `fn(op_type, node_name, token, inputs)`,
// which returns the function's results as a list of Tensors, or (code, message) for an error it
// caught. The kernel may run on any runtime thread, with or without the GIL (Session.run releases
// it, the eager path holds it): gil_scoped_acquire covers both.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "src/py_func_hook.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

Status dispatch(const py::object& fn, const PyFuncCall& call, std::vector<Tensor>* outputs) {
  if (!Py_IsInitialized()) return Status(Code::kCancelled, call.op_type + ": the Python interpreter has exited");
  py::gil_scoped_acquire gil;
  try {
    py::list inputs;
    for (const Tensor& t : call.inputs) inputs.append(py::cast(t));
    py::object result = fn(call.op_type, call.node_name, call.token, inputs);
    if (py::isinstance<py::tuple>(result)) {
      auto err = result.cast<std::pair<int, std::string>>();
      return Status(static_cast<Code>(err.first), err.second);
    }
    for (py::handle r : result.cast<py::list>()) {
      if (!is_tensor(r.ptr())) return Status(Code::kInternal, call.op_type + ": the dispatcher returned a non-Tensor");
      outputs->push_back(tensor_of(r.ptr()));
    }
    return Status::OK();
  } catch (py::error_already_set& e) {  // a bug in the dispatcher itself: still an error, never a crash
    return Status(Code::kInternal, call.op_type + ": " + std::string(e.what()));
  } catch (const std::exception& e) {
    return Status(Code::kInternal, call.op_type + ": " + std::string(e.what()));
  }
}

}  // namespace

void bind_script(py::module_& m) {
  m.def("set_py_func_dispatcher", [](py::object fn) {
    if (fn.is_none()) {
      set_py_func_callback(nullptr);
      return;
    }
    // The callback owns a reference to fn; it is dropped under the GIL (see the deleter).
    auto* owned = new py::object(std::move(fn));
    std::shared_ptr<py::object> holder(owned, [](py::object* p) {
      if (Py_IsInitialized()) {
        py::gil_scoped_acquire gil;
        delete p;
      }  // else: leaked at interpreter exit, as Python itself does
    });
    set_py_func_callback(
        [holder](const PyFuncCall& call, std::vector<Tensor>* outputs) { return dispatch(*holder, call, outputs); });
  });
}

}  // namespace bindings
}  // namespace opforge
