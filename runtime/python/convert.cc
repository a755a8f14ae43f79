// Conversions between Python values and the runtime's: the hooks the package installs, typed
// errors, attrs, shapes and dtypes. Shared by every area of the _C module (bindings.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

Hooks& hooks() {
  static Hooks* h = new Hooks();  // leaked: must outlive interpreter teardown order issues
  return *h;
}

PyTypeObject* tensor_type = nullptr;

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

namespace {

Status bad_attr(const OpSpec& op, const AttrSpec& a, const char* want, py::handle got) {
  return errors::InvalidArgument(op.name, ": attr '", a.name, "' expects ", want, ", got ",
                                 std::string(py::str(py::type::handle_of(got).attr("__name__"))), " ",
                                 std::string(py::repr(got)));
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
    if (d.is_none())
      dims.push_back(-1);
    else if (is_int(d))
      dims.push_back(py::cast<int64_t>(d));
    else
      return bad_attr(op, a, "a shape (list of ints or None)", o);
  }
  *out = Shape(std::move(dims));
  return Status::OK();
}

}  // namespace

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
      if (!PyBool_Check(o.ptr()) &&
          !(py::hasattr(o, "dtype") && py::str(o.attr("dtype")).cast<std::string>() == "bool")) {
        return bad_attr(op, a, "a bool", o);
      }
      v->b = PyObject_IsTrue(o.ptr()) == 1;
      return Status::OK();
    case AttrType::kFunc:  // a function's name in the library (opforge/function.h)
      if (!py::isinstance<py::str>(o) && !py::isinstance<py::bytes>(o)) return bad_attr(op, a, "a function name", o);
      v->s = o.cast<std::string>();
      return Status::OK();
    case AttrType::kString:
      if (py::isinstance<py::str>(o))
        v->s = o.cast<std::string>();
      else if (py::isinstance<py::bytes>(o))
        v->s = o.cast<std::string>();
      else
        return bad_attr(op, a, "a string", o);
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
      for (py::handle e : py::reinterpret_borrow<py::sequence>(o))
        v->list_f.push_back(static_cast<float>(py::cast<double>(e)));
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
      return errors::Unimplemented(op.name, ": attrs of type ", attr_type_name(a.type), " are not supported");
  }
}

py::object shape_to_py(const Shape& s) {
  if (s.unknown_rank()) return py::none();
  py::tuple t(s.dims().size());
  for (size_t i = 0; i < s.dims().size(); ++i) {
    if (s.dims()[i] < 0)
      t[i] = py::none();
    else
      t[i] = py::int_(s.dims()[i]);
  }
  return std::move(t);
}

py::object attr_to_py(AttrType t, const AttrValue& v) {
  switch (t) {
    case AttrType::kInt:
      return py::int_(v.i);
    case AttrType::kFloat:
      return py::float_(v.f);
    case AttrType::kBool:
      return py::bool_(v.b);
    case AttrType::kString:
    case AttrType::kFunc:
      return py::str(v.s);
    case AttrType::kType:
      return py::int_(static_cast<int>(v.type));
    case AttrType::kShape:
      return shape_to_py(v.shape);
    case AttrType::kListInt:
      return py::cast(v.list_i);
    case AttrType::kListFloat:
      return py::cast(v.list_f);
    case AttrType::kListBool:
      return py::cast(v.list_b);
    case AttrType::kListString:
      return py::cast(v.list_s);
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
    default:
      return py::none();
  }
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

}  // namespace bindings
}  // namespace opforge
