// Neural-network GPU kernels that need no GEMM (and so build for CUDA and HIP alike): the
// fused-op epilogue and BiasAdd, depthwise convolution (plain and fused), max and average
// pooling, and the array ops a convolutional model's graph runs between them (Pad, PadV2,
// ConcatV2; Squeeze and ExpandDims through common/relabel.h). Window geometry (SAME / VALID /
// EXPLICIT) comes from common/window.h, shared with the CPU kernels.
//
// The window kernels run one thread per output element in NHWC order (channels fastest, so a
// warp's loads of one tap are consecutive); NCHW tensors are indexed through their strides.
#include <algorithm>

#include "common/relabel.h"
#include "common/window.h"
#include "gpu/epilogue.h"
#include "gpu/gpu_util.h"
#include "opforge/ops/array_ops.h"
#include "opforge/ops/nn_ops.h"

namespace opforge {
namespace gpu {

constexpr int kThreads = 256;

// ---- the epilogue, and BiasAdd through it

template <class D>
__global__ void epilogue_kernel(int64_t n, const D* __restrict__ x, D* y, DevEpilogue e) {
  using A = Acc<D>;
  using C = typename A::C;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e.inner == 1) {  // channels last: the channel advances by stride mod C (no division per element)
    const int64_t step = stride % e.channels;
    int64_t c = first % e.channels;
    for (int64_t i = first; i < n; i += stride) {
      y[i] = A::store(epilogue_value<D, C>(e, A::load(x[i]), c));
      c += step;
      if (c >= e.channels) c -= e.channels;
    }
    return;
  }
  for (int64_t i = first; i < n; i += stride) {
    const int64_t c = (i / e.inner) % e.channels;
    y[i] = A::store(epilogue_value<D, C>(e, A::load(x[i]), c));
  }
}

template <typename T>
Status apply_epilogue(KernelContext& ctx, const DevEpilogue& ep, const void* x, void* y, int64_t n) {
  using D = dev_t<T>;
  if (n == 0) return Status::OK();
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  epilogue_kernel<D>
      <<<grid_for(n, dev, kThreads), kThreads, 0, s>>>(n, static_cast<const D*>(x), static_cast<D*>(y), ep);
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

template Status apply_epilogue<float>(KernelContext&, const DevEpilogue&, const void*, void*, int64_t);
template Status apply_epilogue<double>(KernelContext&, const DevEpilogue&, const void*, void*, int64_t);
template Status apply_epilogue<half>(KernelContext&, const DevEpilogue&, const void*, void*, int64_t);
template Status apply_epilogue<bfloat16>(KernelContext&, const DevEpilogue&, const void*, void*, int64_t);

namespace {

template <typename T>
Status BiasAddGpu(ops::BiasAddArgs& a) {
  const Shape& s = a.value.shape();
  if (s.rank() < 2) return a.ctx.error("input must be at least 2-D, got shape ", s.to_string());
  const bool nchw = a.data_format == "NCHW";
  const int cdim = nchw ? 1 : s.rank() - 1;
  if (a.bias.rank() != 1 || a.bias.dim(0) != s.dim(cdim)) {
    return a.ctx.error("bias must be 1-D with ", s.dim(cdim), " values (the input's channel dimension), got shape ",
                       a.bias.shape().to_string());
  }
  DevEpilogue ep;
  ep.p[0] = a.bias.raw_data();
  ep.channels = s.dim(cdim);
  ep.inner = 1;
  for (int d = cdim + 1; d < s.rank(); ++d) ep.inner *= s.dim(d);
  if (ep.channels == 0 || ep.inner == 0) return Status::OK();
  return apply_epilogue<T>(a.ctx, ep, a.value.raw_data(), a.output.raw_data(), a.value.num_elements());
}

// ---- window ops: geometry

// Element strides of a 4-D tensor's n, h, w, c dims in its layout.
struct Strides4 {
  int64_t n, h, w, c;
};

Strides4 strides4(const Shape& s, const nn::Layout& l) {
  int64_t st[4];
  int64_t acc = 1;
  for (int d = 3; d >= 0; --d) {
    st[d] = acc;
    acc *= s.dim(d);
  }
  return Strides4{st[l.n], st[l.h], st[l.w], st[l.c]};
}

struct Window {
  int64_t n, h, w, c;  // input
  int64_t oh, ow, oc;  // output (oc = c * multiplier for depthwise)
  int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  Strides4 in, out;
};

Status window_of(const std::string& op, const Tensor& input, const Tensor& output, const nn::Layout& l, int64_t kh,
                 int64_t kw, const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                 const std::string& padding, const std::vector<int64_t>& explicit_paddings, Window* w) {
  nn::Window2D g;
  OPF_RETURN_IF_ERROR(nn::window2d(op, input.shape(), l, kh, kw, strides, dilations, padding, explicit_paddings, &g));
  *w = Window{g.n,
              g.h.in,
              g.w.in,
              g.c,
              g.h.out,
              g.w.out,
              output.dim(l.c),
              kh,
              kw,
              g.h.kernel_stride(),
              g.w.kernel_stride(),
              g.h.d,
              g.w.d,
              g.h.pad_before,
              g.w.pad_before,
              strides4(input.shape(), l),
              strides4(output.shape(), l)};
  return Status::OK();
}

// Output element i (NHWC order) -> its coordinates.
struct Out4 {
  int64_t n, oh, ow, c;
};
__device__ inline Out4 decode(const Window& g, int64_t i) {
  Out4 o;
  o.c = i % g.oc;
  i /= g.oc;
  o.ow = i % g.ow;
  i /= g.ow;
  o.oh = i % g.oh;
  o.n = i / g.oh;
  return o;
}

// ---- depthwise convolution

// filter [kh, kw, c, m]; output channel oc = ci * m + k reads input channel ci. I is the index
// type: int32 where every offset fits (64-bit division costs several times 32-bit's, and the
// output's coordinates take three per element).
template <class D, bool kFused, class I>
__global__ void depthwise_kernel(I total, Window g, I mult, const D* __restrict__ in, const D* __restrict__ filter,
                                 D* __restrict__ out, DevEpilogue e) {
  using A = Acc<D>;
  using C = typename A::C;
  const I oc = I(g.oc), ow_n = I(g.ow), oh_n = I(g.oh), kh = I(g.kh), kw = I(g.kw), h_n = I(g.h), w_n = I(g.w);
  const I sh = I(g.sh), sw = I(g.sw), dh = I(g.dh), dw = I(g.dw), pt = I(g.pt), pl = I(g.pl);
  const I in_n = I(g.in.n), in_h = I(g.in.h), in_w = I(g.in.w), in_c = I(g.in.c);
  const I out_n = I(g.out.n), out_h = I(g.out.h), out_w = I(g.out.w), out_c = I(g.out.c);
  const I stride = I(gridDim.x) * I(blockDim.x);
  for (I i = I(blockIdx.x) * I(blockDim.x) + I(threadIdx.x); i < total; i += stride) {
    I rem = i;
    const I c = rem % oc;
    rem /= oc;
    const I ow = rem % ow_n;
    rem /= ow_n;
    const I oh = rem % oh_n, n = rem / oh_n;
    const I ci = c / mult;
    const D* base = in + n * in_n + ci * in_c;
    C acc = C(0);
    for (I r = 0; r < kh; ++r) {
      const I h = oh * sh - pt + r * dh;
      if (h < 0 || h >= h_n) continue;
      for (I q = 0; q < kw; ++q) {
        const I w = ow * sw - pl + q * dw;
        if (w < 0 || w >= w_n) continue;
        acc += C(A::load(base[h * in_h + w * in_w])) * C(A::load(filter[(r * kw + q) * oc + c]));
      }
    }
    if (kFused) acc = epilogue_value<D, C>(e, acc, c);
    out[n * out_n + oh * out_h + ow * out_w + c * out_c] = A::store(acc);
  }
}

template <typename T, bool kFused>
Status depthwise(KernelContext& ctx, const char* op, const Tensor& input, const Tensor& filter, Tensor& output,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
                 const std::vector<int64_t>& explicit_paddings, const std::string& data_format, const DevEpilogue& e) {
  using D = dev_t<T>;
  const nn::Layout l = nn::layout_of(data_format);
  if (filter.rank() != 4) return ctx.error("filter must be 4-D, got shape ", filter.shape().to_string());
  Window g;
  OPF_RETURN_IF_ERROR(window_of(op, input, output, l, filter.dim(0), filter.dim(1), strides, dilations, padding,
                                explicit_paddings, &g));
  if (filter.dim(2) != g.c) {
    return ctx.error("filter's in_channels (", filter.dim(2), ") must match the input's depth (", g.c, ")");
  }
  const int64_t total = output.num_elements();
  if (total == 0) return Status::OK();
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  // int32 indices when every offset (and a grid stride past the last) stays below 2^31.
  constexpr int64_t kInt32Safe = int64_t{1} << 30;
  const unsigned grid = grid_for(total, dev, kThreads);
  const int64_t reach = std::max({g.pt + (g.kh - 1) * g.dh + 1 + g.oh * g.sh,  // |h| and |w| bounds
                                  g.pl + (g.kw - 1) * g.dw + 1 + g.ow * g.sw});
  if (std::max({total, input.num_elements(), filter.num_elements(), reach}) < kInt32Safe) {
    depthwise_kernel<D, kFused, int32_t>
        <<<grid, kThreads, 0, s>>>(static_cast<int32_t>(total), g, static_cast<int32_t>(filter.dim(3)),
                                   dev_ptr<T>(input), dev_ptr<T>(filter), dev_ptr<T>(output), e);
  } else {
    depthwise_kernel<D, kFused, int64_t><<<grid, kThreads, 0, s>>>(total, g, filter.dim(3), dev_ptr<T>(input),
                                                                   dev_ptr<T>(filter), dev_ptr<T>(output), e);
  }
  OPF_GPU_CHECK_LAUNCH(op);
  return Status::OK();
}

template <typename T>
Status DepthwiseConv2dNativeGpu(ops::DepthwiseConv2dNativeArgs& a) {
  return depthwise<T, false>(a.ctx, "DepthwiseConv2dNative", a.input, a.filter, a.output, a.strides, a.dilations,
                             a.padding, a.explicit_paddings, a.data_format, DevEpilogue());
}

template <typename T>
Status FusedDepthwiseConv2dNativeGpu(ops::_FusedDepthwiseConv2dNativeArgs& a) {
  const nn::Layout l = nn::layout_of(a.data_format);
  DevEpilogue e;
  OPF_RETURN_IF_ERROR(make_epilogue<T>("_FusedDepthwiseConv2dNative", a.fused_ops, a.args, a.output.dim(l.c), a.epsilon,
                                       a.leakyrelu_alpha, &e));
  return depthwise<T, true>(a.ctx, "_FusedDepthwiseConv2dNative", a.input, a.filter, a.output, a.strides, a.dilations,
                            a.padding, a.explicit_paddings, a.data_format, e);
}

// ---- pooling

template <class D, bool kMax>
__global__ void pool_kernel(int64_t total, Window g, const D* __restrict__ in, D* __restrict__ out) {
  using A = Acc<D>;
  using C = typename A::C;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const Out4 o = decode(g, i);
    const int64_t h0 = o.oh * g.sh - g.pt, w0 = o.ow * g.sw - g.pl;
    const int64_t r0 = h0 < 0 ? 0 : h0, r1 = h0 + g.kh > g.h ? g.h : h0 + g.kh;
    const int64_t c0 = w0 < 0 ? 0 : w0, c1 = w0 + g.kw > g.w ? g.w : w0 + g.kw;
    C acc = C(0);
    bool first = true;
    const D* base = in + o.n * g.in.n + o.c * g.in.c;
    for (int64_t h = r0; h < r1; ++h) {
      for (int64_t w = c0; w < c1; ++w) {
        const C v = C(A::load(base[h * g.in.h + w * g.in.w]));
        if (kMax) {  // a NaN in the window wins
          if (first || (acc == acc && (v > acc || v != v))) acc = v;
          first = false;
        } else {
          acc += v;
        }
      }
    }
    if (!kMax) {
      const int64_t count = (r1 - r0) * (c1 - c0);
      acc = count > 0 ? acc / C(count) : C(0);
    }
    out[o.n * g.out.n + o.oh * g.out.h + o.ow * g.out.w + o.c * g.out.c] = A::store(acc);
  }
}

template <typename T, bool kMax>
Status pool(KernelContext& ctx, const char* op, const Tensor& input, Tensor& output, const std::vector<int64_t>& ksize,
            const std::vector<int64_t>& strides, const std::string& padding,
            const std::vector<int64_t>& explicit_paddings, const std::string& data_format) {
  using D = dev_t<T>;
  const nn::Layout l = nn::layout_of(data_format);
  if (ksize.size() != 4) return ctx.error("ksize must have 4 elements, got ", ksize.size());
  Window g;
  OPF_RETURN_IF_ERROR(
      window_of(op, input, output, l, ksize[l.h], ksize[l.w], strides, {1, 1, 1, 1}, padding, explicit_paddings, &g));
  const int64_t total = output.num_elements();
  if (total == 0) return Status::OK();
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  pool_kernel<D, kMax>
      <<<grid_for(total, dev, kThreads), kThreads, 0, s>>>(total, g, dev_ptr<T>(input), dev_ptr<T>(output));
  OPF_GPU_CHECK_LAUNCH(op);
  return Status::OK();
}

template <typename T>
Status MaxPoolGpu(ops::MaxPoolArgs& a) {
  return pool<T, true>(a.ctx, "MaxPool", a.input, a.output, a.ksize, a.strides, a.padding, a.explicit_paddings,
                       a.data_format);
}

template <typename T>
Status AvgPoolGpu(ops::AvgPoolArgs& a) {
  return pool<T, false>(a.ctx, "AvgPool", a.value, a.output, a.ksize, a.strides, a.padding, {}, a.data_format);
}

// ---- Pad / PadV2

constexpr int kMaxRank = 8;
struct PadGeom {
  int rank = 0;
  int64_t out_dims[kMaxRank], in_dims[kMaxRank], before[kMaxRank], in_strides[kMaxRank];
};

template <class D>
__global__ void pad_kernel(int64_t total, PadGeom g, const D* __restrict__ in, D* __restrict__ out, D value) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    int64_t rem = i, src = 0;
    bool inside = true;
    for (int d = g.rank - 1; d >= 0; --d) {
      const int64_t c = rem % g.out_dims[d] - g.before[d];
      rem /= g.out_dims[d];
      inside = inside && c >= 0 && c < g.in_dims[d];
      src += c * g.in_strides[d];
    }
    out[i] = inside ? in[src] : value;
  }
}

