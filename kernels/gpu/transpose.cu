// Transpose on the GPU: one index walk per output element over the permutation with adjacent
// dims that stay adjacent merged (a [B, M, N] -> [B, N, M] swap walks 3 dims, a no-op
// permutation is a plain copy).
#include "gpu/gpu_util.h"
#include "gpu/transpose.h"
#include "opforge/ops/array/transpose.h"

namespace opforge {
namespace gpu {
namespace {

constexpr int kMaxDims = 8;
struct Perm {
  int rank;
  int64_t out_dims[kMaxDims];
  int64_t in_strides[kMaxDims];  // stride in the input of each output dim
};

template <class E>
__global__ void transpose_kernel(int64_t n, const E* __restrict__ x, E* __restrict__ y, Perm p) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rem = i, src = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      src += (rem % p.out_dims[d]) * p.in_strides[d];
      rem /= p.out_dims[d];
    }
    y[i] = x[src];
  }
}

}  // namespace

Status transpose_on_device(int device, const Tensor& in, const std::vector<int64_t>& perm, Tensor& out) {
  const int64_t n = in.num_elements();
  if (n == 0) return Status::OK();
  const int r = in.rank();
  std::vector<int64_t> in_strides(static_cast<size_t>(r), 1);
  for (int d = r - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in.dim(d + 1);
  // Merge output dims k-1, k when they are adjacent, in order, in the input; drop size-1 dims.
  std::vector<int64_t> dims, strides;
  int64_t prev_in = -2;
  for (int k = 0; k < r; ++k) {
    const int64_t src = perm[k];
    if (in.dim(static_cast<int>(src)) == 1) continue;
    if (!dims.empty() && src == prev_in + 1) {
      dims.back() *= in.dim(static_cast<int>(src));
      strides.back() = in_strides[src];
    } else {
      dims.push_back(in.dim(static_cast<int>(src)));
      strides.push_back(in_strides[src]);
    }
    prev_in = src;
  }
  GpuBackend* b = gpu_backend();
  if (dims.size() <= 1) return b->copy_on_device(device, out.raw_data(), in.raw_data(), in.nbytes());
  if (dims.size() > static_cast<size_t>(kMaxDims)) {
    return errors::Unimplemented("Transpose: more than ", kMaxDims, " non-mergeable dims on the GPU");
  }
  Perm p;
  p.rank = static_cast<int>(dims.size());
  for (int d = 0; d < p.rank; ++d) {
    p.out_dims[d] = dims[d];
    p.in_strides[d] = strides[d];
  }
  gpuStream_t s;
  OPF_RETURN_IF_ERROR(stream_for(device, &s));
  const unsigned grid = grid_for(n, device);
  switch (dtype_size(in.dtype())) {
    case 1:
      transpose_kernel<uint8_t><<<grid, 256, 0, s>>>(n, static_cast<const uint8_t*>(in.raw_data()),
                                                     static_cast<uint8_t*>(out.raw_data()), p);
      break;
    case 2:
      transpose_kernel<uint16_t><<<grid, 256, 0, s>>>(n, static_cast<const uint16_t*>(in.raw_data()),
                                                      static_cast<uint16_t*>(out.raw_data()), p);
      break;
    case 4:
      transpose_kernel<uint32_t><<<grid, 256, 0, s>>>(n, static_cast<const uint32_t*>(in.raw_data()),
                                                      static_cast<uint32_t*>(out.raw_data()), p);
      break;
    default:
      transpose_kernel<uint64_t><<<grid, 256, 0, s>>>(n, static_cast<const uint64_t*>(in.raw_data()),
                                                      static_cast<uint64_t*>(out.raw_data()), p);
      break;
  }
  OPF_GPU_CHECK_LAUNCH("Transpose");
  return Status::OK();
}

namespace {

// perm stays in host memory (it is validated by the shape function already).
template <typename T>
Status TransposeGpu(ops::TransposeArgs& a) {
  std::vector<int64_t> perm;
  OPF_RETURN_IF_ERROR(read_int_vector(a.perm, &perm));
  for (int64_t& p : perm)
    if (p < 0) p += a.x.rank();
  return transpose_on_device(a.ctx.device().index, a.x, perm, a.y);
}

}  // namespace

OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Transpose, GPU, TransposeGpu, host_args(1), host_args(), bool, bfloat16, half,
                                    float, double, int32_t, int64_t)

}  // namespace gpu
}  // namespace opforge
