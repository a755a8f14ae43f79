// The eager side of _C: the Tensor class, `execute` (the one call every generated wrapper
// makes) and the hooks through which the Python package converts inputs, builds graphs and
// records tapes.
//
// The eager hot path is `execute(handle, name, *inputs, *explicit_attrs)`. Inputs that are
// already Tensors and attrs of plain Python types are converted here without touching Python
// code; anything else (NumPy arrays, Python scalars, dtype objects) goes through hooks that
// the Python package installs at import.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/device.h"
#include "src/eager.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

// True when every input is a Tensor (list inputs: a list or tuple of Tensors).
bool inputs_are_tensors(const OpSpec& op, PyObject* const* in) {
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    PyObject* o = in[i];
    if (op.inputs[i].is_list()) {
      if (!PyList_Check(o) && !PyTuple_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      for (Py_ssize_t k = 0; k < n; ++k)
        if (!is_tensor(items[k])) return false;
    } else if (!is_tensor(o)) {
      return false;
    }
  }
  return true;
}

py::object wrap_outputs(const OpSpec& op, const EagerCall& call, std::vector<Tensor>& outputs) {
  if (op.outputs.size() == 1 && !op.outputs[0].is_list()) {
    return py::cast(std::move(outputs[0]), py::return_value_policy::move);
  }
  // Group flat outputs per output argument: list args become lists.
  py::list groups;
  size_t pos = 0;
  for (const ArgSpec& arg : op.outputs) {
    if (arg.is_list()) {
      size_t n = arg.number_attr >= 0 ? static_cast<size_t>(call.attrs[arg.number_attr].i)
                                      : call.attrs[arg.type_list_attr].list_type.size();
      py::list l;
      for (size_t j = 0; j < n; ++j) l.append(py::cast(std::move(outputs[pos++]), py::return_value_policy::move));
      groups.append(l);
    } else {
      groups.append(py::cast(std::move(outputs[pos++]), py::return_value_policy::move));
    }
  }
  return op.outputs.size() == 1 ? py::object(groups[0]) : py::object(py::tuple(groups));
}

// execute(handle, name, *inputs, *explicit_attrs): the eager entry point of every wrapper.
py::object execute_impl(PyObject* const* argv, Py_ssize_t argc) {
  if (argc < 2) throw py::type_error("execute(handle, name, *inputs, *attrs)");
  const int handle = static_cast<int>(PyLong_AsLong(argv[0]));
  if (handle == -1 && PyErr_Occurred()) throw py::error_already_set();
  Hooks& h = hooks();
  const OpSpec& op = spec_or_raise(handle);
  const size_t n_in = op.inputs.size();
  size_t n_explicit = 0;
  for (const auto& a : op.attrs) n_explicit += a.inferred ? 0 : 1;
  if (static_cast<size_t>(argc - 2) != n_in + n_explicit) {
    raise_status(errors::InvalidArgument(op.name, ": expected ", n_in, " inputs and ", n_explicit, " attrs, got ",
                                         argc - 2, " values"),
                 op.name);
  }
  PyObject* const* in = argv + 2;
  const bool all_tensors = inputs_are_tensors(op, in);
  if ((h.graph_mode || !all_tensors) && !h.dispatch.is_none()) {
    // Graph construction (a default graph, or graph tensors among the inputs) happens in Python.
    py::tuple rest(argc - 2);
    for (Py_ssize_t i = 2; i < argc; ++i) rest[i - 2] = py::reinterpret_borrow<py::object>(argv[i]);
    py::object r = h.dispatch(py::handle(argv[0]), py::handle(argv[1]), rest);
    if (!r.is(py::reinterpret_borrow<py::object>(Py_NotImplemented))) return r;
  }
  py::object converted;  // keeps converted inputs alive
  std::vector<PyObject*> converted_ptrs;
  if (!all_tensors) {
    py::tuple rest(argc - 2);
    for (Py_ssize_t i = 2; i < argc; ++i) rest[i - 2] = py::reinterpret_borrow<py::object>(argv[i]);
    converted = h.convert_inputs(py::handle(argv[0]), rest);
    py::tuple ct = converted.cast<py::tuple>();
    converted = ct;
    for (size_t i = 0; i < ct.size(); ++i) converted_ptrs.push_back(ct[i].ptr());
    in = converted_ptrs.data();
    if (!inputs_are_tensors(op, in)) {
      raise_status(errors::InvalidArgument(op.name, ": inputs could not be converted to tensors"), op.name);
    }
  }

  // Reused across calls (no allocation once warm); released before returning so no tensor
  // outlives its call here. A call made while another is running on this thread (an op inside
  // a tf.py_function body, which the outer EagerPyFunc kernel calls back into) gets its own.
  thread_local EagerCall reused_call;
  thread_local std::vector<Tensor> reused_outputs;
  thread_local int depth = 0;
  EagerCall nested_call;
  std::vector<Tensor> nested_outputs;
  EagerCall& call = depth == 0 ? reused_call : nested_call;
  std::vector<Tensor>& outputs = depth == 0 ? reused_outputs : nested_outputs;
  struct Release {
    EagerCall& call;
    std::vector<Tensor>& outputs;
    int& depth;
    ~Release() {
      call.inputs.clear();
      call.ranges.clear();
      outputs.clear();
      --depth;
    }
  } release{call, outputs, depth};
  ++depth;
  call.op = &op;
  call.inputs.clear();
  call.ranges.clear();
  for (size_t i = 0; i < n_in; ++i) {
    int begin = static_cast<int>(call.inputs.size());
    if (op.inputs[i].is_list()) {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(in[i]);
      PyObject** items = PySequence_Fast_ITEMS(in[i]);
      for (Py_ssize_t k = 0; k < n; ++k) call.inputs.push_back(&tensor_of(items[k]));
    } else {
      call.inputs.push_back(&tensor_of(in[i]));
    }
    call.ranges.emplace_back(begin, static_cast<int>(call.inputs.size()));
  }
  call.attrs.resize(op.attrs.size());
  for (AttrValue& a : call.attrs) a.reset();
  call.has_attr.assign(op.attrs.size(), false);
  size_t k = n_in;
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    if (op.attrs[i].inferred) continue;
    check(to_attr(op, op.attrs[i], py::handle(in[k++]), &call.attrs[i]), op.name);
    call.has_attr[i] = true;
  }

  check(opforge::execute(call, &outputs), op.name);
  py::object result = wrap_outputs(op, call, outputs);
  if (!h.record.is_none()) {
    py::dict attrs;
    for (size_t i = 0; i < op.attrs.size(); ++i)
      attrs[py::str(op.attrs[i].name)] = attr_to_py(op.attrs[i].type, call.attrs[i]);
    py::tuple inputs(n_in);
    for (size_t i = 0; i < n_in; ++i) inputs[i] = py::reinterpret_borrow<py::object>(in[i]);
    h.record(py::handle(argv[0]), inputs, attrs, result);
  }
  return result;
}

