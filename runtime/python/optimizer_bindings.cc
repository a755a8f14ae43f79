// Bindings of the graph optimizer (runtime/src/optimizer): optimizing a graph (opforge optimize
// and the tests), the passes' names, a Session's optimizer settings and reports, and a testing
// hook that makes a pass fail.
#include <pybind11/stl.h>

#include <algorithm>
#include <shared_mutex>

#include "bindings.h"
#include "opforge/graph.h"
#include "optimizer/meta_optimizer.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {
namespace {

py::list report_to_py(const std::vector<optimizer::PassReport>& report) {
  py::list out;
  for (const optimizer::PassReport& r : report) {
    out.append(py::make_tuple(r.name, r.toggle, r.nodes_before, r.nodes_after, r.seconds,
                              r.error.empty() ? py::object(py::none()) : py::object(py::str(r.error))));
  }
  return out;
}

}  // namespace

void bind_optimizer(py::module_& m) {
  m.def(
      "optimize_graph",
      [](std::shared_ptr<Graph> g, const std::vector<std::string>& preserve, const std::vector<std::string>& fed,
         const std::vector<std::string>& passes, bool fail_on_errors) {
        optimizer::Options options;
        options.preserve = preserve;
        options.fed = fed;
        options.passes = passes;
        options.fail_on_errors = fail_on_errors;
        options.always_build = true;
        std::shared_ptr<Graph> out;
        std::vector<optimizer::PassReport> report;
        Status s;
        {
          py::gil_scoped_release release;
          std::shared_lock<std::shared_mutex> lock(g->mutex());
          s = optimizer::optimize(*g, options, &out, &report);
        }
        check(s, "optimize_graph");
        return py::make_tuple(out ? py::cast(out) : py::object(py::none()), report_to_py(report));
      },
      py::arg("graph"), py::arg("preserve"), py::arg("fed"), py::arg("passes"), py::arg("fail_on_errors") = false,
      "Runs the graph optimizer's passes (RewriterConfig toggle names) over the part of `graph` the "
      "preserved nodes need: (new Graph, [(pass, toggle, nodes before, nodes after, seconds, error)]).");
  m.def("optimizer_pipeline", &optimizer::pipeline, "The optimizer's passes in order: (pass, RewriterConfig toggle).");
  py::module_ testing = m.attr("_testing");
  testing.def("set_failing_optimizer_pass", &optimizer::set_failing_pass, py::arg("name"),
              "Testing: the named pass fails as it starts ('' for none).");

  auto session = py::reinterpret_borrow<py::class_<Session>>(m.attr("Session"));
  session
      .def(
          "set_optimizer",
          [](Session& s, const std::vector<std::string>& passes, bool fail_on_errors) {
            for (const std::string& p : passes) {
              const auto& known = optimizer::toggles();
              if (std::find(known.begin(), known.end(), p) == known.end())
                throw py::value_error("unknown graph optimizer pass '" + p + "'");
            }
            s.set_optimizer(GraphOptimizerConfig{passes, fail_on_errors});
          },
          py::arg("passes"), py::arg("fail_on_errors") = false)
      .def("take_optimizer_errors", &Session::take_optimizer_errors)
      .def("optimized_graphs", [](const Session& s) {
        std::vector<std::shared_ptr<Graph>> out;
        for (const auto& g : s.optimized_graphs()) out.push_back(std::const_pointer_cast<Graph>(g));
        return out;
      });
}

}  // namespace bindings
}  // namespace opforge
