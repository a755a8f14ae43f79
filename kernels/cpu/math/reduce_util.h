// Shared by the reduction kernels (reduce_*.cc): the reducers (init / step / merge / finish
// for Sum, Mean, Max, Min, Prod, All, Any) and the engine that applies one over a set of
// axes. The input's dims are collapsed into runs of kept and reduced dims; the common layouts
// (one reduced run: rows, columns, everything) have tight, parallel loops, anything else goes
// through a precomputed offset table. Floats accumulate in double and integers in 64 bits,
// then round or wrap to the output type.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/vec_math.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace cpu {
namespace reduction {

template <typename T>
using acc_t =
    std::conditional_t<cpu::is_float_v<T>, double, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T>
struct SumR {
  using Acc = acc_t<T>;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, T v) { return a + static_cast<Acc>(static_cast<cpu::compute_t<T>>(v)); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, int64_t) { return static_cast<T>(static_cast<cpu::compute_t<T>>(a)); }
};

template <typename T>
struct MeanR : SumR<T> {
  using Acc = acc_t<T>;
  static T finish(Acc a, int64_t n) {
    if constexpr (cpu::is_float_v<T>) {
      return static_cast<T>(static_cast<cpu::compute_t<T>>(a / static_cast<double>(n)));
    } else {
      return n == 0 ? T(0) : static_cast<T>(a / static_cast<Acc>(n));  // empty: 0, as TensorFlow
    }
  }
};

template <typename T>
struct MaxR {
  using C = cpu::compute_t<T>;
  using Acc = C;
  static Acc init() {
    if constexpr (cpu::is_float_v<T>)
      return -std::numeric_limits<C>::infinity();
    else
      return std::numeric_limits<C>::lowest();
  }
  static Acc step(Acc a, T v) {
    C c = static_cast<C>(v);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(c) || std::isnan(a)) return std::isnan(a) ? a : c;
    }
    return c > a ? c : a;
  }
  static Acc merge(Acc a, Acc b) { return step(a, static_cast<T>(b)); }
  static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

template <typename T>
struct MinR {
  using C = cpu::compute_t<T>;
  using Acc = C;
  static Acc init() {
    if constexpr (cpu::is_float_v<T>)
      return std::numeric_limits<C>::infinity();
    else
      return std::numeric_limits<C>::max();
  }
  static Acc step(Acc a, T v) {
    C c = static_cast<C>(v);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(c) || std::isnan(a)) return std::isnan(a) ? a : c;
    }
    return c < a ? c : a;
  }
  static Acc merge(Acc a, Acc b) { return step(a, static_cast<T>(b)); }
  static T finish(Acc a, int64_t) { return static_cast<T>(a); }
};

// Products: floats in double; integers in uint64 so that overflow wraps (the low bits of the
// product are those of the wrapped product in T).
template <typename T>
struct ProdR {
  using Acc = std::conditional_t<cpu::is_float_v<T>, double, uint64_t>;
  static Acc init() { return Acc(1); }
  static Acc step(Acc a, T v) {
    if constexpr (cpu::is_float_v<T>)
      return a * static_cast<double>(static_cast<cpu::compute_t<T>>(v));
    else
      return a * static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  static Acc merge(Acc a, Acc b) { return a * b; }
  static T finish(Acc a, int64_t) {
    if constexpr (cpu::is_float_v<T>)
      return static_cast<T>(static_cast<cpu::compute_t<T>>(a));
    else
      return static_cast<T>(a);
  }
};

struct AllR {
  using Acc = bool;
  static Acc init() { return true; }
  static Acc step(Acc a, bool v) { return a && v; }
  static Acc merge(Acc a, Acc b) { return a && b; }
  static bool finish(Acc a, int64_t) { return a; }
};

struct AnyR {
  using Acc = bool;
  static Acc init() { return false; }
  static Acc step(Acc a, bool v) { return a || v; }
  static Acc merge(Acc a, Acc b) { return a || b; }
  static bool finish(Acc a, int64_t) { return a; }
};

// Reduces row[0, n) with 8 independent accumulators so the loop vectorizes and pipelines
// (a single running sum is bound by the add latency); merged in a fixed order, so results
// are deterministic.
template <typename T, typename R>
typename R::Acc reduce_range(const T* row, int64_t n) {
  using Acc = typename R::Acc;
  if constexpr (std::is_same_v<R, MinR<float>>) return vec::min_f32(row, n);  // SIMD, NaN-propagating
  if constexpr (std::is_same_v<R, MaxR<float>>) return vec::max_f32(row, n);
  Acc acc[8];
  for (Acc& a : acc) a = R::init();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] = R::step(acc[k], row[i + k]);
  for (; i < n; ++i) acc[0] = R::step(acc[0], row[i]);
  for (int k = 1; k < 8; ++k) acc[0] = R::merge(acc[0], acc[k]);
  return acc[0];
}

