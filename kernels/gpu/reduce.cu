// Reductions on the GPU: Sum, Mean, Max over any set of axes. The input is viewed as
// [outer, reduced, inner] after merging adjacent dims; axes that do not form one block are
// first brought together by a transpose. Rows (inner == 1) are reduced one block per row, long
// rows of few outputs in two passes (per-chunk partials, then the partials); columns
// (inner > 1) one thread per output walking the reduced dim (coalesced across threads).
// half and bfloat16 accumulate in float.
#include <cfloat>
#include <algorithm>
#include <climits>

#include "gpu/gpu_util.h"
#include "gpu/transpose.h"
#include "opforge/ops/math/max.h"
#include "opforge/ops/math/mean.h"
#include "opforge/ops/math/sum.h"

namespace opforge {
namespace gpu {
namespace {

constexpr int kThreads = 256;

template <class C>
struct Lowest {
  __device__ static C value() { return -INFINITY; }
};
template <>
struct Lowest<int32_t> {
  __device__ static int32_t value() { return INT32_MIN; }
};
template <>
struct Lowest<int64_t> {
  __device__ static int64_t value() { return INT64_MIN; }
};

struct SumOp {
  template <class C>
  __device__ static C identity() {
    return C(0);
  }
  template <class C>
  __device__ static C combine(C a, C b) {
    return a + b;
  }
};
struct MaxOp {
  template <class C>
  __device__ static C identity() {
    return Lowest<C>::value();
  }
  template <class C>
  __device__ static C combine(C a, C b) {
    return (a > b || a != a) ? a : b;
  }
};

// Final value: the accumulator, divided by `count` for Mean (count 0: no division).
template <class C>
__device__ C finish(C acc, int64_t count) {
  if (count <= 0) return acc;
  return acc / static_cast<C>(count);
}

// One block per row (grid-stride over rows): y[o] = reduce(x[o, begin:end]) where each row
// is split in `chunks` pieces and block (o, c) writes y[o * chunks + c].
template <class Op, class In, class Out>
__global__ void reduce_rows_kernel(int64_t rows, int64_t len, int64_t chunks, const In* __restrict__ x,
                                   Out* __restrict__ y, int64_t mean_count) {
  using C = typename Acc<In>::C;
  __shared__ C buf[kThreads];
  const int64_t chunk_len = (len + chunks - 1) / chunks;
  for (int64_t job = blockIdx.x; job < rows * chunks; job += gridDim.x) {
    const int64_t row = job / chunks, c = job % chunks;
    const int64_t begin = c * chunk_len;
    const int64_t end = begin + chunk_len < len ? begin + chunk_len : len;
    const In* p = x + row * len;
    C acc = Op::template identity<C>();
    for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) acc = Op::combine(acc, Acc<In>::load(p[i]));
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
      if (static_cast<int>(threadIdx.x) < w) buf[threadIdx.x] = Op::combine(buf[threadIdx.x], buf[threadIdx.x + w]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      using OC = typename Acc<Out>::C;
      y[job] = Acc<Out>::store(static_cast<OC>(finish(buf[0], mean_count)));
    }
    __syncthreads();
  }
}

// y[o, i] = reduce over r of x[o, r, i], one thread per (o, i).
template <class Op, class D>
__global__ void reduce_cols_kernel(int64_t outer, int64_t len, int64_t inner, const D* __restrict__ x,
                                   D* __restrict__ y, int64_t mean_count) {
  using C = typename Acc<D>::C;
  const int64_t n = outer * inner;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t k = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < n; k += stride) {
    const int64_t o = k / inner, i = k % inner;
    const D* p = x + o * len * inner + i;
    C acc = Op::template identity<C>();
    for (int64_t r = 0; r < len; ++r) acc = Op::combine(acc, Acc<D>::load(p[r * inner]));
    y[k] = Acc<D>::store(finish(acc, mean_count));
  }
}

template <class Op, class T>
Status reduce(KernelContext& ctx, const Tensor& input, const Tensor& axes_t, Tensor& output, bool mean) {
  using D = dev_t<T>;
  using C = typename Acc<D>::C;
  const int dev = ctx.device().index;
  std::vector<int64_t> axes;
  OPF_RETURN_IF_ERROR(read_int_vector(axes_t, &axes));
  const int r = input.rank();
  std::vector<bool> reduced(static_cast<size_t>(r), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + r : a)] = true;  // checked by the shape fn
  int64_t count = 1;
  for (int d = 0; d < r; ++d)
    if (reduced[d]) count *= input.dim(d);
  const int64_t n_out = output.num_elements();
  if (n_out == 0) return Status::OK();
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  const int64_t mean_count = mean ? count : 0;

