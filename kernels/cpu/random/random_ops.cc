// Random ops on Philox4x32-10 (philox.h), seeded as in TensorFlow.
//
// Stateful ops (RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt,
// RandomShuffle) continue a stream per (op, dtype, seed, seed2) when run eagerly — as
// TensorFlow's cached eager kernels do — and per graph node within a Session (the stream
// position lives in the session's resource manager, so a new Session starts over). seed =
// seed2 = 0 picks a non-deterministic stream. Stateless ops derive the stream from their seed
// input alone.
//
// Every output element's words come from a fixed counter offset, so the work is split across
// threads without changing the values.
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <random>
#include <tuple>

#include "cpu/cpu_util.h"
#include "cpu/random/philox.h"
#include "cpu/random/random_stream.h"
#include "opforge/kernel.h"
#include "opforge/ops/random/log_uniform_candidate_sampler.h"
#include "opforge/ops/random/random_shuffle.h"
#include "opforge/ops/random/random_standard_normal.h"
#include "opforge/ops/random/random_uniform.h"
#include "opforge/ops/random/random_uniform_int.h"
#include "opforge/ops/random/stateless_random_normal.h"
#include "opforge/ops/random/stateless_random_uniform.h"
#include "opforge/ops/random/stateless_random_uniform_int.h"
#include "opforge/ops/random/stateless_truncated_normal.h"
#include "opforge/ops/random/truncated_normal.h"
#include "src/random_state.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace rng {
namespace {

template <typename T>
constexpr bool is_double_v = std::is_same_v<T, double>;

// Elements one Philox output covers for uniform/normal draws of T.
template <typename T>
constexpr int64_t per_block() {
  return sizeof(T) == 8 ? 2 : 4;
}

// Truncated normals: each group of per_block<T>() outputs draws from its own sub-stream of
// 256 32-bit samples per output, as TensorFlow reserves them (kReservedSamplesPerOutput):
// 256 Philox outputs per group of 4 floats, 128 per group of 2 doubles. Enough that running
// out has probability ~0.05^1000.
template <typename T>
constexpr uint64_t truncated_blocks() {
  return static_cast<uint64_t>(per_block<T>()) * 256 / 4;
}

template <typename T>
uint64_t blocks_for(int64_t n, bool truncated) {
  const uint64_t groups = static_cast<uint64_t>((n + per_block<T>() - 1) / per_block<T>());
  return truncated ? groups * truncated_blocks<T>() : groups;
}

template <typename T>
T from_unit_bits(uint32_t x) {  // [0, 1) in T's precision
  if constexpr (std::is_same_v<T, float>)
    return uint32_to_float(x);
  else if constexpr (std::is_same_v<T, half>)
    return T(static_cast<float>(x & 0x3ffu) / 1024.0f);
  else
    return T(static_cast<float>(x & 0x7fu) / 128.0f);  // bfloat16
}

enum class Dist { kUniform, kNormal, kTruncated };

// Fills out[0, n) with draws of `dist` from generator g (already at the reservation start).
template <typename T>
void generate(Philox g, Dist dist, T* out, int64_t n) {
  constexpr int64_t per = per_block<T>();
  const int64_t groups = (n + per - 1) / per;
  parallel_for(groups, 2048, [&](int64_t b, int64_t e) {
    Philox gen = g;
    gen.skip(static_cast<uint64_t>(b) * (dist == Dist::kTruncated ? truncated_blocks<T>() : 1));
    T vals[4];
    for (int64_t grp = b; grp < e; ++grp) {
      if (dist == Dist::kTruncated) {
        Philox sub = g;
        sub.skip(static_cast<uint64_t>(grp) * truncated_blocks<T>());
        SingleSample words(sub);
        int k = 0;
        while (k < per) {
          if constexpr (is_double_v<T>) {
            double d0, d1;
            const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
            box_muller_double(x0, x1, x2, x3, &d0, &d1);
            if (std::fabs(d0) < 2.0) vals[k++] = d0;
            if (k < per && std::fabs(d1) < 2.0) vals[k++] = d1;
          } else {
            float f0, f1;
            const uint32_t x0 = words(), x1 = words();
            box_muller_float(x0, x1, &f0, &f1);
            if (std::fabs(f0) < 2.0f) vals[k++] = T(f0);
            if (k < per && std::fabs(f1) < 2.0f) vals[k++] = T(f1);
          }
        }
      } else {
        const Philox::Result w = gen();
        if constexpr (is_double_v<T>) {
          if (dist == Dist::kUniform) {
            vals[0] = uint64_to_double(w[0], w[1]);
            vals[1] = uint64_to_double(w[2], w[3]);
          } else {
            box_muller_double(w[0], w[1], w[2], w[3], &vals[0], &vals[1]);
          }
        } else {
          if (dist == Dist::kUniform) {
            for (int k = 0; k < 4; ++k) vals[k] = from_unit_bits<T>(w[static_cast<size_t>(k)]);
          } else {
            float f[4];
            box_muller_float(w[0], w[1], &f[0], &f[1]);
            box_muller_float(w[2], w[3], &f[2], &f[3]);
            for (int k = 0; k < 4; ++k) vals[k] = T(f[k]);
          }
        }
      }
      const int64_t base = grp * per;
      const int64_t m = std::min<int64_t>(per, n - base);
      for (int64_t k = 0; k < m; ++k) out[base + k] = vals[k];
    }
  });
}

template <typename T>
Status stateful(KernelContext& ctx, Dist dist, int64_t seed, int64_t seed2, Tensor& out) {
  const int64_t n = out.num_elements();
  Philox g;
  OPF_RETURN_IF_ERROR(reserve(ctx, DTypeOf<T>::value, seed, seed2, blocks_for<T>(n, dist == Dist::kTruncated), &g));
  generate<T>(g, dist, out.data<T>(), n);
  return Status::OK();
}

template <typename T>
Status RandomUniformCpu(ops::RandomUniformArgs& a) {
  return stateful<T>(a.ctx, Dist::kUniform, a.seed, a.seed2, a.output);
}
template <typename T>
Status RandomStandardNormalCpu(ops::RandomStandardNormalArgs& a) {
  return stateful<T>(a.ctx, Dist::kNormal, a.seed, a.seed2, a.output);
}
template <typename T>
Status TruncatedNormalCpu(ops::TruncatedNormalArgs& a) {
  return stateful<T>(a.ctx, Dist::kTruncated, a.seed, a.seed2, a.output);
}

// ------------------------------------------------------------------------------ integers

template <typename T>
Status int_bounds(KernelContext& ctx, const Tensor& lo, const Tensor& hi, T* l, T* h) {
  if (lo.rank() != 0 || hi.rank() != 0) {
    return ctx.error("minval and maxval must be scalars, got shapes ", lo.shape().to_string(), " and ",
                     hi.shape().to_string());
  }
  *l = lo.data<T>()[0];
  *h = hi.data<T>()[0];
  if (!(*l < *h)) return ctx.error("need minval < maxval, got ", int64_t{*l}, " >= ", int64_t{*h});
  return Status::OK();
}

// lo + (bits mod range): one word per int32, two per int64 (TensorFlow's UniformDistribution).
template <typename T>
void generate_int(Philox g, T lo, T hi, T* out, int64_t n) {
  using U = std::make_unsigned_t<T>;
  const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  constexpr int64_t per = per_block<T>();
  const int64_t groups = (n + per - 1) / per;
  parallel_for(groups, 2048, [&](int64_t b, int64_t e) {
    Philox gen = g;
    gen.skip(static_cast<uint64_t>(b));
    for (int64_t grp = b; grp < e; ++grp) {
      const Philox::Result w = gen();
      for (int64_t k = 0; k < per && grp * per + k < n; ++k) {
        U bits;
        if constexpr (sizeof(T) == 8)
          bits = static_cast<U>(w[2 * k] | (uint64_t{w[2 * k + 1]} << 32));
        else
          bits = static_cast<U>(w[k]);
        out[grp * per + k] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
      }
    }
  });
}

template <typename T>
Status RandomUniformIntCpu(ops::RandomUniformIntArgs& a) {
  T lo, hi;
  OPF_RETURN_IF_ERROR(int_bounds<T>(a.ctx, a.minval, a.maxval, &lo, &hi));
  const int64_t n = a.output.num_elements();
  Philox g;
  OPF_RETURN_IF_ERROR(reserve(a.ctx, DTypeOf<T>::value, a.seed, a.seed2, blocks_for<T>(n, false), &g));
  generate_int<T>(g, lo, hi, a.output.data<T>(), n);
  return Status::OK();
}

// ------------------------------------------------------------------------------ RandomShuffle

template <typename T>
Status RandomShuffleCpu(ops::RandomShuffleArgs& a) {
  const Tensor& v = a.value;
  const int64_t n = v.rank() == 0 ? 1 : v.dim(0);
  const int64_t row = n == 0 ? 0 : v.num_elements() / n;
  Philox g;
  OPF_RETURN_IF_ERROR(
      reserve(a.ctx, DTypeOf<T>::value, a.seed, a.seed2, static_cast<uint64_t>((2 * n + 3) / 4 + 1), &g));
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
  SingleSample words(g);
  for (int64_t i = n - 1; i > 0; --i) {  // Fisher-Yates
    const uint64_t bound = static_cast<uint64_t>(i) + 1;
    uint64_t r = words();
    if (bound > 0xffffffffu) r = (r << 32) | words();
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(r % bound)]);
  }
  const char* src = static_cast<const char*>(v.raw_data());
  char* dst = static_cast<char*>(a.output.raw_data());
  const size_t bytes = static_cast<size_t>(row) * sizeof(T);
  if (bytes == 0) return Status::OK();
  parallel_for(n, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, row)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) std::memcpy(dst + i * bytes, src + perm[static_cast<size_t>(i)] * bytes, bytes);
  });
  return Status::OK();
}

