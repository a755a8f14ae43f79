// epilogue_f32 (fused_epilogue.h): the fused contraction ops' float32 epilogue. The
// piecewise-linear activations are one loop with SIMD clones (built for the baseline ISA only,
// the epilogue of a 1x1 convolution with few input channels cost as much as a third of the
// convolution); the transcendental ones (Sigmoid, Tanh, swish, Elu, GELU) run the vectorized math
// of vec_math.h over the rows after the bias (per element, std::exp cost a U-Net's last 1x1
// convolution four times its multiply).
#include "cpu/nn/fused_epilogue.h"

#include "cpu/nn/nn_util.h"  // OPF_SIMD_CLONES
#include "cpu/vec_math.h"

namespace opforge {
namespace nn {
namespace {

template <bool kScale, typename F>
inline void rows_apply(float* rows, int64_t n, int64_t ch, const float* __restrict scale, const float* __restrict shift,
                       F act) {
  for (int64_t r = 0; r < n; ++r) {
    float* __restrict row = rows + r * ch;
    for (int64_t c = 0; c < ch; ++c) row[c] = act(kScale ? row[c] * scale[c] + shift[c] : row[c] + shift[c]);
  }
}

template <bool kScale>
inline bool apply(float* rows, int64_t n, int64_t ch, const float* scale, const float* shift, FusedAct act,
                  float alpha) {
  switch (act) {
    case FusedAct::kNone:
      rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v; });
      return true;
    case FusedAct::kRelu:
      rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v < 0.0f ? 0.0f : v; });
      return true;
    case FusedAct::kRelu6:
      rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v); });
      return true;
    case FusedAct::kLeakyRelu:
      rows_apply<kScale>(rows, n, ch, scale, shift, [alpha](float v) { return v > 0.0f ? v : alpha * v; });
      return true;
    case FusedAct::kHardSwish:
      rows_apply<kScale>(rows, n, ch, scale, shift,
                         [](float v) { return blas::column_activate(v, blas::kActHardSwish); });
      return true;
    default:
      return false;
  }
}

OPF_SIMD_CLONES
bool affine_f32(float* rows, int64_t n, int64_t channels, const float* scale, const float* shift, FusedAct act,
                float alpha) {
  return scale != nullptr ? apply<true>(rows, n, channels, scale, shift, act, alpha)
                          : apply<false>(rows, n, channels, scale, shift, act, alpha);
}

}  // namespace

namespace {

template <bool kSide, bool kRelu>
inline void scale_shift(const float* x, const float* side, float* y, int64_t n, int64_t ch,
                        const float* __restrict scale, const float* __restrict shift) {
  for (int64_t r = 0; r < n; ++r) {
    const float* __restrict xr = x + r * ch;
    const float* __restrict sr = kSide ? side + r * ch : nullptr;
    float* __restrict yr = y + r * ch;
    for (int64_t c = 0; c < ch; ++c) {
      float v = xr[c] * scale[c] + shift[c];
      if (kSide) v += sr[c];
      yr[c] = kRelu ? (v < 0.0f ? 0.0f : v) : v;
    }
  }
}

}  // namespace

OPF_SIMD_CLONES
void scale_shift_rows_f32(const float* x, const float* side, float* y, int64_t n, int64_t channels, const float* scale,
                          const float* shift, bool relu) {
  if (side != nullptr) {
    relu ? scale_shift<true, true>(x, side, y, n, channels, scale, shift)
         : scale_shift<true, false>(x, side, y, n, channels, scale, shift);
  } else {
    relu ? scale_shift<false, true>(x, side, y, n, channels, scale, shift)
         : scale_shift<false, false>(x, side, y, n, channels, scale, shift);
  }
}

void activation_f32(float* x, int64_t len, FusedAct act, float alpha) {
  switch (act) {
    case FusedAct::kSigmoid:
      return vec::sigmoid_f32(x, x, len);
    case FusedAct::kTanh:
      return vec::tanh_f32(x, x, len);
    case FusedAct::kSwish:
      return vec::swish_f32(x, x, len);
    case FusedAct::kElu:
      return vec::elu_f32(x, x, len);
    case FusedAct::kGeluExact:
      return vec::gelu_f32(x, x, len);
    case FusedAct::kGeluApproximate:
      return vec::gelu_tanh_f32(x, x, len);
    case FusedAct::kLeakyRelu:
      for (int64_t i = 0; i < len; ++i) x[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
      return;
    case FusedAct::kRelu:  // -0 gives +0, NaN stays NaN (as the register epilogue and the ops)
      for (int64_t i = 0; i < len; ++i) x[i] = x[i] <= 0.0f ? 0.0f : x[i];
      return;
    case FusedAct::kRelu6:
      for (int64_t i = 0; i < len; ++i) x[i] = x[i] <= 0.0f ? 0.0f : (x[i] > 6.0f ? 6.0f : x[i]);
      return;
    case FusedAct::kHardSwish:
      for (int64_t i = 0; i < len; ++i) x[i] = blas::column_activate(x[i], blas::kActHardSwish);
      return;
    case FusedAct::kNone:
      return;
  }
}

bool epilogue_f32(float* rows, int64_t n, int64_t channels, const float* scale, const float* shift, FusedAct act,
                  float alpha) {
  if (affine_f32(rows, n, channels, scale, shift, act, alpha)) return true;
  affine_f32(rows, n, channels, scale, shift, FusedAct::kNone, alpha);  // the bias; then the activation
  activation_f32(rows, n * channels, act, alpha);
  return true;
}

}  // namespace nn
}  // namespace opforge
