// Cast between any two runtime dtypes. Float to integer saturates at the target's limits
// and maps NaN to 0 (C++ leaves both undefined); anything to bool is `x != 0`. With
// Truncate, narrowing float conversions round toward zero (TensorFlow's Truncate attr).
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "opforge/ops/math/cast.h"

namespace opforge {
namespace {

template <typename From, typename To>
To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
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

// Truncate=true: a narrowing float conversion rounds toward zero instead of to nearest.
template <typename From, typename To>
To convert_truncating(From v) {
  To r = convert<From, To>(v);
  if constexpr (cpu::is_float_v<From> && cpu::is_float_v<To> && sizeof(To) < sizeof(From)) {
    double in = static_cast<double>(static_cast<cpu::compute_t<From>>(v));
    double out = static_cast<double>(static_cast<cpu::compute_t<To>>(r));
    if (std::isfinite(in) && std::fabs(out) > std::fabs(in)) {  // rounded away from zero
      if constexpr (std::is_same_v<To, float>) {
        r = std::nextafter(r, 0.0f);
      } else {
        r.bits = static_cast<uint16_t>(r.bits - 1);  // one step toward zero, same sign
      }
    }
  }
  return r;
}

template <typename From>
Status CastCpu(ops::CastArgs& a) {
  const bool truncate = a.Truncate;
  bool ok = visit_dtype(a.DstT, [&](auto to) {
    using To = decltype(to);
    if (truncate) {
      cpu::map_unary<From, To>(a.x, a.y, [](From v) { return convert_truncating<From, To>(v); });
    } else {
      cpu::map_unary<From, To>(a.x, a.y, [](From v) { return convert<From, To>(v); });
    }
  });
  if (!ok) return a.ctx.error("unsupported destination dtype ", dtype_name(a.DstT));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Cast, CPU, CastCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
                        bfloat16, half, float, double)

}  // namespace opforge
