// opforge._C: the Python binding of the runtime.
//
// The eager hot path is `execute(handle, name, *inputs, *explicit_attrs)`, which every
// generated wrapper calls once. Inputs that are already Tensors and attrs of plain Python
// types are converted here without touching Python code; anything else (NumPy arrays, Python
// scalars, dtype objects) goes through hooks that the Python package installs at import.
#include <optional>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <vector>

#include "opforge/crc32c.h"
#include "opforge/device.h"
#include "opforge/eager.h"
#include "opforge/graph.h"
#include "opforge/host_allocator.h"
#include "opforge/kernel.h"
#include "opforge/library.h"
#include "opforge/op.h"
#include "opforge/blas.h"
#include "opforge/constant_cache.h"
#include "opforge/cpu_kernels.h"
#include "opforge/parallel.h"
#include "opforge/random_state.h"  // array/random ops (issue 4)
#include "opforge/tensor.h"
#include "bindings.h"

namespace py = pybind11;
using namespace opforge;

namespace {

struct Hooks {
  py::object convert_inputs;  // (handle, args) -> args with inputs converted to Tensors
  py::object convert_dtype;   // (obj) -> int DataType enum
  py::object dispatch;        // graph construction: (handle, name, args) -> result or NotImplemented
  bool graph_mode = false;    // a default graph is active: every op call goes to dispatch
  py::object record;          // tape: (handle, args, attrs dict, outputs); None when not taping
  py::dict error_classes;     // int code -> exception class taking (message, op)
  py::dict numpy_dtypes;      // int enum -> numpy dtype
  py::dict dtype_enums;       // numpy dtype -> int enum
};

Hooks& hooks() {
  static Hooks* h = new Hooks();  // leaked: must outlive interpreter teardown order issues
  return *h;
}

PyTypeObject* tensor_type = nullptr;

bool is_tensor(PyObject* o) { return Py_TYPE(o) == tensor_type; }

// The C++ Tensor inside a Python Tensor (exact type checked by the caller). Tensor is a
// plain pybind11 class with one holder, so the value pointer sits in the simple layout.
const Tensor& tensor_of(PyObject* o) {
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (inst->simple_layout) return *static_cast<const Tensor*>(inst->simple_value_holder[0]);
  return py::handle(o).cast<const Tensor&>();
}

[[noreturn]] void raise_status(const Status& s, const std::string& op) {
  Hooks& h = hooks();
  py::object key = py::int_(static_cast<int>(s.code()));
  if (h.error_classes && h.error_classes.contains(key)) {
    py::object cls = h.error_classes[key];
    py::object exc = cls(s.message(), op);
    PyErr_SetObject(cls.ptr(), exc.ptr());
    throw py::error_already_set();
  }
  throw std::runtime_error(s.message());
}

// Raises s as a typed Python error; every message names the op ("MatMul: ...").
void check(const Status& s, const std::string& op) {
  if (s.ok()) return;
  if (!op.empty() && s.message().compare(0, op.size() + 1, op + ":") != 0) {
    raise_status(Status(s.code(), op + ": " + s.message()), op);
  }
  raise_status(s, op);
}

Status bad_attr(const OpSpec& op, const AttrSpec& a, const char* want, py::handle got) {
  return errors::InvalidArgument(op.name, ": attr '", a.name, "' expects ", want, ", got ",
                                 std::string(py::str(py::type::handle_of(got).attr("__name__"))),
                                 " ", std::string(py::repr(got)));
}

bool is_int(py::handle o) { return PyLong_Check(o.ptr()) || (!PyBool_Check(o.ptr()) && PyIndex_Check(o.ptr())); }

Status to_dtype(const OpSpec& op, const AttrSpec& a, py::handle o, DType* out) {
  if (PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr())) {
    *out = static_cast<DType>(PyLong_AsLong(o.ptr()));
    return Status::OK();
  }
  py::object r = hooks().convert_dtype(o);
  if (r.is_none()) return bad_attr(op, a, "a dtype", o);
  *out = static_cast<DType>(r.cast<int>());
  return Status::OK();
}

Status to_shape(const OpSpec& op, const AttrSpec& a, py::handle o, Shape* out) {
  if (o.is_none()) {
    *out = Shape::UnknownRank();
    return Status::OK();
  }
  if (!py::isinstance<py::sequence>(o) || py::isinstance<py::str>(o)) {
    py::object dims = py::getattr(o, "as_list", py::none());
    if (dims.is_none()) return bad_attr(op, a, "a shape (list of ints or None)", o);
    return to_shape(op, a, dims(), out);
  }
  std::vector<int64_t> dims;
  for (py::handle d : py::reinterpret_borrow<py::sequence>(o)) {
    if (d.is_none()) dims.push_back(-1);
    else if (is_int(d)) dims.push_back(py::cast<int64_t>(d));
    else return bad_attr(op, a, "a shape (list of ints or None)", o);
  }
  *out = Shape(std::move(dims));
  return Status::OK();
}

