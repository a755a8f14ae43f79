// Elementwise unary math: Reciprocal, Rsqrt, the trigonometric and hyperbolic functions and
// their inverses, Erf, Erfc, Floor, Ceil, Round, Sign, Log1p, Expm1, IsNan, IsFinite, LogicalNot.
// 16-bit floats compute in float. float32 Sin/Cos/Erf/Erfc/Expm1/... go through vectorized
// polynomial approximations where cpu/vec_math.h has one (see there); the rest use libm.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/unary_util.h"
#include "cpu/vec_math.h"
#include "opforge/ops/math/acos.h"
#include "opforge/ops/math/acosh.h"
#include "opforge/ops/math/asin.h"
#include "opforge/ops/math/asinh.h"
#include "opforge/ops/math/atan.h"
#include "opforge/ops/math/atanh.h"
#include "opforge/ops/math/ceil.h"
#include "opforge/ops/math/cos.h"
#include "opforge/ops/math/cosh.h"
#include "opforge/ops/math/erf.h"
#include "opforge/ops/math/erfc.h"
#include "opforge/ops/math/expm1.h"
#include "opforge/ops/math/floor.h"
#include "opforge/ops/math/is_finite.h"
#include "opforge/ops/math/is_nan.h"
#include "opforge/ops/math/log1p.h"
#include "opforge/ops/math/logical_not.h"
#include "opforge/ops/math/reciprocal.h"
#include "opforge/ops/math/round.h"
#include "opforge/ops/math/rsqrt.h"
#include "opforge/ops/math/sign.h"
#include "opforge/ops/math/sin.h"
#include "opforge/ops/math/sinh.h"
#include "opforge/ops/math/tan.h"

namespace opforge {
namespace {

using cpu::compute_t;
using cpu::float_map;
using cpu::float_map_vec;

template <typename T>
Status ReciprocalCpu(ops::ReciprocalArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    const T* x = a.x.template data<T>();
    for (int64_t i = 0; i < a.x.num_elements(); ++i) {
      if (x[i] == 0) return a.ctx.error("integer reciprocal of zero");
    }
    cpu::map_unary<T, T>(a.x, a.y, [](T v) { return static_cast<T>(v == 1 ? 1 : v == -1 ? -1 : 0); });
    return Status::OK();
  } else {
    return float_map<T>(a, [](auto v) { return decltype(v)(1) / v; });
  }
}

template <typename T>
Status RsqrtCpu(ops::RsqrtArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return decltype(v)(1) / std::sqrt(v); }, vec::rsqrt_f32);
}

template <typename T>
Status SinCpu(ops::SinArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::sin(v); }, vec::sin_f32);
}
template <typename T>
Status CosCpu(ops::CosArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::cos(v); }, vec::cos_f32);
}
template <typename T>
Status TanCpu(ops::TanArgs& a) {
  return float_map<T>(a, [](auto v) { return std::tan(v); });
}
template <typename T>
Status AsinCpu(ops::AsinArgs& a) {
  return float_map<T>(a, [](auto v) { return std::asin(v); });
}
template <typename T>
Status AcosCpu(ops::AcosArgs& a) {
  return float_map<T>(a, [](auto v) { return std::acos(v); });
}
template <typename T>
Status AtanCpu(ops::AtanArgs& a) {
  return float_map<T>(a, [](auto v) { return std::atan(v); });
}
template <typename T>
Status SinhCpu(ops::SinhArgs& a) {
  return float_map<T>(a, [](auto v) { return std::sinh(v); });
}
template <typename T>
Status CoshCpu(ops::CoshArgs& a) {
  return float_map<T>(a, [](auto v) { return std::cosh(v); });
}
template <typename T>
Status AsinhCpu(ops::AsinhArgs& a) {
  return float_map<T>(a, [](auto v) { return std::asinh(v); });
}
template <typename T>
Status AcoshCpu(ops::AcoshArgs& a) {
  return float_map<T>(a, [](auto v) { return std::acosh(v); });
}
template <typename T>
Status AtanhCpu(ops::AtanhArgs& a) {
  return float_map<T>(a, [](auto v) { return std::atanh(v); });
}
template <typename T>
Status ErfCpu(ops::ErfArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::erf(v); }, vec::erf_f32);
}
template <typename T>
Status ErfcCpu(ops::ErfcArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::erfc(v); }, vec::erfc_f32);
}
template <typename T>
Status FloorCpu(ops::FloorArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::floor(v); }, vec::floor_f32);
}
template <typename T>
Status CeilCpu(ops::CeilArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::ceil(v); }, vec::ceil_f32);
}
template <typename T>
Status Log1pCpu(ops::Log1pArgs& a) {
  return float_map_vec<T>(a, [](auto v) { return std::log1p(v); }, vec::log1p_f32);
}
template <typename T>
Status Expm1Cpu(ops::Expm1Args& a) {
  return float_map_vec<T>(a, [](auto v) { return std::expm1(v); }, vec::expm1_f32);
}

