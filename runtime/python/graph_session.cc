// Graph construction and Session runs: the Python Graph adds nodes here (its shapes are
// inferred as each node is added) and Session.run hands feeds and fetches to the executor.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "opforge/function.h"
#include "opforge/graph.h"
#include "opforge/op.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

TensorRef to_ref(py::handle o) {
  auto t = o.cast<std::pair<int, int>>();
  return TensorRef{t.first, t.second};
}

int add_node(Graph& g, const std::string& name, int handle, py::list inputs, py::dict attrs, py::list control,
             const std::string& device) {
  const OpSpec& op = spec_or_raise(handle);
  if (inputs.size() != op.inputs.size()) {
    raise_status(errors::InvalidArgument(op.name, ": expected ", op.inputs.size(), " inputs, got ", inputs.size(),
                                         " [[node ", name, "]]"),
                 op.name);
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
  check(g.add_node(name, op, std::move(flat), std::move(ranges), std::move(given), std::move(has), std::move(ctrl),
                   device, &id),
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

py::object session_run(Session& s, py::list feeds, py::list fetches, py::list targets, bool trace) {
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
  StepTrace step_trace;
  std::string step_stats;
  Status st;
  {
    py::gil_scoped_release release;  // kernels never call into Python
    st = s.run(fd, fe, tg, &out, trace ? &step_trace : nullptr);
    if (trace && st.ok()) step_stats = step_stats_bytes(step_trace);
  }
  check(st, "Session.run");
  py::list result;
  for (Tensor& t : out) result.append(py::cast(std::move(t), py::return_value_policy::move));
  if (trace) return py::make_tuple(result, py::bytes(step_stats));
  return std::move(result);
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph")
      .def(py::init<>())
      .def("add_node", &add_node, py::arg("name"), py::arg("handle"), py::arg("inputs"), py::arg("attrs"),
           py::arg("control_inputs"), py::arg("device") = "")
      .def("node_info", &node_info)
      .def("find", &Graph::find)
      .def("truncate", &Graph::truncate)
      .def(
          "update_input",
          [](Graph& g, int node, int index, std::pair<int, int> src) {
            check(g.update_input(node, index, TensorRef{src.first, src.second}), "");
          },
          py::arg("node"), py::arg("index"), py::arg("src"))
      .def(
          "set_output_shape",
          [](Graph& g, int node, int index, std::optional<std::vector<int64_t>> dims) {
            check(g.set_output_shape(node, index, dims ? Shape(*dims) : Shape::UnknownRank()), "");
          },
          py::arg("node"), py::arg("index"), py::arg("dims"))
      .def_property_readonly("num_nodes", [](const Graph& g) {
        std::shared_lock<std::shared_mutex> lock(g.mutex());
        return g.num_nodes();
      });
  m.def(
      "register_function",
      [](const std::string& name, std::shared_ptr<Graph> g, const std::vector<std::pair<int, int>>& args,
         const std::vector<std::pair<int, int>>& rets) {
        std::vector<TensorRef> a, r;
        for (const auto& x : args) a.push_back(TensorRef{x.first, x.second});
        for (const auto& x : rets) r.push_back(TensorRef{x.first, x.second});
        check(FunctionLibrary::Global().add(name, std::move(g), std::move(a), std::move(r)), "");
      },
      py::arg("name"), py::arg("graph"), py::arg("args"), py::arg("rets"),
      "Adds a function to the process's library (opforge/function.h): `graph`'s Placeholder outputs "
      "`args` are its arguments, the tensors `rets` its results; dataset ops name it in func attrs.");
  m.def(
      "has_function", [](const std::string& name) { return FunctionLibrary::Global().find(name) != nullptr; },
      py::arg("name"));
  py::class_<Session>(m, "Session")
      .def(py::init([](std::shared_ptr<Graph> g, const Session* resources_from) {
             return std::make_unique<Session>(g, resources_from ? resources_from->shared_resources() : nullptr);
           }),
           py::arg("graph"), py::arg("resources_from") = nullptr,
           "A session over `graph`; `resources_from` shares another session's variables.")
      .def("run", &session_run, py::arg("feeds"), py::arg("fetches"), py::arg("targets"), py::arg("trace") = false,
           "The fetched tensors; with trace=True, (tensors, serialized tensorflow.StepStats).")
      .def_property_readonly("cached_plans", &Session::cached_plans)
      .def("variable_names", [](Session& s) { return s.resources().names(); })
      .def(
          "close_resources",
          [](Session& s) {
            py::gil_scoped_release release;  // iterators' final calls may call Python
            if (s.shared_resources().use_count() == 1) s.resources().clear_resources();
          },
          "Drops the Session's iterators and other resources (not its variables) unless another "
          "Session shares its store.");
}

}  // namespace bindings
}  // namespace opforge
