// Single-precision GEMM for CPUs with AVX-512 (see sgemm_avx512.h).
//
// The classic GotoBLAS/BLIS structure: op(B) is packed in blocks of kKc x kNc, cut into
// panels kNr columns wide (a block's last panel 16 when no more are left); op(A) in blocks of
// kMc x kKc, cut into panels kMr rows high; a micro-kernel multiplies one A panel by one B
// panel into a kMr x kNr block of C kept in 24 vector registers (12 rows x 2 vectors of 16
// floats), broadcasting one A value per row and loading two B vectors per step of k. A block of A stays in L2, a B
// panel in L1, and the packed B block is shared by every block of A. Edges are zero-padded in the packed panels and
// masked when C is written, so every shape runs the same kernel.
//
// Everything that executes AVX-512 instructions carries a target attribute, and the file is
// compiled for the baseline ISA: nothing here is reached unless the CPU says it has AVX-512.
#include "sgemm_avx512.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "src/host_allocator.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define OPF_HAVE_AVX512_GEMM 1
#include "src/sgemm_avx512_parts.h"
#endif

namespace opforge {
namespace blas {

#ifdef OPF_HAVE_AVX512_GEMM
namespace avx512 {

// dst[r * lds + c] = src[c * ldsrc + r] for a 16 x 16 block: sixteen rows loaded, transposed in
// registers (unpack pairs, then quads, then 128-bit lanes), stored as sixteen rows.
__attribute__((target("avx512f"))) void transpose16(const float* src, int64_t ldsrc, float* dst, int64_t lds) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * ldsrc);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    for (int j = 0; j < 2; ++j) {
      const __m512d a = _mm512_castps_pd(t[i + j]), b = _mm512_castps_pd(t[i + j + 2]);
      r[i + 2 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
      r[i + 2 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    }
  }
  // r[4q + k] now holds, in 128-bit lane l, column 4l + k of rows 4q .. 4q + 3.
  for (int q = 0; q < 4; q += 2) {
    for (int k = 0; k < 4; ++k) {
      t[4 * q + k] = _mm512_shuffle_f32x4(r[4 * q + k], r[4 * q + 4 + k], 0x88);      // lanes 0, 2 | 0, 2
      t[4 * q + 4 + k] = _mm512_shuffle_f32x4(r[4 * q + k], r[4 * q + 4 + k], 0xDD);  // lanes 1, 3 | 1, 3
    }
  }
  for (int k = 0; k < 4; ++k) {
    for (int h = 0; h < 2; ++h) {
      // lo holds rows 0-3 and 4-7 of columns k + 4h and k + 4h + 8, hi the same of rows 8-15.
      const __m512 lo = t[4 * h + k], hi = t[8 + 4 * h + k];
      const __m512 a = _mm512_shuffle_f32x4(lo, hi, 0x88), c = _mm512_shuffle_f32x4(lo, hi, 0xDD);
      _mm512_storeu_ps(dst + (k + 4 * h) * lds, a);
      _mm512_storeu_ps(dst + (k + 4 * h + 8) * lds, c);
    }
  }
}

void pack_b(bool tb, const float* b, int64_t ldb, int64_t kc, int64_t nc, float* dst) {
  if (!tb) {
    // Row by row: each row of B is read once, front to back (a stream the hardware prefetcher
    // follows), and its 32-column pieces go to their panels. Panel by panel instead would read
    // 128 bytes from each of kc rows ldb apart: a new page per row, and for ldb a multiple of
    // 4 KiB, rows that all map to one L1 set; packing B then cost as much as a product with
    // few rows (a fully connected layer's 64 x 3136 x 1024 ran at 2/3 of the kernel's speed).
    const int64_t full = nc / kNr * kNr;
    const int tail_w = nc == full ? 0 : panel_width(nc - full);
    const int tail = static_cast<int>(nc - full);
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = b + p * ldb;
      for (int64_t j0 = 0; j0 < full; j0 += kNr) std::memcpy(dst + j0 * kc + p * kNr, src + j0, sizeof(float) * kNr);
      if (tail_w != 0) {
        float* d = dst + full * kc + p * tail_w;
        std::memcpy(d, src + full, sizeof(float) * static_cast<size_t>(tail));
        std::fill(d + tail, d + tail_w, 0.0f);
      }
    }
    return;
  }
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int w = panel_width(nc - j0);
    const int cols = static_cast<int>(std::min<int64_t>(w, nc - j0));
    float* panel = dst + j0 * kc;  // op(B)[p][j] = b[j * ldb + p]
    if (cols == w) {               // whole 16 x 16 tiles by register transposes, the last depth steps scalar
      const int64_t kc16 = kc / 16 * 16;
      for (int c0 = 0; c0 < w; c0 += 16) {
        for (int64_t p0 = 0; p0 < kc16; p0 += 16) transpose16(b + (j0 + c0) * ldb + p0, ldb, panel + p0 * w + c0, w);
      }
      for (int c = 0; c < w; ++c) {
        const float* s = b + (j0 + c) * ldb;
        for (int64_t p = kc16; p < kc; ++p) panel[p * w + c] = s[p];
      }
      continue;
    }
    for (int c = 0; c < cols; ++c) {
      const float* s = b + (j0 + c) * ldb;
      for (int64_t p = 0; p < kc; ++p) panel[p * w + c] = s[p];
    }
    for (int64_t p = 0; p < kc; ++p) std::fill(panel + p * w + cols, panel + (p + 1) * w, 0.0f);
  }
}

}  // namespace avx512

