// The shape functions of Dilation2D and its backprops (kernels/cpu/nn/dilation.cc): NHWC, the
// window of a convolution whose filter is the dilated [filter_height, filter_width] of `filter`.
#include "common/window.h"
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status Dilation2DShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const Shape& f = c.input_shape(1);
  const nn::Layout l = nn::layout_of("NHWC");
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", f, 3));
  const int64_t fc = f.unknown_rank() ? -1 : f.dim(2), ic = in.unknown_rank() ? -1 : in.dim(3);
  if (fc >= 0 && ic >= 0 && fc != ic) {
    return c.error("input depth ", ic, " and filter depth ", fc, " must be equal");
  }
  const int64_t kh = f.unknown_rank() ? -1 : f.dim(0), kw = f.unknown_rank() ? -1 : f.dim(1);
  Shape out({in.unknown_rank() ? -1 : in.dim(0), -1, -1, ic >= 0 ? ic : fc});
  if (kh >= 0 && kw >= 0) {
    nn::Window2D w;
    OPF_RETURN_IF_ERROR(nn::window2d(c.op().name, in, l, kh, kw, nn::attr(c, "strides").list_i,
                                     nn::attr(c, "rates").list_i, nn::attr(c, "padding").s, {}, &w));
    if (!in.unknown_rank()) out = Shape({in.dim(0), w.h.out, w.w.out, ic >= 0 ? ic : fc});
  }
  c.set_output(0, out);
  return Status::OK();
}

Status BackpropShape(ShapeContext& c, int like) {
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", c.input_shape(0), 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", c.input_shape(1), 3));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "out_backprop", c.input_shape(2), 4));
  c.set_output(0, c.input_shape(like));
  return Status::OK();
}

[[maybe_unused]] const bool dilation_shapes_registered = [] {
  shape_fns::register_custom("Dilation2D", Dilation2DShape);
  shape_fns::register_custom("Dilation2DBackpropInput", [](ShapeContext& c) { return BackpropShape(c, 0); });
  shape_fns::register_custom("Dilation2DBackpropFilter", [](ShapeContext& c) { return BackpropShape(c, 1); });
  return true;
}();

}  // namespace
}  // namespace opforge
