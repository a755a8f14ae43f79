// Row-gathered products: C = A * B where each row of A is gathered from pieces of memory rather
// than stored, for convolutions without a patch matrix (see sgemm_avx512.h).
//
// In NHWC, the taps of one row of a stride-1 (undilated) filter over one output pixel are
// kw * cin consecutive floats of the input, and the taps of the next output pixel start cin
// further on: a convolution is a GEMM whose A rows are kh such pieces, kh * kw * cin deep, read
// where they lie. im2col copies every piece into a patch matrix first (kh * kw times the
// input's size in writes and reads); this reads the input in place, and the micro-kernel keeps a
// block of C (6 x 64, or 12 x 32 for narrower panels) in registers down one piece at a time (or
// the part of it over the input, when a group of output columns reads horizontal padding), so
// C is loaded and stored once per piece. B (the filter, [kh * kw * cin, cout]) is packed once
// per call in panels as deep as the whole product.
#include <algorithm>
#include <cstring>

#include "sgemm_avx512.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define OPF_HAVE_AVX512_GEMM 1
#include "src/sgemm_avx512_parts.h"
#endif

namespace opforge {
namespace blas {

#ifdef OPF_HAVE_AVX512_GEMM
namespace {

using namespace avx512;  // NOLINT(build/namespaces): the shared blocking and stores

// Columns of the panel starting at column j0 of n: 64 (four vectors, with rows taken six at a
// time) while that many are left, then panel_width's 32 or 16 (rows twelve at a time).
constexpr int64_t kWide = 64;
constexpr int gather_panel_width(int64_t left) { return left >= kWide ? static_cast<int>(kWide) : panel_width(left); }

// C[R x cols] (+)= (rows r0 .. r0 + R of A, kc steps of depth from o on) * (a block of one B
// panel NV vectors wide, kc deep), then the epilogue (ep: given on the last depth block only).
// Row r of the block is rows[r] + o, kc floats; its row of C is crows[r] + j0 (the panel's
// first column). `first`: C starts at 0 (else it is loaded).
// NV = 4 with R = 6 broadcasts each A value to four FMAs (six broadcasts and four loads per 24
// FMAs, against twelve and two at NV = 2, R = 12).
template <int R, int NV>
__attribute__((target("avx512f"))) void gather_kernel(const float* const* rows, int64_t o, int64_t kc,
                                                      const float* __restrict bp, float* const* crows, int cols,
                                                      bool first, const ColumnEpilogue* ep, int64_t j0) {
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int left = cols - 16 * v;
    mask[v] = left >= 16 ? __mmask16(0xFFFF) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
  }
  float* c[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c[r] = crows[r] + j0;
  __m512 acc[R][NV];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[r][v] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask[v], c[r] + 16 * v);
  const float* a[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) a[r] = rows[r] + o;
  for (int64_t q = 0; q < kc; ++q) {
    __m512 b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = _mm512_load_ps(bp + 16 * v);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r][q]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(av, b[v], acc[r][v]);
    }
    bp += 16 * NV;
  }
  __m512 scale[NV], shift[NV];
  int act = 0;
  if (ep != nullptr) {
    load_epilogue<NV>(ep, j0, cols, scale, shift);
    act = ep->act;
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if (mask[v] == 0) continue;
      __m512 x = acc[r][v];
      if (ep != nullptr) x = activate(_mm512_fmadd_ps(x, scale[v], shift[v]), act);
      _mm512_mask_storeu_ps(c[r] + 16 * v, mask[v], x);
    }
  }
}

using GatherKernel = void (*)(const float* const*, int64_t, int64_t, const float*, float* const*, int, bool,
                              const ColumnEpilogue*, int64_t);
template <int NV>
constexpr GatherKernel kGatherKernels[kMr + 1] = {nullptr,
                                                  gather_kernel<1, NV>,
                                                  gather_kernel<2, NV>,
                                                  gather_kernel<3, NV>,
                                                  gather_kernel<4, NV>,
                                                  gather_kernel<5, NV>,
                                                  gather_kernel<6, NV>,
                                                  gather_kernel<7, NV>,
                                                  gather_kernel<8, NV>,
                                                  gather_kernel<9, NV>,
                                                  gather_kernel<10, NV>,
                                                  gather_kernel<11, NV>,
                                                  gather_kernel<12, NV>};
