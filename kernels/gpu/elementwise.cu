// Elementwise GPU kernels: unary math, binary ops with NumPy broadcasting, AddN, Cast, and the
// ops that make or relabel tensors (Fill, ZerosLike, OnesLike, Identity, Reshape, Shape, Size,
// Rank). Contiguous operands go through 16-byte vector loads in a grid-stride loop; broadcast
// operands through a strided index walk over the collapsed output shape.
//
// To keep nvcc time down on 2 cores, GPU kernels cover float32/float64/float16/bfloat16 and
// int32/int64 (bool where an op takes it); the narrower integer types stay CPU-only.
#include <cmath>

#include "gpu/gpu_util.h"
// The op macros below name many ops' call structs: the group headers declare them all.
#include "opforge/ops/array_ops.h"
#include "opforge/ops/math_ops.h"
#include "opforge/ops/nn_ops.h"

namespace opforge {
namespace gpu {
namespace {

constexpr int kThreads = 256;

// ---- functors (C: the compute type)

__device__ inline float d_exp(float x) { return expf(x); }
__device__ inline double d_exp(double x) { return exp(x); }
__device__ inline float d_log(float x) { return logf(x); }
__device__ inline double d_log(double x) { return log(x); }
__device__ inline float d_sqrt(float x) { return sqrtf(x); }
__device__ inline double d_sqrt(double x) { return sqrt(x); }
__device__ inline float d_tanh(float x) { return tanhf(x); }
__device__ inline double d_tanh(double x) { return tanh(x); }
__device__ inline float d_pow(float x, float y) { return powf(x, y); }
__device__ inline double d_pow(double x, double y) { return pow(x, y); }

struct AbsF {
  template <class C>
  __device__ C operator()(C x) const {
    return x < C(0) ? C(-x) : x;
  }
};
struct NegF {
  template <class C>
  __device__ C operator()(C x) const {
    return C(-x);
  }
};
struct SquareF {
  template <class C>
  __device__ C operator()(C x) const {
    return C(x * x);
  }
};
struct ExpF {
  template <class C>
  __device__ C operator()(C x) const {
    return d_exp(x);
  }
};
struct LogF {
  template <class C>
  __device__ C operator()(C x) const {
    return d_log(x);
  }
};
struct SqrtF {
  template <class C>
  __device__ C operator()(C x) const {
    return d_sqrt(x);
  }
};
struct TanhF {
  template <class C>
  __device__ C operator()(C x) const {
    return d_tanh(x);
  }
};
struct SigmoidF {
  template <class C>
  __device__ C operator()(C x) const {
    return C(1) / (C(1) + d_exp(-x));
  }
};
struct ReluF {
  template <class C>
  __device__ C operator()(C x) const {
    return x > C(0) ? x : C(0);
  }
};
struct Relu6F {
  template <class C>
  __device__ C operator()(C x) const {
    return x > C(0) ? (x < C(6) ? x : C(6)) : C(0);
  }
};

struct AddF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return C(a + b);
  }
};
struct SubF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return C(a - b);
  }
};
struct MulF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return C(a * b);
  }
};
struct DivF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return a / b;
  }
};
struct PowF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return d_pow(a, b);
  }
};
// NaN propagates, as in the CPU kernels (std::max would drop it).
struct MaxF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return (a > b || a != a) ? a : b;
  }
};
struct MinF {
  template <class C>
  __device__ C operator()(C a, C b) const {
    return (a < b || a != a) ? a : b;
  }
};
struct EqualF {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a == b;
  }
};
struct LessF {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a < b;
  }
};
struct GreaterF {
  template <class C>
  __device__ bool operator()(C a, C b) const {
    return a > b;
  }
};

// ---- kernels

