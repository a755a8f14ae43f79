// Candidate samplers other than the log-uniform one (random_ops.cc): UniformCandidateSampler,
// FixedUnigramCandidateSampler, LearnedUnigramCandidateSampler, AllCandidateSampler; and
// ComputeAccidentalHits. Samples come one
// after another from the op's Philox stream (random_stream.h), rejection of repeats included,
// so `unique` sampling is deterministic for a seed.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/random/philox.h"
#include "cpu/random/random_stream.h"
#include "opforge/ops/random/all_candidate_sampler.h"
#include "opforge/ops/random/compute_accidental_hits.h"
#include "opforge/ops/random/fixed_unigram_candidate_sampler.h"
#include "opforge/ops/random/learned_unigram_candidate_sampler.h"
#include "opforge/ops/random/uniform_candidate_sampler.h"

namespace opforge {
namespace rng {
namespace {

// The expected number of times a class of probability p appears among the samples (see
// random_ops.cc): p * num_sampled, or 1 - (1 - p)^tries with `unique`.
float expected(double p, int64_t num_sampled, int64_t tries) {
  if (tries == num_sampled) return static_cast<float>(p * static_cast<double>(num_sampled));
  return static_cast<float>(-std::expm1(static_cast<double>(tries) * std::log1p(-p)));
}

Status check_true_classes(KernelContext& ctx, const Tensor& t, int64_t num_true, int64_t range_max) {
  if (t.rank() != 2 || t.dim(1) != num_true) {
    return ctx.error("true_classes must be a matrix with num_true (", num_true, ") columns, got shape ",
                     t.shape().to_string());
  }
  const int64_t* v = t.data<int64_t>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (v[i] < 0 || v[i] >= range_max) {
      return ctx.error("true_classes[", i / num_true, ", ", i % num_true, "] = ", v[i],
                       " is not in [0, range_max = ", range_max, ")");
    }
  }
  return Status::OK();
}

// Draws num_sampled classes with draw(words) (a class in [0, range_max)), without repeats when
// unique, and fills the expected counts from probability(k).
template <typename Args, typename Draw, typename Prob>
Status sample_candidates(Args& a, int64_t range_max, Draw draw, Prob probability) {
  if (a.unique && a.num_sampled > range_max) {
    return a.ctx.error("Sampler's range is too small: num_sampled ", a.num_sampled, " > range_max ", range_max,
                       " with unique=True");
  }
  OPF_RETURN_IF_ERROR(check_true_classes(a.ctx, a.true_classes, a.num_true, range_max));
  int64_t* sampled = a.sampled_candidates.template data<int64_t>();
  int64_t tries = 0;
  OPF_RETURN_IF_ERROR(draw_from_stream(a.ctx, DType::kInt64, a.seed, a.seed2, [&](Philox& g) {
    SingleSample words(g);
    uint64_t used = 0;
    auto uniform = [&]() {  // [0, 1) from two words, as TensorFlow's RandDouble
      used += 2;
      const uint32_t x0 = words(), x1 = words();
      return uint64_to_double(x0, x1);
    };
    std::set<int64_t> seen;
    for (int64_t n = 0; n < a.num_sampled;) {
      const int64_t k = draw(uniform);
      ++tries;
      if (a.unique && !seen.insert(k).second) continue;
      sampled[n++] = k;
    }
    return (used + 3) / 4;
  }));
  const int64_t* t = a.true_classes.template data<int64_t>();
  float* te = a.true_expected_count.template data<float>();
  for (int64_t i = 0; i < a.true_classes.num_elements(); ++i) te[i] = expected(probability(t[i]), a.num_sampled, tries);
  float* se = a.sampled_expected_count.template data<float>();
  for (int64_t n = 0; n < a.num_sampled; ++n) se[n] = expected(probability(sampled[n]), a.num_sampled, tries);
  return Status::OK();
}

Status UniformCandidateSamplerCpu(ops::UniformCandidateSamplerArgs& a) {
  const int64_t range = a.range_max;
  const double p = 1.0 / static_cast<double>(range);
  return sample_candidates(
      a, range, [&](auto& uniform) { return std::min<int64_t>(range - 1, static_cast<int64_t>(uniform() * range)); },
      [&](int64_t) { return p; });
}

// The counts of a vocabulary file: one CSV line per class, its last field the count.
Status read_vocab_counts(KernelContext& ctx, const std::string& path, std::vector<float>* out) {
  std::ifstream in(path);
  if (!in) return ctx.error("cannot read vocab_file '", path, "'");
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const size_t comma = line.rfind(',');
    const std::string field = comma == std::string::npos ? line : line.substr(comma + 1);
    char* end = nullptr;
    const float v = std::strtof(field.c_str(), &end);
    if (end == field.c_str()) return ctx.error("vocab_file '", path, "' line ", n, ": no count in '", line, "'");
    out->push_back(v);
  }
  return Status::OK();
}

Status FixedUnigramCandidateSamplerCpu(ops::FixedUnigramCandidateSamplerArgs& a) {
  if (a.shard >= a.num_shards) return a.ctx.error("shard ", a.shard, " must be below num_shards ", a.num_shards);
  if (a.vocab_file.empty() == a.unigrams.empty()) {
    return a.ctx.error("exactly one of vocab_file and unigrams must be given");
  }
  std::vector<float> counts;
  if (!a.vocab_file.empty()) {
    OPF_RETURN_IF_ERROR(read_vocab_counts(a.ctx, a.vocab_file, &counts));
  } else {
    counts = a.unigrams;
  }
  // TensorFlow's FixedUnigramSampler: reserved ids weigh 0, each class its count^distortion;
  // a shard keeps the classes k with k % num_shards == shard, indexed shard-locally.
  std::vector<double> weights;
  int64_t id = 0;
  for (; id < a.num_reserved_ids; ++id) {
    if (id % a.num_shards == a.shard) weights.push_back(0.0);
  }
  for (float c : counts) {
    if (!(c >= 0.0f)) return a.ctx.error("unigram counts must be non-negative, got ", c);
    if (id % a.num_shards == a.shard) weights.push_back(std::pow(static_cast<double>(c), a.distortion));
    ++id;
  }
  if (static_cast<int64_t>(weights.size()) != a.range_max) {
    return a.ctx.error("range_max (", a.range_max, ") must equal the number of classes of this shard (", weights.size(),
                       ": num_reserved_ids + the unigram counts)");
  }
  std::vector<double> cdf(weights.size());
  double total = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) cdf[i] = total += weights[i];
  if (!(total > 0.0)) return a.ctx.error("the unigram weights sum to ", total, "; they must have a positive sum");
  const int64_t range = a.range_max;
  return sample_candidates(
      a, range,
      [&](auto& uniform) {
        const double target = uniform() * total;
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
        return std::min<int64_t>(range - 1, static_cast<int64_t>(it - cdf.begin()));
      },
      [&](int64_t k) { return weights[static_cast<size_t>(k)] / total; });
}

