// Conv2D, _FusedConv2D and _FusedMatMul on the GPU: GEMMs through cuBLAS (gemm.h), so CUDA
// only, like MatMul (HIP builds leave these ops on the CPU and say why: backend.cu).
//
// A convolution is computed in NHWC as one GEMM per chunk of output pixels: a 1x1 convolution
// with stride 1 and no padding multiplies the input itself, [pixels, Cin] x [Cin, Cout]; any
// other is im2col (the patches of a chunk of output pixels written as rows of a workspace,
// [pixels, KH*KW*Cin], in the HWIO filter's row order) followed by the GEMM with the filter as
// it is stored, [KH*KW*Cin, Cout]. Grouped convolutions run one GEMM per group on column slices
// (lda / ldb / ldc). The fused epilogue is one pass over the output (epilogue.h). NCHW
// tensors are transposed to NHWC on the way in and back on the way out.
#include "gpu/gpu_util.h"

#if !defined(OPFORGE_HIP)
#include "common/window.h"
#include "gpu/epilogue.h"
#include "gpu/gemm.h"
#include "gpu/transpose.h"
#include "opforge/ops/nn/_fused_conv2d.h"
#include "opforge/ops/nn/_fused_mat_mul.h"
#include "opforge/ops/nn/conv2d.h"

namespace opforge {
namespace gpu {
namespace {

constexpr int kThreads = 256;
// Workspace of one im2col chunk (the GEMM's A operand).
constexpr int64_t kWorkspaceBytes = int64_t{256} << 20;

struct ConvGeom {
  int64_t n, h, w, cin, kh, kw, cout, oh, ow, sh, sw, dh, dw, pt, pl, groups;
  __host__ __device__ int64_t cin_g() const { return cin / groups; }
  __host__ __device__ int64_t cout_g() const { return cout / groups; }
  __host__ __device__ int64_t k() const { return kh * kw * cin_g(); }
  int64_t pixels() const { return n * oh * ow; }
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && oh == h && ow == w;
  }
};

Status conv_geom(const std::string& op, const Shape& input, const Shape& filter, const nn::Layout& l,
                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
                 const std::vector<int64_t>& explicit_paddings, ConvGeom* g) {
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "filter", filter, 4));
  OPF_RETURN_IF_ERROR(nn::need_rank(op, "input", input, 4));
  nn::Window2D w;
  OPF_RETURN_IF_ERROR(
      nn::window2d(op, input, l, filter.dim(0), filter.dim(1), strides, dilations, padding, explicit_paddings, &w));
  const int64_t cout = filter.dim(3);
  int64_t groups = 1;
  OPF_RETURN_IF_ERROR(nn::conv_groups(op, w.c, filter.dim(2), cout, &groups));
  *g = ConvGeom{w.n,
                w.h.in,
                w.w.in,
                w.c,
                filter.dim(0),
                filter.dim(1),
                cout,
                w.h.out,
                w.w.out,
                w.h.kernel_stride(),
                w.w.kernel_stride(),
                w.h.d,
                w.w.d,
                w.h.pad_before,
                w.w.pad_before,
                groups};
  return Status::OK();
}

// col[r, kk] for rows r of output pixels p0 + r; kk = (i * kw + j) * cin_g + c over the
// channels [c0, c0 + cin_g) of the input (one group).
template <class D>
__global__ void im2col_kernel(int64_t total, int64_t p0, int64_t c0, ConvGeom g, const D* __restrict__ in,
                              D* __restrict__ col) {
  const int64_t K = g.k(), cg = g.cin_g();
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t idx = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const int64_t r = idx / K, kk = idx % K;
    const int64_t c = kk % cg, t = kk / cg;
    const int64_t j = t % g.kw, i = t / g.kw;
    int64_t p = p0 + r;
    const int64_t ow = p % g.ow;
    p /= g.ow;
    const int64_t oh = p % g.oh, n = p / g.oh;
    const int64_t h = oh * g.sh - g.pt + i * g.dh, w = ow * g.sw - g.pl + j * g.dw;
    D v;
    if (h >= 0 && h < g.h && w >= 0 && w < g.w) {
      v = in[((n * g.h + h) * g.w + w) * g.cin + c0 + c];
    } else {
      v = Acc<D>::store(typename Acc<D>::C(0));
    }
    col[idx] = v;
  }
}