template <typename T, typename P>
Status pad_with(KernelContext& ctx, const Tensor& input, const Tensor& paddings, Tensor& output, T value) {
  using D = dev_t<T>;
  const int r = input.rank();
  if (r > kMaxRank) return ctx.error("the GPU pads tensors of rank at most ", kMaxRank, ", got rank ", r);
  if (paddings.rank() != 2 || paddings.dim(0) != r || paddings.dim(1) != 2) {
    return ctx.error("paddings must be a [", r, ", 2] matrix, got shape ", paddings.shape().to_string());
  }
  PadGeom g;
  g.rank = r;
  int64_t acc = 1;
  for (int d = r - 1; d >= 0; --d) {
    g.in_dims[d] = input.dim(d);
    g.out_dims[d] = output.dim(d);
    g.before[d] = static_cast<int64_t>(paddings.data<P>()[2 * d]);
    g.in_strides[d] = acc;
    acc *= input.dim(d);
  }
  const int64_t total = output.num_elements();
  if (total == 0) return Status::OK();
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  D v;
  std::memcpy(&v, &value, sizeof(T));
  pad_kernel<D><<<grid_for(total, dev, kThreads), kThreads, 0, s>>>(total, g, dev_ptr<T>(input), dev_ptr<T>(output), v);
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

template <typename T>
Status pad_any(KernelContext& ctx, const Tensor& input, const Tensor& paddings, Tensor& output, T value) {
  return paddings.dtype() == DType::kInt64 ? pad_with<T, int64_t>(ctx, input, paddings, output, value)
                                           : pad_with<T, int32_t>(ctx, input, paddings, output, value);
}

template <typename T>
Status PadGpu(ops::PadArgs& a) {
  return pad_any<T>(a.ctx, a.input, a.paddings, a.output, T(0));
}

template <typename T>
Status PadV2Gpu(ops::PadV2Args& a) {
  if (a.constant_values.rank() != 0) {
    return a.ctx.error("constant_values must be a scalar, got shape ", a.constant_values.shape().to_string());
  }
  return pad_any<T>(a.ctx, a.input, a.paddings, a.output, a.constant_values.data<T>()[0]);
}

// ---- ConcatV2: each input is a [outer, inner_k] block of the [outer, sum inner_k] output

template <class E>
__global__ void concat_piece_kernel(int64_t total, int64_t inner, int64_t out_inner, int64_t offset,
                                    const E* __restrict__ in, E* __restrict__ out) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t row = i / inner, col = i % inner;
    out[row * out_inner + offset + col] = in[i];
  }
}