namespace {

using namespace avx512;  // NOLINT(build/namespaces): the shared blocking and stores

// A packing buffer for one call, from the caching host allocator (warm memory, no page faults
// in steady state; 64-byte aligned for the vector loads). Not thread_local: thread-local
// objects with destructors race with glibc's TLS teardown as ThreadSanitizer sees it.
class PackBuffer {
 public:
  explicit PackBuffer(size_t floats) : bytes_(std::max<size_t>(floats, 1) * sizeof(float)) {
    p_ = static_cast<float*>(host_alloc(bytes_));
    if (p_ == nullptr) throw std::bad_alloc();
  }
  ~PackBuffer() { host_free(p_, bytes_); }
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  float* get() const { return p_; }

 private:
  size_t bytes_;
  float* p_;
};

// Packs rows [0, mc) x depth [0, kc) of op(A) = A^T (a is k x m) into panels of kMr rows:
// panel i holds, for each p, the kMr values op(A)[i*kMr + r][p] = a[p * lda + i*kMr + r] (rows
// past mc are zero). A non-transposed A is not packed: the micro-kernel reads its rows in place.
// Row p of a is read once, front to back, its 12-value pieces going to their panels (as pack_b).
void pack_at(const float* a, int64_t lda, int64_t mc, int64_t kc, float* dst) {
  const int64_t full = mc / kMr * kMr;
  const int tail = static_cast<int>(mc - full);
  for (int64_t p = 0; p < kc; ++p) {
    const float* s = a + p * lda;
    for (int64_t i0 = 0; i0 < full; i0 += kMr) std::memcpy(dst + i0 * kc + p * kMr, s + i0, sizeof(float) * kMr);
    if (tail != 0) {
      float* d = dst + full * kc + p * kMr;
      std::memcpy(d, s + full, sizeof(float) * static_cast<size_t>(tail));
      std::fill(d + tail, d + kMr, 0.0f);
    }
  }
}

// C[R x cols] = alpha * (A panel * B panel) + beta * C for a B panel NV vectors wide (cols <=
// 16 * NV). R < kMr is a panel's last rows (the rest of the panel is zero padding, which this
// instance skips).
//
// The A panel is either packed (row r of step p at ap[p * kMr + r]: as = 0) or read in place
// from row-major A (ap[r * as + p], as = lda): copying A into panels costs as much as the
// multiply when C has few columns (a 1x1 convolution to 16-128 channels), and R rows of a
// step are only R scalar broadcasts either way.
// ep (the last depth block of a product with an epilogue, else null): act(v * scale + shift)
// for the NV vectors of columns from j0 on, applied before the store.
template <int R, int NV>
__attribute__((target("avx512f"))) void micro_kernel(int64_t kc, const float* __restrict ap, int64_t as,
                                                     const float* __restrict bp, float* c, int64_t ldc, int cols,
                                                     float alpha, float beta, const ColumnEpilogue* ep, int64_t j0) {
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    acc0[r] = _mm512_setzero_ps();
    if (NV == 2) acc1[r] = _mm512_setzero_ps();
  }
  const int64_t rs = as == 0 ? 1 : as, ps = as == 0 ? kMr : 1;
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(bp);
    const __m512 b1 = NV == 2 ? _mm512_load_ps(bp + 16) : b0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * rs]);
      acc0[r] = _mm512_fmadd_ps(av, b0, acc0[r]);
      if (NV == 2) acc1[r] = _mm512_fmadd_ps(av, b1, acc1[r]);
    }
    ap += ps;
    bp += 16 * NV;
  }
  const __mmask16 m0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1);
  const __mmask16 m1 = cols >= 32 ? __mmask16(0xFFFF) : cols <= 16 ? __mmask16(0) : __mmask16((1u << (cols - 16)) - 1);
  if (ep != nullptr) {
    __m512 scale[NV], shift[NV];
    load_epilogue<NV>(ep, j0, cols, scale, shift);
    const int act = ep->act;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      float* cr = c + r * ldc;
      const __m512 v0 = finish(acc0[r], cr, m0, alpha, beta);
      _mm512_mask_storeu_ps(cr, m0, activate(_mm512_fmadd_ps(v0, scale[0], shift[0]), act));
      if (NV == 2 && m1) {
        const __m512 v1 = finish(acc1[r], cr + 16, m1, alpha, beta);
        _mm512_mask_storeu_ps(cr + 16, m1, activate(_mm512_fmadd_ps(v1, scale[NV - 1], shift[NV - 1]), act));
      }
    }
    return;
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
    _mm512_mask_storeu_ps(cr, m0, finish(acc0[r], cr, m0, alpha, beta));
    if (NV == 2 && m1) _mm512_mask_storeu_ps(cr + 16, m1, finish(acc1[r], cr + 16, m1, alpha, beta));
  }
}

