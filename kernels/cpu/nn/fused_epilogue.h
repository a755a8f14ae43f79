// The epilogue of the fused contraction ops (_FusedConv2D, _FusedDepthwiseConv2dNative,
// _FusedMatMul): a per-channel BiasAdd or inference FusedBatchNorm, then an optional
// activation, applied in compute type C to rows of `channels` values. The contraction kernels
// call it on each tile of output they have just written, while the tile is still in cache,
// so the fused op costs no extra pass over memory and no intermediate tensor.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "common/fused_ops.h"
#include "cpu/cpu_util.h"
#include "src/blas.h"
#include "opforge/kernel.h"

namespace opforge {
namespace nn {

// The float32 epilogue: rows[r][c] = act(rows[r][c] * scale[c] + shift[c]) (scale null: 1),
// vectorized (fused_epilogue.cc), every activation; returns true.
bool epilogue_f32(float* rows, int64_t n, int64_t channels, const float* scale, const float* shift, FusedAct act,
                  float alpha);
// The activation alone over len values (float32, vectorized): x = act(x).
void activation_f32(float* x, int64_t len, FusedAct act, float alpha);

// y[r][c] = act(x[r][c] * scale[c] + shift[c] + side[r][c]) over n rows of `channels` values
// (side null: none; act Relu or none), vectorized: _FusedBatchNormEx's channels-last loop.
void scale_shift_rows_f32(const float* x, const float* side, float* y, int64_t n, int64_t channels, const float* scale,
                          const float* shift, bool relu);

template <typename C>
class Epilogue {
 public:
  static constexpr bool kNone = false;
  // Reads TensorFlow's fused_ops spelling: [X] or [X, A], X in {BiasAdd, FusedBatchNorm},
  // A an activation; args are X's extra inputs (of dtype T, 1-D, `channels` values each).
  template <typename T>
  static Status make(const std::string& op, const std::vector<std::string>& fused_ops, const TensorList& args,
                     int64_t channels, float epsilon, float alpha, Epilogue* ep) {
    FusedOps parsed;
    OPF_RETURN_IF_ERROR(parse_fused_ops(op, fused_ops, &parsed));
    OPF_RETURN_IF_ERROR(check_fused_args(op, fused_ops, parsed, args, DTypeOf<T>::value, channels));
    const int want = parsed.num_args;
    std::vector<std::vector<C>> v(static_cast<size_t>(want));
    for (int i = 0; i < want; ++i) {
      const Tensor& t = args[i];
      v[static_cast<size_t>(i)].resize(static_cast<size_t>(channels));
      for (int64_t c = 0; c < channels; ++c)
        v[static_cast<size_t>(i)][static_cast<size_t>(c)] = static_cast<C>(t.data<T>()[c]);
    }
    ep->channels_ = channels;
    if (want == 1) {
      ep->shift_ = std::move(v[0]);
    } else {  // y = (x - mean) * scale / sqrt(var + eps) + offset = x * s + (offset - mean * s)
      ep->scale_.resize(static_cast<size_t>(channels));
      ep->shift_.resize(static_cast<size_t>(channels));
      for (size_t c = 0; c < static_cast<size_t>(channels); ++c) {
        const C s = v[0][c] / std::sqrt(v[3][c] + static_cast<C>(epsilon));
        ep->scale_[c] = s;
        ep->shift_[c] = v[1][c] - v[2][c] * s;
      }
    }
    ep->alpha_ = static_cast<C>(alpha);
    ep->act_ = parsed.act;
    return Status::OK();
  }

