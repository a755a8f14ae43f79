// Runtime configuration users call through of.config and of.random: the one CPU thread
// budget, the caching host allocator, the eager random streams.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "src/constant_cache.h"
#include "src/host_allocator.h"
#include "opforge/parallel.h"
#include "src/random_state.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

void bind_config(py::module_& m) {
  m.def("num_threads", &num_threads);
  m.def("set_num_threads", &set_num_threads,
        "Sets the one CPU thread budget of kernels and the BLAS (0: the default).");
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
  m.def("host_empty_cache", [] {
    clear_constant_cache();  // its values hold memory too
    host_empty_cache();
  });
  m.def("host_reset_peak", &host_reset_peak);
  m.def("host_set_cache_limit", &host_set_cache_limit);
  // ---- random ops (issue 4, array/random area): of.random.set_seed restarts eager streams.
  m.def("reset_random_streams", &rng::reset_eager_streams,
        "Restarts the streams of the stateful random ops run eagerly (of.random.set_seed).");
}

}  // namespace bindings
}  // namespace opforge