using MicroKernel = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int, float, float,
                             const ColumnEpilogue*, int64_t);
template <int NV>
constexpr MicroKernel kMicroKernels[kMr + 1] = {nullptr,
                                                micro_kernel<1, NV>,
                                                micro_kernel<2, NV>,
                                                micro_kernel<3, NV>,
                                                micro_kernel<4, NV>,
                                                micro_kernel<5, NV>,
                                                micro_kernel<6, NV>,
                                                micro_kernel<7, NV>,
                                                micro_kernel<8, NV>,
                                                micro_kernel<9, NV>,
                                                micro_kernel<10, NV>,
                                                micro_kernel<11, NV>,
                                                micro_kernel<12, NV>};

// C[R x cols] as micro_kernel, over two adjacent full B panels at once (bp and bp + kc * kNr:
// 64 columns, four vectors; cols <= 64) with R <= 6 rows: six broadcasts and four loads feed
// 24 FMAs a step, where 12 rows of one panel take twelve and two. Products with many columns
// run on it (a fully connected layer's 64 x 3136 x 1024 on one thread: 4.4 -> ~4 ms).
template <int R>
__attribute__((target("avx512f"))) void wide_kernel(int64_t kc, const float* __restrict ap, int64_t as,
                                                    const float* __restrict bp, float* c, int64_t ldc, int cols,
                                                    float alpha, float beta, const ColumnEpilogue* ep, int64_t j0) {
  constexpr int NV = 4;
  __m512 acc[R][NV];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  const int64_t rs = as == 0 ? 1 : as, ps = as == 0 ? kMr : 1;
  const float* __restrict bq = bp + kc * kNr;  // the second panel
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(bp), b1 = _mm512_load_ps(bp + 16);
    const __m512 b2 = _mm512_load_ps(bq), b3 = _mm512_load_ps(bq + 16);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * rs]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
      acc[r][2] = _mm512_fmadd_ps(av, b2, acc[r][2]);
      acc[r][3] = _mm512_fmadd_ps(av, b3, acc[r][3]);
    }
    ap += ps;
    bp += kNr;
    bq += kNr;
  }
  __mmask16 mask[NV];
  __m512 scale[NV], shift[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int left = cols - 16 * v;
    mask[v] = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
  }
  if (ep != nullptr) load_epilogue<NV>(ep, j0, cols, scale, shift);
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (mask[v] == 0) continue;
      __m512 x = finish(acc[r][v], cr + 16 * v, mask[v], alpha, beta);
      if (ep != nullptr) x = activate(_mm512_fmadd_ps(x, scale[v], shift[v]), ep->act);
      _mm512_mask_storeu_ps(cr + 16 * v, mask[v], x);
    }
  }
}