// The weights LearnedUnigramCandidateSampler has learned (1 + times a true class): in a graph
// a resource of the Session per node, as TensorFlow keeps them in the node's kernel; eagerly
// per (seed, seed2, range_max). fn(weights) samples with them and updates them.
template <typename Fn>
Status with_learned_weights(KernelContext& ctx, int64_t range, int64_t seed, int64_t seed2, Fn fn) {
  if (ExecEnv* env = ctx.env(); env && env->resources && env->node_name) {
    Variable* v = nullptr;
    OPF_RETURN_IF_ERROR(env->resources->lookup_or_create("_opforge_learned_unigram/" + *env->node_name, DType::kInt64,
                                                         Shape({range}), &v));
    std::lock_guard<std::mutex> lock(v->mu);
    std::vector<int64_t> weights(static_cast<size_t>(range), 1);
    if (v->initialized && v->value.num_elements() == range) {
      std::copy_n(v->value.data<int64_t>(), range, weights.begin());
    }
    OPF_RETURN_IF_ERROR(fn(weights));
    Tensor next;
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({range}), &next));
    std::copy(weights.begin(), weights.end(), next.data<int64_t>());
    v->value = std::move(next);
    v->initialized = true;
    return Status::OK();
  }
  static std::mutex mu;
  static auto* learned = new std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<int64_t>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = learned->try_emplace(std::make_tuple(seed, seed2, range), static_cast<size_t>(range), 1).first;
  std::vector<int64_t> weights = it->second;
  OPF_RETURN_IF_ERROR(fn(weights));
  it->second = std::move(weights);
  return Status::OK();
}

