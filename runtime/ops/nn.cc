// The shape functions of the nn ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/window.h"
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

using nn_semantics::channel_dim;
using nn_semantics::channel_first;
using nn_semantics::read_k;

// ---- softmax_bias (the kernels: kernels/cpu/nn/softmax_bias.cc)

Status SoftmaxShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  if (!s.unknown_rank() && s.rank() < 1) {
    return c.error("logits must have at least one dimension, got shape ", s.to_string());
  }
  c.set_output(0, s);
  return Status::OK();
}

int64_t merge_dim(int64_t a, int64_t b) { return a < 0 ? b : a; }

Status XentShape(ShapeContext& c) {
  const Shape& f = c.input_shape(0);
  const Shape& l = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "features", f, 2));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "labels", l, 2));
  Shape out({-1, -1});
  if (!f.unknown_rank() && !l.unknown_rank()) {
    OPF_RETURN_IF_ERROR(broadcast_shapes(f, l, &out, c.op().name));
  } else if (!f.unknown_rank()) {
    out = Shape({f.dim(0) == 1 ? -1 : f.dim(0), f.dim(1) == 1 ? -1 : f.dim(1)});
  } else if (!l.unknown_rank()) {
    out = Shape({l.dim(0) == 1 ? -1 : l.dim(0), l.dim(1) == 1 ? -1 : l.dim(1)});
  }
  c.set_output(0, Shape({out.dim(0)}));
  c.set_output(1, out);
  return Status::OK();
}

Status SparseXentShape(ShapeContext& c) {
  const Shape& f = c.input_shape(0);
  const Shape& l = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "features", f, 2));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "labels", l, 1));
  int64_t b = f.unknown_rank() ? -1 : f.dim(0);
  const int64_t lb = l.unknown_rank() ? -1 : l.dim(0);
  if (b >= 0 && lb >= 0 && b != lb) {
    return c.error("features and labels must have the same first dimension, got features shape ", f.to_string(),
                   " and labels shape ", l.to_string());
  }
  b = merge_dim(b, lb);
  c.set_output(0, Shape({b}));
  c.set_output(1, Shape({b, f.unknown_rank() ? -1 : f.dim(1)}));
  return Status::OK();
}

Status BiasAddShape(ShapeContext& c) {
  const Shape& v = c.input_shape(0);
  const Shape& b = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "bias", b, 1));
  if (!v.unknown_rank()) {
    if (v.rank() < 2) return c.error("value must be at least 2-dimensional, got shape ", v.to_string());
    const int64_t ch = v.dim(channel_dim(nn::attr(c, "data_format").s, v.rank()));
    if (!b.unknown_rank() && ch >= 0 && b.dim(0) >= 0 && ch != b.dim(0)) {
      return c.error("must provide as many biases as the channel dimension of value: bias has ", b.dim(0),
                     " values, value has shape ", v.to_string());
    }
  }
  c.set_output(0, v);
  return Status::OK();
}

Status BiasAddGradShape(ShapeContext& c) {
  const Shape& g = c.input_shape(0);
  if (g.unknown_rank()) {
    c.set_output(0, Shape({-1}));
    return Status::OK();
  }
  if (g.rank() < 2) return c.error("out_backprop must be at least 2-dimensional, got shape ", g.to_string());
  c.set_output(0, Shape({g.dim(channel_dim(nn::attr(c, "data_format").s, g.rank()))}));
  return Status::OK();
}

[[maybe_unused]] const bool softmax_shapes_registered = [] {
  shape_fns::register_custom("Softmax", SoftmaxShape);
  shape_fns::register_custom("LogSoftmax", SoftmaxShape);
  shape_fns::register_custom("SoftmaxCrossEntropyWithLogits", XentShape);
  shape_fns::register_custom("SparseSoftmaxCrossEntropyWithLogits", SparseXentShape);
  shape_fns::register_custom("BiasAdd", BiasAddShape);
  shape_fns::register_custom("BiasAddGrad", BiasAddGradShape);
  return true;
}();

// ---- top_k_lrn (the kernels: kernels/cpu/nn/top_k_lrn.cc)

Status TopKShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const Shape& k_shape = c.input_shape(1);
  if (!k_shape.unknown_rank() && k_shape.rank() != 0)
    return c.error("k must be a scalar, got shape ", k_shape.to_string());
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    c.set_output(1, Shape::UnknownRank());
    return Status::OK();
  }
  if (in.rank() < 1) return c.error("input must be at least 1-D, got shape ", in.to_string());
  int64_t k = -1;
  if (const Tensor* v = c.input_value(1)) OPF_RETURN_IF_ERROR(read_k("TopKV2", *v, &k));
  const int64_t n = in.dim(in.rank() - 1);
  if (k >= 0 && n >= 0 && n < k) return c.error("input must have at least k columns. Had ", n, ", needed ", k);
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  c.set_output(0, Shape(dims));
  c.set_output(1, Shape(dims));
  return Status::OK();
}

Status LRNGradShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

[[maybe_unused]] const bool shapes_registered = [] {
  shape_fns::register_custom("TopKV2", TopKShape);
  shape_fns::register_custom("LRNGrad", LRNGradShape);
  return true;
}();

// ---- activations (the kernels: kernels/cpu/nn/activations.cc)

