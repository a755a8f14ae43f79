// GEMM inside the runtime's thread budget (see blas.h).
#include "src/blas.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "opforge/parallel.h"
#include "sgemm_avx512.h"

namespace opforge {
namespace blas {
namespace {

// Below this many multiply-adds a GEMM runs on the calling thread: waking a worker costs more
// than it saves (a 3136x16 * 16x72 pointwise conv, 3.6M, still splits; 64x64x64 does not).
constexpr int64_t kMinParallelMacs = int64_t{1} << 21;
// Smallest block of rows (or columns) one thread takes.
constexpr int64_t kMinBlock = 16;

std::atomic<bool> use_avx512{[] {
  const char* env = std::getenv("OPFORGE_CPU_GEMM");
  return cpu_has_avx512() && !(env && std::strcmp(env, "openblas") == 0);
}()};

template <typename T>
void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  const auto tra = ta ? CblasTrans : CblasNoTrans;
  const auto trb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    if (use_avx512.load(std::memory_order_relaxed)) {
      sgemm_avx512(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
    scipy_cblas_sgemm(CblasRowMajor, tra, trb, static_cast<blasint>(m), static_cast<blasint>(n),
                      static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta,
                      c, static_cast<blasint>(ldc));
  } else {
    scipy_cblas_dgemm(CblasRowMajor, tra, trb, static_cast<blasint>(m), static_cast<blasint>(n),
                      static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta,
                      c, static_cast<blasint>(ldc));
  }
}

// Calls fn(s0, s1) over [0, len) cut into at most `per_thread` blocks per thread, each at least
// min_len long (so a small product stays whole) and starting on a multiple of align. Blocks are
// taken dynamically: with more than one per thread, a thread that another process keeps off
// its core holds the product up by one smaller block, not by half of it.
template <typename F>
void for_blocks(int64_t len, int64_t min_len, int64_t align, int per_thread, F fn) {
  const int64_t parts =
      std::clamp<int64_t>(len / std::max<int64_t>(1, min_len), 1, int64_t{num_threads()} * per_thread);
  const int64_t step = ((len + parts - 1) / parts + align - 1) / align * align;
  parallel_for_parts((len + step - 1) / step, 1, per_thread,
                     [&](int64_t b0, int64_t b1) { fn(b0 * step, std::min(len, b1 * step)); });
}

// Blocks per thread of a split GEMM. Each block of an unpacked product packs the operand it
// shares again, so there one (a thread kept off its core by another process is handled by the
// pool: regions then run inline, see parallel.cc); blocks of a product with a prepared B pack
// only their own part of A, so there four, taken dynamically.
constexpr int kBlocksPerThread = 1;
constexpr int kPackedBlocksPerThread = 4;

template <typename T>
void split_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  use_single_thread();
  const int64_t macs = m * n * std::max<int64_t>(k, 1);
  if (macs < kMinParallelMacs || num_threads() == 1) {
    call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // kBlocksPerThread blocks per thread (each block packs the other operand again, so more
  // blocks cost more), at least kMinParallelMacs / 2 of work each, cut on a multiple of
  // kMinBlock so that the micro-kernel's vector blocks stay whole. Rows of C are cut when it
  // has more rows than columns (each block packs all of op(B)), columns otherwise (each packs
  // all of op(A)).
  const bool by_rows = m >= n;
  const int64_t other = by_rows ? n : m;
  const int64_t min_len = std::max(kMinBlock, kMinParallelMacs / 2 / std::max<int64_t>(1, other * k));
  for_blocks(by_rows ? m : n, min_len, kMinBlock, kBlocksPerThread, [&](int64_t s0, int64_t s1) {
    if (by_rows) {
      const T* ab = ta ? a + s0 : a + s0 * lda;
      call(ta, tb, s1 - s0, n, k, alpha, ab, lda, b, ldb, beta, c + s0 * ldc, ldc);
    } else {
      const T* bb = tb ? b + s0 * ldb : b + s0;
      call(ta, tb, m, s1 - s0, k, alpha, a, lda, bb, ldb, beta, c + s0, ldc);
    }
  });
}

}  // namespace

void apply_column_epilogue(const ColumnEpilogue& ep, int64_t m, int64_t col0, int64_t col1, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    for (int64_t j = col0; j < col1; ++j) {
      row[j] = column_activate(row[j] * (ep.scale ? ep.scale[j] : 1.0f) + ep.shift[j], ep.act);
    }
  }
}

void PackedMatrix::Free::operator()(float* p) const { std::free(p); }

PackedMatrix::PackedMatrix(bool trans_b, const float* b, int64_t ldb, int64_t k, int64_t n)
    : b_(b), tb_(trans_b), ldb_(ldb), k_(k), n_(n) {
  if (!use_avx512.load(std::memory_order_relaxed) || k <= 0 || n <= 0) return;
  const size_t bytes = (static_cast<size_t>(packed_b_size(k, n)) * sizeof(float) + 63) / 64 * 64;
  packed_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (!packed_) throw std::bad_alloc();
  float* dst = packed_.get();
  const int64_t blocks = packed_b_depth_blocks(k);
  // Each depth block is kKc x n: worth a thread from ~64 KiB of B.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(1, n * 256));
  parallel_for(blocks, grain, [&](int64_t b0, int64_t b1) { pack_b_full(trans_b, b, ldb, k, n, b0, b1, dst); });
}

void gemm(bool ta, int64_t m, float alpha, const float* a, int64_t lda, const PackedMatrix& b, float beta, float* c,
          int64_t ldc, const ColumnEpilogue* ep) {
  const int64_t n = b.n_, k = b.k_;
  if (!b.packed_) {  // OpenBLAS: the product, then the epilogue as a second pass
    gemm(ta, b.tb_, m, n, k, alpha, a, lda, b.b_, b.ldb_, beta, c, ldc);
    if (ep != nullptr && m > 0 && n > 0) {
      parallel_for(m, std::max<int64_t>(1, 32768 / n),
                   [&](int64_t r0, int64_t r1) { apply_column_epilogue(*ep, r1 - r0, 0, n, c + r0 * ldc, ldc); });
    }
    return;
  }
  if (m <= 0 || n <= 0) return;
  const float* packed = b.packed_.get();
  const int64_t macs = m * n * std::max<int64_t>(k, 1);
  if (macs < kMinParallelMacs || num_threads() == 1) {
    sgemm_avx512_packed(ta, m, n, k, alpha, a, lda, packed, 0, n, beta, c, ldc, ep);
    return;
  }
  // B is shared, so cutting rows costs nothing extra (each thread packs only its rows of A);
  // columns are cut (on panel boundaries) only when there are too few rows to share.
  const int64_t tile = sgemm_tile_rows();
  if (m >= 4 * tile * num_threads() || m >= n) {
    const int64_t min_rows = kMinParallelMacs / 2 / std::max<int64_t>(1, n * k);
    for_blocks(m, min_rows, tile, kPackedBlocksPerThread, [&](int64_t r0, int64_t r1) {
      sgemm_avx512_packed(ta, r1 - r0, n, k, alpha, ta ? a + r0 : a + r0 * lda, lda, packed, 0, n, beta, c + r0 * ldc,
                          ldc, ep);
    });
  } else {
    const int64_t panel = packed_b_column_step();
    for_blocks(n, panel, panel, kBlocksPerThread, [&](int64_t c0, int64_t c1) {
      sgemm_avx512_packed(ta, m, n, k, alpha, a, lda, packed, c0, c1, beta, c, ldc, ep);
    });
  }
}

const char* sgemm_kernel() { return use_avx512.load() ? "avx512" : "openblas"; }

bool sgemm_avx512_active() { return use_avx512.load(std::memory_order_relaxed); }

bool set_sgemm_kernel(const char* name) {
  if (std::strcmp(name, "openblas") == 0) {
    use_avx512.store(false);
    return true;
  }
  if (std::strcmp(name, "avx512") == 0 && cpu_has_avx512()) {
    use_avx512.store(true);
    return true;
  }
  return false;
}

void use_single_thread() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace blas
}  // namespace opforge
