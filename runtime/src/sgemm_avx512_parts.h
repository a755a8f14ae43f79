// Pieces of the AVX-512 GEMM shared by its products (sgemm_avx512.cc) and its row-gathered
// products for convolutions (sgemm_avx512_gather.cc): the register blocking, the packed-B
// layout and the micro-kernels' stores. Runtime-private; include only where OPF_HAVE_AVX512_GEMM
// (x86-64 with GCC or Clang) is defined, and call only when cpu_has_avx512().
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "src/blas.h"  // ColumnEpilogue

namespace opforge {
namespace blas {
namespace avx512 {

constexpr int kMr = 12;            // rows of C per micro-kernel call
constexpr int kNr = 32;            // columns of C per micro-kernel call (two vectors)...
constexpr int64_t kKc = 256;       // depth of a packed block: a B panel (kKc x kNr) is 32 KiB
constexpr int64_t kMc = 12 * kMr;  // rows of a packed A block (144 x 256: 144 KiB, in L2)
constexpr int64_t kNc = 1024;      // columns of a packed B block (256 x 1024: 1 MiB)

// ...except the last panel of a block when at most 16 columns are left: it is one vector wide,
// so an odd width (16, 24, 44 channels) does not multiply a half-empty second vector.
constexpr int panel_width(int64_t columns_left) { return columns_left > 16 ? kNr : 16; }
// Columns of a block of nc once packed; panel j0 starts at j0 * kc of its depth block.
constexpr int64_t padded_columns(int64_t nc) { return nc / kNr * kNr + (nc % kNr == 0 ? 0 : panel_width(nc % kNr)); }

// Packs depth [0, kc) x columns [0, nc) of op(B) into panels of panel_width columns: the panel
// of columns [j0, j0 + w) starts at dst + j0 * kc and holds, for each p, op(B)[p][j0 + c] for
// c < w (columns past nc are zero).
void pack_b(bool tb, const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst);

// Products with few rows (sgemm_avx512_rows.cc), B streamed as it lies rather than packed:
// small_m_product for m <= kSmallM rows (m <= kSmallNt with op(B) = B^T), in_place_product for
// m <= kInPlaceRows with B not transposed and at most kInPlaceMaxB values (a larger B comes
// from memory, where packing's front-to-back rows stream faster than strips of rows 4 KiB
// apart: LeNet's 64 x 3136 x 1024 in a training step, 4.7 ms in place, 4.4 packed).
// C = alpha * op(A) * op(B) + beta * C.
constexpr int64_t kSmallM = 8, kSmallNt = 4, kInPlaceRows = 128, kInPlaceMaxB = int64_t{1} << 20;
void small_m_product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                     const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
void in_place_product(bool ta, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                      const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// alpha * acc + beta * C (C's masked lanes read only when beta is not 0).
__attribute__((target("avx512f"))) inline __m512 finish(__m512 acc, const float* c, __mmask16 mask, float alpha,
                                                        float beta) {
  __m512 r = _mm512_mul_ps(acc, _mm512_set1_ps(alpha));
  if (beta != 0.0f) {
    const __m512 old = _mm512_maskz_loadu_ps(mask, c);
    r = beta == 1.0f ? _mm512_add_ps(r, old) : _mm512_fmadd_ps(old, _mm512_set1_ps(beta), r);
  }
  return r;
}

template <int NV>
__attribute__((target("avx512f"))) inline void load_epilogue(const ColumnEpilogue* ep, int64_t j0, int cols,
                                                             __m512* scale, __m512* shift) {
  for (int v = 0; v < NV; ++v) {
    const int left = cols - 16 * v;
    const __mmask16 m = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
    // (A masked load costs more than a plain one: only a ragged last vector takes one.)
    shift[v] =
        m == 0xFFFF ? _mm512_loadu_ps(ep->shift + j0 + 16 * v) : _mm512_maskz_loadu_ps(m, ep->shift + j0 + 16 * v);
    scale[v] = ep->scale == nullptr ? _mm512_set1_ps(1.0f)
               : m == 0xFFFF        ? _mm512_loadu_ps(ep->scale + j0 + 16 * v)
                                    : _mm512_maskz_loadu_ps(m, ep->scale + j0 + 16 * v);
  }
}

// A ColumnEpilogue's act over 16 values, as column_activate (blas.h): max(0, v) / min(6, v)
// return v when it is NaN (the second operand). (The maskz forms with every lane on are the
// same instructions; GCC's plain forms pass an undefined vector it then warns may be used
// uninitialized.)
__attribute__((target("avx512f"))) inline __m512 relu6(__m512 v) {
  v = _mm512_maskz_max_ps(__mmask16(0xFFFF), _mm512_setzero_ps(), v);
  return _mm512_maskz_min_ps(__mmask16(0xFFFF), _mm512_set1_ps(6.0f), v);
}
__attribute__((target("avx512f"))) inline __m512 activate(__m512 v, int act) {
  if (act == kActHardSwish) {
    const __m512 gate = relu6(_mm512_add_ps(v, _mm512_set1_ps(3.0f)));
    return _mm512_mul_ps(v, _mm512_mul_ps(gate, _mm512_set1_ps(1.0f / 6.0f)));
  }
  if (act == kActRelu) return _mm512_maskz_max_ps(__mmask16(0xFFFF), _mm512_setzero_ps(), v);
  if (act == kActRelu6) return relu6(v);
  return v;
}

}  // namespace avx512
}  // namespace blas
}  // namespace opforge
