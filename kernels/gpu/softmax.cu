// Softmax and LogSoftmax over the last dimension on the GPU: one block per row (max, then the
// sum of exponentials, then the outputs), accumulating in float (double for float64).
//
// These kernels are keyed to the op names and read their tensors through the KernelContext
// (no generated call struct), so they compile before the opdefs land; the backend loader
// registers them only for ops that exist (see load_gpu_backends in runtime/src/device.cc).
#include <algorithm>

#include "gpu/gpu_util.h"

namespace opforge {
namespace gpu {
namespace {

constexpr int kThreads = 256;

__device__ inline float d_exp(float x) { return expf(x); }
__device__ inline double d_exp(double x) { return exp(x); }
__device__ inline float d_log(float x) { return logf(x); }
__device__ inline double d_log(double x) { return log(x); }

template <class C, bool kMax>
__device__ C block_reduce(C v, C* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (static_cast<int>(threadIdx.x) < w) {
      const C o = buf[threadIdx.x + w];
      buf[threadIdx.x] = kMax ? (o > buf[threadIdx.x] ? o : buf[threadIdx.x]) : buf[threadIdx.x] + o;
    }
    __syncthreads();
  }
  const C r = buf[0];
  __syncthreads();
  return r;
}

template <class D, bool kLog>
__global__ void softmax_kernel(int64_t rows, int64_t len, const D* __restrict__ x, D* __restrict__ y) {
  using A = Acc<D>;
  using C = typename A::C;
  __shared__ C buf[kThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const D* xr = x + row * len;
    D* yr = y + row * len;
    C m = -INFINITY;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) {
      const C v = A::load(xr[i]);
      m = v > m ? v : m;
    }
    m = block_reduce<C, true>(m, buf);
    C s = 0;
    for (int64_t i = threadIdx.x; i < len; i += blockDim.x) s += d_exp(A::load(xr[i]) - m);
    s = block_reduce<C, false>(s, buf);
    if (kLog) {
      const C ls = d_log(s);
      for (int64_t i = threadIdx.x; i < len; i += blockDim.x) yr[i] = A::store(A::load(xr[i]) - m - ls);
    } else {
      const C inv = C(1) / s;
      for (int64_t i = threadIdx.x; i < len; i += blockDim.x) yr[i] = A::store(d_exp(A::load(xr[i]) - m) * inv);
    }
  }
}

template <typename T, bool kLog>
Status softmax(KernelContext& ctx) {
  using D = dev_t<T>;
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (x.rank() < 1) return ctx.error("logits must have at least one dimension, got a scalar");
  const int64_t n = x.num_elements();
  if (n == 0) return Status::OK();
  const int64_t len = x.dim(x.rank() - 1);
  const int64_t rows = n / len;
  const int dev = ctx.device().index;
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  const int64_t blocks = std::min<int64_t>(rows, int64_t{32} * multiprocessor_count(dev));
  softmax_kernel<D, kLog>
      <<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(rows, len, dev_ptr<T>(x), static_cast<D*>(y.raw_data()));
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

template <typename... Ts>
bool register_softmax(const char* op, bool log) {
  (KernelRegistry::Global().add(op, Device::kGPU, DTypeOf<Ts>::value,
                                KernelDef{log ? &softmax<Ts, true> : &softmax<Ts, false>}),
   ...);
  return true;
}

[[maybe_unused]] const bool registered = register_softmax<bfloat16, half, float, double>("Softmax", false) &&
                                         register_softmax<bfloat16, half, float, double>("LogSoftmax", true);

}  // namespace
}  // namespace gpu
}  // namespace opforge