// ------------------------------------------------------------------------------ stateless

Status stateless_seed(KernelContext& ctx, const Tensor& seed, Philox* g) {
  if (seed.rank() != 1 || seed.dim(0) != 2) {
    return ctx.error("seed must have shape [2], got ", seed.shape().to_string());
  }
  uint64_t s0, s1;
  if (seed.dtype() == DType::kInt32) {
    s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0]));
    s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1]));
  } else {
    s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
  }
  *g = stateless_philox(s0, s1);
  return Status::OK();
}

template <typename T, typename Args>
Status stateless(Args& a, Dist dist) {
  Philox g;
  OPF_RETURN_IF_ERROR(stateless_seed(a.ctx, a.seed, &g));
  generate<T>(g, dist, a.output.template data<T>(), a.output.num_elements());
  return Status::OK();
}

template <typename T>
Status StatelessRandomUniformCpu(ops::StatelessRandomUniformArgs& a) {
  return stateless<T>(a, Dist::kUniform);
}
template <typename T>
Status StatelessRandomNormalCpu(ops::StatelessRandomNormalArgs& a) {
  return stateless<T>(a, Dist::kNormal);
}
template <typename T>
Status StatelessTruncatedNormalCpu(ops::StatelessTruncatedNormalArgs& a) {
  return stateless<T>(a, Dist::kTruncated);
}

