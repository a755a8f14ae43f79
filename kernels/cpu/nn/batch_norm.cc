// FusedBatchNormV3, FusedBatchNormGradV3 and _FusedBatchNormEx (inference) on CPU, with
// TensorFlow's outputs:
//   training:  y from the batch statistics; batch_mean / batch_variance are the running
//              statistics updated with exponential_avg_factor (batch_variance unbiased);
//              reserve_space_1 / reserve_space_2 hold the batch mean and (biased) variance
//              for the gradient.
//   inference: y from the given mean and variance, which pass through to batch_mean,
//              batch_variance and the reserve spaces.
// reserve_space_3 is empty and the gradient's reserve_space_4/5 are scalars (0), as on
// TensorFlow's CPU.
// Statistics accumulate in double; channel-last layouts split rows over the threads with
// per-thread partial sums, channel-first layouts split channels.
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/_fused_batch_norm_ex.h"
#include "opforge/ops/nn/fused_batch_norm_grad_v3.h"
#include "opforge/ops/nn/fused_batch_norm_v3.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

using nn_semantics::channel_first;
// x viewed as [outer, channels, inner]: channel-last has inner == 1.
struct BnView {
  int64_t outer = 0, c = 0, inner = 1;
  int64_t count() const { return outer * inner; }
};

BnView view_of(const Shape& x, const std::string& fmt) {
  BnView v;
  const int r = x.rank();
  if (channel_first(fmt)) {
    v.outer = x.dim(0);
    v.c = x.dim(1);
    for (int i = 2; i < r; ++i) v.inner *= x.dim(i);
  } else {
    v.c = x.dim(r - 1);
    v.outer = 1;
    for (int i = 0; i < r - 1; ++i) v.outer *= x.dim(i);
  }
  return v;
}

// Per-channel sums of f(x) over everything but the channel dim, in double.
template <typename T, typename F>
std::vector<double> channel_sums(const T* x, const BnView& v, F f) {
  std::vector<double> total(static_cast<size_t>(v.c), 0.0);
  if (v.inner == 1) {
    nn::OrderedPartials<std::vector<double>> partials;
    parallel_for(v.outer, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, v.c)), [&](int64_t b, int64_t e) {
      std::vector<double> part(static_cast<size_t>(v.c), 0.0);
      for (int64_t o = b; o < e; ++o) {
        const T* row = x + o * v.c;
        for (int64_t c = 0; c < v.c; ++c) part[static_cast<size_t>(c)] += f(c, o * v.c + c, row[c]);
      }
      partials.add(b, std::move(part));
    });
    partials.merge_in_order([&](const std::vector<double>& part) {
      for (int64_t c = 0; c < v.c; ++c) total[static_cast<size_t>(c)] += part[static_cast<size_t>(c)];
    });
  } else {
    parallel_for(v.c, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, v.count())), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        double s = 0;
        for (int64_t o = 0; o < v.outer; ++o) {
          const int64_t base = (o * v.c + c) * v.inner;
          for (int64_t i = 0; i < v.inner; ++i) s += f(c, base + i, x[base + i]);
        }
        total[static_cast<size_t>(c)] = s;
      }
    });
  }
  return total;
}