constexpr int kWideRows = 6;
constexpr MicroKernel kWideKernels[kWideRows + 1] = {nullptr,        wide_kernel<1>, wide_kernel<2>, wide_kernel<3>,
                                                     wide_kernel<4>, wide_kernel<5>, wide_kernel<6>};

// C[m x nc] (+)= op(A)[m x kc] * (one depth block of packed B: nc columns in panels), A packed
// here block by block into pa.
// ep: the epilogue, on the last depth block (col0: the column of C that c starts at).
void block_product(bool ta, int64_t m, int64_t kc, int64_t nc, float alpha, const float* a, int64_t lda,
                   const float* pb, float beta, float* c, int64_t ldc, float* pa, const ColumnEpilogue* ep = nullptr,
                   int64_t col0 = 0) {
  for (int64_t ic = 0; ic < m; ic += kMc) {
    const int64_t mc = std::min(kMc, m - ic);
    if (ta) pack_at(a + ic, lda, mc, kc, pa);  // columns of a: packed; rows are read in place
    for (int64_t jr = 0; jr < nc;) {
      const int w = panel_width(nc - jr);
      // Two full panels at once (the second may hold fewer than 32 columns, not a 16-wide one).
      const bool wide = w == kNr && nc - jr > kNr && panel_width(nc - jr - kNr) == kNr;
      const int span = wide ? 2 * kNr : w;
      const int cols = static_cast<int>(std::min<int64_t>(span, nc - jr));
      const MicroKernel* kernels = wide ? kWideKernels : w == kNr ? kMicroKernels<2> : kMicroKernels<1>;
      const int step = wide ? kWideRows : kMr;  // (a packed A panel's rows 0-5, then 6-11)
      const float* bp = pb + jr * kc;
      for (int64_t ir = 0; ir < mc; ir += step) {
        const int rows = static_cast<int>(std::min<int64_t>(step, mc - ir));
        const float* ap = ta ? pa + (ir / kMr) * kc * kMr + ir % kMr : a + (ic + ir) * lda;
        kernels[rows](kc, ap, ta ? 0 : lda, bp, c + (ic + ir) * ldc + jr, ldc, cols, alpha, beta, ep, col0 + jr);
      }
      jr += span;
    }
  }
}

// C = beta * C (a product over no depth, or alpha == 0).
void scale_c(int64_t m, int64_t n, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* cr = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) cr[j] = beta == 0.0f ? 0.0f : beta * cr[j];
  }
}

}  // namespace