constexpr GatherKernel kWideKernels[7] = {nullptr,
                                          gather_kernel<1, 4>,
                                          gather_kernel<2, 4>,
                                          gather_kernel<3, 4>,
                                          gather_kernel<4, 4>,
                                          gather_kernel<5, 4>,
                                          gather_kernel<6, 4>};

// D[R x 16 NV] += A^T * B over the depth p in [0, P): rows co0 .. co0 + R of D are columns of A
// (row p of A at arows[p] + co0, broadcast one value per row and step) and its columns the
// values j0 .. of each B row (row p of B: the run at rows[p] + o, read in place with vector
// loads; `mask` cuts a last short vector). D's block stays in registers over all P steps.
template <int R, int NV>
__attribute__((target("avx512f"))) void gather_tn_kernel(int64_t P, const float* const* arows, int64_t co0,
                                                         const float* const* rows, int64_t o, __mmask16 last_mask,
                                                         float* d, int64_t ldd) {
  __m512 acc[R][NV];
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) mask[v] = v == NV - 1 ? last_mask : __mmask16(0xFFFF);
  const bool full = last_mask == 0xFFFF;  // (plain loads where no lane is cut: masked ones cost more)
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_maskz_loadu_ps(mask[v], d + r * ldd + 16 * v);
  for (int64_t p = 0; p < P; ++p) {
    const float* b = rows[p] + o;
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      bv[v] = v < NV - 1 || full ? _mm512_loadu_ps(b + 16 * v) : _mm512_maskz_loadu_ps(mask[v], b + 16 * v);
    const float* ap = arows[p] + co0;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_mask_storeu_ps(d + r * ldd + 16 * v, mask[v], acc[r][v]);
}

using GatherTnKernel = void (*)(int64_t, const float* const*, int64_t, const float* const*, int64_t, __mmask16, float*,
                                int64_t);
constexpr int kTnRows = 6;  // rows of D per panel (at most)
template <int NV>
constexpr GatherTnKernel kGatherTnKernels[kTnRows + 1] = {nullptr,
                                                          gather_tn_kernel<1, NV>,
                                                          gather_tn_kernel<2, NV>,
                                                          gather_tn_kernel<3, NV>,
                                                          gather_tn_kernel<4, NV>,
                                                          gather_tn_kernel<5, NV>,
                                                          gather_tn_kernel<6, NV>};

// D[R x 16 NV] += A^T * B over the depth p in [0, P) with the roles turned: rows k0 .. k0 + R of
// D are single gathered values (row k of A at step p: rows[p][o[k]], one per filter tap) and
// its columns a row of b ([P x ldb], vector loads; `last_mask` cuts a short last vector). For
// filter gradients with few taps (a first layer's 5x5 over one channel: 25 taps).
template <int R, int NV>
__attribute__((target("avx512f"))) void gather_taps_kernel(int64_t P, const float* const* rows, const int64_t* o,
                                                           const float* __restrict b, int64_t ldb, __mmask16 last_mask,
                                                           float* d, int64_t ldd) {
  __m512 acc[R][NV];
  __mmask16 mask[NV];
  int64_t off[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) off[r] = o[r];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) mask[v] = v == NV - 1 ? last_mask : __mmask16(0xFFFF);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_maskz_loadu_ps(mask[v], d + r * ldd + 16 * v);
  for (int64_t p = 0; p < P; ++p) {
    const float* x = rows[p];
    __m512 bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) bv[v] = _mm512_maskz_loadu_ps(mask[v], b + p * ldb + 16 * v);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(x[off[r]]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) _mm512_mask_storeu_ps(d + r * ldd + 16 * v, mask[v], acc[r][v]);
}

using GatherTapsKernel = void (*)(int64_t, const float* const*, const int64_t*, const float*, int64_t, __mmask16,
                                  float*, int64_t);