  // rows: `n` consecutive rows of channels() values each, transformed in place.
  void operator()(C* rows, int64_t n) const {
    if constexpr (std::is_same_v<C, float>) {
      if (epilogue_f32(rows, n, channels_, scale_.empty() ? nullptr : scale_.data(), shift_.data(), act_, alpha_)) {
        return;
      }
    }
    switch (act_) {
      case FusedAct::kNone:
        return run(rows, n, [](C v) { return v; });
      case FusedAct::kRelu:
        return run(rows, n, [](C v) { return v < C(0) ? C(0) : v; });
      case FusedAct::kRelu6:
        return run(rows, n, [](C v) { return v < C(0) ? C(0) : (v > C(6) ? C(6) : v); });
      case FusedAct::kElu:
        return run(rows, n, [](C v) { return v < C(0) ? std::expm1(v) : v; });
      case FusedAct::kLeakyRelu: {
        const C alpha = alpha_;
        return run(rows, n, [alpha](C v) { return v > C(0) ? v : alpha * v; });
      }
      case FusedAct::kSigmoid:
        return run(rows, n, [](C v) { return C(1) / (C(1) + std::exp(-v)); });
      case FusedAct::kTanh:
        return run(rows, n, [](C v) { return std::tanh(v); });
      case FusedAct::kSwish:
        return run(rows, n, [](C v) { return v / (C(1) + std::exp(-v)); });
      case FusedAct::kHardSwish:
        return run(rows, n, [](C v) {
          const C gate = v + C(3) < C(0) ? C(0) : (v + C(3) > C(6) ? C(6) : v + C(3));
          return v * (gate * (C(1) / C(6)));
        });
      case FusedAct::kGeluExact:
        return run(rows, n, [](C v) { return C(0.5) * v * std::erfc(-v * C(0.70710678118654752440)); });
      case FusedAct::kGeluApproximate:
        return run(rows, n, [](C v) {
          return C(0.5) * v * (C(1) + std::tanh(C(0.79788456080286535588) * (v + C(0.044715) * v * v * v)));
        });
    }
  }

  int64_t channels() const { return channels_; }
  // The blas::ColumnAct of a fused activation the register epilogues apply; -1 for the others.
  static int column_act(FusedAct act) {
    switch (act) {
      case FusedAct::kNone:
        return blas::kActNone;
      case FusedAct::kRelu:
        return blas::kActRelu;
      case FusedAct::kRelu6:
        return blas::kActRelu6;
      case FusedAct::kHardSwish:
        return blas::kActHardSwish;
      default:
        return -1;
    }
  }
  // The epilogue as kernels apply it in registers (the GEMM's micro-kernel, the AVX-512
  // depthwise kernel, the Winograd output transform): false when it cannot be (not float32, or
  // an activation other than none, Relu, Relu6 and hard-swish), then operator() runs over the
  // output instead.
  bool as_column_epilogue(blas::ColumnEpilogue* ep) const {
    if constexpr (std::is_same_v<C, float>) {
      const int act = column_act(act_);
      if (act < 0) return false;
      ep->scale = scale_.empty() ? nullptr : scale_.data();
      ep->shift = shift_.data();
      ep->act = act;
      return true;
    }
    return false;
  }

  // For a float32 activation the registers do not apply (Sigmoid, Tanh, swish, Elu, LeakyRelu):
  // the scale and shift alone as a register epilogue into *ep, the activation then left to
  // activation_post() over the rows the kernel wrote (one pass over them instead of two).
  // False otherwise (as_column_epilogue takes the whole epilogue, or not float32).
  bool shift_as_column_epilogue(blas::ColumnEpilogue* ep) const {
    if constexpr (std::is_same_v<C, float>) {
      if (column_act(act_) >= 0) return false;
      ep->scale = scale_.empty() ? nullptr : scale_.data();
      ep->shift = shift_.data();
      ep->act = 0;
      return true;
    }
    return false;
  }
  // The post-op after shift_as_column_epilogue: rows[r] = act(rows[r]) for n rows.
  struct ActivationPost {
    static constexpr bool kNone = false;
    const Epilogue* e;
    void operator()(float* rows, int64_t n) const { activation_f32(rows, n * e->channels_, e->act_, e->alpha_); }
  };
  ActivationPost activation_post() const { return ActivationPost{this}; }

 private:
  // One loop per activation (the switch is outside), so each inner loop is branch-free
  // arithmetic over a row the compiler can vectorize.
  template <typename F>
  void run(C* rows, int64_t n, F act) const {
    const C* __restrict shift = shift_.data();
    const int64_t ch = channels_;
    if (scale_.empty()) {
      for (int64_t r = 0; r < n; ++r) {
        C* __restrict row = rows + r * ch;
        for (int64_t c = 0; c < ch; ++c) row[c] = act(row[c] + shift[c]);
      }
    } else {
      const C* __restrict scale = scale_.data();
      for (int64_t r = 0; r < n; ++r) {
        C* __restrict row = rows + r * ch;
        for (int64_t c = 0; c < ch; ++c) row[c] = act(row[c] * scale[c] + shift[c]);
      }
    }
  }

  int64_t channels_ = 0;
  std::vector<C> scale_, shift_;  // scale_ empty: 1
  FusedAct act_ = FusedAct::kNone;
  C alpha_ = C(0);
};

}  // namespace nn
}  // namespace opforge
