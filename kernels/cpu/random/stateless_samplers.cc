// StatelessRandomBinomial, StatelessMultinomial and StatelessParameterizedTruncatedNormal:
// deterministic draws from the Philox stream that the seed input alone keys (philox.h's
// stateless_philox, as every stateless op here), with TensorFlow's samplers and counter layout:
//
// - binomial: output k (in the order batch-major, sample-minor) starts at counter offset 256 k
//   (BTRS) or 42 k (inversion), uniform doubles taken two per Philox output, the second first;
// - multinomial: one stream read in order, row after row, a uniform double (two words) per draw;
// - truncated normal: one stream read in output order, four floats or two doubles per Philox
//   output (TensorFlow's values where TensorFlow runs the op in one shard: small outputs; half
//   is computed in float).
//
// Parameters broadcast together (NumPy rules) to the trailing dimensions of the output shape;
// the leading dimensions count the samples of each parameter set.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/random/philox.h"
#include "opforge/ops/random/stateless_multinomial.h"
#include "opforge/ops/random/stateless_parameterized_truncated_normal.h"
#include "opforge/ops/random/stateless_random_binomial.h"

namespace opforge {
namespace {

using rng::Philox;

Status seeded(KernelContext& ctx, const Tensor& seed, Philox* g) {
  if (seed.rank() != 1 || seed.dim(0) != 2)
    return ctx.error("seed must have shape [2], not ", seed.shape().to_string());
  uint64_t s[2];
  for (int i = 0; i < 2; ++i) {
    s[i] = seed.dtype() == DType::kInt32 ? static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[i]))
                                         : static_cast<uint64_t>(seed.data<int64_t>()[i]);
  }
  *g = rng::stateless_philox(s[0], s[1]);
  return Status::OK();
}

// Uniform doubles in [0, 1), two per Philox output, handed out last first (TensorFlow's
// UNIFORM macro over UniformDistribution<PhiloxRandom, double>).
class UniformDoubles {
 public:
  explicit UniformDoubles(Philox g) : g_(g) {}
  double operator()() {
    if (left_ == 0) {
      const Philox::Result w = g_();
      vals_[0] = rng::uint64_to_double(w[0], w[1]);
      vals_[1] = rng::uint64_to_double(w[2], w[3]);
      left_ = 2;
    }
    return vals_[--left_];
  }

 private:
  Philox g_;
  double vals_[2] = {0, 0};
  int left_ = 0;
};

// The parameters' broadcast shape and, per parameter, its flat index for each batch element.
struct Batches {
  int64_t num_batches = 1, samples = 1;
  std::vector<std::vector<int64_t>> index;  // [param][batch]
};

Status broadcast_params(KernelContext& ctx, const std::vector<const Tensor*>& params, const char* names,
                        const Shape& out, Batches* b) {
  int rank = 0;
  for (const Tensor* p : params) rank = std::max(rank, p->rank());
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  for (const Tensor* p : params) {
    for (int i = 0; i < p->rank(); ++i) {
      int64_t& d = shape[static_cast<size_t>(rank - p->rank() + i)];
      const int64_t pd = p->dim(i);
      if (pd != 1 && d != 1 && pd != d) {
        return ctx.error(names, " must have compatible batch dimensions: ", params[0]->shape().to_string(), " vs. ",
                         p->shape().to_string());
      }
      if (pd != 1) d = pd;
    }
  }
  bool ends_with = rank <= out.rank();
  for (int i = 0; ends_with && i < rank; ++i)
    ends_with = out.dim(out.rank() - rank + i) == shape[static_cast<size_t>(i)];
  if (!ends_with) {
    return ctx.error("Shape passed in must end with broadcasted shape: ", out.to_string(), " does not end with ",
                     Shape(shape).to_string());
  }
  for (int64_t d : shape) b->num_batches *= d;
  for (int i = 0; i < out.rank() - rank; ++i) b->samples *= out.dim(i);
  for (const Tensor* p : params) {
    std::vector<int64_t> idx(static_cast<size_t>(b->num_batches));
    for (int64_t k = 0; k < b->num_batches; ++k) {
      int64_t rem = k, off = 0, stride = 1;
      for (int i = rank - 1; i >= 0; --i) {
        const int64_t d = shape[static_cast<size_t>(i)];
        const int pi = i - (rank - p->rank());
        if (pi >= 0 && p->dim(pi) != 1) off += (rem % d) * stride;
        if (pi >= 0) stride *= p->dim(pi);
        rem /= d;
      }
      idx[static_cast<size_t>(k)] = off;
    }
    b->index.push_back(std::move(idx));
  }
  return Status::OK();
}

