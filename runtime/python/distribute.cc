// The process-level side of opforge.distribute: starting MPI, the job's ranks, ending the job
// (runtime/src/collective.h; the collectives themselves are ops).
#include <pybind11/pybind11.h>

#include <string>

#include "bindings.h"
#include "src/collective.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

void bind_distribute(py::module_& m) {
  py::module_ d = m.def_submodule("distribute", "MPI for opforge.distribute (runtime/src/collective.h).");
  d.def("built_with_mpi", &collective::built_with_mpi, "Whether this opforge was built with MPI.");
  d.def(
      "init",
      [] {
        Status s;
        {
          py::gil_scoped_release release;
          s = collective::init();
        }
        check(s, "opforge.distribute.init");
      },
      "Starts MPI in this process (once).");
  d.def(
      "world",
      [] {
        const collective::World w = collective::world();
        py::dict r;
        r["initialized"] = w.initialized;
        r["rank"] = w.rank;
        r["size"] = w.size;
        r["local_rank"] = w.local_rank;
        r["local_size"] = w.local_size;
        return r;
      },
      "The job as MPI sees it: initialized, rank, size, local_rank, local_size.");
  d.def(
      "finalize",
      [] {
        py::gil_scoped_release release;
        collective::finalize();
      },
      "Ends MPI if opforge started it.");
  d.def(
      "abort_job",
      [](int code, const std::string& message) {
        py::gil_scoped_release release;
        collective::abort_job(code, message);
      },
      py::arg("code"), py::arg("message"), "Prints message and ends every process of the job (MPI_Abort).");
}

}  // namespace bindings
}  // namespace opforge
