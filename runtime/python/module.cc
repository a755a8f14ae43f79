// opforge._C: the Python binding of the runtime. Each area binds itself (bindings.h lists
// them); the switches tests and benchmarks use live in the submodule opforge._C._testing.
#include <pybind11/pybind11.h>

#include <stdexcept>

#include "bindings.h"
#include "opforge/op.h"

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  using namespace opforge;
  m.doc() = "opforge native runtime";
  // Built-in ops were staged by static initializers of the runtime library; publish them.
  {
    Status s = OpRegistry::Global().commit_pending("");
    if (!s.ok()) throw std::runtime_error("registering built-in ops: " + s.message());
  }
  bindings::bind_eager(m);  // first: the Tensor class the other areas use
  bindings::bind_graph(m);
  bindings::bind_registry(m);
  bindings::bind_devices(m);
  bindings::bind_config(m);
  bindings::bind_io(m);
  bindings::bind_testing(m);
  bindings::bind_optimizer(m);  // after Session and _testing
  bindings::bind_distribute(m);
  bindings::bind_script(m);
}