PyObject* execute_fastcall(PyObject*, PyObject* const* argv, Py_ssize_t argc) {
  try {
    return execute_impl(argv, argc).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyMethodDef execute_def = {
    "execute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&execute_fastcall)), METH_FASTCALL,
    "execute(handle, name, *inputs, *attrs): runs an op eagerly (or hands it to "
    "the graph builder)."};

Tensor tensor_from_numpy(py::array a, int dtype_enum) {
  DType dt = static_cast<DType>(dtype_enum);
  if (dt == DType::kString) return strings_from_numpy(a);
  if (!dtype_supported(dt)) throw py::type_error("unsupported dtype " + dtype_name(dt));
  if (static_cast<size_t>(a.itemsize()) != dtype_size(dt)) throw py::type_error("array itemsize does not match dtype");
  if (!(a.flags() & py::array::c_style)) throw py::value_error("array must be C-contiguous");
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  Tensor t;
  check(Tensor::Allocate(dt, Shape(std::move(dims)), &t), "constant");
  if (t.nbytes()) std::memcpy(t.raw_data(), a.data(), t.nbytes());
  if (dt == DType::kBool) bindings::canonicalize_bool_bytes(t.raw_data(), t.nbytes());
  return t;
}

}  // namespace

py::class_<Tensor> tensor_class(py::module_& m) { return py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor")); }

void bind_eager(py::module_& m) {
  py::class_<Tensor> tensor(m, "Tensor", py::dynamic_attr());
  tensor.def_property_readonly("_dtype_enum", [](const Tensor& t) { return static_cast<int>(t.dtype()); })
      .def_property_readonly("_dims", [](const Tensor& t) { return shape_to_py(t.shape()); })
      .def_property_readonly("ndim", &Tensor::rank)
      .def_property_readonly("size", &Tensor::num_elements)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("device",
                             [](const Tensor& t) { return device_string(DeviceSpec{t.device(), t.device_index()}); })
      .def("_shares_buffer_with", [](const Tensor& a, const Tensor& b) { return a.buffer() == b.buffer(); })
      .def_static("_from_numpy", &tensor_from_numpy);
  tensor_type = reinterpret_cast<PyTypeObject*>(tensor.ptr());
  bindings::register_interop(m, tensor);

  m.add_object("execute",
               py::reinterpret_steal<py::object>(PyCFunction_NewEx(&execute_def, nullptr, m.attr("__name__").ptr())));

  // ---- hooks the Python package installs (opforge/__init__.py, framework/graph.py, tape.py)
  m.def("set_hooks",
        [](py::object convert_inputs, py::object convert_dtype, py::dict error_classes, py::dict numpy_dtypes) {
          Hooks& h = hooks();
          h.convert_inputs = std::move(convert_inputs);
          h.convert_dtype = std::move(convert_dtype);
          h.error_classes = std::move(error_classes);
          h.numpy_dtypes = std::move(numpy_dtypes);
          if (!h.dispatch) h.dispatch = py::none();
          if (!h.record) h.record = py::none();
        });
  m.def("set_dispatch", [](py::object fn) { hooks().dispatch = std::move(fn); });
  m.def("set_graph_mode", [](bool on) { hooks().graph_mode = on; });
  m.def("set_record", [](py::object fn) { hooks().record = std::move(fn); });
  m.def("_clear_hooks", [] {
    Hooks& h = hooks();
    h = Hooks();
    h.dispatch = py::none();
    h.record = py::none();
  });
}

}  // namespace bindings
}  // namespace opforge
