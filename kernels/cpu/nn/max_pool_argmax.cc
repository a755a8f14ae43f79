// MaxPoolWithArgmax and its gradient MaxPoolGradWithArgmax (NHWC): the max of each window with
// the flattened index of the first maximum (rows then columns; NaN wins, as MaxPool's), and the
// gradient scattered back to those indices. Batch images run in parallel. (T is the opdefs' first
// type attr, so the kernels dispatch on it, not on Targmax.)
#include <cmath>
#include <cstring>

#include "common/window.h"
#include "cpu/cpu_util.h"
#include "ops/nn.h"
#include "opforge/ops/nn/max_pool_grad_with_argmax.h"
#include "opforge/ops/nn/max_pool_with_argmax.h"

namespace opforge {
namespace {

template <typename T, typename I>
void pool_with_argmax(const nn_semantics::PoolGeom& g, const T* x, T* y, I* arg, bool batch_in_index) {
  parallel_for(g.n, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t r0 = std::max<int64_t>(oh * g.sh - g.pt, 0), r1 = std::min(oh * g.sh - g.pt + g.kh, g.h);
          const int64_t c0 = std::max<int64_t>(ow * g.sw - g.pl, 0), c1 = std::min(ow * g.sw - g.pl + g.kw, g.w);
          for (int64_t c = 0; c < g.c; ++c) {
            double best = 0;
            int64_t best_at = -1;
            for (int64_t r = r0; r < r1; ++r) {
              for (int64_t q = c0; q < c1; ++q) {
                const int64_t at = ((n * g.h + r) * g.w + q) * g.c + c;
                const double v = static_cast<double>(x[at]);
                const bool nan_wins = std::isnan(v) && !std::isnan(best);
                if (best_at < 0 || v > best || nan_wins) {
                  best = v;
                  best_at = at;
                }
              }
            }
            const int64_t out = ((n * g.oh + oh) * g.ow + ow) * g.c + c;
            y[out] = x[best_at];
            arg[out] = static_cast<I>(batch_in_index ? best_at : best_at - n * g.h * g.w * g.c);
          }
        }
      }
    }
  });
}

template <typename T>
Status MaxPoolWithArgmaxCpu(ops::MaxPoolWithArgmaxArgs& a) {
  nn_semantics::PoolGeom g;
  OPF_RETURN_IF_ERROR(nn_semantics::pool_geom("MaxPoolWithArgmax", a.input.shape(), nn::layout_of("NHWC"), a.ksize,
                                              a.strides, a.padding, {}, &g));
  if (a.output.num_elements() == 0) return Status::OK();
  if (a.Targmax == DType::kInt32) {
    pool_with_argmax<T, int32_t>(g, a.input.template data<T>(), a.output.template data<T>(),
                                 a.argmax.template data<int32_t>(), a.include_batch_in_index);
  } else {
    pool_with_argmax<T, int64_t>(g, a.input.template data<T>(), a.output.template data<T>(),
                                 a.argmax.template data<int64_t>(), a.include_batch_in_index);
  }
  return Status::OK();
}

template <typename T, typename I>
Status scatter_grad(ops::MaxPoolGradWithArgmaxArgs& a) {
  const Shape& in = a.input.shape();
  const int64_t image = in.dim(1) * in.dim(2) * in.dim(3), total = a.input.num_elements();
  const int64_t per_image = a.grad.dim(0) > 0 ? a.grad.num_elements() / a.grad.dim(0) : 0;
  const T* gr = a.grad.template data<T>();
  const I* arg = a.argmax.template data<I>();
  T* out = a.output.template data<T>();
  for (int64_t i = 0; i < a.output.num_elements(); ++i) out[i] = T(0);
  for (int64_t i = 0; i < a.grad.num_elements(); ++i) {
    const int64_t n = per_image > 0 ? i / per_image : 0;
    const int64_t idx = static_cast<int64_t>(arg[i]);
    const int64_t pos = a.include_batch_in_index ? idx : n * image + idx;
    if (idx < 0 || pos < 0 || pos >= total || (!a.include_batch_in_index && idx >= image)) {
      return a.ctx.error("argmax ", idx, " at position ", i, " is outside the input (", in.to_string(), ")");
    }
    out[pos] = static_cast<T>(static_cast<double>(out[pos]) + static_cast<double>(gr[i]));
  }
  return Status::OK();
}

template <typename T>
Status MaxPoolGradWithArgmaxCpu(ops::MaxPoolGradWithArgmaxArgs& a) {
  if (!(a.grad.shape() == a.argmax.shape())) {
    return a.ctx.error("grad and argmax must have the same shape, got ", a.grad.shape().to_string(), " and ",
                       a.argmax.shape().to_string());
  }
  if (a.grad.rank() != 4 || a.grad.dim(0) != a.input.dim(0) || a.grad.dim(3) != a.input.dim(3)) {
    return a.ctx.error("grad ", a.grad.shape().to_string(), " does not match input ", a.input.shape().to_string());
  }
  if (a.argmax.dtype() == DType::kInt32) return scatter_grad<T, int32_t>(a);
  return scatter_grad<T, int64_t>(a);
}

}  // namespace

OPFORGE_REGISTER_KERNEL(MaxPoolWithArgmax, CPU, MaxPoolWithArgmaxCpu, bfloat16, half, float, double, int32_t, int64_t,
                        uint8_t, int16_t, int8_t)
OPFORGE_REGISTER_KERNEL(MaxPoolGradWithArgmax, CPU, MaxPoolGradWithArgmaxCpu, bfloat16, half, float, double, int32_t,
                        int64_t, uint8_t, int16_t, int8_t)

}  // namespace opforge
