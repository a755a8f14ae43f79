// Semantics of the nn ops that both their shape functions (runtime/ops/) and their kernels
// use: argument parsing and output geometry, defined once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/window.h"
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace opforge {
namespace nn_semantics {

using nn::Layout;

// The 4 values of input_sizes / filter_sizes (Conv2D and DepthwiseConv2dNative gradients).
inline Status read_sizes(const std::string& op, const char* what, const Tensor& t, Shape* out) {
  std::vector<int64_t> v;
  OPF_RETURN_IF_ERROR(read_int_vector(t, &v));
  if (v.size() != 4) {
    return errors::InvalidArgument(op, ": ", what, " must have 4 elements, got ", v.size());
  }
  for (int64_t d : v) {
    if (d < 0) return errors::InvalidArgument(op, ": ", what, " must be non-negative, got ", d);
  }
  *out = Shape(std::move(v));
  return Status::OK();
}

struct PoolGeom {
  int64_t n, h, w, c, kh, kw, oh, ow, sh, sw, pt, pl;
};

inline Status pool_geom(const std::string& op, const Shape& input, const Layout& l, const std::vector<int64_t>& ksize,
                        const std::vector<int64_t>& strides, const std::string& padding,
                        const std::vector<int64_t>& explicit_paddings, PoolGeom* g) {
  OPF_RETURN_IF_ERROR(nn::check_list4(op, "ksize", ksize, l));
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(
      nn::window2d(op, input, l, ksize[l.h], ksize[l.w], strides, {1, 1, 1, 1}, padding, explicit_paddings, &w));
  if (padding == "EXPLICIT") {
    for (const nn::Dim1* d : {&w.h, &w.w}) {
      if (d->pad_before >= d->k || d->pad_after >= d->k) {
        return errors::InvalidArgument(op, ": explicit paddings must be smaller than the window size");
      }
    }
  }
  // The kernels see the window through its intersection with the input, so the geometry is
  // normalized to one with the same intersections and buffers sized by the input (a SAME pool
  // with a window of 2^31 - 1, legal, pads by 2^30 on each side):
  // - leading padding that every window starts inside of is dropped from the padding and from
  //   the window alike;
  // - a window reaching past the input and what is left of the leading padding ends there;
  // - with one window along a dim the stride does not matter: any stride past the window serves.
  const auto normalize = [](const nn::Dim1& d, int64_t* k, int64_t* pad, int64_t* s) {
    const int64_t drop = d.out > 0 ? std::max<int64_t>(0, d.pad_before - (d.out - 1) * d.s) : 0;
    *pad = d.pad_before - drop;
    *k = std::max<int64_t>(1, std::min(d.k - drop, d.in + *pad));
    *s = d.out > 1 ? d.s : std::min(d.s, std::max<int64_t>(1, d.in + *pad));
  };
  int64_t kh, kw, pt, pl, sh, sw;
  normalize(w.h, &kh, &pt, &sh);
  normalize(w.w, &kw, &pl, &sw);
  *g = PoolGeom{w.n, w.h.in, w.w.in, w.c, kh, kw, w.h.out, w.w.out, sh, sw, pt, pl};
  return Status::OK();
}

inline Status read_shape4(const std::string& op, const Tensor& t, Shape* out) {
  std::vector<int64_t> v;
  OPF_RETURN_IF_ERROR(read_int_vector(t, &v));
  if (v.size() != 4) {
    return errors::InvalidArgument(op, ": orig_input_shape must have 4 elements, got ", v.size());
  }
  for (int64_t d : v) {
    if (d < 0) return errors::InvalidArgument(op, ": orig_input_shape must be non-negative, got ", d);
  }
  *out = Shape(std::move(v));
  return Status::OK();
}

using nn::Dim1;

inline Status check_format(const std::string& op, const std::string& data_format) {
  if (data_format != "NDHWC") {
    return errors::InvalidArgument(op, ": the CPU kernels support only the NDHWC data format, got ", data_format);
  }
  return Status::OK();
}

// The window over the three spatial dims of an NDHWC shape.
struct Window3 {
  int64_t n = 0, c = 0;
  Dim1 d[3];
  int64_t in_voxels() const { return d[0].in * d[1].in * d[2].in; }
  int64_t out_voxels() const { return d[0].out * d[1].out * d[2].out; }
  int64_t taps() const { return d[0].k * d[1].k * d[2].k; }
};

inline Status check_list5(const std::string& op, const char* what, const std::vector<int64_t>& v) {
  if (v.size() != 5) return errors::InvalidArgument(op, ": ", what, " must have 5 elements, got ", v.size());
  for (int64_t x : v) {
    if (x < 1) return errors::InvalidArgument(op, ": ", what, " must be positive, got ", x);
  }
  if (v[0] != 1 || v[4] != 1) {
    return errors::InvalidArgument(op, ": ", what, " on the batch and channel dimensions must be 1 (not supported)");
  }
  return Status::OK();
}

// Geometry of a 3-D window op over a 5-D input shape (dims may be -1).
inline Status window3d(const std::string& op, const Shape& input, const std::vector<int64_t>& ksize,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                       const std::string& padding, const std::string& data_format, Window3* w) {
  OPF_RETURN_IF_ERROR(check_format(op, data_format));
  OPF_RETURN_IF_ERROR(check_list5(op, "strides", strides));
  OPF_RETURN_IF_ERROR(check_list5(op, "dilations", dilations));
  if (input.unknown_rank()) return Status::OK();
  if (input.rank() != 5)
    return errors::InvalidArgument(op, ": input must be 5-dimensional, got shape ", input.to_string());
  w->n = input.dim(0);
  w->c = input.dim(4);
  static const char* kNames[3] = {"depth", "height", "width"};
  for (int i = 0; i < 3; ++i) {
    OPF_RETURN_IF_ERROR(nn::window_dim(op, kNames[i], input.dim(i + 1), ksize[static_cast<size_t>(i)],
                                       strides[static_cast<size_t>(i + 1)], dilations[static_cast<size_t>(i + 1)],
                                       padding, 0, 0, &w->d[i]));
  }
  return Status::OK();
}

// The channel dim of BiasAdd's value: the last (NHWC) or dim 1 (NCHW).
inline int channel_dim(const std::string& fmt, int rank) { return fmt == "NCHW" ? 1 : rank - 1; }

inline Status read_k(const std::string& op, const Tensor& k_tensor, int64_t* k) {
  if (k_tensor.num_elements() != 1 || k_tensor.rank() > 1) {
    return errors::InvalidArgument(op, ": k must be a scalar, got shape ", k_tensor.shape().to_string());
  }
  std::vector<int64_t> v;
  if (k_tensor.dtype() == DType::kInt16) {
    v.push_back(k_tensor.data<int16_t>()[0]);
  } else {
    OPF_RETURN_IF_ERROR(read_int_vector(k_tensor.rank() == 0 ? k_tensor.reshaped(Shape({1})) : k_tensor, &v));
  }
  *k = v[0];
  return Status::OK();
}

inline bool channel_first(const std::string& fmt) { return fmt == "NCHW" || fmt == "NCDHW"; }

}  // namespace nn_semantics
}  // namespace opforge
