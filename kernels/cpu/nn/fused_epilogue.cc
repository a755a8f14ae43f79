// epilogue_f32 (fused_epilogue.h): the fused contraction ops' float32 epilogue for the
// piecewise-linear activations, in its own function so it can carry SIMD clones. (Built for
// the baseline ISA only, the epilogue of a 1x1 convolution with few input channels cost as
// much as a third of the convolution.)
#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"  // OPF_SIMD_CLONES

namespace opforge {
namespace nn {
namespace {

template <bool kScale, typename F>
inline void rows_apply(float* rows, int64_t n, int64_t ch, const float* __restrict scale,
                       const float* __restrict shift, F act) {
  for (int64_t r = 0; r < n; ++r) {
    float* __restrict row = rows + r * ch;
    for (int64_t c = 0; c < ch; ++c) row[c] = act(kScale ? row[c] * scale[c] + shift[c] : row[c] + shift[c]);
  }
}

template <bool kScale>
inline bool apply(float* rows, int64_t n, int64_t ch, const float* scale, const float* shift, FusedAct act,
                  float alpha) {
  switch (act) {
    case FusedAct::kNone: rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v; }); return true;
    case FusedAct::kRelu:
      rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v < 0.0f ? 0.0f : v; });
      return true;
    case FusedAct::kRelu6:
      rows_apply<kScale>(rows, n, ch, scale, shift, [](float v) { return v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v); });
      return true;
    case FusedAct::kLeakyRelu:
      rows_apply<kScale>(rows, n, ch, scale, shift, [alpha](float v) { return v > 0.0f ? v : alpha * v; });
      return true;
    default: return false;
  }
}

}  // namespace

OPF_SIMD_CLONES
bool epilogue_f32(float* rows, int64_t n, int64_t channels, const float* scale, const float* shift, FusedAct act,
                  float alpha) {
  return scale != nullptr ? apply<true>(rows, n, channels, scale, shift, act, alpha)
                          : apply<false>(rows, n, channels, scale, shift, act, alpha);
}

}  // namespace nn
}  // namespace opforge
