// The op and kernel registries as Python sees them: op handles and specs (what the Python
// graph builder, GraphDef import and the optimizer read), registered kernels, and op libraries.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/kernel.h"
#include "opforge/library.h"
#include "opforge/op.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

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
    in_info.append(
        py::make_tuple(a.name, type_attr, static_cast<int>(a.type), a.is_list(), a.is_ref, number_attr, list_attr));
  }
  d["input_info"] = in_info;
  py::list out_info;
  // (name, is list, is ref, the attr giving a list's length: number_attr or type_list_attr)
  for (const auto& a : op.outputs) {
    const int len_attr = a.number_attr >= 0 ? a.number_attr : a.type_list_attr;
    out_info.append(
        py::make_tuple(a.name, a.is_list(), a.is_ref,
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
  d["is_distributed_communication"] = op.is_distributed_communication;
  d["library"] = op.library;
  return d;
}

}  // namespace

void bind_registry(py::module_& m) {
  m.def("op_handle", [](const std::string& name) { return OpRegistry::Global().handle(name); });
  m.def("op_names", [] { return OpRegistry::Global().names(); });
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
      .def_static("open",
                  [](const std::string& path) {
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
      .def("check",
           [](const OpLibrary& lib) {
             Status s = lib.Check();
             if (!s.ok()) raise_status(Status(s.code(), "load_op_library: '" + lib.path() + "': " + s.message()), "");
           })
      .def("commit", [](OpLibrary& lib) {
        Status s = lib.Commit();
        if (!s.ok()) raise_status(Status(s.code(), "load_op_library: '" + lib.path() + "': " + s.message()), "");
      });
  m.attr("ABI_TAG") = std::string(abi_tag());
}

}  // namespace bindings
}  // namespace opforge