Status to_attr(const OpSpec& op, const AttrSpec& a, py::handle o, AttrValue* v) {
  auto seq = [&](const char* want) -> Status {
    if (!py::isinstance<py::sequence>(o) || py::isinstance<py::str>(o)) return bad_attr(op, a, want, o);
    return Status::OK();
  };
  switch (a.type) {
    case AttrType::kInt:
      if (!is_int(o)) return bad_attr(op, a, "an int", o);
      v->i = py::cast<int64_t>(o);
      return Status::OK();
    case AttrType::kFloat:
      if (!PyFloat_Check(o.ptr()) && !is_int(o) && !py::hasattr(o, "__float__")) return bad_attr(op, a, "a float", o);
      v->f = static_cast<float>(py::cast<double>(o));
      return Status::OK();
    case AttrType::kBool:
      if (!PyBool_Check(o.ptr()) && !(py::hasattr(o, "dtype") && py::str(o.attr("dtype")).cast<std::string>() == "bool")) {
        return bad_attr(op, a, "a bool", o);
      }
      v->b = PyObject_IsTrue(o.ptr()) == 1;
      return Status::OK();
    case AttrType::kString:
      if (py::isinstance<py::str>(o)) v->s = o.cast<std::string>();
      else if (py::isinstance<py::bytes>(o)) v->s = o.cast<std::string>();
      else return bad_attr(op, a, "a string", o);
      return Status::OK();
    case AttrType::kType:
      return to_dtype(op, a, o, &v->type);
    case AttrType::kShape:
      return to_shape(op, a, o, &v->shape);
    case AttrType::kListInt:
      OPF_RETURN_IF_ERROR(seq("a list of ints"));
      v->list_i.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) {
        if (!is_int(e)) return bad_attr(op, a, "a list of ints", o);
        v->list_i.push_back(py::cast<int64_t>(e));
      }
      return Status::OK();
    case AttrType::kListFloat:
      OPF_RETURN_IF_ERROR(seq("a list of floats"));
      v->list_f.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) v->list_f.push_back(static_cast<float>(py::cast<double>(e)));
      return Status::OK();
    case AttrType::kListBool:
      OPF_RETURN_IF_ERROR(seq("a list of bools"));
      v->list_b.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) v->list_b.push_back(PyObject_IsTrue(e.ptr()) == 1);
      return Status::OK();
    case AttrType::kListString:
      OPF_RETURN_IF_ERROR(seq("a list of strings"));
      v->list_s.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) v->list_s.push_back(py::cast<std::string>(e));
      return Status::OK();
    case AttrType::kListType:
      OPF_RETURN_IF_ERROR(seq("a list of dtypes"));
      v->list_type.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) {
        DType t;
        OPF_RETURN_IF_ERROR(to_dtype(op, a, e, &t));
        v->list_type.push_back(t);
      }
      return Status::OK();
    case AttrType::kListShape:
      OPF_RETURN_IF_ERROR(seq("a list of shapes"));
      v->list_shape.clear();
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o)) {
        Shape s;
        OPF_RETURN_IF_ERROR(to_shape(op, a, e, &s));
        v->list_shape.push_back(std::move(s));
      }
      return Status::OK();
    case AttrType::kTensor:
      if (Py_TYPE(o.ptr()) != tensor_type) return bad_attr(op, a, "a Tensor", o);
      v->tensor = tensor_of(o.ptr());
      return Status::OK();
    default:
      return errors::Unimplemented(op.name, ": attrs of type ", attr_type_name(a.type),
                                   " are not supported");
  }
}

py::object shape_to_py(const Shape& s) {
  if (s.unknown_rank()) return py::none();
  py::tuple t(s.dims().size());
  for (size_t i = 0; i < s.dims().size(); ++i) {
    if (s.dims()[i] < 0) t[i] = py::none();
    else t[i] = py::int_(s.dims()[i]);
  }
  return std::move(t);
}