  // Merge adjacent dims of the same kind, dropping size-1 dims.
  std::vector<int64_t> dims;
  std::vector<bool> kinds;
  for (int d = 0; d < r; ++d) {
    if (input.dim(d) == 1) continue;
    if (!dims.empty() && kinds.back() == reduced[d]) {
      dims.back() *= input.dim(d);
    } else {
      dims.push_back(input.dim(d));
      kinds.push_back(reduced[d]);
    }
  }
  const D* x = dev_ptr<T>(input);
  Tensor staged;  // the input with its reduced axes moved last, when they are scattered
  int64_t outer = 1, len = 1, inner = 1;
  if (dims.empty() || (dims.size() == 1 && !kinds[0])) {
    // Nothing is reduced (all reduced dims have size 1): y = x (Mean divides by 1).
    return gpu_backend()->copy_on_device(dev, output.raw_data(), input.raw_data(), output.nbytes());
  } else if (count == 0) {
    len = 0;
    outer = n_out;
  } else if (dims.size() <= 3 && (kinds.size() < 3 || (!kinds[0] && kinds[1] && !kinds[2]))) {
    size_t k = 0;
    if (!kinds[0]) outer = dims[k++];
    len = dims[k++];
    if (k < dims.size()) inner = dims[k];
  } else {
    std::vector<int64_t> perm, staged_dims;
    for (int d = 0; d < r; ++d)
      if (!reduced[d]) perm.push_back(d);
    for (int d = 0; d < r; ++d)
      if (reduced[d]) perm.push_back(d);
    for (int64_t p : perm) staged_dims.push_back(input.dim(static_cast<int>(p)));
    OPF_RETURN_IF_ERROR(Tensor::Allocate(input.dtype(), Shape(staged_dims), Device::kGPU, dev, &staged));
    OPF_RETURN_IF_ERROR(transpose_on_device(dev, input, perm, staged));
    x = dev_ptr<T>(staged);
    outer = n_out;
    len = count;
  }
  D* y = static_cast<D*>(output.raw_data());
  if (inner > 1) {
    reduce_cols_kernel<Op, D>
        <<<grid_for(outer * inner, dev, kThreads), kThreads, 0, s>>>(outer, len, inner, x, y, mean_count);
    OPF_GPU_CHECK_LAUNCH(ctx.op().name);
    return Status::OK();
  }
  const int64_t sms = multiprocessor_count(dev);
  int64_t chunks = 1;
  if (outer < 4 * sms && len >= (int64_t{1} << 16)) {
    chunks = std::min<int64_t>(len / 16384, (8 * sms + outer - 1) / outer);
    if (chunks < 1) chunks = 1;
  }
  if (chunks == 1) {
    const int64_t blocks = std::min<int64_t>(outer, 32 * sms);
    reduce_rows_kernel<Op, D, D><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(outer, len, 1, x, y, mean_count);
    OPF_GPU_CHECK_LAUNCH(ctx.op().name);
    return Status::OK();
  }
  // Two passes through float/double/int partials of shape [outer, chunks].
  Tensor partial;
  const DType acc_dtype = DTypeOf<C>::value;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(acc_dtype, Shape({outer, chunks}), Device::kGPU, dev, &partial));
  C* pp = static_cast<C*>(partial.raw_data());
  const int64_t jobs = outer * chunks;
  reduce_rows_kernel<Op, D, C>
      <<<static_cast<unsigned>(std::min<int64_t>(jobs, 32 * sms)), kThreads, 0, s>>>(outer, len, chunks, x, pp, 0);
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  reduce_rows_kernel<Op, C, D><<<static_cast<unsigned>(std::min<int64_t>(outer, 32 * sms)), kThreads, 0, s>>>(
      outer, chunks, 1, pp, y, mean_count);
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

// reduction_indices stay in host memory.
template <typename T>
Status SumGpu(ops::SumArgs& a) {
  return reduce<SumOp, T>(a.ctx, a.input, a.reduction_indices, a.output, false);
}
template <typename T>
Status MeanGpu(ops::MeanArgs& a) {
  return reduce<SumOp, T>(a.ctx, a.input, a.reduction_indices, a.output, true);
}
template <typename T>
Status MaxGpu(ops::MaxArgs& a) {
  return reduce<MaxOp, T>(a.ctx, a.input, a.reduction_indices, a.output, false);
}

}  // namespace

#define OPF_GPU_REDUCE_TYPES bfloat16, half, float, double, int32_t, int64_t
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Sum, GPU, SumGpu, host_args(1), host_args(), OPF_GPU_REDUCE_TYPES)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Mean, GPU, MeanGpu, host_args(1), host_args(), OPF_GPU_REDUCE_TYPES)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Max, GPU, MaxGpu, host_args(1), host_args(), OPF_GPU_REDUCE_TYPES)

}  // namespace gpu
}  // namespace opforge
