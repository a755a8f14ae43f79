// The shape functions of FractionalMaxPool / FractionalAvgPool and their gradients
// (kernels/cpu/nn/fractional_pool.cc). Output size floor(input size / ratio) per dimension; the
// pooling sequences have one element more than the output's rows / columns (TensorFlow's own
// shape function says as many: its kernel returns one more).
#include <cmath>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status FractionalPoolShape(ShapeContext& c) {
  const std::vector<float>& ratio = nn::attr(c, "pooling_ratio").list_f;
  if (ratio.size() != 4) return c.error("pooling_ratio must have 4 elements, got ", ratio.size());
  for (float r : ratio) {
    if (!(r >= 1.0f)) return c.error("pooling_ratio cannot be smaller than 1, got: ", r);
  }
  if (ratio[0] != 1.0f || ratio[3] != 1.0f) {
    return errors::Unimplemented(c.op().name,
                                 ": Fractional pooling is not yet supported on the batch nor channel dimension.");
  }
  if (!nn::attr(c, "deterministic").b && (nn::attr(c, "seed").i != 0 || nn::attr(c, "seed2").i != 0)) {
    return c.error("Both seed and seed2 should be 0 if deterministic is false.");
  }
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-dimensional"));
  const Shape& in = c.input_shape(0);
  std::vector<int64_t> out(4, Shape::kUnknownDim);
  for (int i = 0; i < 4 && !in.unknown_rank(); ++i) {
    const int64_t d = in.dim(i);
    if (d < 0) continue;
    if (static_cast<double>(d) < ratio[static_cast<size_t>(i)]) {
      return c.error("Pooling ratio is higher than input dimension size for dimension ", i, ". Input dim size: ", d,
                     " pooling ratio: ", ratio[static_cast<size_t>(i)]);
    }
    out[static_cast<size_t>(i)] =
        static_cast<int64_t>(std::floor(static_cast<double>(d) / ratio[static_cast<size_t>(i)]));
  }
  c.set_output(0, Shape(out));
  c.set_output(1, Shape({out[1] < 0 ? Shape::kUnknownDim : out[1] + 1}));
  c.set_output(2, Shape({out[2] < 0 ? Shape::kUnknownDim : out[2] + 1}));
  return Status::OK();
}

Status FractionalMaxPoolGradShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 4, "4-dimensional"));
  c.set_output(0, c.input_shape(0).unknown_rank() ? array::unknown_dims(4) : c.input_shape(0));
  return Status::OK();
}

// The original input's shape when its value is known, else four unknown dimensions.
Status FractionalAvgPoolGradShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  std::vector<int64_t> dims;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 0, &dims, &known));
  if (!known) {
    c.set_output(0, array::unknown_dims(4));
    return Status::OK();
  }
  if (dims.size() != 4) return c.error("orig_input_tensor_shape must have 4 elements, got ", dims.size());
  for (int64_t d : dims) {
    if (d < 0) return c.error("orig_input_tensor_shape must not be negative, got ", Shape(dims).to_string());
  }
  c.set_output(0, Shape(dims));
  return Status::OK();
}

[[maybe_unused]] const bool fractional_pool_shapes_registered = [] {
  shape_fns::register_custom("FractionalMaxPool", FractionalPoolShape);
  shape_fns::register_custom("FractionalAvgPool", FractionalPoolShape);
  shape_fns::register_custom("FractionalMaxPoolGrad", FractionalMaxPoolGradShape);
  shape_fns::register_custom("FractionalAvgPoolGrad", FractionalAvgPoolGradShape);
  return true;
}();

}  // namespace
}  // namespace opforge
