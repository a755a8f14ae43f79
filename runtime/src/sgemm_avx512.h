// The runtime's own single-precision GEMM for x86-64 CPUs with AVX-512 (runtime-private).
//
// OpenBLAS picks its kernels by the CPU it detects, or by OPENBLAS_CORETYPE when that is set;
// on some machines that leaves it on AVX2 kernels (half the width) although the CPU has
// AVX-512. blas::gemm uses this kernel for float32 whenever the CPU has AVX-512, so the
// convolutions and matmuls of a model run at the machine's width whatever OpenBLAS chose.
// blas::set_sgemm_kernel (blas.h) chooses between the two.
#pragma once
#include <cstdint>

#include "src/blas.h"  // ColumnEpilogue

namespace opforge {
namespace blas {

// True when this process runs on an x86-64 CPU with AVX-512F.
bool cpu_has_avx512();

// C = alpha * op(A) * op(B) + beta * C, row-major, single-threaded (blas::gemm splits over the
// threads). Call only when cpu_has_avx512().
void sgemm_avx512(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// op(B) [k x n] packed once for many products (blas::PackedMatrix): depth blocks, each cut
// into panels of packed_b_column_step() columns. packed_b_size floats; pack_b_full packs depth
// blocks [pc0, pc1) of packed_b_depth_blocks(k) (so threads can share the work); the buffer
// must be 64-byte aligned.
int64_t packed_b_size(int64_t k, int64_t n);
int64_t packed_b_column_step();
// Rows of C per micro-kernel call (split products on multiples of it).
int64_t sgemm_tile_rows();
int64_t packed_b_depth_blocks(int64_t k);
void pack_b_full(bool trans_b, const float* b, int64_t ldb, int64_t k, int64_t n, int64_t pc0, int64_t pc1, float* dst);

// Columns [col0, col1) of C = alpha * op(A) * B + beta * C with B packed by pack_b_full; col0 a
// multiple of packed_b_column_step(), col1 one too or n; ep (when given) applied to each value
// in registers as it is stored (its scale and shift indexed by the column of C). Single-threaded.
void sgemm_avx512_packed(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                         const float* packed, int64_t col0, int64_t col1, float beta, float* c, int64_t ldc,
                         const ColumnEpilogue* ep = nullptr);

// Row-gathered products (sgemm_avx512_gather.cc), for convolutions without a patch matrix:
// C[m x n] = A * B (then ep, when given), row r of C at crows[r], where row r of A is the
// concatenation of `pieces` runs of len floats, run t at rows[r] + off[t] (depth k = pieces *
// len), of which only the values [lo, hi) of each run are read: the rest are zeros in every
// row (a padded convolution's taps over the horizontal padding). B ([k x n], row-major, ldb)
// is packed by pack_b_gather into gather_packed_b_size(k, n) floats (64-byte aligned).
// Single-threaded; call only when cpu_has_avx512().
// `live` (when given, one per row of A): the pieces [first, end) of that row that are not all
// zero (a padded convolution's filter rows over padding); a block of rows runs only over the
// pieces live in one of its rows, the rest read as zeros.
struct PieceRange {
  int first, end;
};
int64_t gather_packed_b_size(int64_t k, int64_t n);
void pack_b_gather(const float* b, int64_t ldb, int64_t k, int64_t n, float* dst);
void sgemm_avx512_gather(int64_t m, int64_t n, const float* const* rows, const int64_t* off, int pieces, int64_t len,
                         int64_t lo, int64_t hi, const float* packed_b, float* const* crows, const ColumnEpilogue* ep,
                         const PieceRange* live = nullptr);
// The transposed form, for filter gradients: D[n x len] (ldd) += A^T * B over P steps of depth,
// A's row p at arows[p] (n floats), B's row p the len floats at rows[p] + o (read in place).
// Single-threaded; only when cpu_has_avx512().
void sgemm_avx512_gather_tn(int64_t P, int64_t n, const float* const* arows, const float* const* rows, int64_t o,
                            int64_t len, float* d, int64_t ldd);
// The same with single gathered values, for filters with few taps: D[k x n] (row-major) +=
// sum over p of (column p of A) * (row p of b), A's value k at step p rows[p][off[k]], b [P x n].
void sgemm_avx512_gather_taps_tn(int64_t P, int64_t k, const float* const* rows, const int64_t* off, const float* b,
                                 int64_t n, float* d);

}  // namespace blas
}  // namespace opforge
