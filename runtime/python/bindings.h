// What the translation units of the _C module share: the Python hooks, conversions between
// Python values and runtime values, typed errors, and one `bind_<area>` function per file.
//
//   module.cc        PYBIND11_MODULE: calls the bind functions below, in order
//   convert.cc       hooks, typed errors, attr/shape/dtype conversions (no bindings)
//   eager.cc         bind_eager: Tensor, execute (the eager hot path), the Python hooks
//   interop.cc       register_interop: NumPy views, DLPack, zero-copy feeds and fetches
//   graph_session.cc bind_graph: Graph, Session
//   registry.cc      bind_registry: op specs, kernels, op libraries
//   devices.cc       bind_devices: placement, GPU backends, device memory
//   config.cc        bind_config: the thread budget, host memory, random streams
//   io.cc            bind_io: CRC-32C of TensorFlow's file formats
//   testing.cc       bind_testing: opforge._C._testing, the switches tests and benchmarks use
//   optimizer_bindings.cc bind_optimizer: the graph optimizer, a Session's optimizer settings
//   distribute.cc    bind_distribute: opforge._C.distribute, MPI for opforge.distribute
//   script.cc        bind_script: the host callback of the PyFunc ops
//   step_stats.cc    step_stats_bytes: a traced run's StepStats in protobuf's wire format (no bindings)
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "opforge/op.h"
#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
struct StepTrace;  // opforge/graph.h

namespace bindings {

// Python callables the package installs at import (opforge/__init__.py: set_hooks and friends).
struct Hooks {
  pybind11::object convert_inputs;  // (handle, args) -> args with inputs converted to Tensors
  pybind11::object convert_dtype;   // (obj) -> int DataType enum
  pybind11::object dispatch;        // graph construction: (handle, name, args) -> result or NotImplemented
  bool graph_mode = false;          // a default graph is active: every op call goes to dispatch
  pybind11::object record;          // tape: (handle, args, attrs dict, outputs); None when not taping
  pybind11::dict error_classes;     // int code -> exception class taking (message, op)
  pybind11::dict numpy_dtypes;      // int enum -> numpy dtype
  pybind11::dict dtype_enums;       // numpy dtype -> int enum
};
Hooks& hooks();

// The Python type of Tensor, set once by bind_eager.
extern PyTypeObject* tensor_type;

inline bool is_tensor(PyObject* o) { return Py_TYPE(o) == tensor_type; }

// The C++ Tensor inside a Python Tensor (exact type checked by the caller). Tensor is a
// plain pybind11 class with one holder, so the value pointer sits in the simple layout.
inline const Tensor& tensor_of(PyObject* o) {
  auto* inst = reinterpret_cast<pybind11::detail::instance*>(o);
  if (inst->simple_layout) return *static_cast<const Tensor*>(inst->simple_value_holder[0]);
  return pybind11::handle(o).cast<const Tensor&>();
}

// Raises s as the typed Python error of its code (the classes set_hooks installed).
[[noreturn]] void raise_status(const Status& s, const std::string& op);
// Raises the typed Python error of a failed status; every message names the op ("MatMul: ...").
void check(const Status& s, const std::string& op);

// The spec of an op handle, or a NotFound error naming the op.
const OpSpec& spec_or_raise(int handle);
// A Python value as the attr `a` of `op` (InvalidArgument naming both when it does not fit).
Status to_attr(const OpSpec& op, const AttrSpec& a, pybind11::handle o, AttrValue* v);
// A shape as a tuple of ints and None (unknown dims), or None for an unknown rank.
pybind11::object shape_to_py(const Shape& s);
// An attr value as plain Python (dtypes as their int enums).
pybind11::object attr_to_py(AttrType t, const AttrValue& v);

// The NumPy dtype of an opforge dtype (ml_dtypes for bfloat16/float16 where needed).
pybind11::dtype numpy_dtype(DType dt);
// A string tensor from a NumPy array of bytes or str (str is encoded as UTF-8), any shape.
Tensor strings_from_numpy(pybind11::array a);

// A bool tensor's bytes are 0 or 1 everywhere inside the runtime (kernels read them as C++
// bool), so every byte that enters from outside is canonicalized here, once: any nonzero byte
// is true, as in TensorFlow and NumPy (np.uint8 data viewed as np.bool_ may hold 2 or 255).
// `bool_bytes_canonical` scans (cheap, vectorized); `canonicalize_bool_bytes` rewrites in place.
bool bool_bytes_canonical(const void* data, size_t n);
void canonicalize_bool_bytes(void* data, size_t n);

// np.asarray(tensor), DLPack (__dlpack__, __dlpack_device__, from_dlpack) and the zero-copy
// conversions of Session feeds and fetches.
void register_interop(pybind11::module_& m, pybind11::class_<Tensor>& tensor);

// The Python class of Tensor that bind_eager created, for areas that add methods to it.
pybind11::class_<Tensor> tensor_class(pybind11::module_& m);

// TensorFlow's StepStats (step_stats.proto) of a traced Session run, serialized.
std::string step_stats_bytes(const StepTrace& trace);

void bind_eager(pybind11::module_& m);
void bind_graph(pybind11::module_& m);
void bind_registry(pybind11::module_& m);
void bind_devices(pybind11::module_& m);
void bind_config(pybind11::module_& m);
void bind_io(pybind11::module_& m);
void bind_testing(pybind11::module_& m);
void bind_optimizer(pybind11::module_& m);  // after bind_graph and bind_testing
void bind_distribute(pybind11::module_& m);
void bind_script(pybind11::module_& m);

}  // namespace bindings
}  // namespace opforge