// out (NHWC, [pixels, cout]) = conv(in (NHWC), filter (HWIO)).
template <typename T>
Status conv_nhwc(KernelContext& ctx, const ConvGeom& g, const void* in, const void* filter, void* out) {
  using D = dev_t<T>;
  const int64_t P = g.pixels(), K = g.k(), cg = g.cin_g(), og = g.cout_g();
  if (P == 0 || g.cout == 0) return Status::OK();
  const auto* inp = static_cast<const D*>(in);
  const auto* fp = static_cast<const D*>(filter);
  auto* op = static_cast<D*>(out);
  if (g.pointwise()) {
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      OPF_RETURN_IF_ERROR(gemm<T>(ctx, inp + gi * cg, fp + gi * og, op + gi * og, P, og, cg, false, false, 1, 0, 0, 0,
                                  g.cin, g.cout, g.cout));
    }
    return Status::OK();
  }
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(P, kWorkspaceBytes / (K * int64_t{sizeof(D)})));
  Tensor ws;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape({rows, K}), Device::kGPU, dev, &ws));
  auto* col = static_cast<D*>(ws.raw_data());
  for (int64_t p0 = 0; p0 < P; p0 += rows) {
    const int64_t nr = std::min(rows, P - p0);
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const int64_t total = nr * K;
      im2col_kernel<D><<<grid_for(total, dev, kThreads), kThreads, 0, s>>>(total, p0, gi * cg, g, inp, col);
      OPF_GPU_CHECK_LAUNCH("im2col");
      OPF_RETURN_IF_ERROR(gemm<T>(ctx, col, fp + gi * og, op + p0 * g.cout + gi * og, nr, og, K, false, false, 1, 0, 0,
                                  0, K, g.cout, g.cout));
    }
  }
  return Status::OK();
}

// Runs conv_nhwc on tensors of either layout, then the epilogue (if any) over the output.
template <typename T>
Status conv(KernelContext& ctx, const char* op, const Tensor& input, const Tensor& filter, Tensor& output,
            const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, const std::string& padding,
            const std::vector<int64_t>& explicit_paddings, const std::string& data_format, const DevEpilogue* ep) {
  const nn::Layout l = nn::layout_of(data_format);
  ConvGeom g;
  OPF_RETURN_IF_ERROR(
      conv_geom(op, input.shape(), filter.shape(), l, strides, dilations, padding, explicit_paddings, &g));
  const int dev = ctx.device().index;
  if (!l.nchw) {
    OPF_RETURN_IF_ERROR(conv_nhwc<T>(ctx, g, input.raw_data(), filter.raw_data(), output.raw_data()));
    return ep ? apply_epilogue<T>(ctx, *ep, output.raw_data(), output.raw_data(), output.num_elements()) : Status::OK();
  }
  Tensor in_nhwc, out_nhwc;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(input.dtype(), Shape({g.n, g.h, g.w, g.cin}), Device::kGPU, dev, &in_nhwc));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(output.dtype(), Shape({g.n, g.oh, g.ow, g.cout}), Device::kGPU, dev, &out_nhwc));
  OPF_RETURN_IF_ERROR(transpose_on_device(dev, input, {0, 2, 3, 1}, in_nhwc));
  OPF_RETURN_IF_ERROR(conv_nhwc<T>(ctx, g, in_nhwc.raw_data(), filter.raw_data(), out_nhwc.raw_data()));
  if (ep) {
    OPF_RETURN_IF_ERROR(apply_epilogue<T>(ctx, *ep, out_nhwc.raw_data(), out_nhwc.raw_data(), out_nhwc.num_elements()));
  }
  return transpose_on_device(dev, out_nhwc, {0, 3, 1, 2}, output);
}

template <typename T>
Status Conv2DGpu(ops::Conv2DArgs& a) {
  return conv<T>(a.ctx, "Conv2D", a.input, a.filter, a.output, a.strides, a.dilations, a.padding, a.explicit_paddings,
                 a.data_format, nullptr);
}

template <typename T>
Status FusedConv2DGpu(ops::_FusedConv2DArgs& a) {
  if (a.host_args.size != 0) {
    return errors::Unimplemented("_FusedConv2D: host_args (quantized variants) are not supported");
  }
  if (a.filter.rank() != 4) return a.ctx.error("filter must be 4-D, got shape ", a.filter.shape().to_string());
  DevEpilogue ep;
  OPF_RETURN_IF_ERROR(
      make_epilogue<T>("_FusedConv2D", a.fused_ops, a.args, a.filter.dim(3), a.epsilon, a.leakyrelu_alpha, &ep));
  return conv<T>(a.ctx, "_FusedConv2D", a.input, a.filter, a.output, a.strides, a.dilations, a.padding,
                 a.explicit_paddings, a.data_format, &ep);
}

template <typename T>
Status FusedMatMulGpu(ops::_FusedMatMulArgs& a) {
  const int64_t m = a.product.dim(0), n = a.product.dim(1);
  const int64_t k = a.transpose_a ? a.a.dim(0) : a.a.dim(1);
  DevEpilogue ep;
  OPF_RETURN_IF_ERROR(make_epilogue<T>("_FusedMatMul", a.fused_ops, a.args, n, a.epsilon, a.leakyrelu_alpha, &ep));
  OPF_RETURN_IF_ERROR(gemm<T>(a.ctx, a.a.raw_data(), a.b.raw_data(), a.product.raw_data(), m, n, k, a.transpose_a,
                              a.transpose_b, 1, m * k, k * n, m * n));
  return apply_epilogue<T>(a.ctx, ep, a.product.raw_data(), a.product.raw_data(), m * n);
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Conv2D, GPU, Conv2DGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(_FusedConv2D, GPU, FusedConv2DGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(_FusedMatMul, GPU, FusedMatMulGpu, OPF_GPU_FLOATS)

}  // namespace gpu
}  // namespace opforge

#endif  // !OPFORGE_HIP