struct Plan {
  // Collapsed runs of input dims (size-1 dims dropped).
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
};

inline Plan make_plan(const Shape& s, const std::vector<int>& axes) {
  std::vector<bool> red(static_cast<size_t>(s.rank()), false);
  for (int a : axes) red[static_cast<size_t>(a)] = true;
  Plan p;
  for (int i = 0; i < s.rank(); ++i) {
    if (s.dim(i) == 1) continue;
    if (!p.dims.empty() && p.reduced.back() == red[static_cast<size_t>(i)]) {
      p.dims.back() *= s.dim(i);
    } else {
      p.dims.push_back(s.dim(i));
      p.reduced.push_back(red[static_cast<size_t>(i)]);
    }
  }
  return p;
}

// Float32 Sum / Mean of [outer, red, inner] over red with up to this many columns (a bias
// gradient, batch moments over N, H and W, a global average pool): vector column sums.
constexpr int64_t kMaxColumnSumInner = 1024;

// The column sums in double (vec::column_sums_f32), parallel over the outer index, or, with one
// outer index, over blocks of rows whose size depends on the shape alone, the blocks' sums then
// added in block order: results do not depend on the number of threads.
template <typename R>
void column_sums(const float* x, int64_t outer, int64_t red, int64_t inner, float* y) {
  if (outer > 1) {
    parallel_for(outer, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, red * inner)),
                 [&](int64_t b, int64_t e) {
                   std::vector<double> acc(static_cast<size_t>(inner));
                   for (int64_t o = b; o < e; ++o) {
                     std::fill(acc.begin(), acc.end(), 0.0);
                     vec::column_sums_f32(x + o * red * inner, red, inner, acc.data());
                     for (int64_t j = 0; j < inner; ++j) y[o * inner + j] = R::finish(acc[static_cast<size_t>(j)], red);
                   }
                 });
    return;
  }
  const int64_t block_rows = std::max<int64_t>({1, 16384 / inner, red / 256});
  const int64_t blocks = (red + block_rows - 1) / block_rows;
  std::vector<double> partial(static_cast<size_t>(blocks * inner), 0.0);
  parallel_for(blocks, std::max<int64_t>(1, cpu::kGrain / (block_rows * inner)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t r0 = k * block_rows;
      vec::column_sums_f32(x + r0 * inner, std::min(block_rows, red - r0), inner, partial.data() + k * inner);
    }
  });
  for (int64_t j = 0; j < inner; ++j) {
    double a = 0.0;
    for (int64_t k = 0; k < blocks; ++k) a += partial[static_cast<size_t>(k * inner + j)];
    y[j] = R::finish(a, red);
  }
}

