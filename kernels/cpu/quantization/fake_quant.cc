// Fake quantization (FakeQuantWithMinMax{Args,Vars,VarsPerChannel} and their gradients), as
// TensorFlow's fake_quant_ops_functor.h computes it, in float32 step for step so the results
// are bit-exact with TensorFlow's CPU kernels.
#include <cmath>
#include <cstdint>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_args.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_args_gradient.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_vars.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_vars_gradient.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_vars_per_channel.h"
#include "opforge/ops/quantization/fake_quant_with_min_max_vars_per_channel_gradient.h"

namespace opforge {
namespace {

// TensorFlow's Nudge: the range moved so that 0.0 falls exactly on a quantized level.
struct Nudged {
  float min, max, scale, inv_scale;
};

Nudged nudge(float min, float max, int64_t num_bits, bool narrow_range) {
  const int quant_min = narrow_range ? 1 : 0;
  const int quant_max = (1 << num_bits) - 1;
  const float quant_min_float = static_cast<float>(quant_min);
  const float quant_max_float = static_cast<float>(quant_max);
  Nudged n;
  n.scale = (max - min) / (quant_max_float - quant_min_float);
  n.inv_scale = (quant_max_float - quant_min_float) / (max - min);
  const float zero_point_from_min = quant_min_float - min / n.scale;
  uint16_t zero_point;
  if (zero_point_from_min < quant_min_float) {
    zero_point = static_cast<uint16_t>(quant_min);
  } else if (zero_point_from_min > quant_max_float) {
    zero_point = static_cast<uint16_t>(quant_max);
  } else {
    zero_point = static_cast<uint16_t>(std::round(zero_point_from_min));
  }
  n.min = (quant_min_float - zero_point) * n.scale;
  n.max = (quant_max_float - zero_point) * n.scale;
  return n;
}

Status check_num_bits(KernelContext& ctx, int64_t num_bits) {
  if (num_bits < 2 || num_bits > 16) return ctx.error("num_bits must be between 2 and 16, inclusive, got ", num_bits);
  return Status::OK();
}

// Quantizes x[i * stride + c] for i in [0, rows) with channel c's range (one channel: stride 1).
void fake_quant(const float* x, float* y, int64_t n, int64_t channels, const float* mins, const float* maxs,
                int64_t num_bits, bool narrow_range) {
  std::vector<Nudged> ranges(static_cast<size_t>(channels));
  std::vector<bool> zero(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    zero[static_cast<size_t>(c)] = mins[c] == 0.0f && maxs[c] == 0.0f;  // TensorFlow: all zeros
    ranges[static_cast<size_t>(c)] = nudge(mins[c], maxs[c], num_bits, narrow_range);
  }
  parallel_for(n, cpu::kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const size_t c = static_cast<size_t>(i % channels);
      if (zero[c]) {
        y[i] = 0.0f;
        continue;
      }
      const Nudged& r = ranges[c];
      const float quant_zero = std::floor(-r.min * r.inv_scale + 0.5f);
      const float clamped = std::max(std::min(x[i], r.max), r.min);
      y[i] = std::floor((clamped - r.min) * r.inv_scale - quant_zero + 0.5f) * r.scale;
    }
  });
}

// Straight-through gradient; the gradients below and above each channel's range are summed
// into dmin / dmax (when given).
void fake_quant_grad(const float* g, const float* x, float* dx, float* dmin, float* dmax, int64_t n, int64_t channels,
                     const float* mins, const float* maxs, int64_t num_bits, bool narrow_range) {
  for (int64_t c = 0; c < channels; ++c) {
    const Nudged r = nudge(mins[c], maxs[c], num_bits, narrow_range);
    const bool zero = mins[c] == 0.0f && maxs[c] == 0.0f;  // TensorFlow passes everything through
    float below = 0.0f, above = 0.0f;
    for (int64_t i = c; i < n; i += channels) {
      if (zero) {
        dx[i] = g[i];
        continue;
      }
      const bool inside = x[i] >= r.min && x[i] <= r.max;
      dx[i] = inside ? g[i] : 0.0f;
      if (x[i] < r.min) below += g[i];
      if (x[i] > r.max) above += g[i];
    }
    if (dmin) dmin[c] = below;
    if (dmax) dmax[c] = above;
  }
}

Status check_same_shape(KernelContext& ctx, const Tensor& g, const Tensor& x) {
  if (g.shape() != x.shape()) {
    return ctx.error("gradients and inputs must have the same shape, got ", g.shape().to_string(), " and ",
                     x.shape().to_string());
  }
  return Status::OK();
}

Status check_args_range(KernelContext& ctx, float min, float max) {
  if (!(min < max)) return ctx.error("min has to be smaller than max, was: ", min, " >= ", max);
  return Status::OK();
}