py::object attr_to_py(AttrType t, const AttrValue& v) {
  switch (t) {
    case AttrType::kInt: return py::int_(v.i);
    case AttrType::kFloat: return py::float_(v.f);
    case AttrType::kBool: return py::bool_(v.b);
    case AttrType::kString: return py::str(v.s);
    case AttrType::kType: return py::int_(static_cast<int>(v.type));
    case AttrType::kShape: return shape_to_py(v.shape);
    case AttrType::kListInt: return py::cast(v.list_i);
    case AttrType::kListFloat: return py::cast(v.list_f);
    case AttrType::kListBool: return py::cast(v.list_b);
    case AttrType::kListString: return py::cast(v.list_s);
    case AttrType::kListType: {
      py::list l;
      for (DType d : v.list_type) l.append(static_cast<int>(d));
      return std::move(l);
    }
    case AttrType::kListShape: {
      py::list l;
      for (const Shape& s : v.list_shape) l.append(shape_to_py(s));
      return std::move(l);
    }
    default: return py::none();
  }
}


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

const OpSpec& spec_or_raise(int handle) {
  const OpSpec* op = OpRegistry::Global().spec(handle);
  if (op == nullptr) {
    const std::string& name = OpRegistry::Global().name(handle);
    raise_status(errors::NotFound("op '", name,
                                  "' is not registered in the opforge runtime (no kernel "
                                  "library provides it)"),
                 name);
  }
  return *op;
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
    raise_status(errors::InvalidArgument(op.name, ": expected ", n_in, " inputs and ", n_explicit,
                                         " attrs, got ", argc - 2, " values"),
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
  // outlives its call here. Python hooks run only after the call is finished with.
  thread_local EagerCall call;
  thread_local std::vector<Tensor> outputs;
  struct Release {
    ~Release() {
      call.inputs.clear();
      call.ranges.clear();
      outputs.clear();
    }
  } release;
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
    for (size_t i = 0; i < op.attrs.size(); ++i) attrs[py::str(op.attrs[i].name)] = attr_to_py(op.attrs[i].type, call.attrs[i]);
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

PyMethodDef execute_def = {"execute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(&execute_fastcall)),
                           METH_FASTCALL,
                           "execute(handle, name, *inputs, *attrs): runs an op eagerly (or hands it to "
                           "the graph builder)."};

py::dtype numpy_dtype(DType dt) {
  py::object key = py::int_(static_cast<int>(dt));
  if (!hooks().numpy_dtypes.contains(key)) throw py::type_error("no NumPy dtype for " + dtype_name(dt));
  return py::reinterpret_borrow<py::dtype>(hooks().numpy_dtypes[key]);
}

Tensor strings_from_numpy(py::array a) {
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(a.size()));
  py::object flat = a.attr("ravel")();
  for (py::handle item : flat) {
    if (py::isinstance<py::bytes>(item)) {
      values.push_back(item.cast<std::string>());
    } else if (py::isinstance<py::str>(item)) {
      values.push_back(py::reinterpret_borrow<py::str>(item).attr("encode")("utf-8").cast<std::string>());
    } else {
      throw py::type_error("a string tensor holds bytes or str, got " +
                           py::str(py::type::of(item).attr("__name__")).cast<std::string>());
    }
  }
  Tensor t;
  check(Tensor::FromStrings(Shape(std::move(dims)), std::move(values), &t), "constant");
  return t;
}

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

py::dict op_spec_dict(const OpSpec& op) {
  py::dict d;
  d["name"] = op.name;
  auto args = [](const std::vector<ArgSpec>& v) {
    py::list l;
    for (const auto& a : v) l.append(a.name);
    return l;
  };
  d["inputs"] = args(op.inputs);
  d["outputs"] = args(op.outputs);
  py::list attrs;
  for (const auto& a : op.attrs) attrs.append(py::make_tuple(a.name, attr_type_name(a.type), a.inferred));
  d["attrs"] = attrs;
  py::list in_info;
  for (const auto& a : op.inputs) {
    py::object type_attr = a.type_attr >= 0 ? py::object(py::str(op.attrs[a.type_attr].name)) : py::none();
    py::object number_attr = a.number_attr >= 0 ? py::object(py::str(op.attrs[a.number_attr].name)) : py::none();
    py::object list_attr = a.type_list_attr >= 0 ? py::object(py::str(op.attrs[a.type_list_attr].name)) : py::none();
    in_info.append(py::make_tuple(a.name, type_attr, static_cast<int>(a.type), a.is_list(), a.is_ref,
                                  number_attr, list_attr));
  }
  d["input_info"] = in_info;
  py::list out_info;
  // (name, is list, is ref, the attr giving a list's length: number_attr or type_list_attr)
  for (const auto& a : op.outputs) {
    const int len_attr = a.number_attr >= 0 ? a.number_attr : a.type_list_attr;
    out_info.append(py::make_tuple(a.name, a.is_list(), a.is_ref,
                                   len_attr >= 0 ? py::object(py::str(op.attrs[len_attr].name)) : py::object(py::none())));
  }
  d["output_info"] = out_info;
  py::dict allowed;
  for (const auto& a : op.attrs) {
    if (a.type != AttrType::kType) continue;
    py::list l;
    for (const auto& v : a.allowed) l.append(static_cast<int>(v.type));
    allowed[py::str(a.name)] = l;
  }
  d["allowed_types"] = allowed;
  d["is_stateful"] = op.is_stateful;
  d["library"] = op.library;
  return d;
}

TensorRef to_ref(py::handle o) {
  auto t = o.cast<std::pair<int, int>>();
  return TensorRef{t.first, t.second};
}

int add_node(Graph& g, const std::string& name, int handle, py::list inputs, py::dict attrs,
             py::list control, const std::string& device) {
  const OpSpec& op = spec_or_raise(handle);
  if (inputs.size() != op.inputs.size()) {
    raise_status(errors::InvalidArgument(op.name, ": expected ", op.inputs.size(), " inputs, got ",
                                         inputs.size(), " [[node ", name, "]]"), op.name);
  }
  std::vector<TensorRef> flat;
  std::vector<std::pair<int, int>> ranges;
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    int begin = static_cast<int>(flat.size());
    if (op.inputs[a].is_list()) {
      for (py::handle e : inputs[a].cast<py::list>()) flat.push_back(to_ref(e));
    } else {
      flat.push_back(to_ref(inputs[a]));
    }
    ranges.emplace_back(begin, static_cast<int>(flat.size()));
  }
  std::vector<AttrValue> given(op.attrs.size());
  std::vector<bool> has(op.attrs.size(), false);
  for (auto item : attrs) {
    std::string key = item.first.cast<std::string>();
    size_t i = 0;
    while (i < op.attrs.size() && op.attrs[i].name != key) ++i;
    if (i == op.attrs.size()) {
      raise_status(errors::InvalidArgument(op.name, ": unknown attr '", key, "' [[node ", name, "]]"), op.name);
    }
    Status s = to_attr(op, op.attrs[i], item.second, &given[i]);
    if (!s.ok()) raise_status(Status(s.code(), s.message() + " [[node " + name + "]]"), op.name);
    has[i] = true;
  }
  std::vector<int> ctrl;
  for (py::handle c : control) ctrl.push_back(c.cast<int>());
  int id = -1;
  check(g.add_node(name, op, std::move(flat), std::move(ranges), std::move(given), std::move(has),
                   std::move(ctrl), device, &id),
        op.name);
  return id;
}

