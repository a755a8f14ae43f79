// Float32 depthwise convolution (channel multiplier 1) for CPUs with AVX-512: the forward
// kernel's fastest path where the CPU has it (depthwise_conv2d.cc chooses).
#pragma once

#include <cstdint>

#include "cpu/nn/depthwise.h"  // DwGeom
#include "src/blas.h"          // ColumnEpilogue
#include "src/cpu_kernels.h"   // dw_avx512_enabled, set_dw_avx512

namespace opforge {
namespace nn {

// Output row (n, oh) of a depthwise convolution with multiplier 1: out[ow * c + ch] for every
// ow and channel, from x (NHWC) and filter f (kh x kw x c, followed by 16 readable floats when
// c is not a multiple of 16), finished in registers by ep (per channel) when given. Call only
// when dw_avx512_enabled().
void dw_row_avx512(const float* x, const float* f, float* out, const DwGeom& g, int64_t n, int64_t oh,
                   const blas::ColumnEpilogue* ep = nullptr);

// Where some block of output pixels would read columns outside x's rows (left or right
// padding): the row width (> 0) of a copy of x padded with pl zero columns on the left and
// zeros on the right, over which every block runs without border checks (a block of a 14-wide
// row under a 5x5 window always has some). 0 where no block needs it.
int64_t dw_padded_width(const DwGeom& g);

}  // namespace nn
}  // namespace opforge
