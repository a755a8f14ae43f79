// Conv2D and its gradients Conv2DBackpropInput / Conv2DBackpropFilter.
//
// Everything runs in NHWC (NCHW tensors are converted on the way in and out). The forward pass
// is im2col + GEMM over tiles of output pixels: each tile's patch matrix is sized to stay in
// cache (not a whole-image buffer) and multiplied by the [KH*KW*Cin, Cout] filter (blas.h);
// tiles are spread over the runtime's threads, each calling a single-threaded GEMM (a GEMM
// inside a parallel region runs inline). A 1x1 convolution with stride 1 and no padding is one
// GEMM over the input; float32 3x3 stride-1 convolutions over enough channels and tiles use
// Winograd F(4x4, 3x3) or F(2x2, 3x3); float32 convolutions over at most 16 input channels run the direct
// AVX-512 kernel (conv_direct_avx512.h) where the CPU has it. float16/bfloat16 compute in
// float32, int32 with a wrapping integer GEMM.
//
// _FusedConv2D (Grappler's Conv2D + BiasAdd/FusedBatchNorm + activation) runs the same code
// with its epilogue (fused_epilogue.h): a bias / batch norm with no activation, Relu or Relu6
// applied in registers by the GEMM or the Winograd output transform (blas::ColumnEpilogue),
// others on each tile of output right after it is computed, while it is in cache.//
// The algorithms live beside this file (conv2d_internal.h lists them); this one holds the
// kernels, which convert layouts and dtypes and pick the algorithm for each convolution.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "cpu/nn/conv2d_internal.h"
#include "cpu/nn/depthwise.h"
#include "opforge/ops/nn/_fused_conv2d.h"
#include "opforge/ops/nn/conv2d.h"
#include "opforge/ops/nn/conv2d_backprop_filter.h"
#include "opforge/ops/nn/conv2d_backprop_input.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace conv2d {

Status conv_geom(const std::string& op, const Shape& input, const Shape& filter, const Layout& l,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
                 const std::vector<int64_t>& explicit_paddings, ConvGeom* g) {
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "filter", filter, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "input", input, 4));
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(
      nn::window2d(op, input, l, filter.dim(0), filter.dim(1), strides, dilations, padding, explicit_paddings, &w));
  int64_t groups = 1;
  OPF_RETURN_IF_ERROR(nn::conv_groups(op, w.c, filter.dim(2), filter.dim(3), &groups));
  *g = ConvGeom{w.n,
                w.h.in,
                w.w.in,
                w.c,
                filter.dim(0),
                filter.dim(1),
                filter.dim(3),
                w.h.out,
                w.w.out,
                w.h.kernel_stride(),
                w.w.kernel_stride(),
                w.h.d,
                w.w.d,
                w.h.pad_before,
                w.w.pad_before};
  g->groups = groups;
  g->cs = w.c;
  return Status::OK();
}

}  // namespace conv2d

