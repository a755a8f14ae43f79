// Direct float32 convolution for CPUs with AVX-512, for convolutions with few input channels
// (an image's first convolution over 3 colour channels, small U-Nets' 16-channel layers), where
// im2col + GEMM spends its time building a patch matrix with a depth of a few dozen and
// Winograd its time in transforms. conv2d.cc chooses.
#pragma once

#include <cstdint>

#include "src/cpu_kernels.h"  // direct_conv_avx512_enabled, set_direct_conv_avx512

namespace opforge {
namespace nn {

// One image's convolution in NHWC with an HWIO filter whose output channels are padded to
// cout_padded (a multiple of 16, zeros beyond cout).
struct DirectConvGeom {
  int64_t h, w, cin, kh, kw, cout, cout_padded, oh, ow, sh, sw, dh, dw, pt, pl;
};

// Output row oh of image xn (h x w x cin) into out (ow x cout). Call only when
// direct_conv_avx512_enabled().
void conv_row_avx512(const float* xn, const float* filter, float* out, const DirectConvGeom& g, int64_t oh);

}  // namespace nn
}  // namespace opforge