template <int NV>
constexpr GatherTapsKernel kGatherTapsKernels[kMr + 1] = {nullptr,
                                                          gather_taps_kernel<1, NV>,
                                                          gather_taps_kernel<2, NV>,
                                                          gather_taps_kernel<3, NV>,
                                                          gather_taps_kernel<4, NV>,
                                                          gather_taps_kernel<5, NV>,
                                                          gather_taps_kernel<6, NV>,
                                                          gather_taps_kernel<7, NV>,
                                                          gather_taps_kernel<8, NV>,
                                                          gather_taps_kernel<9, NV>,
                                                          gather_taps_kernel<10, NV>,
                                                          gather_taps_kernel<11, NV>,
                                                          gather_taps_kernel<12, NV>};

}  // namespace

int64_t gather_packed_b_size(int64_t k, int64_t n) { return k * padded_columns(n); }

void pack_b_gather(const float* b, int64_t ldb, int64_t k, int64_t n, float* dst) {
  const int64_t wide = n / kWide * kWide;  // panels of 64, row by row; the rest as pack_b packs it
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j0 = 0; j0 < wide; j0 += kWide)
      std::memcpy(dst + j0 * k + p * kWide, b + p * ldb + j0, sizeof(float) * kWide);
  if (wide < n) pack_b(false, b + wide, ldb, k, n - wide, dst + wide * k);
}

void sgemm_avx512_gather(int64_t m, int64_t n, const float* const* rows, const int64_t* off, int pieces, int64_t len,
                         int64_t lo, int64_t hi, const float* packed_b, float* const* crows, const ColumnEpilogue* ep,
                         const PieceRange* live) {
  const int64_t k = pieces * len;
  // The pieces each block of rows runs over: those live in any of its rows (every piece without
  // `live`), at least one, so a block whose pieces are all padding is still written (zeros).
  constexpr int64_t kMaxBlocks = 64;
  int first_piece[kMaxBlocks], end_piece[kMaxBlocks];
  const auto piece_span = [&](int64_t ir, int64_t r, int* t0, int* t1) {
    *t0 = 0;
    *t1 = pieces;
    if (live == nullptr) return;
    *t0 = pieces;
    *t1 = 0;
    for (int64_t i = ir; i < ir + r; ++i) {
      *t0 = std::min(*t0, live[i].first);
      *t1 = std::max(*t1, live[i].end);
    }
    if (*t0 >= *t1) *t0 = 0, *t1 = 1;
  };
  for (int64_t jr = 0; jr < n;) {
    const int w = gather_panel_width(n - jr);
    const int cols = static_cast<int>(std::min<int64_t>(w, n - jr));
    const bool wide = w == kWide;
    const int step = wide ? 6 : kMr;  // rows per kernel call
    const GatherKernel* kernels = wide ? kWideKernels : w == kNr ? kGatherKernels<2> : kGatherKernels<1>;
    const int64_t row_blocks = (m + step - 1) / step;
    const bool spans = live != nullptr && row_blocks <= kMaxBlocks;
    if (spans)
      for (int64_t b = 0; b < row_blocks; ++b)
        piece_span(b * step, std::min<int64_t>(step, m - b * step), &first_piece[b], &end_piece[b]);
    // Depth in blocks of at most 256 KiB of the B panel (in L2), each run's [lo, hi) cut into
    // even blocks: a whole run of a filter row at once as a rule. Every block stores C and
    // loads it back; blocks of 16 KiB (in L1) were 3-10% slower (LeNet's 5x5 32 -> 64 over
    // 14 x 14: 10.6 -> 10.2 ms, a 7x7 192 -> 192 over 17 x 17: 34 -> 30.5 ms).
    const int64_t max_kc = 65536 / w, blocks = (hi - lo + max_kc - 1) / max_kc,
                  kc_even = (hi - lo + blocks - 1) / blocks;
    for (int t = 0; t < pieces; ++t) {
      for (int64_t q0 = lo; q0 < hi; q0 += kc_even) {
        const int64_t kc = std::min(kc_even, hi - q0);
        const float* bp = packed_b + jr * k + (t * len + q0) * w;
        for (int64_t ir = 0, b = 0; ir < m; ir += step, ++b) {
          const int t0 = spans ? first_piece[b] : 0, t1 = spans ? end_piece[b] : pieces;
          if (t < t0 || t >= t1) continue;  // padding in every row of the block: adds nothing
          const bool first = t == t0 && q0 == lo, last = t == t1 - 1 && q0 + kc >= hi;
          const int r = static_cast<int>(std::min<int64_t>(step, m - ir));
          kernels[r](rows + ir, off[t] + q0, kc, bp, crows + ir, cols, first, last ? ep : nullptr, jr);
        }
      }
    }
    jr += w;
  }
}