py::dict node_info(const Graph& g, int id) {
  std::shared_lock<std::shared_mutex> lock(g.mutex());
  if (id < 0 || id >= g.num_nodes()) throw py::index_error("no such node");
  const Node& n = g.node(id);
  py::dict d;
  d["name"] = n.name;
  d["op"] = n.op->name;
  d["device"] = n.device;
  py::list dtypes, shapes, refs, inputs, control;
  for (DType t : n.out_dtypes) dtypes.append(static_cast<int>(t));
  for (const Shape& s : n.out_shapes) shapes.append(shape_to_py(s));
  for (bool r : n.out_is_ref) refs.append(r);
  for (const TensorRef& r : n.inputs) inputs.append(py::make_tuple(r.node, r.index));
  for (int c : n.control_inputs) control.append(c);
  py::list ranges;
  for (const auto& r : n.ranges) ranges.append(py::make_tuple(r.first, r.second));
  d["out_dtypes"] = dtypes;
  d["out_shapes"] = shapes;
  d["out_is_ref"] = refs;
  d["inputs"] = inputs;
  d["ranges"] = ranges;
  py::list out_ranges;
  for (const auto& r : n.out_ranges) out_ranges.append(py::make_tuple(r.first, r.second));
  d["out_ranges"] = out_ranges;
  d["control_inputs"] = control;
  py::dict attrs;
  for (size_t i = 0; i < n.op->attrs.size(); ++i) {
    const AttrSpec& a = n.op->attrs[i];
    attrs[py::str(a.name)] = a.type == AttrType::kTensor ? py::cast(n.attrs[i].tensor) : attr_to_py(a.type, n.attrs[i]);
  }
  d["attrs"] = attrs;
  return d;
}

