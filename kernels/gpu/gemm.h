// GEMM on the GPU (cuBLAS, opened at run time: matmul.cu). Shared by MatMul, BatchMatMul,
// _FusedMatMul and the GEMM-based convolutions (conv.cu). CUDA only: Debian packages no
// hipBLAS, so HIP builds have none of these kernels (backend.cu says so in their NotFound).
#pragma once

#include <cstdint>

#include "opforge/kernel.h"
#include "opforge/status.h"

namespace opforge {
namespace gpu {

// Row-major C[m, n] = op(A) op(B) for `batch` matrices at the given element strides (a stride
// of 0 broadcasts one matrix over the batch). lda / ldb / ldc are the row pitches in elements
// (-1: packed, i.e. the row length of the stored matrix), so a GEMM can read or write a
// column slice of a wider matrix (one group of a grouped convolution).
template <typename T>
Status gemm(KernelContext& ctx, const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k, bool trans_a,
            bool trans_b, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, int64_t lda = -1,
            int64_t ldb = -1, int64_t ldc = -1);

}  // namespace gpu
}  // namespace opforge