// Half to even (banker's rounding), as TensorFlow: nearbyint in the default rounding mode.
template <typename T>
Status RoundCpu(ops::RoundArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    cpu::map_unary<T, T>(a.x, a.y, [](T v) { return v; });
    return Status::OK();
  } else {
    return float_map_vec<T>(a, [](auto v) { return std::nearbyint(v); }, vec::round_f32);
  }
}

template <typename T>
Status SignCpu(ops::SignArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    cpu::map_unary<T, T>(a.x, a.y, [](T v) { return static_cast<T>((v > 0) - (v < 0)); });
    return Status::OK();
  } else {
    return float_map<T>(a, [](auto v) {
      using C = decltype(v);
      return v > 0 ? C(1) : v < 0 ? C(-1) : v == 0 ? C(0) : v;  // NaN stays NaN; -0 gives +0 (TF, NumPy)
    });
  }
}

template <typename T>
Status IsNanCpu(ops::IsNanArgs& a) {
  cpu::map_unary<T, bool>(a.x, a.y, [](T v) { return std::isnan(static_cast<compute_t<T>>(v)); });
  return Status::OK();
}

template <typename T>
Status IsFiniteCpu(ops::IsFiniteArgs& a) {
  cpu::map_unary<T, bool>(a.x, a.y, [](T v) { return std::isfinite(static_cast<compute_t<T>>(v)); });
  return Status::OK();
}

Status LogicalNotCpu(ops::LogicalNotArgs& a) {
  cpu::map_unary<bool, bool>(a.x, a.y, [](bool v) { return !v; });
  return Status::OK();
}

#define OPF_FLOATS bfloat16, half, float, double
#define OPF_FLOATS_SIGNED OPF_FLOATS, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(Reciprocal, CPU, ReciprocalCpu, inplace_args(0), OPF_FLOATS_SIGNED)
OPFORGE_REGISTER_INPLACE_KERNEL(Rsqrt, CPU, RsqrtCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Sin, CPU, SinCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Cos, CPU, CosCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Tan, CPU, TanCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Asin, CPU, AsinCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Acos, CPU, AcosCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Atan, CPU, AtanCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Sinh, CPU, SinhCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Cosh, CPU, CoshCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Asinh, CPU, AsinhCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Acosh, CPU, AcoshCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Atanh, CPU, AtanhCpu, OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Erf, CPU, ErfCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Erfc, CPU, ErfcCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Floor, CPU, FloorCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Ceil, CPU, CeilCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Round, CPU, RoundCpu, inplace_args(0), OPF_FLOATS_SIGNED)
OPFORGE_REGISTER_INPLACE_KERNEL(Sign, CPU, SignCpu, inplace_args(0), OPF_FLOATS_SIGNED)
OPFORGE_REGISTER_INPLACE_KERNEL(Log1p, CPU, Log1pCpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_INPLACE_KERNEL(Expm1, CPU, Expm1Cpu, inplace_args(0), OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(IsNan, CPU, IsNanCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(IsFinite, CPU, IsFiniteCpu, OPF_FLOATS)
OPFORGE_REGISTER_UNTYPED_KERNEL(LogicalNot, CPU, LogicalNotCpu)

}  // namespace opforge
