// RandomGamma, RandomPoissonV2 (stateful streams, random_stream.h) and StatelessRandomGammaV2,
// StatelessRandomPoisson (the stream their seed input determines). Samples are drawn one after
// another from 32-bit Philox words (rejection samplers use a varying number), so the values do
// not depend on the thread count. Stateful: output element i * num_params + j is sample i of
// parameter j; stateless: the parameters broadcast against the output shape.
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/random/philox.h"
#include "cpu/random/random_stream.h"
#include "cpu/math/special_functions.h"
#include "opforge/ops/random/random_gamma.h"
#include "opforge/ops/random/random_poisson_v2.h"
#include "opforge/ops/random/stateless_random_gamma_v2.h"
#include "opforge/ops/random/stateless_random_poisson.h"

namespace opforge {
namespace rng {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// 32-bit words from a Philox stream, counted to advance a stateful stream by what was used.
class Words {
 public:
  explicit Words(Philox g) : words_(g) {}
  uint32_t word() {
    ++n_;
    return words_();
  }
  double uniform() { return uint64_to_double(word(), word()); }  // [0, 1)
  double normal() {                                              // Box-Muller on (0, 1] x [0, 1)
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.28318530717958647692 * u2);
  }
  uint64_t blocks() const { return (n_ + 3) / 4; }

 private:
  SingleSample words_;
  uint64_t n_ = 0;
};

// Gamma(alpha, 1): Marsaglia and Tsang (2000); alpha < 1 through Gamma(alpha + 1) * U^(1/alpha).
double sample_gamma(double alpha, Words& w) {
  if (!(alpha > 0.0)) return kNaN;
  if (std::isinf(alpha)) return alpha;
  double boost = 1.0;
  if (alpha < 1.0) {
    boost = std::pow(1.0 - w.uniform(), 1.0 / alpha);  // U in (0, 1]
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = w.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = w.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * boost;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * boost;
  }
}

// Poisson(rate): Knuth's product of uniforms below 10, Hormann's PTRS (1993) above.
double sample_poisson(double rate, Words& w) {
  if (!(rate >= 0.0) || std::isinf(rate)) return kNaN;
  if (rate == 0.0) return 0.0;
  if (rate < 10.0) {
    const double limit = std::exp(-rate);
    double p = 1.0, k = -1.0;
    do {
      k += 1.0;
      p *= w.uniform();
    } while (p > limit);
    return k;
  }
  const double log_rate = std::log(rate), b = 0.931 + 2.53 * std::sqrt(rate), a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    const double u = w.uniform() - 0.5, v = w.uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2.0 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -rate + k * log_rate - special::lgamma(k + 1.0)) {
      return k;
    }
  }
}

// Reads element i of a float or integer tensor as double.
double element(const Tensor& t, int64_t i) {
  double v = 0.0;
  visit_dtype(t.dtype(), [&](auto z) {
    using V = decltype(z);
    if constexpr (std::is_arithmetic_v<V> || std::is_same_v<V, half> || std::is_same_v<V, bfloat16>) {
      v = static_cast<double>(t.data<V>()[i]);
    }
  });
  return v;
}

template <typename Out>
Out convert_sample(double v) {
  if constexpr (std::is_integral_v<Out>) {
    if (std::isnan(v)) return 0;
    const double hi = static_cast<double>(std::numeric_limits<Out>::max());
    return static_cast<Out>(v > hi ? hi : v);
  } else {
    return static_cast<Out>(v);
  }
}

// Fills out (num_samples x num_params) with sample(param_j); returns the Philox outputs used.
template <typename Out, typename Sample>
uint64_t fill(Philox g, const Tensor& params, Tensor& out, Sample sample) {
  Words w(g);
  const int64_t np = params.num_elements();
  Out* o = out.data<Out>();
  const int64_t n = out.num_elements();
  for (int64_t i = 0; i < n; ++i) o[i] = convert_sample<Out>(sample(element(params, i % np), w));
  return w.blocks();
}

