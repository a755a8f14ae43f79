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

using nn::Layout;
using nn_semantics::check_list5;
using nn_semantics::pool_geom;
using nn_semantics::PoolGeom;
using nn_semantics::read_shape4;
using nn_semantics::read_sizes;
using nn_semantics::Window3;
using nn_semantics::window3d;

// ---- conv2d (the kernels: kernels/cpu/nn/conv2d.cc)

Status Conv2DShape(ShapeContext& c) {
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  const Shape& in = c.input_shape(0);
  const Shape& f = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", f, 4));
  const int64_t kh = f.unknown_rank() ? 1 : f.dim(0), kw = f.unknown_rank() ? 1 : f.dim(1);
  nn::Window2D w;
  w.h.out = w.w.out = -1;
  w.n = w.c = -1;
  OPF_RETURN_IF_ERROR(nn::window2d(c.op().name, in, l, kh < 0 ? 1 : kh, kw < 0 ? 1 : kw, nn::attr(c, "strides").list_i,
                                   nn::attr(c, "dilations").list_i, nn::attr(c, "padding").s,
                                   nn::attr(c, "explicit_paddings").list_i, &w));
  if (nn::attr(c, "padding").s != "SAME") {  // SAME: the output size does not depend on the filter's
    if (kh < 0) w.h.out = -1;
    if (kw < 0) w.w.out = -1;
  }
  const int64_t cout = f.unknown_rank() ? -1 : f.dim(3);
  if (!f.unknown_rank() && w.c >= 0 && f.dim(2) >= 0) {
    int64_t groups = 1;
    OPF_RETURN_IF_ERROR(nn::conv_groups(c.op().name, w.c, f.dim(2), cout < 0 ? 0 : cout, &groups));
  }
  c.set_output(0, nn::shape4(l, w.n, w.h.out, w.w.out, cout));
  return Status::OK();
}

// The 4-d shape a sizes input holds (Conv2DBackpropInput's input_sizes, AvgPoolGrad's
// orig_input_shape, ...): its value when known, else its partially known value (Shape(x) of a
// partly known x), else four unknown dims.
Status SizesInput4(ShapeContext& c, int arg, const char* what, Shape* out) {
  const Tensor* v = c.input_value(arg);
  if (v == nullptr) {
    const Shape* p = c.input_partial_value(arg);
    *out = p != nullptr && p->rank() == 4 ? *p : Shape({-1, -1, -1, -1});
    return Status::OK();
  }
  return read_sizes(c.op().name, what, *v, out);
}

// Fills dim `d` of s from dim `from_dim` of input `arg` where s's is unknown.
void fill_dim(ShapeContext& c, Shape* s, int d, int arg, int from_dim) {
  const Shape& src = c.input_shape(arg);
  if (s->dim(d) >= 0 || src.unknown_rank() || from_dim >= src.rank()) return;
  s->mutable_dims()[static_cast<size_t>(d)] = src.dim(from_dim);
}

// Conv2DBackpropInput / Conv2DBackpropFilter (and the depthwise ones): the shape the sizes input
// holds; where unknown, the batch of the input (and, depthwise, its channels: the filter's
// in_channels) and the filter's out_channels (out_backprop's channels) are filled in.
Status SizesShape(ShapeContext& c, int arg, bool depthwise) {
  Shape s;
  OPF_RETURN_IF_ERROR(SizesInput4(c, arg, arg == 0 ? "input_sizes" : "filter_sizes", &s));
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  if (arg == 0) {
    fill_dim(c, &s, l.n, 2, l.n);
    if (depthwise) fill_dim(c, &s, l.c, 1, 2);
  } else if (!depthwise) {
    fill_dim(c, &s, 3, 2, l.c);
  }
  c.set_output(0, std::move(s));
  return Status::OK();
}

[[maybe_unused]] const bool conv_shapes_registered = [] {
  shape_fns::register_custom("Conv2D", Conv2DShape);
  shape_fns::register_custom("_FusedConv2D", Conv2DShape);
  shape_fns::register_custom("Conv2DBackpropInput", [](ShapeContext& c) { return SizesShape(c, 0, false); });
  shape_fns::register_custom("Conv2DBackpropFilter", [](ShapeContext& c) { return SizesShape(c, 1, false); });
  return true;
}();

// ---- depthwise_conv2d (the kernels: kernels/cpu/nn/depthwise_conv2d.cc)

