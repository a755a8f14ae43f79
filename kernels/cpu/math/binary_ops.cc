// Elementwise binary ops with NumPy broadcasting: AddV2, Sub, Mul, RealDiv, Pow, Maximum,
// Minimum, Equal, Less, Greater. Signed integer arithmetic wraps (two's complement), as
// NumPy's and TensorFlow's do, instead of being undefined behaviour.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "opforge/ops/math/add_v2.h"
#include "opforge/ops/math/equal.h"
#include "opforge/ops/math/greater.h"
#include "opforge/ops/math/less.h"
#include "opforge/ops/math/maximum.h"
#include "opforge/ops/math/minimum.h"
#include "opforge/ops/math/mul.h"
#include "opforge/ops/math/pow.h"
#include "opforge/ops/math/real_div.h"
#include "opforge/ops/math/sub.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using cpu::compute_t;

// The type add/sub run in: unsigned for integers (so overflow wraps), float for 16-bit floats.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct Wide {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
struct Wide<T, false> {
  using type = compute_t<T>;
};
template <typename T>
using wide_t = typename Wide<T>::type;

struct AddF {
  template <typename T>
  T operator()(T a, T b) const { return static_cast<T>(static_cast<wide_t<T>>(a) + static_cast<wide_t<T>>(b)); }
};
struct SubF {
  template <typename T>
  T operator()(T a, T b) const { return static_cast<T>(static_cast<wide_t<T>>(a) - static_cast<wide_t<T>>(b)); }
};
struct MulF {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Multiply in the unsigned type of at least int width: no promotion to signed int.
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return static_cast<T>(static_cast<compute_t<T>>(a) * static_cast<compute_t<T>>(b));
    }
  }
};
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
// NaN-propagating max/min, as NumPy's maximum/minimum.
struct MaxF {
  template <typename T>
  T operator()(T a, T b) const {
    auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(x) || std::isnan(y)) return static_cast<T>(x + y);
    }
    return x >= y ? a : b;
  }
};
struct MinF {
  template <typename T>
  T operator()(T a, T b) const {
    auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
    if constexpr (cpu::is_float_v<T>) {
      if (std::isnan(x) || std::isnan(y)) return static_cast<T>(x + y);
    }
    return x <= y ? a : b;
  }
};
struct EqF {
  template <typename T>
  bool operator()(T a, T b) const { return static_cast<compute_t<T>>(a) == static_cast<compute_t<T>>(b); }
};
struct LessF {
  template <typename T>
  bool operator()(T a, T b) const { return static_cast<compute_t<T>>(a) < static_cast<compute_t<T>>(b); }
};
struct GreaterF {
  template <typename T>
  bool operator()(T a, T b) const { return static_cast<compute_t<T>>(a) > static_cast<compute_t<T>>(b); }
};

template <typename T, typename F, typename Args>
Status binary(Args& args) {
  cpu::map_binary<T, T>(args.x, args.y, args.z, [](T a, T b) { return F()(a, b); });
  return Status::OK();
}

template <typename T, typename F, typename Args>
Status compare(Args& args) {
  cpu::map_binary<T, bool>(args.x, args.y, args.z, [](T a, T b) { return F()(a, b); });
  return Status::OK();
}

template <typename T> Status AddV2Cpu(ops::AddV2Args& a) { return binary<T, AddF>(a); }
template <typename T> Status SubCpu(ops::SubArgs& a) { return binary<T, SubF>(a); }
template <typename T> Status MulCpu(ops::MulArgs& a) { return binary<T, MulF>(a); }
template <typename T> Status MaximumCpu(ops::MaximumArgs& a) { return binary<T, MaxF>(a); }
template <typename T> Status MinimumCpu(ops::MinimumArgs& a) { return binary<T, MinF>(a); }
template <typename T>
Status EqualCpu(ops::EqualArgs& a) {
  Shape unused;
  if (!a.incompatible_shape_error &&
      !broadcast_shapes(a.x.shape(), a.y.shape(), &unused, "Equal").ok()) {
    a.z.data<bool>()[0] = false;  // the shape function made z a scalar
    return Status::OK();
  }
  return compare<T, EqF>(a);
}

// Broadcast shape, or a scalar when the shapes are incompatible and the op was told not to
// fail (TensorFlow's incompatible_shape_error=false).
Status EqualShape(ShapeContext& c) {
  Shape out;
  Status s = broadcast_shapes(c.input_shape(0), c.input_shape(1), &out, c.op().name);
  if (!s.ok()) {
    if (c.attr(1).b) return s;
    out = Shape();
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

[[maybe_unused]] const bool equal_shape_registered = [] {
  shape_fns::register_custom("Equal", EqualShape);
  return true;
}();
template <typename T> Status LessCpu(ops::LessArgs& a) { return compare<T, LessF>(a); }
template <typename T> Status GreaterCpu(ops::GreaterArgs& a) { return compare<T, GreaterF>(a); }

template <typename T>
Status RealDivCpu(ops::RealDivArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    const T* y = a.y.template data<T>();
    for (int64_t i = 0; i < a.y.num_elements(); ++i) {
      if (y[i] == 0) return a.ctx.error("integer division by zero");
    }
  }
  return binary<T, DivF>(a);
}

template <typename T>
Status PowCpu(ops::PowArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    const T* y = a.y.template data<T>();
    for (int64_t i = 0; i < a.y.num_elements(); ++i) {
      if (y[i] < 0) return a.ctx.error("integers to negative integer powers are not allowed");
    }
  }
  return binary<T, PowF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t
#define OPF_ALL bool, OPF_NUMERIC

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(AddV2, CPU, AddV2Cpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Sub, CPU, SubCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Mul, CPU, MulCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(RealDiv, CPU, RealDivCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Pow, CPU, PowCpu, bfloat16, half, float, double, int32_t, int64_t)
OPFORGE_REGISTER_INPLACE_KERNEL(Maximum, CPU, MaximumCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Minimum, CPU, MinimumCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Equal, CPU, EqualCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Less, CPU, LessCpu, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(Greater, CPU, GreaterCpu, OPF_NUMERIC)

}  // namespace opforge