template <class F, class D, int V>
__global__ void unary_kernel(int64_t n, const D* __restrict__ x, D* __restrict__ y, F f) {
  using A = Acc<D>;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t nvec = n / V;
  const auto* xv = reinterpret_cast<const Vec<D, V>*>(x);
  auto* yv = reinterpret_cast<Vec<D, V>*>(y);
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    Vec<D, V> a = xv[i], r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = A::store(f(A::load(a.v[k])));
    yv[i] = r;
  }
  for (int64_t i = nvec * V + int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = A::store(f(A::load(x[i])));
}

template <class F, class D, class O, int V>
__global__ void binary_same_kernel(int64_t n, const D* __restrict__ x, const D* __restrict__ y, O* __restrict__ z,
                                   F f) {
  using A = Acc<D>;
  using R = Acc<O>;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t nvec = n / V;
  const auto* xv = reinterpret_cast<const Vec<D, V>*>(x);
  const auto* yv = reinterpret_cast<const Vec<D, V>*>(y);
  auto* zv = reinterpret_cast<Vec<O, V>*>(z);
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    Vec<D, V> a = xv[i], b = yv[i];
    Vec<O, V> r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = R::store(static_cast<typename R::C>(f(A::load(a.v[k]), A::load(b.v[k]))));
    zv[i] = r;
  }
  for (int64_t i = nvec * V + int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    z[i] = R::store(static_cast<typename R::C>(f(A::load(x[i]), A::load(y[i]))));
}

constexpr int kMaxDims = 8;
struct Bcast {
  int rank = 0;
  int64_t dims[kMaxDims];
  int64_t xs[kMaxDims];  // element strides of x and y per output dim; 0 where broadcast
  int64_t ys[kMaxDims];
};

template <class F, class D, class O>
__global__ void binary_bcast_kernel(int64_t n, const D* __restrict__ x, const D* __restrict__ y, O* __restrict__ z,
                                    Bcast b, F f) {
  using A = Acc<D>;
  using R = Acc<O>;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rem = i, xi = 0, yi = 0;
    for (int d = b.rank - 1; d >= 0; --d) {
      const int64_t c = rem % b.dims[d];
      rem /= b.dims[d];
      xi += c * b.xs[d];
      yi += c * b.ys[d];
    }
    z[i] = R::store(static_cast<typename R::C>(f(A::load(x[xi]), A::load(y[yi]))));
  }
}

template <class From, class To>
__global__ void cast_kernel(int64_t n, const From* __restrict__ x, To* __restrict__ y) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = convert<To, From>(x[i]);
}

template <class D>
__global__ void fill_kernel(int64_t n, D* __restrict__ y, D v) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = v;
}

// ---- host side

// Broadcast strides of x and y over z's shape, with adjacent dims merged where both operands
// allow it (so a [N, C] + [C] add walks 2 dims, not more).
Status plan_broadcast(const Shape& xs, const Shape& ys, const Shape& zs, Bcast* b) {
  const int r = zs.rank();
  std::vector<int64_t> dims(zs.dims()), sx(r, 0), sy(r, 0);
  auto strides = [&](const Shape& s, std::vector<int64_t>& st) {
    int64_t acc = 1;
    for (int d = s.rank() - 1, o = r - 1; d >= 0; --d, --o) {
      st[o] = s.dim(d) == 1 ? 0 : acc;
      acc *= s.dim(d);
    }
  };
  strides(xs, sx);
  strides(ys, sy);
  std::vector<int64_t> md, mx, my;
  for (int d = 0; d < r; ++d) {
    if (dims[d] == 1) continue;  // size-1 dims do not move any index
    if (!md.empty()) {
      const int64_t inner = dims[d];
      const bool x_ok = (mx.back() == 0 && sx[d] == 0) || (mx.back() == sx[d] * inner && sx[d] != 0);
      const bool y_ok = (my.back() == 0 && sy[d] == 0) || (my.back() == sy[d] * inner && sy[d] != 0);
      if (x_ok && y_ok) {
        md.back() *= inner;
        mx.back() = sx[d];
        my.back() = sy[d];
        continue;
      }
    }
    md.push_back(dims[d]);
    mx.push_back(sx[d]);
    my.push_back(sy[d]);
  }
  if (md.size() > static_cast<size_t>(kMaxDims)) {
    return errors::Unimplemented("broadcasting over more than ", kMaxDims, " non-mergeable dims on the GPU");
  }
  b->rank = static_cast<int>(md.size());
  for (int d = 0; d < b->rank; ++d) {
    b->dims[d] = md[d];
    b->xs[d] = mx[d];
    b->ys[d] = my[d];
  }
  return Status::OK();
}