// The stateless ops: params broadcast against the output's shape (NumPy rules).
template <typename Out, typename Sample>
Status fill_broadcast(KernelContext& ctx, Philox g, const Tensor& params, Tensor& out, Sample sample) {
  const Shape& ps = params.shape();
  const Shape& os = out.shape();
  const int r = os.rank(), pr = ps.rank();
  bool ok = pr <= r;
  for (int i = 0; ok && i < pr; ++i) ok = ps.dim(i) == 1 || ps.dim(i) == os.dim(r - pr + i);
  if (!ok) {
    return ctx.error("the parameter's shape ", ps.to_string(), " does not broadcast to the output shape ",
                     os.to_string());
  }
  std::vector<int64_t> stride(static_cast<size_t>(r), 0);  // per output dim: the parameter's stride
  int64_t st = 1;
  for (int i = pr - 1; i >= 0; --i) {
    if (ps.dim(i) != 1) stride[static_cast<size_t>(r - pr + i)] = st;
    st *= ps.dim(i);
  }
  Words w(g);
  Out* o = out.data<Out>();
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t rem = i, off = 0;
    for (int d = r - 1; d >= 0; --d) {
      off += (rem % os.dim(d)) * stride[static_cast<size_t>(d)];
      rem /= os.dim(d);
    }
    o[i] = convert_sample<Out>(sample(element(params, off), w));
  }
  return Status::OK();
}

template <typename T>
Status RandomGammaCpu(ops::RandomGammaArgs& a) {
  if (a.alpha.num_elements() == 0 || a.output.num_elements() == 0) return Status::OK();
  return draw_from_stream(a.ctx, DTypeOf<T>::value, a.seed, a.seed2,
                          [&](Philox& g) { return fill<T>(g, a.alpha, a.output, sample_gamma); });
}

template <typename T>
Status RandomPoissonV2Cpu(ops::RandomPoissonV2Args& a) {
  if (a.rate.num_elements() == 0 || a.output.num_elements() == 0) return Status::OK();
  return draw_from_stream(a.ctx, DTypeOf<T>::value, a.seed, a.seed2,
                          [&](Philox& g) { return fill<T>(g, a.rate, a.output, sample_poisson); });
}

Status seed_philox(KernelContext& ctx, const Tensor& seed, Philox* g) {
  if (seed.rank() != 1 || seed.dim(0) != 2)
    return ctx.error("seed must have shape [2], got ", seed.shape().to_string());
  if (seed.dtype() == DType::kInt64) {
    *g = stateless_philox(static_cast<uint64_t>(seed.data<int64_t>()[0]),
                          static_cast<uint64_t>(seed.data<int64_t>()[1]));
  } else {
    *g = stateless_philox(static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0])),
                          static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1])));
  }
  return Status::OK();
}

template <typename T>
Status StatelessRandomGammaV2Cpu(ops::StatelessRandomGammaV2Args& a) {
  Philox g;
  OPF_RETURN_IF_ERROR(seed_philox(a.ctx, a.seed, &g));
  return fill_broadcast<T>(a.ctx, g, a.alpha, a.output, sample_gamma);
}

template <typename T>
Status StatelessRandomPoissonCpu(ops::StatelessRandomPoissonArgs& a) {
  Philox g;
  OPF_RETURN_IF_ERROR(seed_philox(a.ctx, a.seed, &g));
  return fill_broadcast<T>(a.ctx, g, a.lam, a.output, sample_poisson);
}

}  // namespace
}  // namespace rng

using namespace rng;  // NOLINT: the registration macros name kernels unqualified

OPFORGE_REGISTER_KERNEL(RandomGamma, CPU, RandomGammaCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(RandomPoissonV2, CPU, RandomPoissonV2Cpu, half, float, double, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(StatelessRandomGammaV2, CPU, StatelessRandomGammaV2Cpu, half, float, double)
OPFORGE_REGISTER_KERNEL(StatelessRandomPoisson, CPU, StatelessRandomPoissonCpu, half, float, double, int32_t, int64_t)

}  // namespace opforge
