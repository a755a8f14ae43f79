// GEMM inside the runtime's thread budget (see blas.h).
#include "opforge/blas.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>

#include "opforge/parallel.h"

namespace opforge {
namespace blas {
namespace {

// Below this many multiply-adds a GEMM runs on the calling thread: waking a worker costs more
// than it saves (a 3136x16 * 16x72 pointwise conv, 3.6M, still splits; 64x64x64 does not).
constexpr int64_t kMinParallelMacs = int64_t{1} << 21;
// Smallest block of rows (or columns) one thread takes.
constexpr int64_t kMinBlock = 16;

template <typename T>
void call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const auto tra = ta ? CblasTrans : CblasNoTrans;
  const auto trb = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_sgemm(CblasRowMajor, tra, trb, static_cast<blasint>(m), static_cast<blasint>(n),
                      static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                      static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  } else {
    scipy_cblas_dgemm(CblasRowMajor, tra, trb, static_cast<blasint>(m), static_cast<blasint>(n),
                      static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                      static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  }
}

template <typename T>
void split_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
                const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  use_single_thread();
  const int64_t macs = m * n * std::max<int64_t>(k, 1);
  if (macs < kMinParallelMacs || num_threads() == 1) {
    call(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Each thread should get at least kMinParallelMacs / 2 of work.
  const int64_t per_part = std::max<int64_t>(1, kMinParallelMacs / 2);
  if (m >= n) {  // blocks of rows of C (and of op(A))
    const int64_t grain = std::max(kMinBlock, per_part / std::max<int64_t>(1, n * k));
    parallel_for(m, grain, [&](int64_t r0, int64_t r1) {
      const T* ab = ta ? a + r0 : a + r0 * lda;
      call(ta, tb, r1 - r0, n, k, alpha, ab, lda, b, ldb, beta, c + r0 * ldc, ldc);
    });
  } else {  // blocks of columns of C (and of op(B))
    const int64_t grain = std::max(kMinBlock, per_part / std::max<int64_t>(1, m * k));
    parallel_for(n, grain, [&](int64_t c0, int64_t c1) {
      const T* bb = tb ? b + c0 * ldb : b + c0;
      call(ta, tb, m, c1 - c0, k, alpha, a, lda, bb, ldb, beta, c + c0, ldc);
    });
  }
}

}  // namespace

void use_single_thread() {
  static std::once_flag once;
  std::call_once(once, [] { scipy_openblas_set_num_threads(1); });
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  split_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace blas
}  // namespace opforge
