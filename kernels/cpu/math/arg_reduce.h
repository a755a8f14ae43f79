// Shared by ArgMax (arg_max.cc) and ArgMin (arg_min.cc): their kernel (the shape function is in
// runtime/ops/math.cc).
// The input is viewed as [outer, n, inner] around the chosen axis. Long single rows are
// split across the threads and the per-chunk winners merged in order, so ties keep the
// smallest index; NaN wins and the first NaN stays, as in NumPy.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/math/axis_util.h"
#include "cpu/vec_math.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace cpu {

// Is v a better candidate than best? NaN beats everything and the first NaN stays (NumPy).
template <bool kMax, typename C>
inline bool better(C v, C best) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return false;
    if (std::isnan(v)) return true;
  }
  return kMax ? v > best : v < best;
}

template <bool kMax, typename T>
inline int64_t arg_row(const T* x, int64_t n) {
  using C = std::conditional_t<std::is_same_v<T, bool>, int, compute_t<T>>;
  if constexpr (std::is_same_v<T, float>) {
    return kMax ? vec::argmax_f32(x, n) : vec::argmin_f32(x, n);
  } else {
    int64_t best = 0;
    C bv = static_cast<C>(x[0]);
    for (int64_t i = 1; i < n; ++i) {
      C v = static_cast<C>(x[i]);
      if (better<kMax>(v, bv)) {
        bv = v;
        best = i;
      }
    }
    return best;
  }
}

template <bool kMax, typename T, typename I>
void arg_reduce(const T* x, const AxisLayout& l, I* out) {
  using C = std::conditional_t<std::is_same_v<T, bool>, int, compute_t<T>>;
  if (l.inner == 1) {
    if (l.outer < num_threads() && l.n >= 2 * cpu::kGrain) {
      // Few long rows: each thread finds the winner of one chunk; merge in order.
      const int parts = num_threads();
      const int64_t chunk = (l.n + parts - 1) / parts;
      for (int64_t o = 0; o < l.outer; ++o) {
        const T* row = x + o * l.n;
        std::vector<int64_t> idx(static_cast<size_t>(parts), -1);
        parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
          for (int64_t p = pb; p < pe; ++p) {
            const int64_t b = std::min(l.n, p * chunk), e = std::min(l.n, (p + 1) * chunk);
            if (b < e) idx[static_cast<size_t>(p)] = b + arg_row<kMax>(row + b, e - b);
          }
        });
        int64_t best = idx[0];
        for (int64_t i : idx) {
          if (i >= 0 && better<kMax>(static_cast<C>(row[i]), static_cast<C>(row[best]))) best = i;
        }
        out[o] = static_cast<I>(best);
      }
      return;
    }
    parallel_for(l.outer, std::max<int64_t>(1, cpu::kGrain / l.n), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) out[o] = static_cast<I>(arg_row<kMax>(x + o * l.n, l.n));
    });
    return;
  }
  // Reduce over rows of `inner` values: running winners per column.
  parallel_for(l.outer, std::max<int64_t>(1, cpu::kGrain / (l.n * l.inner)), [&](int64_t b, int64_t e) {
    std::vector<C> bv(static_cast<size_t>(l.inner));
    std::vector<int64_t> bi(static_cast<size_t>(l.inner));
    for (int64_t o = b; o < e; ++o) {
      const T* base = x + o * l.n * l.inner;
      for (int64_t j = 0; j < l.inner; ++j) {
        bv[j] = static_cast<C>(base[j]);
        bi[j] = 0;
      }
      for (int64_t r = 1; r < l.n; ++r) {
        const T* row = base + r * l.inner;
        for (int64_t j = 0; j < l.inner; ++j) {
          C v = static_cast<C>(row[j]);
          if (better<kMax>(v, bv[j])) {
            bv[j] = v;
            bi[j] = r;
          }
        }
      }
      for (int64_t j = 0; j < l.inner; ++j) out[o * l.inner + j] = static_cast<I>(bi[j]);
    }
  });
}

// The kernel of ArgMax (kMax) and ArgMin for input type T, dispatching on output_type.
template <bool kMax, typename T, typename Args>
Status arg_kernel(Args& a) {
  int axis = 0;
  OPF_RETURN_IF_ERROR(scalar_axis(Args::kOpName, a.dimension, a.input.rank(), &axis));
  const AxisLayout l = axis_layout(a.input.shape(), axis);
  if (a.output.num_elements() == 0) return Status::OK();
  if (l.n == 0) return a.ctx.error("reducing dimension ", axis, " of size 0");
  if (a.output_type == DType::kInt16 && l.n > std::numeric_limits<int16_t>::max()) {
    return a.ctx.error("dimension of size ", l.n, " does not fit output_type int16");
  }
  const T* x = a.input.template data<T>();
  switch (a.output_type) {
    case DType::kInt16:
      arg_reduce<kMax>(x, l, a.output.template data<int16_t>());
      break;
    case DType::kInt32:
      arg_reduce<kMax>(x, l, a.output.template data<int32_t>());
      break;
    case DType::kInt64:
      arg_reduce<kMax>(x, l, a.output.template data<int64_t>());
      break;
    default:
      return a.ctx.error("unsupported output_type");
  }
  return Status::OK();
}

}  // namespace cpu
}  // namespace opforge