template <typename T, typename F>
Status unary(KernelContext& ctx, const Tensor& x, Tensor& y) {
  using D = dev_t<T>;
  const int64_t n = x.num_elements();
  if (n == 0) return Status::OK();
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(ctx.device().index, &s));
  constexpr int V = VecWidth<D>::value;
  unary_kernel<F, D, V><<<grid_for((n + V - 1) / V, ctx.device().index, kThreads), kThreads, 0, s>>>(
      n, dev_ptr<T>(x), dev_ptr<T>(y), F{});
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

template <typename T, typename F, typename O = dev_t<T>>
Status binary_ptrs(KernelContext& ctx, const Tensor& x, const Tensor& y, Tensor& z) {
  using D = dev_t<T>;
  const int64_t n = z.num_elements();
  if (n == 0) return Status::OK();
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(ctx.device().index, &s));
  const int dev = ctx.device().index;
  const D* xp = dev_ptr<T>(x);
  const D* yp = dev_ptr<T>(y);
  O* zp = static_cast<O*>(z.raw_data());
  if (x.shape() == z.shape() && y.shape() == z.shape()) {
    constexpr int V = VecWidth<D>::value;
    binary_same_kernel<F, D, O, V><<<grid_for((n + V - 1) / V, dev, kThreads), kThreads, 0, s>>>(n, xp, yp, zp, F{});
  } else {
    Bcast b;
    OPF_RETURN_IF_ERROR(plan_broadcast(x.shape(), y.shape(), z.shape(), &b));
    binary_bcast_kernel<F, D, O><<<grid_for(n, dev, kThreads), kThreads, 0, s>>>(n, xp, yp, zp, b, F{});
  }
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

template <typename T, typename F>
Status binary(KernelContext& ctx, const Tensor& x, const Tensor& y, Tensor& z) {
  return binary_ptrs<T, F>(ctx, x, y, z);
}

template <typename T, typename F>
Status compare(KernelContext& ctx, const Tensor& x, const Tensor& y, Tensor& z) {
  return binary_ptrs<T, F, bool>(ctx, x, y, z);
}

#define OPF_GPU_UNARY(OP, F, IN, OUT)       \
  template <typename T>                     \
  Status OP##Gpu(ops::OP##Args& a) {        \
    return unary<T, F>(a.ctx, a.IN, a.OUT); \
  }
#define OPF_GPU_BINARY(OP, F, HOW)          \
  template <typename T>                     \
  Status OP##Gpu(ops::OP##Args& a) {        \
    return HOW<T, F>(a.ctx, a.x, a.y, a.z); \
  }

OPF_GPU_UNARY(Abs, AbsF, x, y)
OPF_GPU_UNARY(Neg, NegF, x, y)
OPF_GPU_UNARY(Square, SquareF, x, y)
OPF_GPU_UNARY(Exp, ExpF, x, y)
OPF_GPU_UNARY(Log, LogF, x, y)
OPF_GPU_UNARY(Sqrt, SqrtF, x, y)
OPF_GPU_UNARY(Tanh, TanhF, x, y)
OPF_GPU_UNARY(Sigmoid, SigmoidF, x, y)
OPF_GPU_UNARY(Relu, ReluF, features, activations)
OPF_GPU_UNARY(Relu6, Relu6F, features, activations)
OPF_GPU_BINARY(AddV2, AddF, binary)
OPF_GPU_BINARY(Sub, SubF, binary)
OPF_GPU_BINARY(Mul, MulF, binary)
OPF_GPU_BINARY(RealDiv, DivF, binary)
OPF_GPU_BINARY(Pow, PowF, binary)
OPF_GPU_BINARY(Maximum, MaxF, binary)
OPF_GPU_BINARY(Minimum, MinF, binary)
OPF_GPU_BINARY(Equal, EqualF, compare)
OPF_GPU_BINARY(Less, LessF, compare)
OPF_GPU_BINARY(Greater, GreaterF, compare)

