// The AVX-512 GEMM's products with few rows (see sgemm_avx512_parts.h): B streamed as it lies
// rather than packed, where packing it would cost as much as the product or a good part of it.
#include <algorithm>

#include "sgemm_avx512.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "src/sgemm_avx512_parts.h"

namespace opforge {
namespace blas {
namespace avx512 {
namespace {

// GEMMs with few rows (m <= kSmallM): packing B would cost as much as the product (a fully
// connected layer at batch 1 to 8 is a few matrix-vector products), so B is streamed once as
// it is. Up to 4 rows the sums of a pass over B live in L1 (small_m_nn); 5 to 8 rows keep M x 32
// sums in registers while a 32-column strip of B streams by (small_m_nn_strips). With
// op(B) = B^T, up to kSmallNt rows take dot products of rows (small_m_nt); more are packed.
__attribute__((target("avx512f"))) inline __mmask16 tail_mask(int64_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

template <int M>
__attribute__((target("avx512f"))) void small_m_nn(bool ta, int64_t n, int64_t k, float alpha, const float* a,
                                                   int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                                                   int64_t ldc) {
  // Rows of B are read in order, each once: the sums of a pass over kCols columns (M x 8 KiB)
  // stay in L1 while B streams from memory at full speed (32 KiB of stack at most).
  constexpr int64_t kCols = 2048;
  alignas(64) float sum[M][kCols];
  for (int64_t j0 = 0; j0 < n; j0 += kCols) {
    const int64_t w = std::min(kCols, n - j0), full = w / 16 * 16;
    const __mmask16 tail = tail_mask(w - full);
    for (int r = 0; r < M; ++r) std::fill(sum[r], sum[r] + (w + 15) / 16 * 16, 0.0f);
    const float* brow = b + j0;
    for (int64_t p = 0; p < k; ++p, brow += ldb) {
      __m512 av[M];
      for (int r = 0; r < M; ++r) av[r] = _mm512_set1_ps(ta ? a[p * lda + r] : a[r * lda + p]);
      int64_t j = 0;
      for (; j < full; j += 16) {
        const __m512 bv = _mm512_loadu_ps(brow + j);
        for (int r = 0; r < M; ++r) {
          _mm512_store_ps(sum[r] + j, _mm512_fmadd_ps(av[r], bv, _mm512_load_ps(sum[r] + j)));
        }
      }
      if (tail) {
        const __m512 bv = _mm512_maskz_loadu_ps(tail, brow + j);
        for (int r = 0; r < M; ++r) {
          _mm512_store_ps(sum[r] + j, _mm512_fmadd_ps(av[r], bv, _mm512_load_ps(sum[r] + j)));
        }
      }
    }
    for (int r = 0; r < M; ++r) {
      for (int64_t j = 0; j < w; j += 16) {
        const __mmask16 mask = tail_mask(w - j);
        float* cp = c + r * ldc + j0 + j;
        _mm512_mask_storeu_ps(cp, mask, finish(_mm512_load_ps(sum[r] + j), cp, mask, alpha, beta));
      }
    }
  }
}

// 5 to 8 rows: for each strip of 32 columns of B (two vectors), M x 2 vector sums stay in
// registers down all k rows of the strip, so each value of B is loaded once and feeds M FMAs
// with no sum going through memory (small_m_nn's stores would bound it at these M).
template <int M>
__attribute__((target("avx512f"))) void small_m_nn_strips(bool ta, int64_t n, int64_t k, float alpha, const float* a,
                                                          int64_t lda, const float* b, int64_t ldb, float beta,
                                                          float* c, int64_t ldc) {
  constexpr int64_t kAhead = 16;  // rows of the strip requested ahead (a strided stream)
  for (int64_t j = 0; j < n; j += 32) {
    const int64_t left = n - j;
    const __mmask16 m0 = tail_mask(left), m1 = tail_mask(std::max<int64_t>(0, left - 16));
    __m512 s0[M], s1[M];
#pragma GCC unroll 8
    for (int r = 0; r < M; ++r) s0[r] = s1[r] = _mm512_setzero_ps();
    const float* bp = b + j;
    if (left >= 32) {
      for (int64_t p = 0; p < k; ++p, bp += ldb) {
        _mm_prefetch(reinterpret_cast<const char*>(bp + kAhead * ldb), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(bp + kAhead * ldb + 16), _MM_HINT_T0);
        const __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 8
        for (int r = 0; r < M; ++r) {
          const __m512 av = _mm512_set1_ps(ta ? a[p * lda + r] : a[r * lda + p]);
          s0[r] = _mm512_fmadd_ps(av, b0, s0[r]);
          s1[r] = _mm512_fmadd_ps(av, b1, s1[r]);
        }
      }
    } else {
      for (int64_t p = 0; p < k; ++p, bp += ldb) {
        const __m512 b0 = _mm512_maskz_loadu_ps(m0, bp), b1 = _mm512_maskz_loadu_ps(m1, bp + 16);
#pragma GCC unroll 8
        for (int r = 0; r < M; ++r) {
          const __m512 av = _mm512_set1_ps(ta ? a[p * lda + r] : a[r * lda + p]);
          s0[r] = _mm512_fmadd_ps(av, b0, s0[r]);
          s1[r] = _mm512_fmadd_ps(av, b1, s1[r]);
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < M; ++r) {
      float* cp = c + r * ldc + j;
      _mm512_mask_storeu_ps(cp, m0, finish(s0[r], cp, m0, alpha, beta));
      if (m1) _mm512_mask_storeu_ps(cp + 16, m1, finish(s1[r], cp + 16, m1, alpha, beta));
    }
  }
}

// op(B) = B^T: every C value is a dot product of a row of op(A) and a row of b.
template <int M>
__attribute__((target("avx512f"))) void small_m_nt(bool ta, int64_t n, int64_t k, float alpha, const float* a,
                                                   int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                                                   int64_t ldc) {
  for (int64_t j = 0; j < n; ++j) {
    const float* bj = b + j * ldb;
    __m512 acc[M];
    for (int r = 0; r < M; ++r) acc[r] = _mm512_setzero_ps();
    for (int64_t p = 0; p < k; p += 16) {
      const __mmask16 mask = tail_mask(k - p);
      const __m512 bv = _mm512_maskz_loadu_ps(mask, bj + p);
      for (int r = 0; r < M; ++r) {
        __m512 av;
        if (!ta) {
          av = _mm512_maskz_loadu_ps(mask, a + r * lda + p);
        } else {  // op(A)[r][p] = a[p * lda + r]: a strided column
          alignas(64) float col[16] = {};
          const int64_t len = std::min<int64_t>(16, k - p);
          for (int64_t q = 0; q < len; ++q) col[q] = a[(p + q) * lda + r];
          av = _mm512_load_ps(col);
        }
        acc[r] = _mm512_fmadd_ps(av, bv, acc[r]);
      }
    }
    for (int r = 0; r < M; ++r) {
      float* cp = c + r * ldc + j;
      alignas(64) float lanes[16];
      _mm512_store_ps(lanes, acc[r]);
      float dot = 0.0f;
      for (float x : lanes) dot += x;
      const float v = alpha * dot;
      *cp = beta == 0.0f ? v : v + beta * *cp;
    }
  }
}

template <int M>
void small_m(bool ta, bool tb, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
             int64_t ldb, float beta, float* c, int64_t ldc) {
  if constexpr (M <= kSmallNt) {
    if (tb) return small_m_nt<M>(ta, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  if constexpr (M <= 4) {
    small_m_nn<M>(ta, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    small_m_nn_strips<M>(ta, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

}  // namespace

void small_m_product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                     const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  using Fn = void (*)(bool, bool, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float, float*,
                      int64_t);
  static constexpr Fn kSmall[kSmallM] = {small_m<1>, small_m<2>, small_m<3>, small_m<4>,
                                         small_m<5>, small_m<6>, small_m<7>, small_m<8>};
  kSmall[m - 1](ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

namespace {

// Products with up to 128 rows and B not transposed (a training step's fully connected layers
// and LSTM gates at batch 16-128): B is read where it lies, its rows ldb apart, rather than
// packed. Packing reads and writes every value of B once per product, which at 32 rows was a
// fifth of the time; here each 64-column strip of B is read from cache once per block of up to
// six rows, the rows of C split as evenly as they go (R x 4 vectors in registers). One thread:
// 32 x 512 x 1024 90 -> 113 GFLOP/s, 128 x 784 x 512 106 -> 116 (at 192 rows and more,
// packing is as fast or faster).
constexpr int64_t kInPlaceKc = 1024;  // depth per pass (6 rows of A and a strip of B in L2)

// C[R x cols] = alpha * op(A)[R x kc] * B[kc x cols] + beta * C, B row p at b + p * ldb
// (cols <= 16 * NV; `last` masks its last vector), op(A)[r][p] at a[r * rs + p * ps].
template <int R, int NV>
__attribute__((target("avx512f"))) void in_place_kernel(int64_t kc, const float* __restrict a, int64_t rs, int64_t ps,
                                                        const float* __restrict b, int64_t ldb, float* c, int64_t ldc,
                                                        __mmask16 last, float alpha, float beta) {
  __m512 acc[R][NV];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  const bool full = last == 0xFFFF;
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      bv[v] = v < NV - 1 || full ? _mm512_loadu_ps(b + 16 * v) : _mm512_maskz_loadu_ps(last, b + 16 * v);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * rs]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
    a += ps;
    b += ldb;
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __mmask16 m = v < NV - 1 ? __mmask16(0xFFFF) : last;
      _mm512_mask_storeu_ps(cr + 16 * v, m, finish(acc[r][v], cr + 16 * v, m, alpha, beta));
    }
  }
}

using InPlaceKernel = void (*)(int64_t, const float*, int64_t, int64_t, const float*, int64_t, float*, int64_t,
                               __mmask16, float, float);
template <int NV>
constexpr InPlaceKernel kInPlace[7] = {nullptr,
                                       in_place_kernel<1, NV>,
                                       in_place_kernel<2, NV>,
                                       in_place_kernel<3, NV>,
                                       in_place_kernel<4, NV>,
                                       in_place_kernel<5, NV>,
                                       in_place_kernel<6, NV>};

}  // namespace

void in_place_product(bool ta, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                      const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const int64_t rs = ta ? 1 : lda, ps = ta ? lda : 1;
  const int64_t row_blocks = (m + 5) / 6;
  for (int64_t pc = 0; pc < k; pc += kInPlaceKc) {
    const int64_t kc = std::min(kInPlaceKc, k - pc);
    const float bc = pc == 0 ? beta : 1.0f;
    for (int64_t jr = 0; jr < n; jr += 64) {
      const int cols = static_cast<int>(std::min<int64_t>(64, n - jr));
      const int nv = (cols + 15) / 16, left = cols - 16 * (nv - 1);
      const __mmask16 last = tail_mask(left);
      const InPlaceKernel* kernels = nv == 4   ? kInPlace<4>
                                     : nv == 3 ? kInPlace<3>
                                     : nv == 2 ? kInPlace<2>
                                               : kInPlace<1>;
      for (int64_t i = 0, i0 = 0; i < row_blocks; ++i) {
        const int64_t i1 = m * (i + 1) / row_blocks;
        kernels[i1 - i0](kc, a + i0 * rs + pc * ps, rs, ps, b + pc * ldb + jr, ldb, c + i0 * ldc + jr, ldc, last, alpha,
                         bc);
        i0 = i1;
      }
    }
  }
}

}  // namespace avx512
}  // namespace blas
}  // namespace opforge

#endif