py::list session_run(Session& s, py::list feeds, py::list fetches, py::list targets) {
  std::vector<std::pair<TensorRef, Tensor>> fd;
  for (py::handle f : feeds) {
    py::tuple t = f.cast<py::tuple>();
    if (Py_TYPE(t[1].ptr()) != tensor_type) throw py::type_error("feed values must be Tensors");
    fd.emplace_back(to_ref(t[0]), tensor_of(t[1].ptr()));
  }
  std::vector<TensorRef> fe;
  for (py::handle f : fetches) fe.push_back(to_ref(f));
  std::vector<int> tg;
  for (py::handle t : targets) tg.push_back(t.cast<int>());
  std::vector<Tensor> out;
  Status st;
  {
    py::gil_scoped_release release;  // kernels never call into Python
    st = s.run(fd, fe, tg, &out);
  }
  check(st, "Session.run");
  py::list result;
  for (Tensor& t : out) result.append(py::cast(std::move(t), py::return_value_policy::move));
  return result;
}

}  // namespace

namespace opforge {
namespace bindings {
py::dtype numpy_dtype(DType dt) { return ::numpy_dtype(dt); }
void check(const Status& s, const std::string& op) { ::check(s, op); }
Tensor strings_from_numpy(py::array a) { return ::strings_from_numpy(a); }
}  // namespace bindings
}  // namespace opforge