namespace {

using conv2d::ConvGeom;
using conv2d::NoPost;
using nn::Layout;

// A grouped convolution whose every group is one input channel (Keras's Conv2D(groups=channels),
// ConvNeXt's 7x7 layers) is a depthwise convolution, and runs the depthwise kernels: its filter
// [kh, kw, 1, c * m] is the depthwise filter [kh, kw, c, m] as it lies in memory. (Group by
// group, each GEMM would have one column and kh * kw rows: ConvNeXtTiny's spent 68% of the
// model's time.)
template <typename C>
constexpr bool kDepthwiseType = std::is_same_v<C, float> || std::is_same_v<C, double>;

bool is_depthwise(const ConvGeom& g) { return g.groups > 1 && g.groups == g.cin; }

nn::DwGeom as_depthwise(const ConvGeom& g) {
  return nn::DwGeom{g.n, g.h, g.w, g.cin, g.cout / g.cin, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl};
}

// The forward convolution of a grouped convolution: depthwise where each group is one channel,
// the AVX-512 kernel for groups of 2-16 channels in and out, else im2col + GEMM per group.
template <typename C, typename Post>
void forward_grouped(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post) {
  if constexpr (kDepthwiseType<C>) {
    if (is_depthwise(g)) {
      if constexpr (Post::kNone) {
        nn::depthwise_forward<C>(in, filt, out, as_depthwise(g));
      } else {
        nn::depthwise_forward<C>(in, filt, out, as_depthwise(g), post);
      }
      return;
    }
  }
  if constexpr (std::is_same_v<C, float>) {
    if (conv2d::grouped_avx512_applies(g)) {
      std::function<void(float*, int64_t)> row_post;
      if constexpr (!Post::kNone) row_post = [&](float* row, int64_t pixels) { post(row, pixels); };
      conv2d::grouped_avx512_forward(in, filt, out, g, row_post);
      return;
    }
  }
  conv2d::grouped_forward<C>(in, filt, out, g, post);
}

// The forward convolution: the direct AVX-512 kernel for few input channels, Winograd for 3x3
// stride-1 filters over enough channels and tiles, else the row-gathered AVX-512 product (no
// patch matrix), else im2col + GEMM (float32 without the AVX-512 GEMM, other compute types).
template <typename C, typename Post>
void conv_forward(const C* in, const C* filt, C* out, const ConvGeom& g, const Post& post, const Tensor* filter) {
  if (g.pixels() == 0 || g.cout == 0) return;
  if (g.k() == 0) {
    std::fill(out, out + g.pixels() * g.cout, C(0));
    parallel_for(g.pixels(), std::max<int64_t>(1, cpu::kGrain / g.cout),
                 [&](int64_t p0, int64_t p1) { post(out + p0 * g.cout, p1 - p0); });
    return;
  }
  // A float32 bias / batch norm with no activation, Relu or Relu6 is applied by the GEMM as it
  // stores C (no second pass over the output, no cutting the product into cache-sized tiles).
  blas::ColumnEpilogue reg_ep;
  const blas::ColumnEpilogue* ep = nullptr;
  if constexpr (std::is_same_v<Post, nn::Epilogue<float>>) {
    if (post.as_column_epilogue(&reg_ep)) ep = &reg_ep;
  }
  if constexpr (std::is_same_v<C, float>) {
    if (conv2d::use_direct(g)) {  // never a pointwise convolution, nor is Winograd's 3x3
      conv2d::direct_forward(in, filt, out, g, post);
      return;
    }
    if (const int m = conv2d::winograd_tile(g); m != 0) {
      conv2d::winograd_forward(m, in, filt, out, g, post, filter, ep);
      return;
    }
    // The gathered product for filters that change from run to run (training steps, and a
    // stride-1 input gradient's turned filter); a graph constant's filter (a frozen model) keeps
    // im2col with the packed filter cached, which measured faster at inference (InceptionV3 and
    // small CNNs at batch 8).
    const bool constant_filter = filter != nullptr && filter->buffer() && filter->buffer()->is_constant();
    if (!constant_filter && conv2d::use_gather(g)) {
      conv2d::gather_forward(in, filt, out, g, post, filter, ep);
      return;
    }
  }
  conv2d::im2col_forward(in, filt, out, g, post, filter, ep);
}

// The filter in compute type C (borrowed when T == C).
template <typename T, typename C>
struct Flat {
  explicit Flat(const Tensor& t) {
    if constexpr (std::is_same_v<T, C>) {
      ptr = t.data<T>();
    } else {
      own.resize(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < own.size(); ++i) own[i] = static_cast<C>(t.data<T>()[i]);
      ptr = own.data();
    }
  }
  const C* ptr = nullptr;
  std::vector<C> own;
};

template <typename T>
using conv_t = std::conditional_t<std::is_integral_v<T>, T, nn::acc_t<T>>;

using nn_semantics::read_sizes;

Status check_out_backprop(const std::string& op, const ConvGeom& g, const Layout& l, const Shape& dy) {
  Shape want = nn::shape4(l, g.n, g.oh, g.ow, g.cout);
  if (!(dy == want)) {
    return errors::InvalidArgument(op, ": out_backprop has shape ", dy.to_string(),
                                   " but the convolution's output shape is ", want.to_string());
  }
  return Status::OK();
}

// The filter tensor when the kernel multiplies its own float32 data (so what is derived from
// it may be cached with it), else null.
template <typename T, typename C>
const Tensor* own_filter(const Tensor& filter, const C* ptr) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
    if (filter.on_host() && static_cast<const void*>(ptr) == filter.raw_data()) return &filter;
  }
  return nullptr;
}

