// QuantizeV2 and Dequantize: float <-> TensorFlow's quantized types, in the modes MIN_COMBINED,
// MIN_FIRST and SCALED, computed as TensorFlow's quantize_op.cc / dequantize_op.cc do (float32
// arithmetic in the same order) so the results are bit-exact with its CPU kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "cpu/cpu_util.h"
#include "opforge/ops/quantization/dequantize.h"
#include "opforge/ops/quantization/quantize_v2.h"

namespace opforge {
namespace {

template <typename Q>
using storage_t = typename Q::value_type;

template <typename Q>
constexpr double lowest_v() {
  return static_cast<double>(std::numeric_limits<storage_t<Q>>::min());
}
template <typename Q>
constexpr double highest_v() {
  return static_cast<double>(std::numeric_limits<storage_t<Q>>::max());
}

// float -> Q as Eigen casts a rounded float: qint32 through lrint (a value past int32 wraps, as
// in TensorFlow), the narrower types by conversion.
template <typename Q>
Q to_quantized(float v) {
  if constexpr (sizeof(storage_t<Q>) == 4) {
    return Q(static_cast<storage_t<Q>>(std::lrint(v)));
  } else {
    return Q(static_cast<storage_t<Q>>(v));
  }
}

// The data viewed as [outer, slices, inner]: slice s of a per-axis range covers
// x[o * slices * inner + s * inner + i].
struct SliceLayout {
  int64_t outer = 1, slices = 1, inner = 1;
};

Status layout(KernelContext& ctx, const Tensor& x, int64_t axis, const Tensor& min, const Tensor& max,
              const char* min_name, const char* max_name, SliceLayout* out) {
  if (axis < -1) return ctx.error("axis should be at least -1, got ", axis);
  if (axis >= 0) {
    if (axis >= x.rank()) {
      return ctx.error("Axis is on a zero-based index, so its value must always be less than number of input's dims, ",
                       "but given axis value was ", axis, " and input's dims was ", x.rank());
    }
    const auto& d = x.shape().dims();
    out->slices = d[static_cast<size_t>(axis)];
    for (int64_t i = 0; i < axis; ++i) out->outer *= d[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(axis) + 1; i < d.size(); ++i) out->inner *= d[i];
    for (const Tensor* t : {&min, &max}) {
      if (t->rank() != 1 || t->num_elements() != out->slices) {
        return ctx.error(t == &min ? min_name : max_name, " must be a vector of ", out->slices, " elements (dimension ",
                         axis, " of input), got shape ", t->shape().to_string());
      }
    }
  } else {
    out->inner = x.num_elements();
    for (const Tensor* t : {&min, &max}) {
      if (t->num_elements() != 1) {
        return ctx.error("If axis is not specified, ", t == &min ? min_name : max_name,
                         " must contain a single float element, but it contains ", t->num_elements(), " elements");
      }
    }
  }
  return Status::OK();
}

template <typename F>
void for_slice(const SliceLayout& l, int64_t s, F&& fn) {
  for (int64_t o = 0; o < l.outer; ++o) {
    const int64_t base = (o * l.slices + s) * l.inner;
    for (int64_t i = 0; i < l.inner; ++i) fn(base + i);
  }
}

template <typename Q>
Status QuantizeV2Cpu(ops::QuantizeV2Args& a) {
  const std::string& mode = a.mode;
  const bool half_to_even = a.round_mode == "HALF_TO_EVEN";
  if (half_to_even && mode != "SCALED") {
    return a.ctx.error("Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '", mode, "'.");
  }
  SliceLayout l;
  OPF_RETURN_IF_ERROR(layout(a.ctx, a.input, a.axis, a.min_range, a.max_range, "min_range", "max_range", &l));
  if (l.slices > 1 && mode == "MIN_FIRST") {
    return errors::Unimplemented("QuantizeV2: MIN_FIRST mode is not implemented for Quantize with axis != -1.");
  }
  const float* x = a.input.data<float>();
  Q* y = a.output.data<Q>();
  const float* mins = a.min_range.data<float>();
  const float* maxs = a.max_range.data<float>();
  for (int64_t s = 0; s < l.slices; ++s) {
    const float in_min = mins[s], in_max = maxs[s];
    if (in_max < in_min) return a.ctx.error("input_max_range must be larger than input_min_range.");
    float min_range = std::min(0.0f, in_min);
    const float epsilon = std::max(1.0f, std::max(std::fabs(in_min), std::fabs(in_max))) * a.ensure_minimum_range;
    float max_range = std::max(0.0f, std::max(in_max, min_range + epsilon));
    if (mode == "MIN_FIRST") {
      const float range_scale = max_range == min_range
                                    ? 0.0f
                                    : static_cast<float>((highest_v<Q>() - lowest_v<Q>()) / (max_range - min_range));
      const float range_min_scaled = std::round(min_range * range_scale);
      const float lower = std::max(static_cast<float>(lowest_v<Q>()), -2.147483648e+09f);
      const float upper = std::min(static_cast<float>(highest_v<Q>()), +2.147483520e+09f);
      const float lowest = static_cast<float>(lowest_v<Q>());
      for_slice(l, s, [&](int64_t i) {
        const float q = std::min(std::max(std::round(x[i] * range_scale) - range_min_scaled + lowest, lower), upper);
        y[i] = Q(static_cast<storage_t<Q>>(static_cast<int32_t>(q)));
      });
    } else if (mode == "MIN_COMBINED") {
      const float scale_factor = static_cast<float>((highest_v<Q>() - lowest_v<Q>()) / (max_range - min_range));
      const bool is_signed = lowest_v<Q>() < 0;
      const float half_range = is_signed ? static_cast<float>((highest_v<Q>() - lowest_v<Q>() + 1) / 2.0) : 0.0f;
      for_slice(l, s, [&](int64_t i) {
        const float c = std::max(std::min(x[i], max_range), min_range) - min_range;
        if (is_signed) {
          y[i] = to_quantized<Q>(std::round(c * scale_factor - half_range));
        } else {
          y[i] = to_quantized<Q>(c * scale_factor + 0.5f);
        }
      });
    } else {  // SCALED
      const int64_t min_output = static_cast<int64_t>(lowest_v<Q>()) + (a.narrow_range ? 1 : 0);
      const int64_t max_output = static_cast<int64_t>(highest_v<Q>());
      const float min_out = static_cast<float>(min_output), max_out = static_cast<float>(max_output);
      const float from_min = (min_out * min_range > 0) ? min_out / min_range : std::numeric_limits<float>::max();
      const float from_max = (max_out * max_range > 0) ? max_out / max_range : std::numeric_limits<float>::max();
      const float scale_factor = std::min(from_min, from_max);
      min_range = min_out / scale_factor;
      max_range = max_out / scale_factor;
      for_slice(l, s, [&](int64_t i) {
        const float v = std::max(std::min(x[i], max_range), min_range) * scale_factor;
        y[i] = to_quantized<Q>(half_to_even ? std::nearbyint(v) : std::round(v));
      });
    }
    a.output_min.data<float>()[s] = min_range;
    a.output_max.data<float>()[s] = max_range;
  }
  return Status::OK();
}

template <typename Q>
Status DequantizeCpu(ops::DequantizeArgs& a) {
  SliceLayout l;
  if (a.axis >= a.input.rank()) {
    return a.ctx.error("Axis must be less than input dimension(", a.input.rank(), "), got ", a.axis);
  }
  OPF_RETURN_IF_ERROR(layout(a.ctx, a.input, a.axis, a.min_range, a.max_range, "min_range", "max_range", &l));
  const std::string& mode = a.mode;
  if (l.slices > 1 && mode == "MIN_FIRST") {
    return errors::Unimplemented("Dequantize: MIN_FIRST mode is not implemented for Dequantize with axis != -1.");
  }
  const Q* x = a.input.data<Q>();
  const bool to_bf16 = a.dtype == DType::kBFloat16;
  float* yf = to_bf16 ? nullptr : a.output.data<float>();
  bfloat16* yb = to_bf16 ? a.output.data<bfloat16>() : nullptr;
  auto put = [&](int64_t i, float v) {
    if (to_bf16) {
      yb[i] = bfloat16(v);
    } else {
      yf[i] = v;
    }
  };
  const float lowest = static_cast<float>(lowest_v<Q>()), highest = static_cast<float>(highest_v<Q>());
  for (int64_t s = 0; s < l.slices; ++s) {
    const float min_range = a.min_range.data<float>()[s], max_range = a.max_range.data<float>()[s];
    if (mode == "MIN_COMBINED") {
      const float half_range = lowest < 0 ? (highest - lowest + 1) / 2.0f : 0.0f;
      const float scale_factor = (max_range - min_range) / (highest - lowest);
      for_slice(l, s,
                [&](int64_t i) { put(i, (static_cast<float>(x[i].value) + half_range) * scale_factor + min_range); });
    } else if (mode == "MIN_FIRST") {
      const double steps = std::ldexp(1.0, static_cast<int>(8 * sizeof(storage_t<Q>)));
      const float range_scale = static_cast<float>((max_range - min_range) / (steps - 1.0));
      const float range_min_rounded =
          max_range == min_range ? min_range : std::round(min_range / range_scale) * range_scale;
      for_slice(l, s, [&](int64_t i) {
        put(i, (static_cast<float>(static_cast<int32_t>(x[i].value)) - lowest) * range_scale + range_min_rounded);
      });
    } else {  // SCALED
      const float min_output = lowest + (a.narrow_range ? 1.0f : 0.0f);
      const float scale_factor =
          lowest == 0 ? max_range / highest : std::max(min_range / min_output, max_range / highest);
      for_slice(l, s, [&](int64_t i) { put(i, static_cast<float>(static_cast<int32_t>(x[i].value)) * scale_factor); });
    }
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(QuantizeV2, CPU, QuantizeV2Cpu, OPF_QUANTIZED_TYPES)
OPFORGE_REGISTER_KERNEL(Dequantize, CPU, DequantizeCpu, OPF_QUANTIZED_TYPES)

}  // namespace opforge