Status DepthwiseShape(ShapeContext& c) {
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  const Shape& in = c.input_shape(0);
  const Shape& f = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", f, 4));
  const int64_t kh = f.unknown_rank() ? -1 : f.dim(0), kw = f.unknown_rank() ? -1 : f.dim(1);
  nn::Window2D w;
  w.n = w.c = w.h.out = w.w.out = -1;
  OPF_RETURN_IF_ERROR(nn::window2d(c.op().name, in, l, kh < 0 ? 1 : kh, kw < 0 ? 1 : kw, nn::attr(c, "strides").list_i,
                                   nn::attr(c, "dilations").list_i, nn::attr(c, "padding").s,
                                   nn::attr(c, "explicit_paddings").list_i, &w));
  if (nn::attr(c, "padding").s != "SAME") {
    if (kh < 0) w.h.out = -1;
    if (kw < 0) w.w.out = -1;
  }
  if (!f.unknown_rank() && w.c >= 0 && f.dim(2) >= 0 && f.dim(2) != w.c) {
    return c.error("input depth (", w.c, ") must equal the filter's in_channels (", f.dim(2), ")");
  }
  int64_t cout = -1;
  if (!f.unknown_rank() && f.dim(3) >= 0) {
    const int64_t cin = f.dim(2) >= 0 ? f.dim(2) : w.c;
    cout = cin >= 0 ? cin * f.dim(3) : -1;
  }
  c.set_output(0, nn::shape4(l, w.n, w.h.out, w.w.out, cout));
  return Status::OK();
}

[[maybe_unused]] const bool dw_shapes_registered = [] {
  shape_fns::register_custom("DepthwiseConv2dNative", DepthwiseShape);
  shape_fns::register_custom("_FusedDepthwiseConv2dNative", DepthwiseShape);
  shape_fns::register_custom("DepthwiseConv2dNativeBackpropInput",
                             [](ShapeContext& c) { return SizesShape(c, 0, true); });
  shape_fns::register_custom("DepthwiseConv2dNativeBackpropFilter",
                             [](ShapeContext& c) { return SizesShape(c, 1, true); });
  return true;
}();

// ---- pooling (the kernels: kernels/cpu/nn/pooling.cc)

Status PoolShape(ShapeContext& c) {
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  const Shape& in = c.input_shape(0);
  const auto& ksize = nn::attr(c, "ksize").list_i;
  OPF_RETURN_IF_ERROR(nn::check_list4(c.op().name, "ksize", ksize, l));
  PoolGeom g{-1, -1, -1, -1, 1, 1, -1, -1, 1, 1, 0, 0};
  if (!in.unknown_rank() && in.rank() == 4 && in.dim(l.h) >= 0 && in.dim(l.w) >= 0) {
    OPF_RETURN_IF_ERROR(pool_geom(c.op().name, in, l, ksize, nn::attr(c, "strides").list_i, nn::attr(c, "padding").s,
                                  nn::attr(c, "explicit_paddings").list_i, &g));
  } else {
    OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "input", in, 4));
    nn::Window2D w;
    OPF_RETURN_IF_ERROR(nn::window2d(c.op().name, in, l, ksize[l.h], ksize[l.w], nn::attr(c, "strides").list_i,
                                     {1, 1, 1, 1}, nn::attr(c, "padding").s, nn::attr(c, "explicit_paddings").list_i,
                                     &w));
    if (!in.unknown_rank()) {
      g.n = in.dim(l.n);
      g.c = in.dim(l.c);
      g.oh = w.h.out;
      g.ow = w.w.out;
    }
  }
  c.set_output(0, nn::shape4(l, g.n, g.oh, g.ow, g.c));
  return Status::OK();
}

Status AvgPoolGradShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(SizesInput4(c, 0, "orig_input_shape", &s));
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  fill_dim(c, &s, l.n, 1, l.n);
  fill_dim(c, &s, l.c, 1, l.c);
  c.set_output(0, std::move(s));
  return Status::OK();
}

// MaxPoolGrad (the shape of orig_input) and MaxPoolGradGrad (of orig_output): 4-d, batch and
// channels also those of the other inputs.
Status MaxPoolGradShape(ShapeContext& c, int like) {
  Shape s = c.input_shape(like);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, c.op().inputs[static_cast<size_t>(like)].name.c_str(), s, 4));
  if (s.unknown_rank()) s = Shape({-1, -1, -1, -1});
  const Layout l = nn::layout_of(nn::attr(c, "data_format").s);
  for (int arg = 0; arg < 3; ++arg) {
    fill_dim(c, &s, l.n, arg, l.n);
    fill_dim(c, &s, l.c, arg, l.c);
  }
  c.set_output(0, std::move(s));
  return Status::OK();
}

