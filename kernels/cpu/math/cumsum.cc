// Cumsum along one axis (exclusive and/or reverse). The input is viewed as [outer, n, inner]
// around the axis; long single rows run a two-pass parallel scan (chunk totals, then each
// chunk from its offset). Integers wrap (two's complement).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/math/axis_util.h"
#include "opforge/ops/math/cumsum.h"

namespace opforge {
namespace {

using cpu::compute_t;

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
  OPF_RETURN_IF_ERROR(cpu::scalar_axis("Cumsum", a.axis, a.x.rank(), &axis));
  if (a.x.num_elements() == 0) return Status::OK();
  const cpu::AxisLayout l = cpu::axis_layout(a.x.shape(), axis);
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

OPFORGE_REGISTER_KERNEL(Cumsum, CPU, CumsumCpu, OPF_NUMERIC)

}  // namespace opforge