template <typename T>
Status StatelessRandomUniformIntCpu(ops::StatelessRandomUniformIntArgs& a) {
  T lo, hi;
  OPF_RETURN_IF_ERROR(int_bounds<T>(a.ctx, a.minval, a.maxval, &lo, &hi));
  Philox g;
  OPF_RETURN_IF_ERROR(stateless_seed(a.ctx, a.seed, &g));
  generate_int<T>(g, lo, hi, a.output.template data<T>(), a.output.num_elements());
  return Status::OK();
}

// ------------------------------------------------------------------------------ candidate sampling

// Counts the 32-bit words drawn, to advance the stream by the Philox outputs used.
class CountingSample {
 public:
  explicit CountingSample(Philox g) : words_(g) {}
  uint32_t operator()() {
    ++n_;
    return words_();
  }
  double uniform_double() {  // [0, 1) from two words, as TensorFlow's RandDouble
    const uint32_t x0 = (*this)(), x1 = (*this)();
    return uint64_to_double(x0, x1);
  }
  uint64_t blocks() const { return (n_ + 3) / 4; }

 private:
  SingleSample words_;
  uint64_t n_ = 0;
};

// The expected number of times a class of probability p appears among the samples:
// p * num_sampled when sampling with replacement; with `unique`, 1 - (1 - p)^tries, where
// tries counts every draw, the rejected repeats included (TensorFlow's rule).
float expected_count(double p, int64_t num_sampled, int64_t tries) {
  if (tries == num_sampled) return static_cast<float>(p * static_cast<double>(num_sampled));
  return static_cast<float>(-std::expm1(static_cast<double>(tries) * std::log1p(-p)));
}

