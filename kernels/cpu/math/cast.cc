// Cast between any two runtime dtypes. Float to integer saturates at the target's limits
// and maps NaN to 0 (C++ leaves both undefined); anything to bool is `x != 0`. With
// Truncate, narrowing float conversions drop the input's extra mantissa bits first
// (TensorFlow's Truncate attr; see convert_truncating). Complex to real keeps the real part,
// real to complex sets a zero imaginary part (TensorFlow's rules).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "opforge/complex.h"
#include "opforge/ops/math/cast.h"

namespace opforge {
namespace {

template <typename T>
struct IsComplex : std::false_type {};
template <typename R>
struct IsComplex<std::complex<R>> : std::true_type {};

template <typename From, typename To>
To convert(From v) {
  if constexpr (IsComplex<From>::value && IsComplex<To>::value) {
    using R = typename To::value_type;
    return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else if constexpr (IsComplex<From>::value) {
    if constexpr (std::is_same_v<To, bool>) {
      return v != From(0);
    } else {
      return convert<typename From::value_type, To>(v.real());
    }
  } else if constexpr (IsComplex<To>::value) {
    return To(convert<From, typename To::value_type>(v), 0);
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<cpu::compute_t<From>>(v) != 0;
  } else if constexpr (std::is_integral_v<To> && cpu::is_float_v<From>) {
    double d = static_cast<double>(static_cast<cpu::compute_t<From>>(v));
    if (std::isnan(d)) return To(0);
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return static_cast<To>(v);  // modular, as NumPy's astype
  } else {
    return static_cast<To>(static_cast<cpu::compute_t<To>>(static_cast<cpu::compute_t<From>>(v)));
  }
}

// Truncate=true, as TensorFlow's CastFunctor does it: for float -> half/bfloat16 and
// double -> float/half, the input's low mantissa bits (those the target has no room for) are
// set to zero, NaN left alone, and the result converted with round-to-nearest. For normal
// results that is rounding toward zero; in the target's subnormal range the final conversion
// still rounds. Every other pair (double -> bfloat16, half -> bfloat16, integer sources)
// ignores Truncate in TensorFlow, and here.
template <typename From, typename To>
constexpr int truncated_bits() {
  if constexpr (std::is_same_v<From, float> && (std::is_same_v<To, half> || std::is_same_v<To, bfloat16>)) {
    return std::is_same_v<To, half> ? 24 - 11 : 24 - 8;
  } else if constexpr (std::is_same_v<From, double> && (std::is_same_v<To, float> || std::is_same_v<To, half>)) {
    return std::is_same_v<To, float> ? 53 - 24 : 53 - 11;
  } else {
    return 0;
  }
}

template <typename From, typename To>
To convert_truncating(From v) {
  constexpr int bits = truncated_bits<From, To>();
  if constexpr (bits > 0) {
    if (!std::isnan(v)) {
      using U = std::conditional_t<sizeof(From) == 8, uint64_t, uint32_t>;
      U u;
      std::memcpy(&u, &v, sizeof u);
      u &= ~((U{1} << bits) - 1);
      std::memcpy(&v, &u, sizeof u);
    }
  }
  return convert<From, To>(v);
}

template <typename From>
Status CastCpu(ops::CastArgs& a) {
  const bool truncate = a.Truncate;
  auto cast_to = [&](auto to) {
    using To = decltype(to);
    if (truncate) {
      cpu::map_unary<From, To>(a.x, a.y, [](From v) { return convert_truncating<From, To>(v); });
    } else {
      cpu::map_unary<From, To>(a.x, a.y, [](From v) { return convert<From, To>(v); });
    }
  };
  bool ok = visit_dtype(a.DstT, cast_to) || visit_complex_dtype(a.DstT, cast_to);
  if (!ok) return a.ctx.error("unsupported destination dtype ", dtype_name(a.DstT));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Cast, CPU, CastCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float,
                        double, OPF_WIDE_UNSIGNED_TYPES)
OPFORGE_REGISTER_KERNEL(Cast, CPU, CastCpu, complex64, complex128)

}  // namespace opforge
