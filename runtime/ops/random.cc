// The shape functions of the random ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// ---- random_ops (the kernels: kernels/cpu/random/random_ops.cc)

Status CandidateSamplerShape(ShapeContext& c) {
  const Shape& t = c.input_shape(0);
  if (!t.unknown_rank() && t.rank() != 2) return c.error("true_classes must be a matrix, got shape ", t.to_string());
  const int64_t num_sampled = c.attr(1).i;
  c.set_output(0, Shape({num_sampled}));
  c.set_output(1, t);
  c.set_output(2, Shape({num_sampled}));
  return Status::OK();
}

// StatelessMultinomial (kernels/cpu/random/stateless_samplers.cc): [batch_size, num_samples].
Status StatelessMultinomialShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 2, "a matrix [batch_size, num_classes]"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  const Shape& logits = c.input_shape(0);
  int64_t n = Shape::kUnknownDim;
  std::vector<int64_t> v;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &v, &known));
  if (known && v.size() == 1) {
    if (v[0] < 0) return c.error("num_samples should be nonnegative, got ", v[0]);
    n = v[0];
  }
  c.set_output(0, Shape({logits.unknown_rank() ? Shape::kUnknownDim : logits.dim(0), n}));
  return Status::OK();
}

// RandomIndexShuffle (kernels/cpu/random/random_index_shuffle.cc): a scalar when index and
// max_index are scalars and seed is [3]; else a vector of one output per index, max_index or seed row.
Status RandomIndexShuffleShape(ShapeContext& c) {
  const Shape& index = c.input_shape(0);
  const Shape& seed = c.input_shape(1);
  const Shape& max_index = c.input_shape(2);
  if (!index.unknown_rank() && index.rank() > 1)
    return c.error("index must be a scalar or vector, got ", index.to_string());
  if (!max_index.unknown_rank() && max_index.rank() > 1) {
    return c.error("max_index must be a scalar or vector, got ", max_index.to_string());
  }
  if (!seed.unknown_rank() && (seed.rank() < 1 || seed.rank() > 2 || seed.dim(seed.rank() - 1) == 0 ||
                               (seed.dim(seed.rank() - 1) > 0 && seed.dim(seed.rank() - 1) != 3))) {
    return c.error("seed must be a vector of size [3] or a matrix of size [n, 3], got ", seed.to_string());
  }
  if (index.unknown_rank() || seed.unknown_rank() || max_index.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (index.rank() == 0 && seed.rank() == 1 && max_index.rank() == 0) {
    c.set_output(0, Shape({}));
    return Status::OK();
  }
  int64_t n = Shape::kUnknownDim;
  if (index.rank() == 1 && index.dim(0) >= 0) n = index.dim(0);
  if (max_index.rank() == 1 && max_index.dim(0) >= 0) n = max_index.dim(0);
  if (seed.rank() == 2 && seed.dim(0) >= 0) n = seed.dim(0);
  c.set_output(0, Shape({n}));
  return Status::OK();
}

[[maybe_unused]] const bool candidate_sampler_shape_registered = [] {
  shape_fns::register_custom("LogUniformCandidateSampler", CandidateSamplerShape);
  shape_fns::register_custom("UniformCandidateSampler", CandidateSamplerShape);
  shape_fns::register_custom("FixedUnigramCandidateSampler", CandidateSamplerShape);
  shape_fns::register_custom("LearnedUnigramCandidateSampler", CandidateSamplerShape);
  shape_fns::register_custom("AllCandidateSampler", CandidateSamplerShape);
  shape_fns::register_custom("ComputeAccidentalHits", [](ShapeContext& c) {
    const Shape& t = c.input_shape(0);
    if (!t.unknown_rank() && t.rank() != 2) return c.error("true_classes must be a matrix, got shape ", t.to_string());
    const Shape& s = c.input_shape(1);
    if (!s.unknown_rank() && s.rank() != 1) {
      return c.error("sampled_candidates must be a vector, got shape ", s.to_string());
    }
    for (int i = 0; i < 3; ++i) c.set_output(i, Shape({-1}));
    return Status::OK();
  });
  return true;
}();

// ---- RandomGamma, RandomPoissonV2 and their stateless forms (kernels/cpu/random/random_gamma_poisson.cc):
// the output is the shape tensor's value followed by the parameter's shape (stateless: the shape
// tensor's value alone, the parameter broadcasting against it).
Status SamplesTimesParamShape(ShapeContext& c, int shape_arg, int param_arg, bool append_param = true) {
  const Shape& st = c.input_shape(shape_arg);
  if (!st.unknown_rank() && st.rank() != 1) return c.error("shape must be a vector, got shape ", st.to_string());
  std::vector<int64_t> dims;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, shape_arg, &dims, &known));
  const Shape p = append_param ? c.input_shape(param_arg) : Shape(std::vector<int64_t>{});
  if (known) {
    for (int64_t d : dims) {
      if (d < 0) return c.error("shape must hold non-negative dims, got ", d);
    }
  } else if (st.unknown_rank() || st.dim(0) < 0 || p.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  } else {
    dims.assign(static_cast<size_t>(st.dim(0)), -1);
  }
  if (p.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  for (int i = 0; i < p.rank(); ++i) dims.push_back(p.dim(i));
  c.set_output(0, Shape(dims));
  return Status::OK();
}

[[maybe_unused]] const bool gamma_poisson_shapes_registered = [] {
  shape_fns::register_custom("RandomGamma", [](ShapeContext& c) { return SamplesTimesParamShape(c, 0, 1); });
  shape_fns::register_custom("RandomPoissonV2", [](ShapeContext& c) { return SamplesTimesParamShape(c, 0, 1); });
  shape_fns::register_custom("StatelessRandomGammaV2",
                             [](ShapeContext& c) { return SamplesTimesParamShape(c, 0, 2, false); });
  shape_fns::register_custom("StatelessRandomPoisson",
                             [](ShapeContext& c) { return SamplesTimesParamShape(c, 0, 2, false); });
  shape_fns::register_custom("StatelessMultinomial", StatelessMultinomialShape);
  shape_fns::register_custom("RandomIndexShuffle", RandomIndexShuffleShape);
  return true;
}();

}  // namespace
}  // namespace opforge