template <typename T>
double as_double(const Tensor& t, int64_t i) {
  return static_cast<double>(static_cast<float>(t.data<T>()[i]));
}
template <>
double as_double<double>(const Tensor& t, int64_t i) {
  return t.data<double>()[i];
}

// ------------------------------------------------------------------------------ binomial

// Inversion: the number of geometric(p) waiting times that fit in `count` trials.
double binomial_inversion(double count, double p, UniformDoubles& u) {
  double sum = 0;
  int64_t n = 0;
  const double log_q = std::log1p(-p);
  while (true) {
    sum += std::ceil(std::log(u()) / log_q);
    if (sum > count) return static_cast<double>(n);
    ++n;
  }
}

double stirling_tail(double k) {  // log(k!) minus its Stirling approximation
  static const double kTail[] = {0.0810614667953272,  0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                                 0.0166446911898211,  0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                                 0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double k1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / (k + 1);
}

// Hormann's transformed rejection with squeeze (BTRS), for count * p >= 10 and p <= 1/2.
double binomial_btrs(double count, double p, UniformDoubles& uniform) {
  const double spq = std::sqrt(count * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = count * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = std::floor((count + 1) * p);
  while (true) {
    double u = uniform();
    double v = uniform();
    u -= 0.5;
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                         stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
    if (v <= bound) return k;
  }
}

// One draw of Binomial(count, p) for output number k, from its own counter offset.
template <typename T>
double binomial_sample(Philox g, int64_t k, double count, double p) {
  if (count <= 0.0 || p <= 0.0) return 0.0;
  if (p >= 1.0) return count;
  if (std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
  const bool flip = p > 0.5;
  const double q = flip ? 1.0 - p : p;
  // count * q >= 10 in T's precision, as TensorFlow decides (for half: float)
  using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const bool btrs = static_cast<Wide>(count) * static_cast<Wide>(q) >= Wide(10);
  g.skip(static_cast<uint64_t>(k) * (btrs ? 256 : 42));
  UniformDoubles u(g);
  const double x = btrs ? binomial_btrs(count, q, u) : binomial_inversion(count, q, u);
  return flip ? count - x : x;
}

template <typename U>
U from_double(double v) {
  if constexpr (std::is_integral_v<U>) {
    return std::isnan(v) ? U(0) : static_cast<U>(v);
  } else {
    return U(static_cast<float>(v));
  }
}
template <>
double from_double<double>(double v) {
  return v;
}

template <typename T, typename U>
Status binomial(ops::StatelessRandomBinomialArgs& a) {
  Philox g;
  OPF_RETURN_IF_ERROR(seeded(a.ctx, a.seed, &g));
  Batches b;
  OPF_RETURN_IF_ERROR(broadcast_params(a.ctx, {&a.counts, &a.probs}, "counts and probs", a.output.shape(), &b));
  U* out = a.output.data<U>();
  const int64_t n = b.num_batches * b.samples;
  parallel_for(n, 256, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {  // k = batch * samples + sample, as TensorFlow numbers them
      const int64_t batch = k / b.samples, sample = k % b.samples;
      const double count = as_double<T>(a.counts, b.index[0][static_cast<size_t>(batch)]);
      const double p = as_double<T>(a.probs, b.index[1][static_cast<size_t>(batch)]);
      out[sample * b.num_batches + batch] = from_double<U>(binomial_sample<T>(g, k, count, p));
    }
  });
  return Status::OK();
}

template <typename T>
Status StatelessRandomBinomialCpu(ops::StatelessRandomBinomialArgs& a) {
  switch (a.dtype) {
    case DType::kHalf:
      return binomial<T, half>(a);
    case DType::kFloat:
      return binomial<T, float>(a);
    case DType::kDouble:
      return binomial<T, double>(a);
    case DType::kInt32:
      return binomial<T, int32_t>(a);
    default:
      return binomial<T, int64_t>(a);
  }
}

// ------------------------------------------------------------------------------ multinomial

template <typename T>
Status StatelessMultinomialCpu(ops::StatelessMultinomialArgs& a) {
  const Tensor& logits = a.logits;
  if (logits.rank() != 2) return a.ctx.error("logits should be a matrix, got shape ", logits.shape().to_string());
  if (a.num_samples.rank() != 0) {
    return a.ctx.error("num_samples should be a scalar, got shape ", a.num_samples.shape().to_string());
  }
  const int64_t batch = logits.dim(0), classes = logits.dim(1), n = a.num_samples.data<int32_t>()[0];
  if (n < 0) return a.ctx.error("num_samples should be nonnegative, got ", n);
  if (classes <= 0 && batch > 0 && n > 0) return a.ctx.error("num_classes should be positive, got ", classes);
  Philox g;
  OPF_RETURN_IF_ERROR(seeded(a.ctx, a.seed, &g));
  Tensor& out = a.output;
  rng::SingleSample words(g);
  std::vector<double> cdf(static_cast<size_t>(classes));
  for (int64_t b = 0; b < batch && n > 0; ++b) {
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < classes; ++j) {
      const double v = as_double<T>(logits, b * classes + j);
      if (std::isfinite(v)) max = std::max(max, v);
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {  // unnormalized; non-finite logits add nothing
      const double v = as_double<T>(logits, b * classes + j);
      if (std::isfinite(v)) total += std::exp(v - max);
      cdf[static_cast<size_t>(j)] = total;
    }
    for (int64_t s = 0; s < n; ++s) {
      const uint32_t x0 = words(), x1 = words();
      const double target = rng::uint64_to_double(x0, x1) * total;
      const int64_t cls = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
      if (out.dtype() == DType::kInt32)
        out.data<int32_t>()[b * n + s] = static_cast<int32_t>(cls);
      else
        out.data<int64_t>()[b * n + s] = cls;
    }
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ truncated normal

constexpr int kMaxIterations = 1000;

// Blocks of uniform [0, 1) or standard normal draws from one Philox output, in F's precision as
// TensorFlow's UniformDistribution / NormalDistribution give them: four floats, or two doubles.
template <typename F>
struct Blocks {
  static constexpr int kN = sizeof(F) == 4 ? 4 : 2;
  explicit Blocks(Philox g) : g(g) {}
  void uniform(F* r) {
    const Philox::Result w = g();
    if constexpr (kN == 4) {
      for (int k = 0; k < 4; ++k) r[k] = rng::uint32_to_float(w[static_cast<size_t>(k)]);
    } else {
      r[0] = rng::uint64_to_double(w[0], w[1]);
      r[1] = rng::uint64_to_double(w[2], w[3]);
    }
  }
  void normal(F* r) {
    const Philox::Result w = g();
    if constexpr (kN == 4) {
      rng::box_muller_float(w[0], w[1], &r[0], &r[1]);
      rng::box_muller_float(w[2], w[3], &r[2], &r[3]);
    } else {
      rng::box_muller_double(w[0], w[1], w[2], w[3], &r[0], &r[1]);
    }
  }
  Philox g;
};

template <typename F>
struct TruncParams {
  F mean, stddev, lo, hi;
};

// TensorFlow's sampler (its TruncatedNormalFunctorV2), read as one stream in output order
// (batch-major, sample-minor; TensorFlow's values wherever it runs the op in one shard): per
// parameter set, normal proposals when the bounds leave 1.3 standard deviations on a side,
// uniform proposals between close bounds, else exponential proposals from the lower bound.
template <typename F, typename Out>
Status truncated_normal(Philox g, const std::vector<TruncParams<F>>& params, int64_t samples, Out* out) {
  constexpr int kN = Blocks<F>::kN;
  Blocks<F> draw(g);
  const int64_t batches = static_cast<int64_t>(params.size()), total = batches * samples;
  F r[kN], u[kN];
  int64_t idx = 0;
  while (idx < total) {
    const int64_t batch = idx / samples;
    TruncParams<F> p = params[static_cast<size_t>(batch)];
    if ((std::isinf(p.lo) && p.lo < F(0)) || p.hi < p.mean) {  // mirror: the finite bound below
      std::swap(p.lo, p.hi);
      p.stddev = -p.stddev;
    }
    const F lo = (p.lo - p.mean) / p.stddev, hi = (p.hi - p.mean) / p.stddev;
    const F sqrt_factor = std::sqrt(lo * lo + F(4));
    const F cutoff = F(2) * std::exp(F(0.5) + (lo * (lo - sqrt_factor)) / F(4)) / (lo + sqrt_factor);
    const F diff = hi - lo;
    int64_t sample = idx % samples;
    int iterations = 0;
    auto put = [&](F z) {
      out[sample * batches + batch] = from_double<Out>(static_cast<double>(z * p.stddev + p.mean));
      ++sample;
      ++idx;
      iterations = 0;
      return sample >= samples;
    };
    const char* failed = nullptr;
    if ((lo < F(-1.3) && hi >= F(0)) || (hi > F(1.3) && lo <= F(0))) {
      while (sample < samples && !failed) {
        draw.normal(r);
        for (int i = 0; i < kN; ++i) {
          if (r[i] >= lo && r[i] <= hi) {
            if (put(r[i])) break;
          } else if (++iterations > kMaxIterations) {
            failed = "randn";
            break;
          }
        }
      }
    } else if (diff < cutoff) {
      const F plus = lo < F(0) ? F(0) : lo * lo;
      while (sample < samples && !failed) {
        F z[kN], e[kN];
        draw.uniform(r);
        for (int i = 0; i < kN; ++i) {
          z[i] = r[i] * diff + lo;
          e[i] = (plus - z[i] * z[i]) / F(2);
        }
        draw.uniform(u);
        for (int i = 0; i < kN; ++i) {
          if (u[i] <= std::exp(e[i])) {
            if (put(z[i])) break;
          } else if (++iterations >= kMaxIterations) {
            failed = "uniform";
            break;
          }
        }
      }
    } else {
      const F alpha = (lo + sqrt_factor) / F(2);
      while (sample < samples && !failed) {
        draw.uniform(r);
        for (int i = 0; i < kN; i += 2) {  // a proposal and its acceptance draw
          const F z = -std::log(r[i]) / alpha + lo;
          const F x = lo < alpha ? alpha - z : lo - alpha;
          if (r[i + 1] <= std::exp(-x * x / F(2)) && z < hi) {
            if (put(z)) break;
          } else if (++iterations >= kMaxIterations) {
            failed = "exponential";
            break;
          }
        }
      }
    }
    if (failed) {
      return errors::Internal("StatelessParameterizedTruncatedNormal: the ", failed,
                              " rejection sampler failed to accept a sample");
    }
  }
  return Status::OK();
}

template <typename T>
Status StatelessParameterizedTruncatedNormalCpu(ops::StatelessParameterizedTruncatedNormalArgs& a) {
  using F = std::conditional_t<std::is_same_v<T, double>, double, float>;  // half: float arithmetic
  Philox g;
  OPF_RETURN_IF_ERROR(seeded(a.ctx, a.seed, &g));
  Batches b;
  OPF_RETURN_IF_ERROR(broadcast_params(a.ctx, {&a.means, &a.stddevs, &a.minvals, &a.maxvals},
                                       "means, stddevs, minvals and maxvals", a.output.shape(), &b));
  std::vector<TruncParams<F>> params(static_cast<size_t>(b.num_batches));
  for (int64_t k = 0; k < b.num_batches; ++k) {
    const size_t kk = static_cast<size_t>(k);
    TruncParams<F> p{static_cast<F>(as_double<T>(a.means, b.index[0][kk])),
                     static_cast<F>(as_double<T>(a.stddevs, b.index[1][kk])),
                     static_cast<F>(as_double<T>(a.minvals, b.index[2][kk])),
                     static_cast<F>(as_double<T>(a.maxvals, b.index[3][kk]))};
    if (!(p.stddev > 0) || !(p.lo < p.hi) || (!std::isfinite(p.lo) && !std::isfinite(p.hi))) {
      return a.ctx.error("Invalid parameters: stddev ", p.stddev, " must be positive and minval ", p.lo,
                         " below maxval ", p.hi, ", one of them finite");
    }
    params[kk] = p;
  }
  return truncated_normal<F>(g, params, b.samples, a.output.data<T>());
}

}  // namespace

OPFORGE_REGISTER_KERNEL(StatelessRandomBinomial, CPU, StatelessRandomBinomialCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(StatelessMultinomial, CPU, StatelessMultinomialCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_KERNEL(StatelessParameterizedTruncatedNormal, CPU, StatelessParameterizedTruncatedNormalCpu, half,
                        float, double)

}  // namespace opforge