template <typename T>
Status AddNGpu(ops::AddNArgs& a) {
  GpuBackend* b = gpu_backend();
  const int dev = a.ctx.device().index;
  if (a.inputs.size == 1) {
    return a.sum.nbytes() ? b->copy_on_device(dev, a.sum.raw_data(), a.inputs[0].raw_data(), a.sum.nbytes())
                          : Status::OK();
  }
  OPF_RETURN_IF_ERROR((binary<T, AddF>(a.ctx, a.inputs[0], a.inputs[1], a.sum)));
  for (int k = 2; k < a.inputs.size; ++k) OPF_RETURN_IF_ERROR((binary<T, AddF>(a.ctx, a.sum, a.inputs[k], a.sum)));
  return Status::OK();
}

template <typename From>
Status CastGpu(ops::CastArgs& a) {
  const int64_t n = a.x.num_elements();
  if (n == 0) return Status::OK();
  const int dev = a.ctx.device().index;
  if (a.DstT == a.SrcT) return gpu_backend()->copy_on_device(dev, a.y.raw_data(), a.x.raw_data(), a.x.nbytes());
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  bool launched = false;
  auto launch = [&](auto to) {
    using To = dev_t<decltype(to)>;
    cast_kernel<dev_t<From>, To>
        <<<grid_for(n, dev, kThreads), kThreads, 0, s>>>(n, dev_ptr<From>(a.x), static_cast<To*>(a.y.raw_data()));
    launched = true;
  };
  switch (a.DstT) {
    case DType::kBool:
      launch(bool{});
      break;
    case DType::kInt32:
      launch(int32_t{});
      break;
    case DType::kInt64:
      launch(int64_t{});
      break;
    case DType::kFloat:
      launch(float{});
      break;
    case DType::kDouble:
      launch(double{});
      break;
    case DType::kHalf:
      launch(half{});
      break;
    case DType::kBFloat16:
      launch(bfloat16{});
      break;
    default:
      break;
  }
  if (!launched) {
    return errors::NotFound("Cast: no GPU kernel for SrcT=", dtype_name(a.SrcT), ", DstT=", dtype_name(a.DstT),
                            " (the GPU casts between bool, int32, int64, bfloat16, float16, float32 and float64)");
  }
  OPF_GPU_CHECK_LAUNCH("Cast");
  return Status::OK();
}

template <typename T>
Status fill_value(KernelContext& ctx, Tensor& y, T value) {
  using D = dev_t<T>;
  const int64_t n = y.num_elements();
  if (n == 0) return Status::OK();
  D v;
  static_assert(sizeof(D) == sizeof(T), "device and host dtypes differ in size");
  std::memcpy(&v, &value, sizeof(T));
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(ctx.device().index, &s));
  fill_kernel<D><<<grid_for(n, ctx.device().index, kThreads), kThreads, 0, s>>>(n, static_cast<D*>(y.raw_data()), v);
  OPF_GPU_CHECK_LAUNCH(ctx.op().name);
  return Status::OK();
}

// dims and value stay in host memory: the value is passed to the kernel by value.
template <typename T>
Status FillGpu(ops::FillArgs& a) {
  if (a.value.rank() != 0) return a.ctx.error("value must be a scalar, got shape ", a.value.shape().to_string());
  if (a.dims.rank() != 1) return a.ctx.error("dims must be a vector, got shape ", a.dims.shape().to_string());
  return fill_value<T>(a.ctx, a.output, a.value.data<T>()[0]);
}

