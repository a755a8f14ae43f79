// opforge._C._testing: switches of the runtime's kernels and executors, and developer hooks,
// that tests and benchmarks use to reach one path of many (the GEMM kernel, Winograd tile
// sizes, the AVX-512 convolution kernels, the concurrent executor, per-op profiling...). Not
// configuration for users: what users tune lives in of.config.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "src/blas.h"
#include "src/constant_cache.h"
#include "src/cpu_kernels.h"
#include "src/parallel_state.h"
#include "src/session_impl.h"
#include "opforge/device.h"
#include "opforge/graph.h"
#include "opforge/shape_fns.h"

namespace py = pybind11;

namespace opforge {
namespace bindings {

void bind_testing(py::module_& parent) {
  py::module_ m = parent.def_submodule(
      "_testing", "Switches of kernel and executor paths for tests and benchmarks (not a public API).");
  m.def(
      "sgemm_kernel", [] { return std::string(blas::sgemm_kernel()); },
      "The float32 GEMM kernel in use: 'avx512' (the runtime's own) or 'openblas'.");
  m.def(
      "set_sgemm_kernel", [](const std::string& name) { return blas::set_sgemm_kernel(name.c_str()); },
      "Chooses the float32 GEMM kernel ('avx512' or 'openblas'); False if this CPU cannot run it.");
  m.def("parallel_contended", &parallel_contended,
        "Whether parallel regions run inline because a recent one waited out a descheduled worker.");
  m.def("machine_busy", &machine_busy,
        "Whether Session runs of stateless graphs now take the team loop: other processes lately kept this "
        "process's threads from their cores.");
  m.def("parallel_probe", &parallel_probe, py::arg("parts"), py::arg("slow_part_us"),
        "A parallel region whose part 1 spins slow_part_us; returns the number of threads that ran parts.");
  m.def("vec_avx512", &vec::avx512_enabled,
        "Whether float32 exp, sigmoid, swish, tanh and Elu run their 16-lane AVX-512 forms.");
  m.def(
      "set_vec_avx512", &vec::set_avx512,
      "Switches the 16-lane forms on (where the CPU has AVX-512F) or off (8-lane AVX2); returns whether they are on.");
  m.def("depthwise_avx512", &nn::dw_avx512_enabled, "Whether float32 depthwise convolutions run the AVX-512 kernel.");
  m.def("set_depthwise_avx512", &nn::set_dw_avx512,
        "Switches the AVX-512 depthwise kernel on (where the CPU has AVX-512F) or off; returns whether it is on.");
  m.def("direct_conv_avx512", &nn::direct_conv_avx512_enabled,
        "Whether float32 convolutions with few input channels run the direct AVX-512 kernel.");
  m.def("set_direct_conv_avx512", &nn::set_direct_conv_avx512,
        "Switches the direct AVX-512 convolution on (where the CPU has AVX-512F) or off; returns whether it is on.");
  m.def("conv_gather", &nn::conv_gather_enabled,
        "Whether float32 convolutions run as row-gathered AVX-512 products (no patch matrix).");
  m.def("set_conv_gather", &nn::set_conv_gather,
        "Switches the row-gathered convolution on or off (im2col + GEMM); returns whether it is on.");
  m.def(
      "concurrent_executor",
      [] {
        static const char* const kNames[] = {"off", "auto", "always", "team"};
        return std::string(kNames[static_cast<int>(concurrent_executor())]);
      },
      "Inter-op parallelism of Session runs of stateless CPU graphs: 'auto' (default), 'off' or 'always'.");
  m.def(
      "set_concurrent_executor",
      [](const std::string& mode) {
        if (mode == "off")
          set_concurrent_executor(ConcurrentExecutor::kOff);
        else if (mode == "auto")
          set_concurrent_executor(ConcurrentExecutor::kAuto);
        else if (mode == "always")
          set_concurrent_executor(ConcurrentExecutor::kAlways);
        else if (mode == "team")
          set_concurrent_executor(ConcurrentExecutor::kTeam);
        else
          throw py::value_error("set_concurrent_executor: mode must be 'off', 'auto', 'always' or 'team', got '" +
                                mode + "'");
      },
      "Sets inter-op parallelism of Session runs: 'auto' (time both executors, keep the quicker), 'off' "
      "(one step at a time), 'always' (every wave of independent steps at once; for tests) or 'team' (every "
      "stateless plan on the team loop, as on a busy machine; for tests).");
  m.def("winograd_tile", &nn::winograd_tile_setting,
        "The Winograd tile of float32 3x3 convolutions: 0 (chosen per shape), 2 or 4 (forced).");
  m.def("set_winograd_tile", &nn::set_winograd_tile,
        "Forces Winograd F(2x2, 3x3) (2) or F(4x4, 3x3) (4), or 0: chosen per shape; returns the setting.");
  m.def(
      "gemm",
      [](bool ta, bool tb, double alpha, py::array a, py::array b, double beta, py::array c, bool packed) {
        // Developer hook for tests: C = alpha * op(A) * op(B) + beta * C through blas::gemm, on
        // C-contiguous float32 or float64 matrices (C is written in place); packed: float32 B
        // through blas::PackedMatrix.
        if (a.ndim() != 2 || b.ndim() != 2 || c.ndim() != 2) throw py::value_error("gemm: matrices must be 2-D");
        const int64_t m = c.shape(0), n = c.shape(1), k = ta ? a.shape(0) : a.shape(1);
        if ((ta ? a.shape(1) : a.shape(0)) != m || (tb ? b.shape(1) : b.shape(0)) != k ||
            (tb ? b.shape(0) : b.shape(1)) != n) {
          throw py::value_error("gemm: shapes do not match");
        }
        const auto contiguous = [](const py::array& x) { return (x.flags() & py::array::c_style) != 0; };
        if (!contiguous(a) || !contiguous(b) || !contiguous(c) || !c.writeable()) {
          throw py::value_error("gemm: arrays must be C-contiguous (and C writable)");
        }
        const auto lead = [](const py::array& x) { return static_cast<int64_t>(x.shape(1)); };
        if (a.dtype().is(py::dtype::of<float>()) && b.dtype().is(py::dtype::of<float>()) &&
            c.dtype().is(py::dtype::of<float>())) {
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
                     static_cast<const double*>(b.data()), lead(b), beta, static_cast<double*>(c.mutable_data()),
                     lead(c));
        } else {
          throw py::type_error("gemm: float32 or float64 matrices, all of one dtype");
        }
      },
      py::arg("ta"), py::arg("tb"), py::arg("alpha"), py::arg("a"), py::arg("b"), py::arg("beta"), py::arg("c"),
      py::arg("packed") = false);
  m.def("set_profiling", &set_profiling, py::arg("on"), py::arg("by_shape") = false,
        "Starts (clearing) or stops per-op kernel timing of Session runs (by_shape: per op and input shapes).");
  m.def("profile_stats", &profile_stats, "op -> (kernel runs, nanoseconds) since profiling started.");
  m.def("constant_cache_bytes", &constant_cache_bytes,
        "Bytes of values derived from graph constants (packed filters) kept across runs.");
  // A fresh copy of a GPU tensor on its own device (the device-to-device copy the GPU
  // benchmark measures bandwidth against).
  m.def("custom_shape_ops", &shape_fns::custom_names,
        "The ops with a hand-written (custom) shape function registered, sorted.");
  m.def("gpu_copy", [](const Tensor& t) {
    if (t.on_host()) throw py::value_error("gpu_copy takes a GPU tensor");
    Tensor out;
    check(Tensor::Allocate(t.dtype(), t.shape(), t.device(), t.device_index(), &out), "");
    if (t.nbytes())
      check(gpu_backend()->copy_on_device(t.device_index(), out.raw_data(), t.raw_data(), t.nbytes()), "");
    return out;
  });
}

}  // namespace bindings
}  // namespace opforge