template <typename T>
Status Conv2DCpu(ops::Conv2DArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv2d::conv_geom("Conv2D", a.input.shape(), a.filter.shape(), l, a.strides, a.dilations,
                                        a.padding, a.explicit_paddings, &g));
  nn::Nhwc<T, C> in(a.input, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> out(a.output, l);
  if (g.groups > 1) {
    forward_grouped<C>(in.data(), filt.ptr, out.data(), g, NoPost());
  } else {
    conv_forward<C>(in.data(), filt.ptr, out.data(), g, NoPost(), own_filter<T, C>(a.filter, filt.ptr));
  }
  out.finish();
  return Status::OK();
}

// _FusedConv2D: Conv2D with the BiasAdd/FusedBatchNorm + activation epilogue per tile.
template <typename T>
Status FusedConv2DCpu(ops::_FusedConv2DArgs& a) {
  using C = nn::acc_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv2d::conv_geom("_FusedConv2D", a.input.shape(), a.filter.shape(), l, a.strides, a.dilations,
                                        a.padding, a.explicit_paddings, &g));
  if (a.host_args.size != 0) {
    return errors::Unimplemented("_FusedConv2D: host_args (quantized variants) are not supported");
  }
  nn::Epilogue<C> post;
  OPF_RETURN_IF_ERROR(nn::Epilogue<C>::template make<T>("_FusedConv2D", a.fused_ops, a.args, g.cout, a.epsilon,
                                                        a.leakyrelu_alpha, &post));
  nn::Nhwc<T, C> in(a.input, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> out(a.output, l);
  if (g.groups > 1) {
    forward_grouped<C>(in.data(), filt.ptr, out.data(), g, post);
  } else {
    conv_forward<C>(in.data(), filt.ptr, out.data(), g, post, own_filter<T, C>(a.filter, filt.ptr));
  }
  out.finish();
  return Status::OK();
}

// A stride-1, undilated, ungrouped Conv2DBackpropInput is itself a convolution: dy convolved
// with the filter turned 180 degrees and its in/out channels swapped, padded by kh-1-top and
// kw-1-left, gives dx. In float32 it then runs the forward's fast paths (Winograd, the direct
// kernel, tiled GEMM) instead of GEMM + col2im. Returns false where that does not apply, and
// where the filter has few input channels (the turned convolution would have few outputs, which
// GEMM + col2im handles better: LeNet's first layer, 1 -> 32 channels, 5.9 against 16 ms).
template <typename C>
bool backprop_input_as_forward(const C* dy, const C* filt, C* dx, const ConvGeom& g) {
  if constexpr (!std::is_same_v<C, float>) {
    return false;
  } else {
    const int64_t pt = g.kh - 1 - g.pt, pl = g.kw - 1 - g.pl;
    if (g.groups != 1 || g.cin < 16 || g.sh != 1 || g.sw != 1 || g.dh != 1 || g.dw != 1 || g.is_pointwise() || pt < 0 ||
        pl < 0 || g.pixels() == 0 || g.k() == 0 || g.cout == 0) {
      return false;
    }
    std::vector<float> turned(static_cast<size_t>(g.kh * g.kw * g.cin * g.cout));
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const float* src = filt + ((g.kh - 1 - i) * g.kw + (g.kw - 1 - j)) * g.cin * g.cout;  // [cin][cout]
        float* dst = turned.data() + (i * g.kw + j) * g.cout * g.cin;                         // [cout][cin]
        for (int64_t ci = 0; ci < g.cin; ++ci) {
          for (int64_t co = 0; co < g.cout; ++co) dst[co * g.cin + ci] = src[ci * g.cout + co];
        }
      }
    }
    ConvGeom t = g;
    t.h = g.oh;
    t.w = g.ow;
    t.cin = t.cs = g.cout;
    t.cout = g.cin;
    t.oh = g.h;
    t.ow = g.w;
    t.pt = pt;
    t.pl = pl;
    conv_forward<float>(dy, turned.data(), dx, t, NoPost(), nullptr);
    return true;
  }
}