// Per channel, sum(dy) and sum(dy * x), interleaved in one vector (2c values), in double:
// FusedBatchNormGradV3's statistics in one pass over both tensors.
template <typename T>
std::vector<double> dy_and_dyx_sums(const T* dy, const T* x, const BnView& v) {
  const size_t c = static_cast<size_t>(v.c);
  std::vector<double> total(2 * c, 0.0);
  if (v.inner == 1) {
    nn::OrderedPartials<std::vector<double>> partials;  // per part: sum(dy), sum(dy * x) interleaved
    parallel_for(v.outer, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, v.c)), [&](int64_t b, int64_t e) {
      std::vector<double> s_dy(c, 0.0), s_dyx(c, 0.0);
      for (int64_t o = b; o < e; ++o) {
        const T* g = dy + o * v.c;
        const T* xr = x + o * v.c;
        for (size_t k = 0; k < c; ++k) {
          const double gk = static_cast<float>(g[k]);
          s_dy[k] += gk;
          s_dyx[k] += gk * static_cast<float>(xr[k]);
        }
      }
      std::vector<double> part(2 * c);
      for (size_t k = 0; k < c; ++k) {
        part[2 * k] = s_dy[k];
        part[2 * k + 1] = s_dyx[k];
      }
      partials.add(b, std::move(part));
    });
    partials.merge_in_order([&](const std::vector<double>& part) {
      for (size_t i = 0; i < 2 * c; ++i) total[i] += part[i];
    });
    return total;
  }
  parallel_for(v.c, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, v.count())), [&](int64_t b, int64_t e) {
    for (int64_t ch = b; ch < e; ++ch) {
      double s_dy = 0, s_dyx = 0;
      for (int64_t o = 0; o < v.outer; ++o) {
        const int64_t base = (o * v.c + ch) * v.inner;
        for (int64_t i = base; i < base + v.inner; ++i) {
          const double gi = static_cast<float>(dy[i]);
          s_dy += gi;
          s_dyx += gi * static_cast<float>(x[i]);
        }
      }
      total[2 * static_cast<size_t>(ch)] = s_dy;
      total[2 * static_cast<size_t>(ch) + 1] = s_dyx;
    }
  });
  return total;
}

// out[i] = g(channel, i) for every element: rows of channels (channel-last) or runs of `inner`
// elements of one channel, split over the threads; no division per element.
template <typename G>
void for_each_element(const BnView& v, G g) {
  if (v.inner == 1) {
    parallel_for(v.outer, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, v.c)), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        for (int64_t c = 0; c < v.c; ++c) g(c, o * v.c + c);
      }
    });
    return;
  }
  parallel_for(v.outer * v.c, std::max<int64_t>(1, cpu::kGrain / v.inner), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t c = r % v.c;
      for (int64_t i = r * v.inner; i < (r + 1) * v.inner; ++i) g(c, i);
    }
  });
}

template <typename U>
std::vector<double> read_u(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<float>(t.data<U>()[i]));
  return out;
}

template <typename U>
void write_u(Tensor& t, const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); ++i) t.data<U>()[i] = static_cast<U>(static_cast<float>(v[i]));
}

template <typename T, typename U>
Status BatchNorm(ops::FusedBatchNormV3Args& a) {
  const BnView v = view_of(a.x.shape(), a.data_format);
  const size_t c = static_cast<size_t>(v.c);
  const T* x = a.x.data<T>();
  const std::vector<double> scale = read_u<U>(a.scale), offset = read_u<U>(a.offset);
  std::vector<double> mean(c), var(c), run_mean(c), run_var(c);
  if (a.is_training) {
    const double n = static_cast<double>(v.count());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    mean = channel_sums(x, v, [](int64_t, int64_t, T val) { return static_cast<double>(static_cast<float>(val)); });
    for (auto& m : mean) m = n > 0 ? m / n : nan;
    var = channel_sums(x, v, [&](int64_t ch, int64_t, T val) {
      const double d = static_cast<double>(static_cast<float>(val)) - mean[static_cast<size_t>(ch)];
      return d * d;
    });
    for (auto& s : var) s = n > 0 ? s / n : nan;
    const double f = a.exponential_avg_factor;
    const double adjust = n > 1 ? n / (n - 1) : 1.0;
    const bool mix = f != 1.0;
    const std::vector<double> old_mean = mix ? read_u<U>(a.mean) : std::vector<double>();
    const std::vector<double> old_var = mix ? read_u<U>(a.variance) : std::vector<double>();
    for (size_t i = 0; i < c; ++i) {
      run_mean[i] = mix ? (1 - f) * old_mean[i] + f * mean[i] : mean[i];
      run_var[i] = mix ? (1 - f) * old_var[i] + f * var[i] * adjust : var[i] * adjust;
    }
  } else {
    mean = read_u<U>(a.mean);
    var = read_u<U>(a.variance);
    run_mean = mean;
    run_var = var;
  }
  std::vector<double> mul(c), add(c);
  for (size_t i = 0; i < c; ++i) {
    mul[i] = scale[i] / std::sqrt(var[i] + static_cast<double>(a.epsilon));
    add[i] = offset[i] - mean[i] * mul[i];
  }
  T* y = a.y.data<T>();
  for_each_element(v, [&](int64_t ch, int64_t i) {
    const size_t k = static_cast<size_t>(ch);
    y[i] = static_cast<T>(static_cast<float>(static_cast<double>(static_cast<float>(x[i])) * mul[k] + add[k]));
  });
  write_u<U>(a.batch_mean, run_mean);
  write_u<U>(a.batch_variance, run_var);
  write_u<U>(a.reserve_space_1, mean);
  write_u<U>(a.reserve_space_2, var);
  return Status::OK();
}