// The log-uniform (Zipfian) distribution over [0, range_max): P(k) = log((k + 2) / (k + 1)) /
// log(range_max + 1), so small class ids (frequent words, in a vocabulary sorted by
// frequency) are drawn more often.
Status LogUniformCandidateSamplerCpu(ops::LogUniformCandidateSamplerArgs& a) {
  if (a.unique && a.num_sampled > a.range_max) {
    return a.ctx.error("Sampler's range is too small: num_sampled ", a.num_sampled, " > range_max ", a.range_max,
                       " with unique=True");
  }
  const Tensor& t = a.true_classes;
  if (t.rank() != 2 || t.dim(1) != a.num_true) {
    return a.ctx.error("true_classes must be a matrix with num_true (", a.num_true, ") columns, got shape ",
                       t.shape().to_string());
  }
  const double log_range = std::log1p(static_cast<double>(a.range_max));
  auto probability = [&](int64_t k) { return std::log((k + 2.0) / (k + 1.0)) / log_range; };
  const int64_t* true_classes = t.data<int64_t>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (true_classes[i] < 0 || true_classes[i] >= a.range_max) {
      return a.ctx.error("true_classes[", i / a.num_true, ", ", i % a.num_true, "] = ", true_classes[i],
                         " is not in [0, range_max = ", a.range_max, ")");
    }
  }
  int64_t* sampled = a.sampled_candidates.data<int64_t>();
  int64_t tries = 0;
  OPF_RETURN_IF_ERROR(draw_from_stream(a.ctx, DType::kInt64, a.seed, a.seed2, [&](Philox& g) {
    CountingSample sample(g);
    std::set<int64_t> seen;
    for (int64_t n = 0; n < a.num_sampled;) {
      const double value = std::exp(sample.uniform_double() * log_range) - 1.0;
      const int64_t k = static_cast<int64_t>(value) % a.range_max;
      ++tries;
      if (a.unique && !seen.insert(k).second) continue;
      sampled[n++] = k;
    }
    return sample.blocks();
  }));
  float* true_expected = a.true_expected_count.data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    true_expected[i] = expected_count(probability(true_classes[i]), a.num_sampled, tries);
  }
  float* sampled_expected = a.sampled_expected_count.data<float>();
  for (int64_t n = 0; n < a.num_sampled; ++n) {
    sampled_expected[n] = expected_count(probability(sampled[n]), a.num_sampled, tries);
  }
  return Status::OK();
}

}  // namespace

void reset_eager_streams() {
  std::lock_guard<std::mutex> lock(eager_mu);
  eager_streams().clear();
}

}  // namespace rng

using namespace rng;  // NOLINT: the registration macros name kernels unqualified

#define OPF_RAND_FLOATS half, bfloat16, float, double

OPFORGE_REGISTER_KERNEL(RandomUniform, CPU, RandomUniformCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(RandomStandardNormal, CPU, RandomStandardNormalCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(TruncatedNormal, CPU, TruncatedNormalCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(RandomUniformInt, CPU, RandomUniformIntCpu, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(RandomShuffle, CPU, RandomShuffleCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
                        bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(StatelessRandomUniform, CPU, StatelessRandomUniformCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(StatelessRandomNormal, CPU, StatelessRandomNormalCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(StatelessTruncatedNormal, CPU, StatelessTruncatedNormalCpu, OPF_RAND_FLOATS)
OPFORGE_REGISTER_KERNEL(StatelessRandomUniformInt, CPU, StatelessRandomUniformIntCpu, int32_t, int64_t)
OPFORGE_REGISTER_UNTYPED_KERNEL(LogUniformCandidateSampler, CPU, LogUniformCandidateSamplerCpu)

namespace {}  // namespace

}  // namespace opforge