template <typename T>
Status Conv2DBackpropInputCpu(ops::Conv2DBackpropInputArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  Shape input;
  OPF_RETURN_IF_ERROR(read_sizes("Conv2DBackpropInput", "input_sizes", a.input_sizes, &input));
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv2d::conv_geom("Conv2DBackpropInput", input, a.filter.shape(), l, a.strides, a.dilations,
                                        a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_out_backprop("Conv2DBackpropInput", g, l, a.out_backprop.shape()));
  nn::Nhwc<T, C> dy(a.out_backprop, l);
  Flat<T, C> filt(a.filter);
  nn::NhwcOut<T, C> dx(a.output, l);
  if constexpr (kDepthwiseType<C>) {
    if (is_depthwise(g)) {
      nn::depthwise_backprop_input<C>(dy.data(), filt.ptr, dx.data(), as_depthwise(g));
      dx.finish();
      return Status::OK();
    }
  }
  if (!backprop_input_as_forward<C>(dy.data(), filt.ptr, dx.data(), g)) {
    conv2d::conv_backprop_input<C>(dy.data(), filt.ptr, dx.data(), g);
  }
  dx.finish();
  return Status::OK();
}

template <typename T>
Status Conv2DBackpropFilterCpu(ops::Conv2DBackpropFilterArgs& a) {
  using C = conv_t<T>;
  const Layout l = nn::layout_of(a.data_format);
  Shape fshape;
  OPF_RETURN_IF_ERROR(read_sizes("Conv2DBackpropFilter", "filter_sizes", a.filter_sizes, &fshape));
  ConvGeom g;
  OPF_RETURN_IF_ERROR(conv2d::conv_geom("Conv2DBackpropFilter", a.input.shape(), fshape, l, a.strides, a.dilations,
                                        a.padding, a.explicit_paddings, &g));
  OPF_RETURN_IF_ERROR(check_out_backprop("Conv2DBackpropFilter", g, l, a.out_backprop.shape()));
  nn::Nhwc<T, C> in(a.input, l);
  nn::Nhwc<T, C> dy(a.out_backprop, l);
  T* out = a.output.data<T>();
  if constexpr (std::is_same_v<T, float>) {
    if (conv2d::use_gather_filter(g)) {
      conv2d::gather_backprop_filter(in.data(), dy.data(), out, g);
      return Status::OK();
    }
  }
  const auto backprop_filter = [&](C* df) {
    if constexpr (kDepthwiseType<C>) {
      if (is_depthwise(g)) return nn::depthwise_backprop_filter<C>(in.data(), dy.data(), df, as_depthwise(g));
    }
    conv2d::conv_backprop_filter<C>(in.data(), dy.data(), df, g);
  };
  if constexpr (std::is_same_v<T, C>) {
    backprop_filter(out);
  } else {
    std::vector<C> df(static_cast<size_t>(a.output.num_elements()));
    backprop_filter(df.data());
    for (size_t i = 0; i < df.size(); ++i) out[i] = static_cast<T>(df[i]);
  }
  return Status::OK();
}

// The shape functions of these ops are op semantics: runtime/ops/nn_conv.cc.

}  // namespace

OPFORGE_REGISTER_KERNEL(Conv2D, CPU, Conv2DCpu, bfloat16, half, float, double, int32_t)
OPFORGE_REGISTER_KERNEL(_FusedConv2D, CPU, FusedConv2DCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(Conv2DBackpropInput, CPU, Conv2DBackpropInputCpu, bfloat16, half, float, double, int32_t)
OPFORGE_REGISTER_KERNEL(Conv2DBackpropFilter, CPU, Conv2DBackpropFilterCpu, bfloat16, half, float, double)

}  // namespace opforge