template <typename T>
Status FusedBatchNormV3Cpu(ops::FusedBatchNormV3Args& a) {
  if (a.scale.dtype() == DType::kBFloat16) return BatchNorm<T, bfloat16>(a);
  return BatchNorm<T, float>(a);
}

template <typename T>
Status FusedBatchNormGradV3Cpu(ops::FusedBatchNormGradV3Args& a) {
  if (!(a.y_backprop.shape() == a.x.shape())) {
    return a.ctx.error("y_backprop and x must have the same shape, got ", a.y_backprop.shape().to_string(), " and ",
                       a.x.shape().to_string());
  }
  const BnView v = view_of(a.x.shape(), a.data_format);
  const size_t c = static_cast<size_t>(v.c);
  const T* x = a.x.data<T>();
  const T* dy = a.y_backprop.data<T>();
  const std::vector<double> scale = read_u<float>(a.scale), mean = read_u<float>(a.reserve_space_1),
                            var = read_u<float>(a.reserve_space_2);
  std::vector<double> inv(c);
  for (size_t i = 0; i < c; ++i) inv[i] = 1.0 / std::sqrt(var[i] + static_cast<double>(a.epsilon));
  // One pass for sum(dy) and sum(dy * x) per channel; then dx = dy * p + (x - mean) * q + r
  // with per-channel coefficients (x_hat = (x - mean) * inv):
  //   dx = scale * inv * (dy - (d_offset + x_hat * d_scale) / n)   (training)
  //   dx = scale * inv * dy                                          (inference)
  const std::vector<double> sums = dy_and_dyx_sums(dy, x, v);
  const double n = static_cast<double>(v.count());
  std::vector<double> d_offset(c), d_scale(c);
  std::vector<float> p(c), q(c), r(c), m(c);
  for (size_t k = 0; k < c; ++k) {
    d_offset[k] = sums[2 * k];
    d_scale[k] = (sums[2 * k + 1] - mean[k] * sums[2 * k]) * inv[k];
    const double si = scale[k] * inv[k];
    const double qk = a.is_training && n > 0 ? -si * inv[k] * d_scale[k] / n : 0.0;
    const double rk = a.is_training && n > 0 ? -si * d_offset[k] / n : 0.0;
    p[k] = static_cast<float>(si);
    q[k] = static_cast<float>(qk);
    r[k] = static_cast<float>(rk);
    m[k] = static_cast<float>(mean[k]);
  }
  T* dx = a.x_backprop.data<T>();
  for_each_element(v, [&](int64_t ch, int64_t i) {
    const size_t k = static_cast<size_t>(ch);
    dx[i] = static_cast<T>(static_cast<float>(dy[i]) * p[k] + (static_cast<float>(x[i]) - m[k]) * q[k] + r[k]);
  });
  write_u<float>(a.scale_backprop, d_scale);
  write_u<float>(a.offset_backprop, d_offset);
  a.reserve_space_4.data<float>()[0] = 0.0f;
  a.reserve_space_5.data<float>()[0] = 0.0f;
  return Status::OK();
}

