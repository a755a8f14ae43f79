// Conv2D by the direct AVX-512 kernel (conv_direct_avx512.h) for float32 convolutions over few
// input channels (an image's first convolution, a small U-Net): no patch matrix.
#include <algorithm>
#include <vector>

#include "cpu/nn/conv2d_internal.h"
#include "cpu/nn/conv_direct_avx512.h"

namespace opforge {
namespace conv2d {

// The direct AVX-512 kernel (conv_direct_avx512.h) where the depth per tap is small: at most
// kMaxDirectCin input channels. Measured at batch 8 against im2col + GEMM and Winograd: 3
// channels 224x224 3x3/2 -> 32 1.04 -> 0.59 ms, 7x7/2 -> 64 5.3 -> 4.3 ms; 16 channels
// 128x128 3x3 -> 16 3.0 -> 1.7 ms, 64x64 3x3 -> 32 0.87 -> 0.64 ms; at 32 channels no faster.
constexpr int64_t kMaxDirectCin = 16;

bool use_direct(const ConvGeom& g) {
  return nn::direct_conv_avx512_enabled() && g.groups == 1 && g.cin <= kMaxDirectCin && !g.is_pointwise();
}

// Rows of output over the threads, each computed by the direct kernel and finished by the
// epilogue while in cache. Output channels are padded to whole vectors in a copy of the filter.
template <typename Post>
void direct_forward(const float* in, const float* filt, float* out, const ConvGeom& g, const Post& post) {
  const int64_t cp = (g.cout + 15) / 16 * 16, taps = g.kh * g.kw * g.cin;
  std::vector<float> padded;
  const float* f = filt;
  if (cp != g.cout) {
    padded.assign(static_cast<size_t>(taps * cp), 0.0f);
    for (int64_t t = 0; t < taps; ++t) std::copy(filt + t * g.cout, filt + (t + 1) * g.cout, &padded[t * cp]);
    f = padded.data();
  }
  const nn::DirectConvGeom dg{g.h, g.w, g.cin, g.kh, g.kw, g.cout, cp, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl};
  const int64_t row_work = std::max<int64_t>(1, g.ow * taps * g.cout);
  parallel_for(g.n * g.oh, std::max<int64_t>(1, cpu::kGrain / row_work), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      float* o = out + r * g.ow * g.cout;
      nn::conv_row_avx512(in + (r / g.oh) * g.h * g.w * g.cin, f, o, dg, r % g.oh);
      post(o, g.ow);
    }
  });
}

template void direct_forward<NoPost>(const float*, const float*, float*, const ConvGeom&, const NoPost&);
template void direct_forward<nn::Epilogue<float>>(const float*, const float*, float*, const ConvGeom&,
                                                  const nn::Epilogue<float>&);

}  // namespace conv2d
}  // namespace opforge
