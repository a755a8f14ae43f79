// Dilation2D (grayscale morphological dilation, NHWC) and its gradients: each output is the max
// over the (dilated) window of input + filter; the gradients go to the input and filter taps of
// the first maximum (rows, then columns; padding never wins), as TensorFlow's kernels route them.
#include <limits>

#include "common/window.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/nn/dilation2d.h"
#include "opforge/ops/nn/dilation2d_backprop_filter.h"
#include "opforge/ops/nn/dilation2d_backprop_input.h"

namespace opforge {
namespace {

struct Geom {
  int64_t n, h, w, c, kh, kw, oh, ow, sh, sw, rh, rw, pt, pl;
};

Status geom(KernelContext& ctx, const Tensor& in, const Tensor& f, const std::vector<int64_t>& strides,
            const std::vector<int64_t>& rates, const std::string& padding, Geom* g) {
  if (f.dim(2) != in.dim(3))
    return ctx.error("input depth ", in.dim(3), " and filter depth ", f.dim(2), " must be equal");
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(nn::window2d(ctx.op().name, in.shape(), nn::layout_of("NHWC"), f.dim(0), f.dim(1), strides, rates,
                                   padding, {}, &w));
  *g = Geom{in.dim(0), in.dim(1),  in.dim(2),  in.dim(3), f.dim(0), f.dim(1),       w.h.out,
            w.w.out,   strides[1], strides[2], rates[1],  rates[2], w.h.pad_before, w.w.pad_before};
  return Status::OK();
}

// For output (n, y, x, c): the max of input + filter and where it is (-1 if the window is empty).
template <typename T>
void window_max(const Geom& g, const T* in, const T* f, int64_t n, int64_t y, int64_t x, int64_t c, double* best,
                int64_t* in_at, int64_t* f_at) {
  *best = -std::numeric_limits<double>::infinity();
  *in_at = -1;
  *f_at = -1;
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t r = y * g.sh + i * g.rh - g.pt;
    if (r < 0 || r >= g.h) continue;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t q = x * g.sw + j * g.rw - g.pl;
      if (q < 0 || q >= g.w) continue;
      const int64_t ia = ((n * g.h + r) * g.w + q) * g.c + c, fa = (i * g.kw + j) * g.c + c;
      const double v = static_cast<double>(in[ia]) + static_cast<double>(f[fa]);
      if (*in_at < 0 || v > *best) {
        *best = v;
        *in_at = ia;
        *f_at = fa;
      }
    }
  }
}

template <typename T>
Status Dilation2DCpu(ops::Dilation2DArgs& a) {
  Geom g;
  OPF_RETURN_IF_ERROR(geom(a.ctx, a.input, a.filter, a.strides, a.rates, a.padding, &g));
  const T* in = a.input.data<T>();
  const T* f = a.filter.data<T>();
  T* out = a.output.data<T>();
  parallel_for(g.n * g.oh, 1, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t n = row / g.oh, y = row % g.oh;
      for (int64_t x = 0; x < g.ow; ++x) {
        for (int64_t c = 0; c < g.c; ++c) {
          double best;
          int64_t ia, fa;
          window_max(g, in, f, n, y, x, c, &best, &ia, &fa);
          out[((n * g.oh + y) * g.ow + x) * g.c + c] = ia < 0 ? std::numeric_limits<T>::lowest() : static_cast<T>(best);
        }
      }
    }
  });
  return Status::OK();
}

template <typename T, bool kToInput, typename Args>
Status backprop(Args& a, T* out, int64_t out_size) {
  Geom g;
  OPF_RETURN_IF_ERROR(geom(a.ctx, a.input, a.filter, a.strides, a.rates, a.padding, &g));
  const Shape want({g.n, g.oh, g.ow, g.c});
  if (!(a.out_backprop.shape() == want)) {
    return a.ctx.error("out_backprop must have shape ", want.to_string(), ", got ", a.out_backprop.shape().to_string());
  }
  const T* in = a.input.template data<T>();
  const T* f = a.filter.template data<T>();
  const T* gr = a.out_backprop.template data<T>();
  for (int64_t i = 0; i < out_size; ++i) out[i] = T(0);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t y = 0; y < g.oh; ++y) {
      for (int64_t x = 0; x < g.ow; ++x) {
        for (int64_t c = 0; c < g.c; ++c) {
          double best;
          int64_t ia, fa;
          window_max(g, in, f, n, y, x, c, &best, &ia, &fa);
          if (ia < 0) continue;
          const int64_t at = kToInput ? ia : fa;
          out[at] = static_cast<T>(static_cast<double>(out[at]) +
                                   static_cast<double>(gr[((n * g.oh + y) * g.ow + x) * g.c + c]));
        }
      }
    }
  }
  return Status::OK();
}

template <typename T>
Status Dilation2DBackpropInputCpu(ops::Dilation2DBackpropInputArgs& a) {
  return backprop<T, true>(a, a.in_backprop.template data<T>(), a.in_backprop.num_elements());
}

template <typename T>
Status Dilation2DBackpropFilterCpu(ops::Dilation2DBackpropFilterArgs& a) {
  return backprop<T, false>(a, a.filter_backprop.template data<T>(), a.filter_backprop.num_elements());
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Dilation2D, CPU, Dilation2DCpu, bfloat16, half, float, double, int32_t, int64_t, uint8_t,
                        int16_t, int8_t)
OPFORGE_REGISTER_KERNEL(Dilation2DBackpropInput, CPU, Dilation2DBackpropInputCpu, bfloat16, half, float, double,
                        int32_t, int64_t, uint8_t, int16_t, int8_t)
OPFORGE_REGISTER_KERNEL(Dilation2DBackpropFilter, CPU, Dilation2DBackpropFilterCpu, bfloat16, half, float, double,
                        int32_t, int64_t, uint8_t, int16_t, int8_t)

}  // namespace opforge
