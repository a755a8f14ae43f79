// ArgMax / ArgMin (with their shape function) and Cumsum. Both view the input as
// [outer, n, inner] around the chosen axis. Long single rows are split across the threads:
// ArgMax/ArgMin merge per-chunk winners in order (ties keep the smallest index); Cumsum runs a
// two-pass parallel scan (chunk totals, then each chunk from its offset).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/vec_math.h"
#include "opforge/ops/math/arg_max.h"
#include "opforge/ops/math/arg_min.h"
#include "opforge/ops/math/cumsum.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using cpu::compute_t;

// Reads a scalar axis and normalizes it against `rank`.
Status scalar_axis(const std::string& op, const Tensor& t, int rank, int* axis) {
  if (t.rank() != 0) {
    return errors::InvalidArgument(op, ": the axis must be a scalar, got shape ", t.shape().to_string());
  }
  std::vector<int64_t> raw;
  if (t.dtype() == DType::kInt16) {  // ArgMax's Tidx allows int16
    raw.push_back(t.data<int16_t>()[0]);
  } else {
    OPF_RETURN_IF_ERROR(read_int_vector(t, &raw));
  }
  if (raw[0] < -rank || raw[0] >= rank) {
    return errors::InvalidArgument(op, ": axis ", raw[0], " is out of range for a tensor of rank ", rank,
                                   " (expected [", -rank, ", ", rank, "))");
  }
  *axis = static_cast<int>(raw[0] < 0 ? raw[0] + rank : raw[0]);
  return Status::OK();
}

struct Layout {
  int64_t outer = 1, n = 1, inner = 1;
};

Layout layout(const Shape& s, int axis) {
  Layout l;
  for (int i = 0; i < s.rank(); ++i) {
    if (i < axis) l.outer *= s.dim(i);
    else if (i == axis) l.n = s.dim(i);
    else l.inner *= s.dim(i);
  }
  return l;
}

// ------------------------------------------------------------------------------ ArgMax/ArgMin

