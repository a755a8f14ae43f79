// Elementwise binary division with NumPy broadcasting: RealDiv, FloorDiv, FloorMod. Integer
// division by zero is an InvalidArgumentError and MIN / -1 wraps (two's complement), as in
// TensorFlow.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/floor_div.h"
#include "opforge/ops/math/floor_mod.h"
#include "opforge/ops/math/real_div.h"

namespace opforge {
namespace {

using cpu::compute_t;

template <typename T, typename Args>
Status check_nonzero_divisor(Args& a) {
  if constexpr (std::is_integral_v<T>) {
    const T* y = a.y.template data<T>();
    for (int64_t i = 0; i < a.y.num_elements(); ++i) {
      if (y[i] == 0) return a.ctx.error("integer division by zero");
    }
  }
  return Status::OK();
}

struct DivF {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == static_cast<T>(-1)) return cpu::wrap_neg(a);  // MIN / -1 overflows
      }
      return static_cast<T>(a / b);  // zero divisors were rejected before the loop
    } else {
      return static_cast<T>(static_cast<compute_t<T>>(a) / static_cast<compute_t<T>>(b));
    }
  }
};

// floor(x / y): for integers the truncated quotient, one lower when the signs differ and the
// division is inexact; for floats floor(x / y) (TensorFlow's definition).
struct FloorDivF {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (y == static_cast<T>(-1)) return cpu::wrap_neg(x);  // MIN / -1 overflows
        T q = static_cast<T>(x / y);
        if (static_cast<T>(x % y) != 0 && ((x < 0) != (y < 0))) q = static_cast<T>(q - 1);
        return q;
      } else {
        return static_cast<T>(x / y);
      }
    } else {
      using C = compute_t<T>;
      return static_cast<T>(std::floor(static_cast<C>(x) / static_cast<C>(y)));
    }
  }
};

// The remainder with the sign of the divisor: x - floor_div(x, y) * y.
struct FloorModF {
  template <typename T>
  T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (y == static_cast<T>(-1)) return T(0);
        T r = static_cast<T>(x % y);
        if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
        return r;
      } else {
        return static_cast<T>(x % y);
      }
    } else {
      using C = compute_t<T>;
      C a = static_cast<C>(x), b = static_cast<C>(y);
      C r = std::fmod(a, b);
      if (r != 0 && ((b < 0) != (r < 0))) r += b;
      return static_cast<T>(r);
    }
  }
};

template <typename T>
Status RealDivCpu(ops::RealDivArgs& a) {
  OPF_RETURN_IF_ERROR(check_nonzero_divisor<T>(a));
  return cpu::binary_kernel<T, DivF>(a);
}

template <typename T>
Status FloorDivCpu(ops::FloorDivArgs& a) {
  OPF_RETURN_IF_ERROR(check_nonzero_divisor<T>(a));
  return cpu::binary_kernel<T, FloorDivF>(a);
}

template <typename T>
Status FloorModCpu(ops::FloorModArgs& a) {
  OPF_RETURN_IF_ERROR(check_nonzero_divisor<T>(a));
  return cpu::binary_kernel<T, FloorModF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(RealDiv, CPU, RealDivCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(FloorDiv, CPU, FloorDivCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(FloorMod, CPU, FloorModCpu, OPF_NUMERIC)

}  // namespace opforge