bool cpu_has_avx512() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return ok;
}

void sgemm_avx512(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.0f) return scale_c(m, n, beta, c, ldc);
  // (With op(B) = B^T, small_m_nt's dot products are measured only up to 4 rows.)
  if (m <= (tb ? kSmallNt : kSmallM)) return small_m_product(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (!tb && m <= kInPlaceRows && k * n <= kInPlaceMaxB)
    return in_place_product(ta, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  const int64_t nc_max = std::min(kNc, padded_columns(n));
  const int64_t kc_max = std::min(kKc, k);
  const int64_t mc_max = std::min(kMc, (m + kMr - 1) / kMr * kMr);
  const PackBuffer pb_buf(static_cast<size_t>(kc_max * nc_max)), pa_buf(static_cast<size_t>(kc_max * mc_max));
  float* pb = pb_buf.get();
  float* pa = pa_buf.get();
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      pack_b(tb, tb ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, kc, nc, pb);
      block_product(ta, m, kc, nc, alpha, ta ? a + pc * lda : a + pc, lda, pb, pc == 0 ? beta : 1.0f, c + jc, ldc, pa);
    }
  }
}

int64_t packed_b_size(int64_t k, int64_t n) { return k * padded_columns(n); }

int64_t packed_b_column_step() { return kNr; }

int64_t sgemm_tile_rows() { return kMr; }

void pack_b_full(bool tb, const float* b, int64_t ldb, int64_t k, int64_t n, int64_t pc0, int64_t pc1, float* dst) {
  const int64_t n_pad = padded_columns(n);
  for (int64_t blk = pc0; blk < pc1; ++blk) {
    const int64_t pc = blk * kKc, kc = std::min(kKc, k - pc);
    pack_b(tb, tb ? b + pc : b + pc * ldb, ldb, kc, n, dst + pc * n_pad);
  }
}

int64_t packed_b_depth_blocks(int64_t k) { return (k + kKc - 1) / kKc; }

void sgemm_avx512_packed(bool ta, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                         const float* packed, int64_t col0, int64_t col1, float beta, float* c, int64_t ldc,
                         const ColumnEpilogue* ep) {
  if (m <= 0 || col1 <= col0) return;
  if (k <= 0 || alpha == 0.0f) {
    scale_c(m, col1 - col0, beta, c + col0, ldc);
    if (ep != nullptr) apply_column_epilogue(*ep, m, col0, col1, c, ldc);
    return;
  }
  const int64_t kc_max = std::min(kKc, k);
  const int64_t mc_max = std::min(kMc, (m + kMr - 1) / kMr * kMr);
  const PackBuffer pa_buf(static_cast<size_t>(kc_max * mc_max));
  float* pa = pa_buf.get();
  const int64_t n_pad = padded_columns(n);
  for (int64_t pc = 0; pc < k; pc += kKc) {
    const int64_t kc = std::min(kKc, k - pc);
    block_product(ta, m, kc, col1 - col0, alpha, ta ? a + pc * lda : a + pc, lda, packed + pc * n_pad + col0 * kc,
                  pc == 0 ? beta : 1.0f, c + col0, ldc, pa, pc + kc >= k ? ep : nullptr, col0);
  }
}

#else  // no AVX-512 code on this target

bool cpu_has_avx512() { return false; }
void sgemm_avx512(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float,
                  float*, int64_t) {}
int64_t packed_b_size(int64_t, int64_t) { return 0; }
int64_t packed_b_column_step() { return 1; }
int64_t sgemm_tile_rows() { return 1; }
int64_t packed_b_depth_blocks(int64_t) { return 0; }
void pack_b_full(bool, const float*, int64_t, int64_t, int64_t, int64_t, int64_t, float*) {}
void sgemm_avx512_packed(bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, int64_t,
                         float, float*, int64_t, const ColumnEpilogue*) {}

#endif

}  // namespace blas
}  // namespace opforge