Status LearnedUnigramCandidateSamplerCpu(ops::LearnedUnigramCandidateSamplerArgs& a) {
  const int64_t range = a.range_max;
  return with_learned_weights(a.ctx, range, a.seed, a.seed2, [&](std::vector<int64_t>& weights) {
    std::vector<double> cdf(weights.size());
    double total = 0.0;
    for (size_t i = 0; i < weights.size(); ++i) cdf[i] = total += static_cast<double>(weights[i]);
    OPF_RETURN_IF_ERROR(sample_candidates(
        a, range,
        [&](auto& uniform) {
          const double target = uniform() * total;
          const auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
          return std::min<int64_t>(range - 1, static_cast<int64_t>(it - cdf.begin()));
        },
        [&](int64_t k) { return static_cast<double>(weights[static_cast<size_t>(k)]) / total; }));
    const int64_t* t = a.true_classes.data<int64_t>();  // in range: sample_candidates checked them
    for (int64_t i = 0; i < a.true_classes.num_elements(); ++i) ++weights[static_cast<size_t>(t[i])];
    return Status::OK();
  });
}

Status AllCandidateSamplerCpu(ops::AllCandidateSamplerArgs& a) {
  const Tensor& t = a.true_classes;
  if (t.rank() != 2 || t.dim(1) != a.num_true) {
    return a.ctx.error("true_classes must be a matrix with num_true (", a.num_true, ") columns, got shape ",
                       t.shape().to_string());
  }
  int64_t* sampled = a.sampled_candidates.data<int64_t>();
  for (int64_t i = 0; i < a.num_sampled; ++i) sampled[i] = i;
  std::fill_n(a.true_expected_count.data<float>(), t.num_elements(), 1.0f);
  std::fill_n(a.sampled_expected_count.data<float>(), a.num_sampled, 1.0f);
  return Status::OK();
}

Status ComputeAccidentalHitsCpu(ops::ComputeAccidentalHitsArgs& a) {
  const Tensor& t = a.true_classes;
  const Tensor& s = a.sampled_candidates;
  if (t.rank() != 2 || t.dim(1) != a.num_true) {
    return a.ctx.error("true_classes must be a matrix with num_true (", a.num_true, ") columns, got shape ",
                       t.shape().to_string());
  }
  if (s.rank() != 1) return a.ctx.error("sampled_candidates must be a vector, got shape ", s.shape().to_string());
  std::map<int64_t, std::vector<int64_t>> positions;  // class -> its positions among the samples
  const int64_t* sv = s.data<int64_t>();
  for (int64_t j = 0; j < s.num_elements(); ++j) positions[sv[j]].push_back(j);
  std::vector<int32_t> rows;
  std::vector<int64_t> ids;
  const int64_t* tv = t.data<int64_t>();
  for (int64_t i = 0; i < t.dim(0); ++i) {
    for (int64_t c = 0; c < a.num_true; ++c) {
      const auto it = positions.find(tv[i * a.num_true + c]);
      if (it == positions.end()) continue;
      for (int64_t j : it->second) {
        rows.push_back(static_cast<int32_t>(i));
        ids.push_back(j);
      }
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  // the number of hits is known only now: the kernel allocates its outputs (a forwarding kernel)
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({n}), &a.indices));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({n}), &a.ids));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat, Shape({n}), &a.weights));
  std::copy(rows.begin(), rows.end(), a.indices.data<int32_t>());
  std::copy(ids.begin(), ids.end(), a.ids.data<int64_t>());
  std::fill_n(a.weights.data<float>(), n, -FLT_MAX);
  return Status::OK();
}

}  // namespace
}  // namespace rng

using namespace rng;  // NOLINT: the registration macros name kernels unqualified

OPFORGE_REGISTER_UNTYPED_KERNEL(UniformCandidateSampler, CPU, UniformCandidateSamplerCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FixedUnigramCandidateSampler, CPU, FixedUnigramCandidateSamplerCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(LearnedUnigramCandidateSampler, CPU, LearnedUnigramCandidateSamplerCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(AllCandidateSampler, CPU, AllCandidateSamplerCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ComputeAccidentalHits, CPU, ComputeAccidentalHitsCpu)

}  // namespace opforge
