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
  return true;
}();

}  // namespace
}  // namespace opforge