void sgemm_avx512_gather_tn(int64_t P, int64_t n, const float* const* arows, const float* const* rows, int64_t o,
                            int64_t len, float* d, int64_t ldd) {
  // Rows of D in panels of at most six, as even as they go, each six rows by 64 values of the
  // run (four vectors): six broadcasts and four loads feed 24 FMAs a step, where twelve rows
  // by two vectors took twelve and two for 24 (LeNet's 5x5 32 -> 64 gradient 11.7 -> 11.1 ms).
  const int64_t panels = (n + kTnRows - 1) / kTnRows;
  constexpr int64_t kWidth = 64;
  for (int64_t i = 0, i0 = 0; i < panels; ++i) {
    const int64_t i1 = n * (i + 1) / panels;
    const int r = static_cast<int>(i1 - i0);
    for (int64_t j0 = 0; j0 < len; j0 += kWidth) {
      const int64_t cols = std::min<int64_t>(kWidth, len - j0);
      const int vectors = static_cast<int>((cols + 15) / 16), left = static_cast<int>(cols - 16 * (vectors - 1));
      const __mmask16 last = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      const GatherTnKernel* kernels = vectors == 4   ? kGatherTnKernels<4>
                                      : vectors == 3 ? kGatherTnKernels<3>
                                      : vectors == 2 ? kGatherTnKernels<2>
                                                     : kGatherTnKernels<1>;
      kernels[r](P, arows, i0, rows, o + j0, last, d + i0 * ldd + j0, ldd);
    }
    i0 = i1;
  }
}

void sgemm_avx512_gather_taps_tn(int64_t P, int64_t k, const float* const* rows, const int64_t* off, const float* b,
                                 int64_t n, float* d) {
  // Rows of D in panels of at most kMr, as even as they go (25 taps: 9, 8, 8 rather than 12, 12, 1).
  const int64_t panels = (k + kMr - 1) / kMr;
  for (int64_t i = 0, k0 = 0; i < panels; ++i) {
    const int64_t k1 = k * (i + 1) / panels;
    const int r = static_cast<int>(k1 - k0);
    for (int64_t j0 = 0; j0 < n; j0 += kNr) {
      const int64_t cols = std::min<int64_t>(kNr, n - j0);
      const int left = static_cast<int>(cols > 16 ? cols - 16 : cols);
      const __mmask16 last = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
      const GatherTapsKernel* kernels = cols > 16 ? kGatherTapsKernels<2> : kGatherTapsKernels<1>;
      kernels[r](P, rows, off + k0, b + j0, n, last, d + k0 * n + j0, n);
    }
    k0 = k1;
  }
}

#else  // no AVX-512 code on this target

int64_t gather_packed_b_size(int64_t, int64_t) { return 0; }
void pack_b_gather(const float*, int64_t, int64_t, int64_t, float*) {}
void sgemm_avx512_gather(int64_t, int64_t, const float* const*, const int64_t*, int, int64_t, int64_t, int64_t,
                         const float*, float* const*, const ColumnEpilogue*, const PieceRange*) {}
void sgemm_avx512_gather_tn(int64_t, int64_t, const float* const*, const float* const*, int64_t, int64_t, float*,
                            int64_t) {}
void sgemm_avx512_gather_taps_tn(int64_t, int64_t, const float* const*, const int64_t*, const float*, int64_t, float*) {
}

#endif

}  // namespace blas
}  // namespace opforge