[[maybe_unused]] const bool pool_shapes_registered = [] {
  shape_fns::register_custom("MaxPool", PoolShape);
  shape_fns::register_custom("AvgPool", PoolShape);
  shape_fns::register_custom("AvgPoolGrad", AvgPoolGradShape);
  shape_fns::register_custom("MaxPoolGrad", [](ShapeContext& c) { return MaxPoolGradShape(c, 0); });
  shape_fns::register_custom("MaxPoolGradGrad", [](ShapeContext& c) {
    // orig_output's shape, or else max pooling's of orig_input
    OPF_RETURN_IF_ERROR(MaxPoolGradShape(c, 1));
    Shape s = c.outputs()[0];
    OPF_RETURN_IF_ERROR(PoolShape(c));
    const Shape& pooled = c.outputs()[0];
    for (int i = 0; i < 4 && !pooled.unknown_rank(); ++i) {
      if (s.dim(i) < 0) s.mutable_dims()[static_cast<size_t>(i)] = pooled.dim(i);
    }
    c.set_output(0, std::move(s));
    return Status::OK();
  });
  return true;
}();

// ---- volumetric (the kernels: kernels/cpu/nn/volumetric.cc)

const std::vector<int64_t>& ints(const AttrValue& v) { return v.list_i; }

Status Conv3DShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const Shape& f = c.input_shape(1);
  OPF_RETURN_IF_ERROR(nn::need_rank(c.op().name, "filter", f, 5));
  std::vector<int64_t> k{-1, -1, -1};
  if (!f.unknown_rank()) k = {f.dim(0), f.dim(1), f.dim(2)};
  for (int64_t& v : k) v = std::max<int64_t>(v, 1);
  Window3 w;
  OPF_RETURN_IF_ERROR(window3d(c.op().name, in, k, ints(nn::attr(c, "strides")), ints(nn::attr(c, "dilations")),
                               nn::attr(c, "padding").s, nn::attr(c, "data_format").s, &w));
  if (in.unknown_rank()) {
    c.set_output(0, array::unknown_dims(5));
    return Status::OK();
  }
  if (!f.unknown_rank() && w.c >= 0 && f.dim(3) >= 0 && w.c != f.dim(3)) {
    return c.error("input depth ", w.c, " does not match the filter's in_channels ", f.dim(3),
                   " (grouped 3-D convolutions are not supported)");
  }
  const int64_t co = f.unknown_rank() ? -1 : f.dim(4);
  const bool fk = !f.unknown_rank() && f.dim(0) >= 0 && f.dim(1) >= 0 && f.dim(2) >= 0;
  c.set_output(0, Shape({w.n, fk ? w.d[0].out : -1, fk ? w.d[1].out : -1, fk ? w.d[2].out : -1, co}));
  return Status::OK();
}

// Backprop ops: the output has the shape given by an input's value (input_sizes / filter_sizes).
Status Sizes3DShape(ShapeContext& c, int arg) {
  std::vector<int64_t> dims;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, arg, &dims, &known));
  if (known && dims.size() != 5) return c.error("the sizes must have 5 elements, got ", dims.size());
  for (int64_t d : known ? dims : std::vector<int64_t>()) {
    if (d < 0) return c.error("the sizes must be non-negative, got ", d);
  }
  const Shape* p = known ? nullptr : c.input_partial_value(arg);
  c.set_output(0, known ? Shape(dims) : p != nullptr && p->rank() == 5 ? *p : array::unknown_dims(5));
  return Status::OK();
}

Status Pool3DShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const auto& ksize = ints(nn::attr(c, "ksize"));
  OPF_RETURN_IF_ERROR(check_list5(c.op().name, "ksize", ksize));
  Window3 w;
  OPF_RETURN_IF_ERROR(window3d(c.op().name, in, {ksize[1], ksize[2], ksize[3]}, ints(nn::attr(c, "strides")),
                               {1, 1, 1, 1, 1}, nn::attr(c, "padding").s, nn::attr(c, "data_format").s, &w));
  if (in.unknown_rank()) {
    c.set_output(0, array::unknown_dims(5));
    return Status::OK();
  }
  c.set_output(0, Shape({w.n, w.d[0].out, w.d[1].out, w.d[2].out, w.c}));
  return Status::OK();
}

Status SameAsInputShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  return Status::OK();
}

const array::CustomShape conv3d_shape("Conv3D", Conv3DShape);

const array::CustomShape conv3d_bi_shape("Conv3DBackpropInputV2", [](ShapeContext& c) { return Sizes3DShape(c, 0); });

const array::CustomShape conv3d_bf_shape("Conv3DBackpropFilterV2", [](ShapeContext& c) { return Sizes3DShape(c, 1); });

const array::CustomShape max_pool3d_shape("MaxPool3D", Pool3DShape);

const array::CustomShape avg_pool3d_shape("AvgPool3D", Pool3DShape);

const array::CustomShape max_pool3d_grad_shape("MaxPool3DGrad", SameAsInputShape);

const array::CustomShape avg_pool3d_grad_shape("AvgPool3DGrad", [](ShapeContext& c) { return Sizes3DShape(c, 0); });

}  // namespace
}  // namespace opforge
