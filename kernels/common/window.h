// The window geometry of convolutions and pools, shared by the CPU and GPU kernels: data
// layouts (NHWC / NCHW), TensorFlow's SAME / VALID / EXPLICIT rules for output sizes and
// padding, and a convolution's groups. Host code only: it checks attrs and shapes and returns
// typed errors, computing every size without overflow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opforge/shape.h"
#include "opforge/status.h"

namespace opforge {
namespace nn {

// Positions of the batch, spatial and channel dims of a 4-D tensor.
struct Layout {
  bool nchw = false;
  int n = 0, h = 1, w = 2, c = 3;
};

inline Layout layout_of(const std::string& data_format) {
  Layout l;
  if (data_format == "NCHW") {
    l.nchw = true;
    l.c = 1;
    l.h = 2;
    l.w = 3;
  }
  return l;
}

inline Shape shape4(const Layout& l, int64_t n, int64_t h, int64_t w, int64_t c) {
  std::vector<int64_t> d(4);
  d[l.n] = n;
  d[l.h] = h;
  d[l.w] = w;
  d[l.c] = c;
  return Shape(std::move(d));
}

// One spatial dimension of a window (kernel size, stride, dilation, padding) over an input.
struct Dim1 {
  int64_t in = 0, k = 1, s = 1, d = 1, pad_before = 0, pad_after = 0, out = 0;
  // The stride as kernels use it: with one output along the dim it multiplies nothing, and 1
  // keeps their index arithmetic in range (a stride of INT64_MAX is legal there).
  int64_t kernel_stride() const { return out > 1 ? s : 1; }
};

// The largest effective window (and explicit padding) along one dim: beyond it the index
// arithmetic of the kernels (and TensorFlow's) would overflow, and no real window comes near.
constexpr int64_t kMaxWindow = (int64_t{1} << 31) - 1;

// Output size and padding of one spatial dim; in < 0 (unknown) gives out = -1.
//
// VALID and EXPLICIT follow TensorFlow's GetWindowedOutputSize to the letter: out =
// (padded - eff + s) / s with C++'s truncating division, an error only when that is negative.
// So a window up to 2 * s - 1 elements larger than the padded input gives an empty output (a
// 0-sized dim), not an error.
inline Status window_dim(const std::string& op, const char* which, int64_t in, int64_t k, int64_t s, int64_t d,
                         const std::string& padding, int64_t pb, int64_t pa, Dim1* r) {
  r->in = in;
  r->k = k;
  r->s = s;
  r->d = d;
  if (k < 1) return errors::InvalidArgument(op, ": the window size along ", which, " must be positive, got ", k);
  if (s < 1 || d < 1) {
    return errors::InvalidArgument(op, ": the stride and dilation along ", which, " must be positive, got ", s, " and ",
                                   d);
  }
  if (k - 1 > (kMaxWindow - 1) / d) {
    return errors::InvalidArgument(op, ": the window along ", which, " (size ", k, ", dilation ", d,
                                   ") is larger than ", kMaxWindow, " elements");
  }
  const int64_t eff = (k - 1) * d + 1;
  if (padding == "EXPLICIT" && (pb < 0 || pa < 0 || pb > kMaxWindow || pa > kMaxWindow)) {
    return errors::InvalidArgument(op, ": explicit paddings along ", which, " must be in [0, ", kMaxWindow, "], got ",
                                   pb, " and ", pa);
  }
  if (in < 0) {
    r->out = -1;
    return Status::OK();
  }
  if (padding == "SAME") {
    r->out = in / s + (in % s != 0);  // ceil(in / s), without overflowing in + s - 1
    const int64_t need = std::max<int64_t>(0, (r->out - 1) * s + eff - in);
    r->pad_before = need / 2;
    r->pad_after = need - need / 2;
    return Status::OK();
  }
  const bool valid = padding == "VALID";
  r->pad_before = valid ? 0 : pb;
  r->pad_after = valid ? 0 : pa;
  const int64_t padded = in + r->pad_before + r->pad_after;
  const int64_t diff = padded - eff;  // (diff + s) / s, without overflowing diff + s
  const int64_t out = diff >= 0 ? diff / s + 1 : (diff + s) / s;
  if (out < 0) {
    return errors::InvalidArgument(op, ": computed output size along ", which, " would be negative: ", out, " (",
                                   valid ? "input" : "padded input", " size ", padded, ", effective window ", eff,
                                   ", stride ", s, ")");
  }
  r->out = out;
  return Status::OK();
}

// Checks a 4-element strides/dilations/ksize list: positive, 1 on the batch and channel dims.
inline Status check_list4(const std::string& op, const char* what, const std::vector<int64_t>& v, const Layout& l) {
  if (v.size() != 4) {
    return errors::InvalidArgument(op, ": ", what, " must have 4 elements, got ", v.size());
  }
  for (int64_t x : v) {
    if (x < 1) return errors::InvalidArgument(op, ": ", what, " must be positive, got ", x);
  }
  if (v[static_cast<size_t>(l.n)] != 1 || v[static_cast<size_t>(l.c)] != 1) {
    return errors::InvalidArgument(op, ": ", what, " on the batch and channel dimensions must be 1 (not supported)");
  }
  return Status::OK();
}

// Explicit paddings: 8 non-negative values, zero on the batch and channel dims. Only for
// padding == "EXPLICIT"; otherwise the list must be empty.
inline Status check_explicit(const std::string& op, const std::string& padding, const std::vector<int64_t>& p,
                             const Layout& l) {
  if (padding != "EXPLICIT") {
    if (!p.empty()) {
      return errors::InvalidArgument(op, ": explicit_paddings must be empty unless padding is EXPLICIT");
    }
    return Status::OK();
  }
  if (p.size() != 8) {
    return errors::InvalidArgument(op, ": explicit_paddings must have 8 elements with EXPLICIT padding, got ",
                                   p.size());
  }
  for (int64_t x : p) {
    if (x < 0) return errors::InvalidArgument(op, ": explicit_paddings must be non-negative, got ", x);
  }
  if (p[2 * l.n] || p[2 * l.n + 1] || p[2 * l.c] || p[2 * l.c + 1]) {
    return errors::InvalidArgument(op, ": explicit_paddings on the batch and channel dimensions must be 0");
  }
  return Status::OK();
}

// The geometry of a 2-D window op in NHWC terms.
struct Window2D {
  int64_t n = 0, c = 0;  // batch, input channels
  Dim1 h, w;
};

// Window over a 4-D input shape (dims may be -1). ksize is {kh, kw}; strides/dilations are the
// 4-element attrs in data_format order.
inline Status window2d(const std::string& op, const Shape& input, const Layout& l, int64_t kh, int64_t kw,
                       const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                       const std::string& padding, const std::vector<int64_t>& explicit_paddings, Window2D* g) {
  OPF_RETURN_IF_ERROR(check_list4(op, "strides", strides, l));
  OPF_RETURN_IF_ERROR(check_list4(op, "dilations", dilations, l));
  OPF_RETURN_IF_ERROR(check_explicit(op, padding, explicit_paddings, l));
  if (input.unknown_rank()) return Status::OK();
  if (input.rank() != 4) {
    return errors::InvalidArgument(op, ": input must be 4-dimensional, got shape ", input.to_string());
  }
  g->n = input.dim(l.n);
  g->c = input.dim(l.c);
  const auto pad = [&](int dim, int side) {
    return padding == "EXPLICIT" ? explicit_paddings[static_cast<size_t>(2 * dim + side)] : int64_t{0};
  };
  OPF_RETURN_IF_ERROR(window_dim(op, "height", input.dim(l.h), kh, strides[l.h], dilations[l.h], padding, pad(l.h, 0),
                                 pad(l.h, 1), &g->h));
  OPF_RETURN_IF_ERROR(window_dim(op, "width", input.dim(l.w), kw, strides[l.w], dilations[l.w], padding, pad(l.w, 0),
                                 pad(l.w, 1), &g->w));
  return Status::OK();
}

inline Status need_rank(const std::string& op, const char* what, const Shape& s, int rank) {
  if (!s.unknown_rank() && s.rank() != rank) {
    return errors::InvalidArgument(op, ": ", what, " must be ", rank, "-dimensional, got shape ", s.to_string());
  }
  return Status::OK();
}

// The number of groups of a convolution: TensorFlow allows an input depth that is a multiple of
// the filter's in_channels, the output channels then split evenly over the groups.
inline Status conv_groups(const std::string& op, int64_t in_depth, int64_t filter_depth, int64_t out_depth,
                          int64_t* groups) {
  *groups = 1;
  if (filter_depth == 0) {  // TensorFlow's Conv2D refuses a convolution over no channels
    return errors::InvalidArgument(op, ": filter depth must be strictly positive, got 0");
  }
  if (in_depth == filter_depth) return Status::OK();
  if (filter_depth < 0 || in_depth <= 0 || in_depth % filter_depth != 0) {
    // (an input of no channels under a filter of some is no grouping: 0 groups)
    return errors::InvalidArgument(op, ": input depth must be evenly divisible by filter depth: ", in_depth, " vs ",
                                   filter_depth);
  }
  *groups = in_depth / filter_depth;
  if (out_depth % *groups != 0) {
    return errors::InvalidArgument(op, ": output depth must be evenly divisible by number of groups: ", out_depth,
                                   " vs ", *groups);
  }
  return Status::OK();
}

}  // namespace nn
}  // namespace opforge
