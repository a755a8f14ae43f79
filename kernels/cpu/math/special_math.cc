// Special functions element-wise: Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e (unary),
// Igamma, Igammac, Zeta, Polygamma, NextAfter (binary, NumPy broadcasting) and Betainc (each
// input the output's shape or a scalar). Every dtype computes in double (special_functions.h)
// and rounds once.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/special_functions.h"
#include "opforge/ops/math/bessel_i0e.h"
#include "opforge/ops/math/bessel_i1e.h"
#include "opforge/ops/math/betainc.h"
#include "opforge/ops/math/digamma.h"
#include "opforge/ops/math/erfinv.h"
#include "opforge/ops/math/igamma.h"
#include "opforge/ops/math/igammac.h"
#include "opforge/ops/math/lgamma.h"
#include "opforge/ops/math/ndtri.h"
#include "opforge/ops/math/next_after.h"
#include "opforge/ops/math/polygamma.h"
#include "opforge/ops/math/zeta.h"

namespace opforge {
namespace {

template <typename T, typename Args, double (*F)(double)>
Status unary_special(Args& a) {
  cpu::map_unary<T, T>(a.x, a.y, [](T v) { return static_cast<T>(F(static_cast<double>(v))); });
  return Status::OK();
}

template <typename T, typename F>
void binary_special(const Tensor& x, const Tensor& y, Tensor& z, F f) {
  cpu::map_binary<T, T>(x, y, z,
                        [&](T u, T v) { return static_cast<T>(f(static_cast<double>(u), static_cast<double>(v))); });
}

template <typename T>
Status LgammaCpu(ops::LgammaArgs& a) {
  return unary_special<T, ops::LgammaArgs, special::lgamma>(a);
}
template <typename T>
Status DigammaCpu(ops::DigammaArgs& a) {
  return unary_special<T, ops::DigammaArgs, special::digamma>(a);
}
template <typename T>
Status ErfinvCpu(ops::ErfinvArgs& a) {
  return unary_special<T, ops::ErfinvArgs, special::erfinv>(a);
}
template <typename T>
Status NdtriCpu(ops::NdtriArgs& a) {
  return unary_special<T, ops::NdtriArgs, special::ndtri>(a);
}
template <typename T>
Status BesselI0eCpu(ops::BesselI0eArgs& a) {
  return unary_special<T, ops::BesselI0eArgs, special::bessel_i0e>(a);
}
template <typename T>
Status BesselI1eCpu(ops::BesselI1eArgs& a) {
  return unary_special<T, ops::BesselI1eArgs, special::bessel_i1e>(a);
}

template <typename T>
Status IgammaCpu(ops::IgammaArgs& a) {
  binary_special<T>(a.a, a.x, a.z, special::igamma);
  return Status::OK();
}
template <typename T>
Status IgammacCpu(ops::IgammacArgs& a) {
  binary_special<T>(a.a, a.x, a.z, special::igammac);
  return Status::OK();
}
template <typename T>
Status ZetaCpu(ops::ZetaArgs& a) {
  binary_special<T>(a.x, a.q, a.z, special::zeta);
  return Status::OK();
}
template <typename T>
Status PolygammaCpu(ops::PolygammaArgs& a) {
  binary_special<T>(a.a, a.x, a.z, special::polygamma);
  return Status::OK();
}
template <typename T>
Status NextAfterCpu(ops::NextAfterArgs& a) {
  cpu::map_binary<T, T>(a.x1, a.x2, a.output, [](T u, T v) { return std::nextafter(u, v); });
  return Status::OK();
}

template <typename T>
Status BetaincCpu(ops::BetaincArgs& a) {
  const int64_t n = a.z.num_elements();
  for (const Tensor* t : {&a.a, &a.b, &a.x}) {
    if (t->shape().rank() != 0 && !(t->shape() == a.z.shape())) {
      return a.ctx.error("a, b and x must have the same shape or be scalars; got ", a.a.shape().to_string(), ", ",
                         a.b.shape().to_string(), " and ", a.x.shape().to_string());
    }
  }
  const T* pa = a.a.template data<T>();
  const T* pb = a.b.template data<T>();
  const T* px = a.x.template data<T>();
  T* out = a.z.template data<T>();
  const int64_t sa = a.a.shape().rank() ? 1 : 0, sb = a.b.shape().rank() ? 1 : 0, sx = a.x.shape().rank() ? 1 : 0;
  parallel_for(n, cpu::kGrain / 64, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) {
      out[i] = static_cast<T>(special::betainc(pa[i * sa], pb[i * sb], px[i * sx]));
    }
  });
  return Status::OK();
}

#define OPF_FLOATS bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(Lgamma, CPU, LgammaCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Digamma, CPU, DigammaCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Erfinv, CPU, ErfinvCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Ndtri, CPU, NdtriCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(BesselI0e, CPU, BesselI0eCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(BesselI1e, CPU, BesselI1eCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Igamma, CPU, IgammaCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Igammac, CPU, IgammacCpu, OPF_FLOATS)
OPFORGE_REGISTER_KERNEL(Zeta, CPU, ZetaCpu, float, double)
OPFORGE_REGISTER_KERNEL(Polygamma, CPU, PolygammaCpu, float, double)
OPFORGE_REGISTER_KERNEL(Betainc, CPU, BetaincCpu, float, double)
OPFORGE_REGISTER_KERNEL(NextAfter, CPU, NextAfterCpu, float, double)

}  // namespace opforge