Status check_scalar(KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.rank() != 0) return ctx.error("`", what, "` must be rank 0 but is rank ", t.rank());
  return Status::OK();
}

// Per channel: min and max are vectors of the last dimension's length.
Status check_channels(KernelContext& ctx, const Tensor& x, const Tensor& min, const Tensor& max, int64_t* channels) {
  if (x.rank() < 1) return ctx.error("inputs must have rank at least 1, got a scalar");
  const int64_t d = x.shape().dim(x.rank() - 1);
  for (const Tensor* t : {&min, &max}) {
    if (t->rank() != 1 || t->shape().dim(0) != d) {
      return ctx.error(t == &min ? "min" : "max", " must be a vector of ", d,
                       " elements (the last dimension of inputs), got shape ", t->shape().to_string());
    }
  }
  *channels = d;
  return Status::OK();
}

Status FakeQuantArgsCpu(ops::FakeQuantWithMinMaxArgsArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  OPF_RETURN_IF_ERROR(check_args_range(a.ctx, a.min, a.max));
  fake_quant(a.inputs.data<float>(), a.outputs.data<float>(), a.inputs.num_elements(), 1, &a.min, &a.max, a.num_bits,
             a.narrow_range);
  return Status::OK();
}

Status FakeQuantArgsGradientCpu(ops::FakeQuantWithMinMaxArgsGradientArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  OPF_RETURN_IF_ERROR(check_args_range(a.ctx, a.min, a.max));
  OPF_RETURN_IF_ERROR(check_same_shape(a.ctx, a.gradients, a.inputs));
  fake_quant_grad(a.gradients.data<float>(), a.inputs.data<float>(), a.backprops.data<float>(), nullptr, nullptr,
                  a.inputs.num_elements(), 1, &a.min, &a.max, a.num_bits, a.narrow_range);
  return Status::OK();
}

Status FakeQuantVarsCpu(ops::FakeQuantWithMinMaxVarsArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.min, "min"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.max, "max"));
  fake_quant(a.inputs.data<float>(), a.outputs.data<float>(), a.inputs.num_elements(), 1, a.min.data<float>(),
             a.max.data<float>(), a.num_bits, a.narrow_range);
  return Status::OK();
}

Status FakeQuantVarsGradientCpu(ops::FakeQuantWithMinMaxVarsGradientArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.min, "min"));
  OPF_RETURN_IF_ERROR(check_scalar(a.ctx, a.max, "max"));
  OPF_RETURN_IF_ERROR(check_same_shape(a.ctx, a.gradients, a.inputs));
  fake_quant_grad(a.gradients.data<float>(), a.inputs.data<float>(), a.backprops_wrt_input.data<float>(),
                  a.backprop_wrt_min.data<float>(), a.backprop_wrt_max.data<float>(), a.inputs.num_elements(), 1,
                  a.min.data<float>(), a.max.data<float>(), a.num_bits, a.narrow_range);
  return Status::OK();
}

Status FakeQuantPerChannelCpu(ops::FakeQuantWithMinMaxVarsPerChannelArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  int64_t d = 0;
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.inputs, a.min, a.max, &d));
  if (d == 0) return Status::OK();
  fake_quant(a.inputs.data<float>(), a.outputs.data<float>(), a.inputs.num_elements(), d, a.min.data<float>(),
             a.max.data<float>(), a.num_bits, a.narrow_range);
  return Status::OK();
}

Status FakeQuantPerChannelGradientCpu(ops::FakeQuantWithMinMaxVarsPerChannelGradientArgs& a) {
  OPF_RETURN_IF_ERROR(check_num_bits(a.ctx, a.num_bits));
  OPF_RETURN_IF_ERROR(check_same_shape(a.ctx, a.gradients, a.inputs));
  int64_t d = 0;
  OPF_RETURN_IF_ERROR(check_channels(a.ctx, a.inputs, a.min, a.max, &d));
  if (d == 0) return Status::OK();
  fake_quant_grad(a.gradients.data<float>(), a.inputs.data<float>(), a.backprops_wrt_input.data<float>(),
                  a.backprop_wrt_min.data<float>(), a.backprop_wrt_max.data<float>(), a.inputs.num_elements(), d,
                  a.min.data<float>(), a.max.data<float>(), a.num_bits, a.narrow_range);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxArgs, CPU, FakeQuantArgsCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxArgsGradient, CPU, FakeQuantArgsGradientCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxVars, CPU, FakeQuantVarsCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxVarsGradient, CPU, FakeQuantVarsGradientCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxVarsPerChannel, CPU, FakeQuantPerChannelCpu)
OPFORGE_REGISTER_UNTYPED_KERNEL(FakeQuantWithMinMaxVarsPerChannelGradient, CPU, FakeQuantPerChannelGradientCpu)

}  // namespace opforge