// The gradient ops take two tensors of one shape (TensorFlow merges them).
Status SameShape(ShapeContext& c) {
  const Shape& a = c.input_shape(0);
  const Shape& b = c.input_shape(1);
  if (a.unknown_rank()) {
    c.set_output(0, b);
    return Status::OK();
  }
  if (b.unknown_rank()) {
    c.set_output(0, a);
    return Status::OK();
  }
  if (a.rank() != b.rank()) {
    return c.error("inputs must have the same shape, got ", a.to_string(), " and ", b.to_string());
  }
  std::vector<int64_t> d(static_cast<size_t>(a.rank()));
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dim(i) >= 0 && b.dim(i) >= 0 && a.dim(i) != b.dim(i)) {
      return c.error("inputs must have the same shape, got ", a.to_string(), " and ", b.to_string());
    }
    d[static_cast<size_t>(i)] = a.dim(i) >= 0 ? a.dim(i) : b.dim(i);
  }
  c.set_output(0, Shape(std::move(d)));
  return Status::OK();
}

[[maybe_unused]] const bool grad_shapes_registered = [] {
  for (const char* op :
       {"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad", "GeluGrad", "SoftplusGrad", "SoftsignGrad"}) {
    shape_fns::register_custom(op, SameShape);
  }
  return true;
}();

// ---- batch_norm (the kernels: kernels/cpu/nn/batch_norm.cc)

int bn_rank(const std::string& fmt) { return fmt.size() == 5 ? 5 : 4; }

Status check_vector(ShapeContext& c, int arg, const char* what, int64_t channels, bool may_be_empty) {
  const Shape& s = c.input_shape(arg);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, what, s, 1));
  if (s.unknown_rank() || s.dim(0) < 0 || channels < 0) return Status::OK();
  if (s.dim(0) != channels && !(may_be_empty && s.dim(0) == 0)) {
    return c.error(what, " must have ", channels, " elements (the channel dimension of x), got ", s.dim(0));
  }
  return Status::OK();
}

// Output 0 is x's shape; outputs 1..k are channel vectors; the rest are empty vectors
// (FusedBatchNormV3's reserve_space_3) or, with `scalar_rest`, scalars (the gradient's
// reserve_space_4/5, as TensorFlow's CPU kernel allocates them).
Status BnShape(ShapeContext& c, int vectors, const std::vector<std::pair<int, const char*>>& checks,
               const std::vector<std::pair<int, const char*>>& optional_checks, bool scalar_rest) {
  const std::string fmt = nn::attr(c, "data_format").s;
  const Shape& x = c.input_shape(c.op().name == "FusedBatchNormGradV3" ? 1 : 0);
  int64_t ch = -1;
  if (!x.unknown_rank()) {
    if (x.rank() != bn_rank(fmt)) {
      return c.error("x must be ", bn_rank(fmt), "-dimensional for data_format ", fmt, ", got shape ", x.to_string());
    }
    ch = x.dim(channel_first(fmt) ? 1 : x.rank() - 1);
  }
  // Channels unknown from x: the channel vectors' length (scale, offset, ...).
  for (const auto& [arg, what] : checks) {
    const Shape& v = c.input_shape(arg);
    if (ch < 0 && !v.unknown_rank() && v.rank() == 1) ch = v.dim(0);
  }
  for (const auto& [arg, what] : checks) OPF_RETURN_IF_ERROR(check_vector(c, arg, what, ch, false));
  for (const auto& [arg, what] : optional_checks) OPF_RETURN_IF_ERROR(check_vector(c, arg, what, ch, true));
  Shape y = x.unknown_rank() ? Shape(std::vector<int64_t>(static_cast<size_t>(bn_rank(fmt)), -1)) : x;
  if (c.op().name == "FusedBatchNormGradV3") {  // y_backprop has x's shape
    const Shape& dy = c.input_shape(0);
    for (int i = 0; !dy.unknown_rank() && dy.rank() == y.rank() && i < y.rank(); ++i) {
      if (y.dim(i) < 0) y.mutable_dims()[static_cast<size_t>(i)] = dy.dim(i);
    }
  }
  const int cdim = channel_first(fmt) ? 1 : y.rank() - 1;
  if (y.dim(cdim) < 0) y.mutable_dims()[static_cast<size_t>(cdim)] = ch;
  c.set_output(0, std::move(y));
  for (int i = 1; i <= vectors; ++i) c.set_output(i, Shape({ch}));
  for (int i = vectors + 1; i < c.num_outputs(); ++i) c.set_output(i, scalar_rest ? Shape() : Shape({0}));
  return Status::OK();
}

Status FusedBatchNormV3Shape(ShapeContext& c) {
  const bool training = nn::attr(c, "is_training").b;
  const bool running = !training || nn::attr(c, "exponential_avg_factor").f != 1.0f;
  std::vector<std::pair<int, const char*>> need = {{1, "scale"}, {2, "offset"}}, optional;
  (running ? need : optional).push_back({3, "mean"});
  (running ? need : optional).push_back({4, "variance"});
  return BnShape(c, 4, need, optional, false);
}

Status FusedBatchNormGradV3Shape(ShapeContext& c) {
  const Shape& dy = c.input_shape(0);
  const Shape& x = c.input_shape(1);
  if (!dy.unknown_rank() && !x.unknown_rank() && dy.rank() != x.rank()) {
    return c.error("y_backprop and x must have the same shape, got ", dy.to_string(), " and ", x.to_string());
  }
  return BnShape(c, 2, {{2, "scale"}, {3, "reserve_space_1"}, {4, "reserve_space_2"}}, {}, true);
}

[[maybe_unused]] const bool bn_shapes_registered = [] {
  shape_fns::register_custom("FusedBatchNormV3", FusedBatchNormV3Shape);
  shape_fns::register_custom("FusedBatchNormGradV3", FusedBatchNormGradV3Shape);
  // _FusedBatchNormEx: FusedBatchNormV3's inference form (mean and variance required).
  shape_fns::register_custom("_FusedBatchNormEx", [](ShapeContext& c) {
    return BnShape(c, 4, {{1, "scale"}, {2, "offset"}, {3, "mean"}, {4, "variance"}}, {}, false);
  });
  return true;
}();

}  // namespace
}  // namespace opforge