Status ArgShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const Shape& dim_shape = c.input_shape(1);
  if (!dim_shape.unknown_rank() && dim_shape.rank() != 0) {
    return c.error("'dimension' must be a scalar, got shape ", dim_shape.to_string());
  }
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const Tensor* v = c.input_value(1);
  if (v == nullptr) {  // which dimension goes is unknown: only the rank is known
    if (in.rank() == 0) return c.error("cannot reduce a scalar (rank 0)");
    c.set_output(0, Shape(std::vector<int64_t>(static_cast<size_t>(in.rank() - 1), -1)));
    return Status::OK();
  }
  int axis = 0;
  OPF_RETURN_IF_ERROR(scalar_axis(c.op().name, *v, in.rank(), &axis));
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != axis) dims.push_back(in.dim(i));
  }
  if (in.dim(axis) == 0 && Shape(dims).fully_defined() && Shape(dims).num_elements() > 0) {
    return c.error("reducing dimension ", axis, " of size 0 in shape ", in.to_string());
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

[[maybe_unused]] const bool arg_shapes_registered = [] {
  shape_fns::register_custom("ArgMax", ArgShape);
  shape_fns::register_custom("ArgMin", ArgShape);
  return true;
}();

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
int64_t arg_row(const T* x, int64_t n) {
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
void arg_reduce(const T* x, const Layout& l, I* out) {
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

template <bool kMax, typename T, typename Args>
Status arg_kernel(Args& a) {
  int axis = 0;
  OPF_RETURN_IF_ERROR(scalar_axis(Args::kOpName, a.dimension, a.input.rank(), &axis));
  const Layout l = layout(a.input.shape(), axis);
  if (a.output.num_elements() == 0) return Status::OK();
  if (l.n == 0) return a.ctx.error("reducing dimension ", axis, " of size 0");
  if (a.output_type == DType::kInt16 && l.n > std::numeric_limits<int16_t>::max()) {
    return a.ctx.error("dimension of size ", l.n, " does not fit output_type int16");
  }
  const T* x = a.input.template data<T>();
  switch (a.output_type) {
    case DType::kInt16: arg_reduce<kMax>(x, l, a.output.template data<int16_t>()); break;
    case DType::kInt32: arg_reduce<kMax>(x, l, a.output.template data<int32_t>()); break;
    case DType::kInt64: arg_reduce<kMax>(x, l, a.output.template data<int64_t>()); break;
    default: return a.ctx.error("unsupported output_type");
  }
  return Status::OK();
}

template <typename T>
Status ArgMaxCpu(ops::ArgMaxArgs& a) { return arg_kernel<true, T>(a); }
template <typename T>
Status ArgMinCpu(ops::ArgMinArgs& a) { return arg_kernel<false, T>(a); }

// ------------------------------------------------------------------------------ Cumsum

// The type sums run in: unsigned for integers (wrapping), float for 16-bit floats and float.
template <typename T, bool = std::is_integral_v<T>>
struct SumType {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
struct SumType<T, false> {
  using type = compute_t<T>;
};
template <typename T>
using sum_t = typename SumType<T>::type;

// Scans `n` elements at stride `inner` starting at x / y, from `start` (exclusive: before
// adding each element); returns the total.
template <typename T>
sum_t<T> scan_strided(const T* x, T* y, int64_t n, int64_t inner, bool exclusive, bool reverse, sum_t<T> start) {
  using S = sum_t<T>;
  S acc = start;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = (reverse ? n - 1 - k : k) * inner;
    const S v = static_cast<S>(static_cast<compute_t<T>>(x[i]));
    if (exclusive) {
      y[i] = static_cast<T>(acc);
      acc = static_cast<S>(acc + v);
    } else {
      acc = static_cast<S>(acc + v);
      y[i] = static_cast<T>(acc);
    }
  }
  return acc;
}

template <typename T>
Status CumsumCpu(ops::CumsumArgs& a) {
  using S = sum_t<T>;
  int axis = 0;
  OPF_RETURN_IF_ERROR(scalar_axis("Cumsum", a.axis, a.x.rank(), &axis));
  if (a.x.num_elements() == 0) return Status::OK();
  const Layout l = layout(a.x.shape(), axis);
  const T* x = a.x.template data<T>();
  T* y = a.out.template data<T>();
  const bool ex = a.exclusive, rev = a.reverse;
  if (l.inner == 1 && l.outer < num_threads() && l.n >= 2 * cpu::kGrain) {
    // Long rows: chunk totals in parallel, then each chunk scanned from its offset.
    const int parts = num_threads();
    const int64_t chunk = (l.n + parts - 1) / parts;
    for (int64_t o = 0; o < l.outer; ++o) {
      const T* xr = x + o * l.n;
      T* yr = y + o * l.n;
      std::vector<S> totals(static_cast<size_t>(parts), S(0));
      parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
          const int64_t b = std::min(l.n, p * chunk), e = std::min(l.n, (p + 1) * chunk);
          S s = S(0);
          for (int64_t i = b; i < e; ++i) s = static_cast<S>(s + static_cast<S>(static_cast<compute_t<T>>(xr[i])));
          totals[static_cast<size_t>(p)] = s;
        }
      });
      std::vector<S> offset(static_cast<size_t>(parts), S(0));
      S run = S(0);
      for (int k = 0; k < parts; ++k) {  // in scan order: from the end when reversed
        const int p = rev ? parts - 1 - k : k;
        offset[static_cast<size_t>(p)] = run;
        run = static_cast<S>(run + totals[static_cast<size_t>(p)]);
      }
      parallel_for(parts, 1, [&](int64_t pb, int64_t pe) {
        for (int64_t p = pb; p < pe; ++p) {
          const int64_t b = std::min(l.n, p * chunk), e = std::min(l.n, (p + 1) * chunk);
          if (b < e) scan_strided<T>(xr + b, yr + b, e - b, 1, ex, rev, offset[static_cast<size_t>(p)]);
        }
      });
    }
    return Status::OK();
  }
  if (l.inner == 1) {
    parallel_for(l.outer, std::max<int64_t>(1, cpu::kGrain / l.n), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) scan_strided<T>(x + o * l.n, y + o * l.n, l.n, 1, ex, rev, S(0));
    });
    return Status::OK();
  }
  // inner > 1: a running sum of rows, columns split into blocks across the threads.
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (l.inner + kBlock - 1) / kBlock;
  parallel_for(l.outer * blocks, std::max<int64_t>(1, cpu::kGrain / (l.n * kBlock)), [&](int64_t b, int64_t e) {
    std::vector<S> acc(static_cast<size_t>(kBlock));
    for (int64_t w = b; w < e; ++w) {
      const int64_t o = w / blocks, j0 = (w % blocks) * kBlock, j1 = std::min(l.inner, j0 + kBlock);
      std::fill(acc.begin(), acc.end(), S(0));
      for (int64_t k = 0; k < l.n; ++k) {
        const int64_t r = rev ? l.n - 1 - k : k;
        const T* xr = x + (o * l.n + r) * l.inner;
        T* yr = y + (o * l.n + r) * l.inner;
        for (int64_t j = j0; j < j1; ++j) {
          const S v = static_cast<S>(static_cast<compute_t<T>>(xr[j]));
          S& s = acc[static_cast<size_t>(j - j0)];
          if (ex) {
            yr[j] = static_cast<T>(s);
            s = static_cast<S>(s + v);
          } else {
            s = static_cast<S>(s + v);
            yr[j] = static_cast<T>(s);
          }
        }
      }
    }
  });
  return Status::OK();
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(ArgMax, CPU, ArgMaxCpu, bool, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(ArgMin, CPU, ArgMinCpu, bool, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Cumsum, CPU, CumsumCpu, OPF_NUMERIC)

}  // namespace opforge
