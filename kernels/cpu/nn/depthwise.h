// The depthwise convolution's loops (depthwise_conv2d.cc), for the kernels that run one: the
// DepthwiseConv2dNative family, and Conv2D and its gradients where every group is one input
// channel (conv2d.cc: Keras's Conv2D(groups=channels), as in ConvNeXt).
#pragma once

#include <cstdint>

#include "cpu/nn/fused_epilogue.h"

namespace opforge {
namespace nn {

// The geometry of one depthwise convolution in NHWC: input n x h x w x c, filter kh x kw x c x
// m (output channel ch * m + k sees input channel ch through filter[:, :, ch, k]), output
// oh x ow x c * m, strides, dilations and the padding before the first row and column.
struct DwGeom {
  int64_t n, h, w, c, m, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl;
  int64_t cout() const { return c * m; }
};

// y = x (*) f, and the same finished by a fused op's epilogue. V is float or double.
template <typename V>
void depthwise_forward(const V* x, const V* f, V* y, const DwGeom& g);
template <typename V>
void depthwise_forward(const V* x, const V* f, V* y, const DwGeom& g, const Epilogue<V>& post);

// dx from dy and the filter; df (the filter's shape) from x and dy.
template <typename V>
void depthwise_backprop_input(const V* dy, const V* f, V* dx, const DwGeom& g);
template <typename V>
void depthwise_backprop_filter(const V* x, const V* dy, V* df, const DwGeom& g);

}  // namespace nn
}  // namespace opforge
