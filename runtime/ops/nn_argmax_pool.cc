// The shape functions of MaxPoolWithArgmax and MaxPoolGradWithArgmax
// (kernels/cpu/nn/max_pool_argmax.cc): NHWC max pooling, the window geometry MaxPool's.
#include "common/window.h"
#include "ops/nn.h"
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status MaxPoolWithArgmaxShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const nn::Layout l = nn::layout_of("NHWC");
  const auto& ksize = nn::attr(c, "ksize").list_i;
  const auto& strides = nn::attr(c, "strides").list_i;
  OPF_RETURN_IF_ERROR(nn::check_list4(c.op().name, "ksize", ksize, l));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
  Shape out = Shape({-1, -1, -1, -1});
  if (!in.unknown_rank() && in.dim(1) >= 0 && in.dim(2) >= 0) {
    nn_semantics::PoolGeom g;
    OPF_RETURN_IF_ERROR(nn_semantics::pool_geom(c.op().name, in, l, ksize, strides, nn::attr(c, "padding").s, {}, &g));
    out = Shape({in.dim(0), g.oh, g.ow, in.dim(3)});
  } else if (!in.unknown_rank()) {
    out = Shape({in.dim(0), -1, -1, in.dim(3)});
  }
  c.set_output(0, out);
  c.set_output(1, out);
  return Status::OK();
}

Status MaxPoolGradWithArgmaxShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", c.input_shape(0), 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "grad", c.input_shape(1), 4));
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

[[maybe_unused]] const bool argmax_pool_shapes_registered = [] {
  shape_fns::register_custom("MaxPoolWithArgmax", MaxPoolWithArgmaxShape);
  shape_fns::register_custom("MaxPoolGradWithArgmax", MaxPoolGradWithArgmaxShape);
  return true;
}();

}  // namespace
}  // namespace opforge
