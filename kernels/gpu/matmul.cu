// MatMul on the GPU through cuBLAS. libcublas is opened at run time (dlopen), not linked: the
// backend library, and so `import opforge`, works on machines without cuBLAS, where MatMul on
// the GPU raises NotFound naming what was tried. HIP builds have no GPU MatMul: Debian does
// not package hipBLAS (the backend says so in the NotFound error, see backend.cu).
#include "gpu/gemm.h"
#include "gpu/gpu_util.h"

#if !defined(OPFORGE_HIP)
#include <dlfcn.h>
#include <library_types.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "opforge/ops/math/mat_mul.h"

namespace opforge {
namespace gpu {
namespace {

// The few cuBLAS declarations used (cublas_api.h is not part of a bare nvcc install).
using cublasStatus_t = int;
using cublasHandle_t = struct cublasContext*;
constexpr int kOpN = 0, kOpT = 1;                  // cublasOperation_t
constexpr int kCompute32F = 68, kCompute64F = 70;  // cublasComputeType_t
constexpr int kGemmDefault = -1;                   // cublasGemmAlgo_t

struct Cublas {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  const char* (*status_name)(cublasStatus_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched)(cublasHandle_t, int, int, int, int, int, const void*, const void*,
                                         cudaDataType, int, long long, const void*, cudaDataType, int, long long,
                                         const void*, void*, cudaDataType, int, long long, int, int, int) = nullptr;
  Status loaded;
  std::mutex mu;
  std::vector<cublasHandle_t> handles;  // per device
};

Cublas& cublas() {
  static Cublas* lib = [] {
    auto* c = new Cublas();
    std::vector<std::string> names;
    // Directories the Python package found (PyPI's nvidia-cublas wheels), then the loader's path.
    if (const char* dirs = std::getenv("OPFORGE_CUBLAS_DIRS")) {
      std::string all = dirs;
      size_t pos = 0;
      while (pos <= all.size()) {
        size_t next = all.find(':', pos);
        std::string d = all.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (!d.empty())
          for (const char* so : {"libcublas.so.13", "libcublas.so.12"}) names.push_back(d + "/" + so);
        if (next == std::string::npos) break;
        pos = next + 1;
      }
    }
    for (const char* so : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) names.push_back(so);
    void* h = nullptr;
    std::string tried;
    for (const std::string& n : names) {
      h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h) break;
      tried += (tried.empty() ? "" : ", ") + n;
    }
    if (!h) {
      c->loaded = errors::NotFound("cuBLAS could not be loaded (tried ", tried,
                                   "); install it, e.g. pip install nvidia-cublas");
      return c;
    }
    c->create = reinterpret_cast<decltype(c->create)>(dlsym(h, "cublasCreate_v2"));
    c->set_stream = reinterpret_cast<decltype(c->set_stream)>(dlsym(h, "cublasSetStream_v2"));
    c->status_name = reinterpret_cast<decltype(c->status_name)>(dlsym(h, "cublasGetStatusName"));
    c->gemm_strided_batched =
        reinterpret_cast<decltype(c->gemm_strided_batched)>(dlsym(h, "cublasGemmStridedBatchedEx"));
    if (!c->create || !c->set_stream || !c->gemm_strided_batched) {
      c->loaded = errors::NotFound(
          "the cuBLAS that was loaded lacks cublasCreate_v2, cublasSetStream_v2 or "
          "cublasGemmStridedBatchedEx");
    }
    return c;
  }();
  return *lib;
}

Status cublas_error(cublasStatus_t st, const char* call) {
  const char* name = cublas().status_name ? cublas().status_name(st) : nullptr;
  return errors::Internal("cuBLAS call ", call, " failed: ", name ? name : "status", " (", st, ")");
}

Status handle_for(int device, gpuStream_t stream, cublasHandle_t* out) {
  Cublas& c = cublas();
  OPF_RETURN_IF_ERROR(c.loaded);
  std::lock_guard<std::mutex> lock(c.mu);
  if (static_cast<int>(c.handles.size()) <= device) c.handles.resize(static_cast<size_t>(device) + 1, nullptr);
  cublasHandle_t& h = c.handles[static_cast<size_t>(device)];
  if (h == nullptr) {
    cublasStatus_t st = c.create(&h);
    if (st != 0) {
      h = nullptr;
      return cublas_error(st, "cublasCreate_v2");
    }
  }
  cublasStatus_t st = c.set_stream(h, stream);
  if (st != 0) return cublas_error(st, "cublasSetStream_v2");
  *out = h;
  return Status::OK();
}

template <typename T>
struct CudaType;
template <>
struct CudaType<float> {
  static constexpr cudaDataType value = CUDA_R_32F;
};
template <>
struct CudaType<double> {
  static constexpr cudaDataType value = CUDA_R_64F;
};
template <>
struct CudaType<half> {
  static constexpr cudaDataType value = CUDA_R_16F;
};
template <>
struct CudaType<bfloat16> {
  static constexpr cudaDataType value = CUDA_R_16BF;
};

}  // namespace

// Computed as the column-major C^T = op(B)^T op(A)^T. float32 accumulates in float32 (no TF32),
// as torch.matmul does by default; float16 and bfloat16 accumulate in float32; float64 in float64.
template <typename T>
Status gemm(KernelContext& ctx, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k, bool trans_a,
            bool trans_b, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, int64_t lda_in,
            int64_t ldb_in, int64_t ldc_in) {
  const int dev = ctx.device().index;
  if (m == 0 || n == 0 || batch == 0) return Status::OK();
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(dev, &s));
  const int64_t lda64 = lda_in >= 0 ? lda_in : (trans_a ? m : k);
  const int64_t ldb64 = ldb_in >= 0 ? ldb_in : (trans_b ? k : n);
  const int64_t ldc64 = ldc_in >= 0 ? ldc_in : n;
  if (k == 0) {  // empty sums: zeros
    if (ldc64 != n) return errors::Internal("gemm: an empty sum into a strided output is not supported");
    OPF_GPU_CHECK(gpuMemsetAsync(c, 0, static_cast<size_t>(m * n * batch) * sizeof(T), s),
                  OPF_GPU_PREFIX "MemsetAsync");
    return Status::OK();
  }
  constexpr int64_t kIntMax = 2147483647;
  if (m > kIntMax || n > kIntMax || k > kIntMax || batch > kIntMax || lda64 > kIntMax || ldb64 > kIntMax ||
      ldc64 > kIntMax) {
    return ctx.error("matrix dimensions beyond 2^31-1 are not supported on the GPU");
  }
  cublasHandle_t h;
  OPF_RETURN_IF_ERROR(handle_for(dev, s, &h));
  const int lda = static_cast<int>(lda64);
  const int ldb = static_cast<int>(ldb64);
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const double alpha_d = 1.0, beta_d = 0.0;
  const bool is_double = std::is_same<T, double>::value;
  const void* alpha = is_double ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = is_double ? static_cast<const void*>(&beta_d) : &beta_f;
  const cudaDataType dt = CudaType<T>::value;
  cublasStatus_t st = cublas().gemm_strided_batched(
      h, trans_b ? kOpT : kOpN, trans_a ? kOpT : kOpN, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
      alpha, b, dt, ldb, stride_b, a, dt, lda, stride_a, beta, c, dt, static_cast<int>(ldc64), stride_c,
      static_cast<int>(batch), is_double ? kCompute64F : kCompute32F, kGemmDefault);
  if (st != 0) return cublas_error(st, "cublasGemmStridedBatchedEx");
  return Status::OK();
}