// _FusedBatchNormEx: y = act(x * mul + add [+ side_input]) per channel in one pass, with
// mul = scale / sqrt(variance + epsilon) and add = offset - mean * mul; inference only.
template <typename T>
Status FusedBatchNormExCpu(ops::_FusedBatchNormExArgs& a) {
  if (a.is_training) {
    return errors::Unimplemented(
        "_FusedBatchNormEx: opforge runs it for inference only (is_training=false); "
        "use FusedBatchNormV3 to train");
  }
  if (a.activation_mode != "Identity" && a.activation_mode != "Relu") {
    return a.ctx.error("activation_mode must be \"Identity\" or \"Relu\", got \"", a.activation_mode, "\"");
  }
  if (a.side_input.size > 1) return a.ctx.error("at most one side_input, got ", a.side_input.size);
  const Tensor* side = a.side_input.size == 1 ? &a.side_input[0] : nullptr;
  if (side != nullptr && !(side->shape() == a.x.shape())) {
    return a.ctx.error("side_input must have x's shape ", a.x.shape().to_string(), ", got ", side->shape().to_string());
  }
  const BnView v = view_of(a.x.shape(), a.data_format);
  const size_t c = static_cast<size_t>(v.c);
  const std::vector<double> scale = read_u<float>(a.scale), offset = read_u<float>(a.offset),
                            mean = read_u<float>(a.mean), var = read_u<float>(a.variance);
  std::vector<float> mul(c), add(c);
  for (size_t i = 0; i < c; ++i) {
    const double m = scale[i] / std::sqrt(var[i] + static_cast<double>(a.epsilon));
    mul[i] = static_cast<float>(m);
    add[i] = static_cast<float>(offset[i] - mean[i] * m);
  }
  const bool relu = a.activation_mode == "Relu";
  const T* x = a.x.data<T>();
  const T* sx = side != nullptr ? side->data<T>() : nullptr;
  T* y = a.y.data<T>();
  if constexpr (std::is_same_v<T, float>) {
    if (v.inner == 1 && v.c > 0) {  // channels last: rows of C, vectorized
      parallel_for(v.outer, std::max<int64_t>(1, cpu::kGrain / v.c), [&](int64_t r0, int64_t r1) {
        nn::scale_shift_rows_f32(x + r0 * v.c, sx ? sx + r0 * v.c : nullptr, y + r0 * v.c, r1 - r0, v.c, mul.data(),
                                 add.data(), relu);
      });
    }
  }
  if (!(std::is_same_v<T, float> && v.inner == 1)) {
    for_each_element(v, [&](int64_t ch, int64_t i) {
      const size_t k = static_cast<size_t>(ch);
      float r = static_cast<float>(x[i]) * mul[k] + add[k];
      if (sx != nullptr) r += static_cast<float>(sx[i]);
      y[i] = static_cast<T>(relu && r < 0.0f ? 0.0f : r);
    });
  }
  write_u<float>(a.batch_mean, mean);
  write_u<float>(a.batch_variance, var);
  write_u<float>(a.reserve_space_1, mean);
  write_u<float>(a.reserve_space_2, var);
  return Status::OK();
}

// The shape functions of these ops are op semantics: runtime/ops/nn.cc.

}  // namespace

OPFORGE_REGISTER_KERNEL(FusedBatchNormV3, CPU, FusedBatchNormV3Cpu, bfloat16, half, float)
OPFORGE_REGISTER_KERNEL(FusedBatchNormGradV3, CPU, FusedBatchNormGradV3Cpu, bfloat16, half, float)
OPFORGE_REGISTER_KERNEL(_FusedBatchNormEx, CPU, FusedBatchNormExCpu, bfloat16, half, float)

}  // namespace opforge