PYBIND11_MODULE(_C, m) {
  m.doc() = "opforge native runtime";
  // Built-in ops were staged by static initializers of the runtime library; publish them.
  {
    Status s = OpRegistry::Global().commit_pending("");
    if (!s.ok()) throw std::runtime_error("registering built-in ops: " + s.message());
  }

  py::class_<Tensor> tensor(m, "Tensor", py::dynamic_attr());
  tensor.def_property_readonly("_dtype_enum", [](const Tensor& t) { return static_cast<int>(t.dtype()); })
      .def_property_readonly("_dims", [](const Tensor& t) { return shape_to_py(t.shape()); })
      .def_property_readonly("ndim", &Tensor::rank)
      .def_property_readonly("size", &Tensor::num_elements)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("device", [](const Tensor& t) { return device_string(DeviceSpec{t.device(), t.device_index()}); })
      .def("_shares_buffer_with", [](const Tensor& a, const Tensor& b) { return a.buffer() == b.buffer(); })
      .def_static("_from_numpy", &tensor_from_numpy);
  tensor_type = reinterpret_cast<PyTypeObject*>(tensor.ptr());
  bindings::register_interop(m, tensor);

  m.add_object("execute", py::reinterpret_steal<py::object>(PyCFunction_NewEx(&execute_def, nullptr, m.attr("__name__").ptr())));
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def(py::init<>())
      .def("add_node", &add_node, py::arg("name"), py::arg("handle"), py::arg("inputs"), py::arg("attrs"),
           py::arg("control_inputs"), py::arg("device") = "")
      .def("node_info", &node_info)
      .def("find", &Graph::find)
      .def("truncate", &Graph::truncate)
      .def("update_input",
           [](Graph& g, int node, int index, std::pair<int, int> src) {
             check(g.update_input(node, index, TensorRef{src.first, src.second}), "");
           },
           py::arg("node"), py::arg("index"), py::arg("src"))
      .def("set_output_shape",
           [](Graph& g, int node, int index, std::optional<std::vector<int64_t>> dims) {
             check(g.set_output_shape(node, index, dims ? Shape(*dims) : Shape::UnknownRank()), "");
           },
           py::arg("node"), py::arg("index"), py::arg("dims"))
      .def_property_readonly("num_nodes", [](const Graph& g) {
        std::shared_lock<std::shared_mutex> lock(g.mutex());
        return g.num_nodes();
      });
  py::class_<Session>(m, "Session")
      .def(py::init([](std::shared_ptr<Graph> g, const Session* resources_from) {
             return std::make_unique<Session>(g, resources_from ? resources_from->shared_resources() : nullptr);
           }),
           py::arg("graph"), py::arg("resources_from") = nullptr,
           "A session over `graph`; `resources_from` shares another session's variables.")
      .def("run", &session_run)
      .def_property_readonly("cached_plans", &Session::cached_plans)
      .def("variable_names", [](Session& s) { return s.resources().names(); });
  bindings::register_optimizer(m);

  m.def("op_handle", [](const std::string& name) { return OpRegistry::Global().handle(name); });
  m.def("op_names", [] { return OpRegistry::Global().names(); });
  m.def(
      "crc32c",
      [](py::bytes data, uint32_t crc) {
        char* p;
        Py_ssize_t n;
        PyBytes_AsStringAndSize(data.ptr(), &p, &n);
        return crc32c_extend(crc, p, static_cast<size_t>(n));
      },
      py::arg("data"), py::arg("crc") = 0, "CRC-32C of data (continuing from crc), as TensorFlow's files use.");
  m.def("crc32c_mask", &crc32c_mask, "TensorFlow's masked form of a CRC-32C (record files).");
  m.def("op_spec", [](const std::string& name) -> py::object {
    const OpSpec* op = OpRegistry::Global().find(name);
    if (!op) return py::none();
    return op_spec_dict(*op);
  });
  m.def("op_spec_by_handle", [](int handle) -> py::object {
    const OpSpec* op = OpRegistry::Global().spec(handle);
    if (!op) return py::none();
    return op_spec_dict(*op);
  });
  m.def("op_name", [](int handle) { return OpRegistry::Global().name(handle); });
  m.def("kernels", [](const std::string& name) { return KernelRegistry::Global().describe(name); });
  m.def("commit_pending_ops", [](const std::string& library) {
    std::vector<std::string> added;
    Status s = OpRegistry::Global().commit_pending(library, &added);
    if (!s.ok()) {
      OpRegistry::Global().discard_pending();
      raise_status(s, "");
    }
    return added;
  });
  // Op libraries: open (checked, loaded with its registrations staged), check, commit; an
  // uncommitted library is unloaded by close() or when the object goes away.
  py::class_<OpLibrary>(m, "OpLibrary")
      .def_static("open", [](const std::string& path) {
        std::unique_ptr<OpLibrary> lib;
        Status s = OpLibrary::Open(path, &lib);
        if (!s.ok()) raise_status(s, "");
        return lib;
      })
      .def_property_readonly("name", &OpLibrary::name)
      .def_property_readonly("path", &OpLibrary::path)
      .def_property_readonly("opdefs", &OpLibrary::opdefs)
      .def_property_readonly("op_names", &OpLibrary::op_names)
      .def_property_readonly("committed", &OpLibrary::committed)
      .def("check", [](const OpLibrary& lib) {
        Status s = lib.Check();
        if (!s.ok()) raise_status(Status(s.code(), "load_op_library: '" + lib.path() + "': " + s.message()), "");
      })
      .def("commit", [](OpLibrary& lib) {
        Status s = lib.Commit();
        if (!s.ok()) raise_status(Status(s.code(), "load_op_library: '" + lib.path() + "': " + s.message()), "");
      });
  m.attr("ABI_TAG") = std::string(abi_tag());
  m.def("num_threads", &num_threads);
  m.def("set_num_threads", &set_num_threads,
        "Sets the one CPU thread budget of kernels and the BLAS (0: the default).");
  m.def("sgemm_kernel", [] { return std::string(blas::sgemm_kernel()); },
        "The float32 GEMM kernel in use: 'avx512' (the runtime's own) or 'openblas'.");
  m.def("set_sgemm_kernel", [](const std::string& name) { return blas::set_sgemm_kernel(name.c_str()); },
        "Chooses the float32 GEMM kernel ('avx512' or 'openblas'); False if this CPU cannot run it.");
  m.def("depthwise_avx512", &nn::dw_avx512_enabled,
        "Whether float32 depthwise convolutions run the AVX-512 kernel.");
  m.def("set_depthwise_avx512", &nn::set_dw_avx512,
        "Switches the AVX-512 depthwise kernel on (where the CPU has AVX-512F) or off; returns whether it is on.");
  m.def("direct_conv_avx512", &nn::direct_conv_avx512_enabled,
        "Whether float32 convolutions with few input channels run the direct AVX-512 kernel.");
  m.def("set_direct_conv_avx512", &nn::set_direct_conv_avx512,
        "Switches the direct AVX-512 convolution on (where the CPU has AVX-512F) or off; returns whether it is on.");
  m.def("concurrent_executor", [] {
    static const char* const kNames[] = {"off", "auto", "always"};
    return std::string(kNames[static_cast<int>(concurrent_executor())]);
  }, "Inter-op parallelism of Session runs of stateless CPU graphs: 'auto' (default), 'off' or 'always'.");
  m.def("set_concurrent_executor", [](const std::string& mode) {
    if (mode == "off") set_concurrent_executor(ConcurrentExecutor::kOff);
    else if (mode == "auto") set_concurrent_executor(ConcurrentExecutor::kAuto);
    else if (mode == "always") set_concurrent_executor(ConcurrentExecutor::kAlways);
    else throw py::value_error("set_concurrent_executor: mode must be 'off', 'auto' or 'always', got '" + mode + "'");
  }, "Sets inter-op parallelism of Session runs: 'auto' (time both executors, keep the quicker), 'off' "
     "(one step at a time) or 'always' (every wave of independent steps at once; for tests).");
  m.def("winograd_tile", &nn::winograd_tile_setting,
        "The Winograd tile of float32 3x3 convolutions: 0 (chosen per shape), 2 or 4 (forced).");
  m.def("set_winograd_tile", &nn::set_winograd_tile,
        "Forces Winograd F(2x2, 3x3) (2) or F(4x4, 3x3) (4), or 0: chosen per shape; returns the setting.");
  m.def("gemm", [](bool ta, bool tb, double alpha, py::array a, py::array b, double beta, py::array c, bool packed) {
    // Developer hook for tests: C = alpha * op(A) * op(B) + beta * C through blas::gemm, on
    // C-contiguous float32 or float64 matrices (C is written in place); packed: float32 B
    // through blas::PackedMatrix.
    if (a.ndim() != 2 || b.ndim() != 2 || c.ndim() != 2) throw py::value_error("gemm: matrices must be 2-D");
    const int64_t m = c.shape(0), n = c.shape(1), k = ta ? a.shape(0) : a.shape(1);
    if ((ta ? a.shape(1) : a.shape(0)) != m || (tb ? b.shape(1) : b.shape(0)) != k || (tb ? b.shape(0) : b.shape(1)) != n) {
      throw py::value_error("gemm: shapes do not match");
    }
    const auto contiguous = [](const py::array& x) { return (x.flags() & py::array::c_style) != 0; };
    if (!contiguous(a) || !contiguous(b) || !contiguous(c) || !c.writeable()) {
      throw py::value_error("gemm: arrays must be C-contiguous (and C writable)");
    }
    const auto lead = [](const py::array& x) { return static_cast<int64_t>(x.shape(1)); };
    if (a.dtype().is(py::dtype::of<float>()) && b.dtype().is(py::dtype::of<float>()) && c.dtype().is(py::dtype::of<float>())) {
      if (packed) {
        const blas::PackedMatrix pb(tb, static_cast<const float*>(b.data()), lead(b), k, n);
        blas::gemm(ta, m, static_cast<float>(alpha), static_cast<const float*>(a.data()), lead(a), pb,
                   static_cast<float>(beta), static_cast<float*>(c.mutable_data()), lead(c));
        return;
      }
      blas::gemm(ta, tb, m, n, k, static_cast<float>(alpha), static_cast<const float*>(a.data()), lead(a),
                 static_cast<const float*>(b.data()), lead(b), static_cast<float>(beta),
                 static_cast<float*>(c.mutable_data()), lead(c));
    } else if (a.dtype().is(py::dtype::of<double>()) && b.dtype().is(py::dtype::of<double>()) &&
               c.dtype().is(py::dtype::of<double>())) {
      blas::gemm(ta, tb, m, n, k, alpha, static_cast<const double*>(a.data()), lead(a),
                 static_cast<const double*>(b.data()), lead(b), beta, static_cast<double*>(c.mutable_data()), lead(c));
    } else {
      throw py::type_error("gemm: float32 or float64 matrices, all of one dtype");
    }
  }, py::arg("ta"), py::arg("tb"), py::arg("alpha"), py::arg("a"), py::arg("b"), py::arg("beta"), py::arg("c"),
     py::arg("packed") = false);
  // ---- the caching host allocator
  m.def("host_memory_stats", [] {
    const HostMemoryStats st = host_memory_stats();
    py::dict d;
    d["bytes_in_use"] = st.bytes_in_use;
    d["peak_bytes_in_use"] = st.peak_bytes_in_use;
    d["bytes_cached"] = st.bytes_cached;
    d["cache_limit"] = st.cache_limit;
    d["num_allocs"] = st.num_allocs;
    d["cache_hits"] = st.cache_hits;
    d["os_allocs"] = st.os_allocs;
    d["os_frees"] = st.os_frees;
    d["constant_cache_bytes"] = constant_cache_bytes();
    return d;
  });
  m.def("set_profiling", &set_profiling, py::arg("on"), py::arg("by_shape") = false,
        "Starts (clearing) or stops per-op kernel timing of Session runs (by_shape: per op and input shapes).");
  m.def("profile_stats", &profile_stats, "op -> (kernel runs, nanoseconds) since profiling started.");
  m.def("host_empty_cache", [] {
    clear_constant_cache();  // its values hold memory too
    host_empty_cache();
  });
  m.def("constant_cache_bytes", &constant_cache_bytes,
        "Bytes of values derived from graph constants (packed filters) kept across runs.");
  m.def("host_reset_peak", &host_reset_peak);
  m.def("host_set_cache_limit", &host_set_cache_limit);
  // ---- random ops (issue 4, array/random area): of.random.set_seed restarts eager streams.
  m.def("reset_random_streams", &rng::reset_eager_streams,
        "Restarts the streams of the stateful random ops run eagerly (of.random.set_seed).");
  m.def("set_hooks", [](py::object convert_inputs, py::object convert_dtype, py::dict error_classes,
                        py::dict numpy_dtypes) {
    Hooks& h = hooks();
    h.convert_inputs = std::move(convert_inputs);
    h.convert_dtype = std::move(convert_dtype);
    h.error_classes = std::move(error_classes);
    h.numpy_dtypes = std::move(numpy_dtypes);
    if (!h.dispatch) h.dispatch = py::none();
    if (!h.record) h.record = py::none();
  });
  // ---- devices (issue 5: GPU backends)
  tensor.def("_to", [](const Tensor& t, const std::string& device) {
    DeviceSpec d;
    check(parse_device(device, &d), "");
    Tensor out;
    Status s;
    {
      py::gil_scoped_release nogil;
      s = copy_tensor(t, d, &out);
    }
    check(s, "");
    return out;
  });
  m.def("parse_device", [](const std::string& device) {
    DeviceSpec d;
    check(parse_device(device, &d), "");
    return device_string(d);
  });
  // Sets this thread's eager placement ("" clears it); returns the previous one ("" if none).
  m.def("set_eager_device", [](const std::string& device) {
    const DeviceSpec* prev = eager_placement();
    std::string before = prev ? device_string(*prev) : std::string();
    if (device.empty()) {
      set_eager_placement(nullptr);
    } else {
      DeviceSpec d;
      check(parse_device(device, &d), "");
      set_eager_placement(&d);
    }
    return before;
  });
  m.def("load_gpu_backends", [](const std::vector<std::string>& paths) {
    std::vector<std::string> report;
    check(load_gpu_backends(paths, &report), "");
    return report;
  });
  m.def("gpu_count", &gpu_count);
  m.def("gpu_backend", []() -> py::object {
    GpuBackend* b = gpu_backend();
    return b ? py::object(py::str(b->name())) : py::object(py::none());
  });
  m.def("gpu_unavailable_reason", &gpu_unavailable_reason);
  m.def("gpu_device_name", [](int i) {
    check(check_device(DeviceSpec{Device::kGPU, i}), "");
    return gpu_backend()->describe_device(i);
  });
  m.def("gpu_synchronize", [](int i) {
    check(check_device(DeviceSpec{Device::kGPU, i}), "");
    Status s;
    {
      py::gil_scoped_release nogil;
      s = gpu_backend()->synchronize(i);
    }
    check(s, "");
  });
  m.def("gpu_memory_stats", [](int i) {
    DeviceMemoryStats st = device_memory_stats(i);
    py::dict d;
    d["in_use"] = st.in_use;
    d["cached"] = st.cached;
    d["raw_allocs"] = st.raw_allocs;
    d["copies_to_device"] = st.copies_to_device;
    d["bytes_to_device"] = st.bytes_to_device;
    d["copies_to_host"] = st.copies_to_host;
    d["bytes_to_host"] = st.bytes_to_host;
    return d;
  });
  m.def("gpu_empty_cache", &empty_device_cache);
  // A fresh copy of a GPU tensor on its own device (the device-to-device copy the GPU
  // benchmark measures bandwidth against).
  m.def("gpu_copy", [](const Tensor& t) {
    if (t.on_host()) throw py::value_error("gpu_copy takes a GPU tensor");
    Tensor out;
    check(Tensor::Allocate(t.dtype(), t.shape(), t.device(), t.device_index(), &out), "");
    if (t.nbytes()) check(gpu_backend()->copy_on_device(t.device_index(), out.raw_data(), t.raw_data(), t.nbytes()), "");
    return out;
  });
  m.def("kernel_devices", [](const std::string& op) {
    std::vector<std::string> out;
    for (Device d : KernelRegistry::Global().devices_for(op)) out.push_back(device_name(d));
    return out;
  });
  // ---- end devices

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
