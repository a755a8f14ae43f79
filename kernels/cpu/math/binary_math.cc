// Elementwise binary math functions with NumPy broadcasting: Pow, SquaredDifference, Atan2.
// Integer arithmetic wraps (two's complement), as in NumPy and TensorFlow; integers to
// negative integer powers are an InvalidArgumentError.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "cpu/vec_math.h"
#include "opforge/ops/math/atan2.h"
#include "opforge/ops/math/pow.h"
#include "opforge/ops/math/squared_difference.h"

namespace opforge {
namespace {

using cpu::compute_t;

struct PowF {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Exponentiation by squaring in unsigned arithmetic (wraps like NumPy).
      using U = std::make_unsigned_t<T>;
      U base = static_cast<U>(a), result = 1;
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    } else {
      return static_cast<T>(std::pow(static_cast<compute_t<T>>(a), static_cast<compute_t<T>>(b)));
    }
  }
};

struct SquaredDifferenceF {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      U d = static_cast<U>(static_cast<U>(x) - static_cast<U>(y));
      return static_cast<T>(static_cast<U>(d * d));
    } else {
      using C = compute_t<T>;
      C d = static_cast<C>(x) - static_cast<C>(y);
      return static_cast<T>(d * d);
    }
  }
};

template <typename T>
Status PowCpu(ops::PowArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    const T* y = a.y.template data<T>();
    for (int64_t i = 0; i < a.y.num_elements(); ++i) {
      if (y[i] < 0) return a.ctx.error("integers to negative integer powers are not allowed");
    }
  }
  return cpu::binary_kernel<T, PowF>(a);
}

template <typename T>
Status SquaredDifferenceCpu(ops::SquaredDifferenceArgs& a) {
  return cpu::binary_kernel<T, SquaredDifferenceF>(a);
}

// z = f(x, y) with broadcasting where both operands are contiguous along the output's rows:
// block(x_row, y_row, z_row, n) per row (or once when no broadcasting). Returns false (and
// does nothing) for layouts it does not cover.
template <typename T, typename Block>
bool map_binary_rows(const Tensor& x, const Tensor& y, Tensor& z, Block block) {
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  T* out = z.data<T>();
  const int64_t n = z.num_elements();
  if (n == 0) return true;
  if (x.num_elements() == n && y.num_elements() == n) {
    parallel_for(n, cpu::kGrain, [&](int64_t s, int64_t e) { block(a + s, b + s, out + s, e - s); });
    return true;
  }
  cpu::BroadcastPlan p = cpu::plan_broadcast(x.shape(), y.shape(), z.shape());
  const int r = static_cast<int>(p.dims.size());
  if (r < 2 || p.sx[r - 1] != 1 || p.sy[r - 1] != 1) return false;
  const int64_t inner = p.dims[r - 1], rows = n / inner;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / inner), [&](int64_t s, int64_t e) {
    for (int64_t row = s; row < e; ++row) {
      int64_t rem = row, ox = 0, oy = 0;
      for (int i = r - 2; i >= 0; --i) {
        const int64_t k = rem % p.dims[i];
        rem /= p.dims[i];
        ox += k * p.sx[i];
        oy += k * p.sy[i];
      }
      block(a + ox, b + oy, out + row * inner, inner);
    }
  });
  return true;
}

template <typename T>
Status Atan2Cpu(ops::Atan2Args& a) {
  if constexpr (std::is_same_v<T, float>) {  // vectorized (cpu/vec_math.h) where the layout allows
    if (map_binary_rows<float>(a.y, a.x, a.z, vec::atan2_f32)) return Status::OK();
  }
  using C = compute_t<T>;
  cpu::map_binary<T, T>(a.y, a.x, a.z,
                        [](T y, T x) { return static_cast<T>(std::atan2(static_cast<C>(y), static_cast<C>(x))); });
  return Status::OK();
}

#define OPF_FLOATS bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(Pow, CPU, PowCpu, OPF_FLOATS, int32_t, int64_t)
OPFORGE_REGISTER_INPLACE_KERNEL(SquaredDifference, CPU, SquaredDifferenceCpu, inplace_args(0, 1), OPF_FLOATS, int32_t,
                                int64_t)
OPFORGE_REGISTER_KERNEL(Atan2, CPU, Atan2Cpu, OPF_FLOATS)

}  // namespace opforge