#define OPF_GEMM_INSTANCE(T)                                                                                      \
  template Status gemm<T>(KernelContext&, const void*, const void*, void*, int64_t, int64_t, int64_t, bool, bool, \
                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
OPF_GEMM_INSTANCE(float)
OPF_GEMM_INSTANCE(double)
OPF_GEMM_INSTANCE(half)
OPF_GEMM_INSTANCE(bfloat16)
#undef OPF_GEMM_INSTANCE

namespace {

template <typename T>
Status MatMulGpu(ops::MatMulArgs& a) {
  const int64_t m = a.product.dim(0), n = a.product.dim(1);
  const int64_t k = a.transpose_a ? a.a.dim(0) : a.a.dim(1);
  return gemm<T>(a.ctx, a.a.raw_data(), a.b.raw_data(), a.product.raw_data(), m, n, k, a.transpose_a, a.transpose_b, 1,
                 m * k, k * n, m * n);
}

// BatchMatMul / BatchMatMulV2 (x: [..., M, K], y: [..., K, N], adj_x, adj_y; batch dims
// broadcast). Keyed to the op names through the KernelContext, so this compiles before the
// opdefs exist; the loader registers it only for ops that do.
int attr_index(const OpSpec& op, const char* name) {
  for (size_t i = 0; i < op.attrs.size(); ++i)
    if (op.attrs[i].name == name) return static_cast<int>(i);
  return -1;
}

template <typename T>
Status BatchMatMulGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  Tensor& out = ctx.output(0);
  const int ax = attr_index(ctx.op(), "adj_x"), ay = attr_index(ctx.op(), "adj_y");
  const bool adj_x = ax >= 0 && ctx.attr(ax).b, adj_y = ay >= 0 && ctx.attr(ay).b;
  if (x.rank() < 2 || y.rank() < 2 || out.rank() < 2) return ctx.error("inputs must be at least 2-D");
  const int64_t m = out.dim(out.rank() - 2), n = out.dim(out.rank() - 1);
  const int64_t k = adj_x ? x.dim(x.rank() - 2) : x.dim(x.rank() - 1);
  const int ob = out.rank() - 2;
  int64_t batch = 1, xb = 1, yb = 1;
  for (int d = 0; d < ob; ++d) batch *= out.dim(d);
  for (int d = 0; d < x.rank() - 2; ++d) xb *= x.dim(d);
  for (int d = 0; d < y.rank() - 2; ++d) yb *= y.dim(d);
  const int64_t sx = m * k, sy = k * n, so = m * n;
  const auto* xp = static_cast<const char*>(x.raw_data());
  const auto* yp = static_cast<const char*>(y.raw_data());
  auto* op = static_cast<char*>(out.raw_data());
  if ((xb == batch || xb == 1) && (yb == batch || yb == 1)) {  // one strided-batched call
    return gemm<T>(ctx, xp, yp, op, m, n, k, adj_x, adj_y, batch, xb == 1 ? 0 : sx, yb == 1 ? 0 : sy, so);
  }
  // Mixed broadcasting of the batch dims: one call per output matrix.
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rem = b, xi = 0, yi = 0, xstride = 1, ystride = 1;
    for (int d = ob - 1; d >= 0; --d) {
      const int64_t c = rem % out.dim(d);
      rem /= out.dim(d);
      const int dx = x.rank() - 2 - (ob - d), dy = y.rank() - 2 - (ob - d);
      if (dx >= 0) {
        if (x.dim(dx) != 1) xi += c * xstride;
        xstride *= x.dim(dx);
      }
      if (dy >= 0) {
        if (y.dim(dy) != 1) yi += c * ystride;
        ystride *= y.dim(dy);
      }
    }
    OPF_RETURN_IF_ERROR(gemm<T>(ctx, xp + xi * sx * sizeof(T), yp + yi * sy * sizeof(T), op + b * so * sizeof(T), m, n,
                                k, adj_x, adj_y, 1, sx, sy, so));
  }
  return Status::OK();
}

template <typename... Ts>
bool register_batch_matmul(const char* op) {
  (KernelRegistry::Global().add(op, Device::kGPU, DTypeOf<Ts>::value, KernelDef{&BatchMatMulGpu<Ts>}), ...);
  return true;
}

[[maybe_unused]] const bool batch_registered = register_batch_matmul<bfloat16, half, float, double>("BatchMatMul") &&
                                               register_batch_matmul<bfloat16, half, float, double>("BatchMatMulV2");

}  // namespace

OPFORGE_REGISTER_KERNEL(MatMul, GPU, MatMulGpu, bfloat16, half, float, double)

}  // namespace gpu
}  // namespace opforge

#endif  // !OPFORGE_HIP