template <typename T>
Status ConcatV2Gpu(ops::ConcatV2Args& a) {
  const Shape& os = a.output.shape();
  int64_t axis = a.axis.dtype() == DType::kInt64 ? a.axis.data<int64_t>()[0] : a.axis.data<int32_t>()[0];
  if (axis < 0) axis += os.rank();
  if (axis < 0 || axis >= os.rank()) return a.ctx.error("axis ", axis, " is out of range for rank ", os.rank());
  int64_t outer = 1, tail = 1;
  for (int d = 0; d < axis; ++d) outer *= os.dim(static_cast<int>(d));
  for (int d = static_cast<int>(axis) + 1; d < os.rank(); ++d) tail *= os.dim(d);
  const int64_t out_inner = os.dim(static_cast<int>(axis)) * tail;
  const int dev = a.ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  using E = dev_t<T>;
  int64_t offset = 0;
  for (int k = 0; k < a.values.size; ++k) {
    const Tensor& t = a.values[k];
    const int64_t inner = t.rank() > axis ? t.dim(static_cast<int>(axis)) * tail : 0;
    const int64_t total = outer * inner;
    if (total > 0) {
      concat_piece_kernel<E><<<grid_for(total, dev, kThreads), kThreads, 0, s>>>(total, inner, out_inner, offset,
                                                                                 dev_ptr<T>(t), dev_ptr<T>(a.output));
      OPF_GPU_CHECK_LAUNCH("ConcatV2");
    }
    offset += inner;
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(BiasAdd, GPU, BiasAddGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(DepthwiseConv2dNative, GPU, DepthwiseConv2dNativeGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(_FusedDepthwiseConv2dNative, GPU, FusedDepthwiseConv2dNativeGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(MaxPool, GPU, MaxPoolGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(AvgPool, GPU, AvgPoolGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Pad, GPU, PadGpu, host_args(1), host_args(), OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(PadV2, GPU, PadV2Gpu, host_args(1, 2), host_args(), OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(ConcatV2, GPU, ConcatV2Gpu, host_args(1), host_args(), OPF_GPU_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Squeeze, GPU, kernels::RelabelInput, OPF_GPU_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL_HOST_MEMORY(ExpandDims, GPU, kernels::RelabelInput, host_args(1), host_args(),
                                               OPF_GPU_ALL)

}  // namespace gpu
}  // namespace opforge