template <typename T>
Status OnesLikeGpu(ops::OnesLikeArgs& a) {
  return fill_value<T>(a.ctx, a.y, static_cast<T>(1));
}

template <typename T>
Status ZerosLikeGpu(ops::ZerosLikeArgs& a) {
  if (a.y.nbytes() == 0) return Status::OK();
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(a.ctx.device().index, &s));
  OPF_GPU_CHECK(gpuMemsetAsync(a.y.raw_data(), 0, a.y.nbytes(), s), OPF_GPU_PREFIX "MemsetAsync");
  return Status::OK();
}

template <typename T>
Status ReshapeGpu(ops::ReshapeArgs& a) {
  a.output = a.tensor.reshaped(a.ctx.output_shape(0));
  return Status::OK();
}

template <typename T>
Status IdentityGpu(ops::IdentityArgs& a) {
  a.output = a.input;
  return Status::OK();
}

// Shape queries read only metadata: the input stays on the device, the output is host memory.
template <typename I>
void write_ints(Tensor& out, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) out.data<I>()[i] = static_cast<I>(v[i]);
}

template <typename T>
Status ShapeGpu(ops::ShapeArgs& a) {
  if (a.out_type == DType::kInt32)
    write_ints<int32_t>(a.output, a.input.shape().dims());
  else
    write_ints<int64_t>(a.output, a.input.shape().dims());
  return Status::OK();
}

template <typename T>
Status SizeGpu(ops::SizeArgs& a) {
  if (a.out_type == DType::kInt32) {
    if (a.input.num_elements() > INT32_MAX)
      return a.ctx.error("size ", a.input.num_elements(), " does not fit in int32");
    a.output.data<int32_t>()[0] = static_cast<int32_t>(a.input.num_elements());
  } else {
    a.output.data<int64_t>()[0] = a.input.num_elements();
  }
  return Status::OK();
}

template <typename T>
Status RankGpu(ops::RankArgs& a) {
  a.output.data<int32_t>()[0] = a.input.rank();
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Abs, GPU, AbsGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Neg, GPU, NegGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Square, GPU, SquareGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Exp, GPU, ExpGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Log, GPU, LogGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Sqrt, GPU, SqrtGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Tanh, GPU, TanhGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Sigmoid, GPU, SigmoidGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Relu, GPU, ReluGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Relu6, GPU, Relu6Gpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(AddV2, GPU, AddV2Gpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Sub, GPU, SubGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Mul, GPU, MulGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(RealDiv, GPU, RealDivGpu, OPF_GPU_FLOATS)
OPFORGE_REGISTER_KERNEL(Pow, GPU, PowGpu, float, double)
OPFORGE_REGISTER_KERNEL(Maximum, GPU, MaximumGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Minimum, GPU, MinimumGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Equal, GPU, EqualGpu, OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL(Less, GPU, LessGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Greater, GPU, GreaterGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(AddN, GPU, AddNGpu, OPF_GPU_NUMBERS)
OPFORGE_REGISTER_KERNEL(Cast, GPU, CastGpu, OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Fill, GPU, FillGpu, host_args(0, 1), host_args(), OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL(OnesLike, GPU, OnesLikeGpu, OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL(ZerosLike, GPU, ZerosLikeGpu, OPF_GPU_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL_HOST_MEMORY(Reshape, GPU, ReshapeGpu, host_args(1), host_args(), OPF_GPU_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Identity, GPU, IdentityGpu, OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Shape, GPU, ShapeGpu, host_args(), host_args(0), OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Size, GPU, SizeGpu, host_args(), host_args(0), OPF_GPU_ALL)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Rank, GPU, RankGpu, host_args(), host_args(0), OPF_GPU_ALL)

}  // namespace gpu
}  // namespace opforge
