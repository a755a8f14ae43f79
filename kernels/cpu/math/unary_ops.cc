// Elementwise unary ops: Neg, Abs, Exp, Log, Sqrt, Square, Sigmoid, Tanh. 16-bit floats
// compute in float (float32 Exp, Sigmoid and Tanh vectorized: cpu/vec_math.h); signed integer Neg/Abs/Square wrap
// instead of overflowing.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/unary_util.h"
#include "cpu/vec_math.h"
#include "opforge/ops/math/abs.h"
#include "opforge/ops/math/exp.h"
#include "opforge/ops/math/log.h"
#include "opforge/ops/math/neg.h"
#include "opforge/ops/math/sigmoid.h"
#include "opforge/ops/math/sqrt.h"
#include "opforge/ops/math/square.h"
#include "opforge/ops/math/tanh.h"

namespace opforge {
namespace {

using cpu::compute_t;

template <typename T, typename F>
Status unary(const Tensor& x, Tensor& y, F f) {
  cpu::map_unary<T, T>(x, y, f);
  return Status::OK();
}

template <typename T>
Status NegCpu(ops::NegArgs& a) {
  return unary<T>(a.x, a.y, [](T v) { return cpu::wrap_neg(v); });
}

template <typename T>
Status AbsCpu(ops::AbsArgs& a) {
  return unary<T>(a.x, a.y, [](T v) {
    if constexpr (std::is_integral_v<T>)
      return v < 0 ? cpu::wrap_neg(v) : v;
    else
      return static_cast<T>(std::fabs(static_cast<compute_t<T>>(v)));
  });
}

template <typename T>
Status SquareCpu(ops::SquareArgs& a) {
  return unary<T>(a.x, a.y, [](T v) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(v) * static_cast<U>(v));
    } else {
      auto c = static_cast<compute_t<T>>(v);
      return static_cast<T>(c * c);
    }
  });
}

template <typename T>
Status ExpCpu(ops::ExpArgs& a) {
  return cpu::float_map_vec<T>(a, [](auto v) { return std::exp(v); }, vec::exp_f32);
}

template <typename T>
Status LogCpu(ops::LogArgs& a) {
  return unary<T>(a.x, a.y, [](T v) { return static_cast<T>(std::log(static_cast<compute_t<T>>(v))); });
}

template <typename T>
Status SqrtCpu(ops::SqrtArgs& a) {
  return unary<T>(a.x, a.y, [](T v) { return static_cast<T>(std::sqrt(static_cast<compute_t<T>>(v))); });
}

template <typename T>
Status TanhCpu(ops::TanhArgs& a) {
  return cpu::float_map_vec<T>(a, [](auto v) { return std::tanh(v); }, vec::tanh_f32);
}

template <typename T>
Status SigmoidCpu(ops::SigmoidArgs& a) {
  return cpu::float_map_vec<T>(
      a,
      [](auto v) {
        using C = decltype(v);
        // Stable for large |x|: never exponentiate a large positive number.
        if (v >= 0) return C(1) / (C(1) + std::exp(-v));
        const C e = std::exp(v);
        return e / (C(1) + e);
      },
      vec::sigmoid_f32);
}

#define OPF_FLOATS bfloat16, half, float, double
#define OPF_SIGNED OPF_FLOATS, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(Neg, CPU, NegCpu, inplace_args(0), OPF_SIGNED)
OPFORGE_REGISTER_INPLACE_KERNEL(Abs, CPU, AbsCpu, inplace_args(0), OPF_SIGNED)
OPFORGE_REGISTER_INPLACE_KERNEL(Square, CPU, SquareCpu, inplace_args(0), OPF_SIGNED, uint8_t)
OPFORGE_REGISTER_INPLACE_KERNEL(Exp, CPU, ExpCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Log, CPU, LogCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Sqrt, CPU, SqrtCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Tanh, CPU, TanhCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Sigmoid, CPU, SigmoidCpu, inplace_args(0), OPF_FLOATS)

}  // namespace opforge