template <typename T, typename R>
void reduce(const Tensor& in, const std::vector<int>& axes, Tensor& out) {
  using Acc = typename R::Acc;
  const T* x = in.data<T>();
  T* y = out.data<T>();
  Plan p = make_plan(in.shape(), axes);
  int runs_reduced = 0;
  for (bool r : p.reduced) runs_reduced += r ? 1 : 0;

  if (runs_reduced <= 1) {
    // [outer kept] [red] [inner kept]
    int64_t outer = 1, red = 1, inner = 1;
    bool seen = false;
    for (size_t i = 0; i < p.dims.size(); ++i) {
      if (p.reduced[i]) {
        red = p.dims[i];
        seen = true;
      } else if (!seen)
        outer *= p.dims[i];
      else
        inner *= p.dims[i];
    }
    if (in.num_elements() == 0) {  // empty reduced run (or empty output)
      for (int64_t i = 0; i < out.num_elements(); ++i) y[i] = R::finish(R::init(), 0);
      return;
    }
    if (inner == 1) {
      if (outer < num_threads() && red >= 2 * cpu::kGrain) {
        const int parts = num_threads();
        const int64_t chunk = (red + parts - 1) / parts;
        for (int64_t o = 0; o < outer; ++o) {  // few long rows: split each row, merge in order
          const T* row = x + o * red;
          std::vector<Acc> partial(static_cast<size_t>(parts), R::init());
          parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
            for (int64_t part = pb; part < pe; ++part) {
              const int64_t begin = std::min(red, part * chunk), end = std::min(red, (part + 1) * chunk);
              partial[static_cast<size_t>(part)] = reduce_range<T, R>(row + begin, end - begin);
            }
          });
          Acc a = R::init();
          for (Acc v : partial) a = R::merge(a, v);
          y[o] = R::finish(a, red);
        }
      } else {
        parallel_for(outer, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, red)), [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) {
            y[o] = R::finish(reduce_range<T, R>(x + o * red, red), red);
          }
        });
      }
      return;
    }
    if constexpr (std::is_same_v<T, float> && (std::is_same_v<R, SumR<float>> || std::is_same_v<R, MeanR<float>>)) {
      if (inner <= kMaxColumnSumInner) {
        column_sums<R>(x, outer, red, inner, y);
        return;
      }
    }
    // Column reduction: accumulate whole rows of `inner` values at a time.
    parallel_for(outer * inner, std::max<int64_t>(64, cpu::kGrain / std::max<int64_t>(1, red)),
                 [&](int64_t b, int64_t e) {
                   std::vector<Acc> acc;
                   for (int64_t idx = b; idx < e;) {
                     int64_t o = idx / inner, j0 = idx % inner;
                     int64_t j1 = std::min(inner, j0 + (e - idx));
                     acc.assign(static_cast<size_t>(j1 - j0), R::init());
                     for (int64_t r = 0; r < red; ++r) {
                       const T* src = x + (o * red + r) * inner;
                       for (int64_t j = j0; j < j1; ++j) acc[j - j0] = R::step(acc[j - j0], src[j]);
                     }
                     for (int64_t j = j0; j < j1; ++j) y[o * inner + j] = R::finish(acc[j - j0], red);
                     idx += j1 - j0;
                   }
                 });
    return;
  }

  // General layout: offsets of every reduced element relative to an output element's base.
  const size_t nd = p.dims.size();
  std::vector<int64_t> stride(nd);
  int64_t st = 1;
  for (size_t i = nd; i-- > 0;) {
    stride[i] = st;
    st *= p.dims[i];
  }
  std::vector<int64_t> offsets{0};
  std::vector<int64_t> kept_dims, kept_strides;
  for (size_t i = 0; i < nd; ++i) {
    if (p.reduced[i]) {
      std::vector<int64_t> next;
      next.reserve(offsets.size() * static_cast<size_t>(p.dims[i]));
      for (int64_t base : offsets)
        for (int64_t k = 0; k < p.dims[i]; ++k) next.push_back(base + k * stride[i]);
      offsets.swap(next);
    } else {
      kept_dims.push_back(p.dims[i]);
      kept_strides.push_back(stride[i]);
    }
  }
  const int64_t red = static_cast<int64_t>(offsets.size());
  parallel_for(out.num_elements(), std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, red)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   int64_t rem = o, base = 0;
                   for (size_t k = kept_dims.size(); k-- > 0;) {
                     base += (rem % kept_dims[k]) * kept_strides[k];
                     rem /= kept_dims[k];
                   }
                   Acc a = R::init();
                   for (int64_t off : offsets) a = R::step(a, x[base + off]);
                   y[o] = R::finish(a, red);
                 }
               });
}

template <typename Args>
Status axes_of(Args& a, std::vector<int>* axes) {
  std::vector<int64_t> raw;
  OPF_RETURN_IF_ERROR(read_int_vector(a.reduction_indices, &raw));
  return shape_fns::normalize_axes(Args::kOpName, raw, a.input.rank(), axes);
}

// A reduction kernel: the op's axes (reduction_indices), then reducer R over them. Every
// reduction op's kernel is this with its reducer.
template <typename T, typename R, typename Args>
Status reduce_kernel(Args& a) {
  std::vector<int> axes;
  OPF_RETURN_IF_ERROR(axes_of(a, &axes));
  if (a.input.num_elements() == a.output.num_elements() && a.input.on_host()) {
    // Nothing is reduced (no axes, or only axes of size 1: a gradient's unbroadcast where no
    // broadcasting happened): every reducer of one element returns it, so the output is the
    // input, shared, not copied.
    a.output = a.input.reshaped(a.output.shape());
    return Status::OK();
  }
  reduce<T, R>(a.input, axes, a.output);
  return Status::OK();
}

inline int64_t reduced_count(const Tensor& in, const std::vector<int>& axes) {
  int64_t n = 1;
  std::vector<bool> seen(static_cast<size_t>(in.rank()), false);
  for (int a : axes) {
    if (!seen[static_cast<size_t>(a)]) n *= in.dim(a);
    seen[static_cast<size_t>(a)] = true;
  }
  return n;
}

}  // namespace reduction
}  // namespace cpu
}  // namespace opforge
