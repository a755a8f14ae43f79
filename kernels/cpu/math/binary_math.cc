// Elementwise binary math with NumPy broadcasting: FloorDiv, FloorMod, SquaredDifference,
// Atan2, NotEqual, LessEqual, GreaterEqual, LogicalAnd, LogicalOr. Integer arithmetic wraps
// (two's complement) and integer division by zero is an InvalidArgumentError, as in TensorFlow.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/vec_math.h"
#include "opforge/ops/math/atan2.h"
#include "opforge/ops/math/floor_div.h"
#include "opforge/ops/math/floor_mod.h"
#include "opforge/ops/math/greater_equal.h"
#include "opforge/ops/math/less_equal.h"
#include "opforge/ops/math/logical_and.h"
#include "opforge/ops/math/logical_or.h"
#include "opforge/ops/math/not_equal.h"
#include "opforge/ops/math/squared_difference.h"
#include "opforge/shape_fns.h"

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

// floor(x / y): for integers the truncated quotient, one lower when the signs differ and the
// division is inexact; for floats floor(x / y) (TensorFlow's definition).
template <typename T>
T floor_div(T x, T y) {
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

// The remainder with the sign of the divisor: x - floor_div(x, y) * y.
template <typename T>
T floor_mod(T x, T y) {
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

template <typename T>
Status FloorDivCpu(ops::FloorDivArgs& a) {
  OPF_RETURN_IF_ERROR(check_nonzero_divisor<T>(a));
  cpu::map_binary<T, T>(a.x, a.y, a.z, [](T x, T y) { return floor_div(x, y); });
  return Status::OK();
}

template <typename T>
Status FloorModCpu(ops::FloorModArgs& a) {
  OPF_RETURN_IF_ERROR(check_nonzero_divisor<T>(a));
  cpu::map_binary<T, T>(a.x, a.y, a.z, [](T x, T y) { return floor_mod(x, y); });
  return Status::OK();
}

template <typename T>
Status SquaredDifferenceCpu(ops::SquaredDifferenceArgs& a) {
  cpu::map_binary<T, T>(a.x, a.y, a.z, [](T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      U d = static_cast<U>(static_cast<U>(x) - static_cast<U>(y));
      return static_cast<T>(static_cast<U>(d * d));
    } else {
      using C = compute_t<T>;
      C d = static_cast<C>(x) - static_cast<C>(y);
      return static_cast<T>(d * d);
    }
  });
  return Status::OK();
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
  cpu::map_binary<T, T>(a.y, a.x, a.z, [](T y, T x) {
    return static_cast<T>(std::atan2(static_cast<C>(y), static_cast<C>(x)));
  });
  return Status::OK();
}

template <typename T>
Status LessEqualCpu(ops::LessEqualArgs& a) {
  using C = compute_t<T>;
  cpu::map_binary<T, bool>(a.x, a.y, a.z, [](T x, T y) { return static_cast<C>(x) <= static_cast<C>(y); });
  return Status::OK();
}

template <typename T>
Status GreaterEqualCpu(ops::GreaterEqualArgs& a) {
  using C = compute_t<T>;
  cpu::map_binary<T, bool>(a.x, a.y, a.z, [](T x, T y) { return static_cast<C>(x) >= static_cast<C>(y); });
  return Status::OK();
}

template <typename T>
Status NotEqualCpu(ops::NotEqualArgs& a) {
  Shape unused;
  if (!a.incompatible_shape_error &&
      !broadcast_shapes(a.x.shape(), a.y.shape(), &unused, "NotEqual").ok()) {
    a.z.data<bool>()[0] = true;  // the shape function made z a scalar
    return Status::OK();
  }
  using C = compute_t<T>;
  cpu::map_binary<T, bool>(a.x, a.y, a.z, [](T x, T y) { return static_cast<C>(x) != static_cast<C>(y); });
  return Status::OK();
}

// Broadcast shape, or a scalar when the shapes are incompatible and the op was told not to
// fail (TensorFlow's incompatible_shape_error=false).
Status NotEqualShape(ShapeContext& c) {
  Shape out;
  Status s = broadcast_shapes(c.input_shape(0), c.input_shape(1), &out, c.op().name);
  if (!s.ok()) {
    if (c.attr(1).b) return s;
    out = Shape();
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

[[maybe_unused]] const bool not_equal_shape_registered = [] {
  shape_fns::register_custom("NotEqual", NotEqualShape);
  return true;
}();

Status LogicalAndCpu(ops::LogicalAndArgs& a) {
  cpu::map_binary<bool, bool>(a.x, a.y, a.z, [](bool x, bool y) { return x && y; });
  return Status::OK();
}

Status LogicalOrCpu(ops::LogicalOrArgs& a) {
  cpu::map_binary<bool, bool>(a.x, a.y, a.z, [](bool x, bool y) { return x || y; });
  return Status::OK();
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t
#define OPF_FLOATS bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(FloorDiv, CPU, FloorDivCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(FloorMod, CPU, FloorModCpu, OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(SquaredDifference, CPU, SquaredDifferenceCpu, inplace_args(0, 1), OPF_FLOATS, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(Atan2, CPU, Atan2Cpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(LessEqual, CPU, LessEqualCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(GreaterEqual, CPU, GreaterEqualCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(NotEqual, CPU, NotEqualCpu, bool, OPF_NUMERIC)
OPFORGE_REGISTER_UNTYPED_KERNEL(LogicalAnd, CPU, LogicalAndCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(LogicalOr, CPU, LogicalOrCpu)

}  // namespace opforge
