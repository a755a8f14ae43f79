// Switches between CPU kernel implementations that compute the same thing (for tests and
// comparisons); the kernels pick the fastest the CPU can run by default. See also
// blas::set_sgemm_kernel (blas.h).
#pragma once

namespace opforge {
namespace nn {

// Float32 depthwise convolution: the AVX-512 kernel (kernels/cpu/nn/depthwise_avx512.cc) is
// on when the CPU has AVX-512F. set_dw_avx512(false) sends it to the portable paths;
// set_dw_avx512(true) turns it back on where the CPU allows. Returns whether it is on now.
bool dw_avx512_enabled();
bool set_dw_avx512(bool on);

// Float32 convolution with few input channels: the direct AVX-512 kernel
// (kernels/cpu/nn/conv_direct_avx512.cc), on when the CPU has AVX-512F; off: im2col + GEMM or
// Winograd as for other shapes.
bool direct_conv_avx512_enabled();
bool set_direct_conv_avx512(bool on);

// Float32 convolutions as a row-gathered GEMM (kernels/cpu/nn/conv2d_gather.cc, no patch
// matrix), on while float32 products run the runtime's AVX-512 kernel; off: im2col + GEMM.
bool conv_gather_enabled();
bool set_conv_gather(bool on);

// Float32 3x3 stride-1 convolutions through Winograd (kernels/cpu/nn/conv2d.cc): 0 (the
// default) picks F(4x4, 3x3) or F(2x2, 3x3) per shape; 2 or 4 forces that tile wherever
// Winograd is taken (other values are ignored). Returns the setting now.
int winograd_tile_setting();
int set_winograd_tile(int m);

}  // namespace nn

namespace vec {

// Float32 exp, sigmoid, swish, tanh and Elu (kernels/cpu/math/vec_math.cc): 16 lanes at a time
// (vec_math_avx512.cc) when the CPU has AVX-512F; off: the 8-lane AVX2 forms (or scalar libm
// without AVX2). Returns whether the 16-lane forms are on now.
bool avx512_enabled();
bool set_avx512(bool on);

}  // namespace vec
}  // namespace opforge
