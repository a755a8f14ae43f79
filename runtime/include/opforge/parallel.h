// Intra-op parallelism: a small persistent thread pool shared by all CPU kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

namespace opforge {

// Number of threads kernels may use: the runtime's one CPU thread budget, shared by every
// kernel and the BLAS (see blas.h). Hardware concurrency unless OPFORGE_NUM_THREADS or
// set_num_threads says otherwise.
int num_threads();
// Changes the budget (n >= 1; 0 restores the default). Workers beyond it sleep.
void set_num_threads(int n);

// Calls fn(begin, end) over disjoint ranges covering [0, n). Runs inline when n is below
// min_per_thread * 2 or only one thread is available; otherwise splits across the pool and
// waits for all parts.
void parallel_for_impl(int64_t n, int64_t min_per_thread, const std::function<void(int64_t, int64_t)>& fn);
// The same with a chosen number of ranges per thread (parallel_for_impl deals out 4).
void parallel_for_parts(int64_t n, int64_t min_per_thread, int parts_per_thread,
                        const std::function<void(int64_t, int64_t)>& fn);

template <typename F>
inline void parallel_for(int64_t n, int64_t min_per_thread, F&& fn) {
  if (n < 2 * min_per_thread) {  // small: no std::function, no pool
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  parallel_for_impl(n, min_per_thread, std::function<void(int64_t, int64_t)>(std::forward<F>(fn)));
}

// Like parallel_for, but one range per thread: for work whose every part pays a fixed cost
// (each block of a split GEMM packs the other operand again), where fewer, larger parts win
// over the finer parts parallel_for deals out for load balance.
template <typename F>
inline void parallel_for_per_thread(int64_t n, int64_t min_per_thread, F&& fn) {
  if (n < 2 * min_per_thread) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  parallel_for_parts(n, min_per_thread, 1, std::function<void(int64_t, int64_t)>(std::forward<F>(fn)));
}
}  // namespace opforge
