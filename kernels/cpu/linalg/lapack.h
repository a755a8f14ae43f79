// LAPACK from the OpenBLAS the runtime links (the scipy-openblas32 wheel: 32-bit integers,
// every symbol prefixed scipy_), typed for float and double, plus the batch plumbing the
// linear-algebra kernels share.
//
// LAPACK is column-major and opforge row-major: each kernel copies a matrix into a
// column-major work buffer (LAPACK overwrites its input anyway), calls LAPACK exactly as NumPy
// does, and copies the results back. The copies are O(n^2) against the O(n^3) factorizations,
// and calling LAPACK as NumPy does gives NumPy's signs for the vectors of Qr, Svd and
// SelfAdjointEigV2. Batches of matrices spread over the runtime's threads; OpenBLAS itself
// runs single-threaded inside that budget (see src/blas.h).
#pragma once

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/parallel.h"
#include "opforge/tensor.h"
#include "src/blas.h"

#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#include <lapack.h>

namespace opforge {
namespace lapack {

using lint = lapack_int;

// The largest dimension LAPACK's 32-bit integers can address.
constexpr int64_t kMaxDim = std::numeric_limits<lint>::max();

// Hidden lengths of the character arguments (gfortran's calling convention).
constexpr size_t kOne = 1;

inline lint getrf(lint n, float* a, lint* ipiv) {
  lint info = 0;
  LAPACK_sgetrf(&n, &n, a, &n, ipiv, &info);
  return info;
}
inline lint getrf(lint n, double* a, lint* ipiv) {
  lint info = 0;
  LAPACK_dgetrf(&n, &n, a, &n, ipiv, &info);
  return info;
}

inline lint getri(lint n, float* a, const lint* ipiv, float* work, lint lwork) {
  lint info = 0;
  LAPACK_sgetri(&n, a, &n, ipiv, work, &lwork, &info);
  return info;
}
inline lint getri(lint n, double* a, const lint* ipiv, double* work, lint lwork) {
  lint info = 0;
  LAPACK_dgetri(&n, a, &n, ipiv, work, &lwork, &info);
  return info;
}

inline lint getrs(char trans, lint n, lint nrhs, const float* a, const lint* ipiv, float* b) {
  lint info = 0;
  LAPACK_sgetrs_base(&trans, &n, &nrhs, a, &n, ipiv, b, &n, &info, kOne);
  return info;
}
inline lint getrs(char trans, lint n, lint nrhs, const double* a, const lint* ipiv, double* b) {
  lint info = 0;
  LAPACK_dgetrs_base(&trans, &n, &nrhs, a, &n, ipiv, b, &n, &info, kOne);
  return info;
}

inline lint potrf(char uplo, lint n, float* a) {
  lint info = 0;
  LAPACK_spotrf_base(&uplo, &n, a, &n, &info, kOne);
  return info;
}
inline lint potrf(char uplo, lint n, double* a) {
  lint info = 0;
  LAPACK_dpotrf_base(&uplo, &n, a, &n, &info, kOne);
  return info;
}

inline lint geqrf(lint m, lint n, float* a, float* tau, float* work, lint lwork) {
  lint info = 0;
  LAPACK_sgeqrf(&m, &n, a, &m, tau, work, &lwork, &info);
  return info;
}
inline lint geqrf(lint m, lint n, double* a, double* tau, double* work, lint lwork) {
  lint info = 0;
  LAPACK_dgeqrf(&m, &n, a, &m, tau, work, &lwork, &info);
  return info;
}

// Q (m x n, leading dimension m) from the first k reflectors geqrf left in a.
inline lint orgqr(lint m, lint n, lint k, float* a, const float* tau, float* work, lint lwork) {
  lint info = 0;
  LAPACK_sorgqr(&m, &n, &k, a, &m, tau, work, &lwork, &info);
  return info;
}
inline lint orgqr(lint m, lint n, lint k, double* a, const double* tau, double* work, lint lwork) {
  lint info = 0;
  LAPACK_dorgqr(&m, &n, &k, a, &m, tau, work, &lwork, &info);
  return info;
}

inline lint syevd(char jobz, char uplo, lint n, float* a, float* w, float* work, lint lwork, lint* iwork, lint liwork) {
  lint info = 0;
  LAPACK_ssyevd_base(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, kOne, kOne);
  return info;
}
inline lint syevd(char jobz, char uplo, lint n, double* a, double* w, double* work, lint lwork, lint* iwork,
                  lint liwork) {
  lint info = 0;
  LAPACK_dsyevd_base(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, &info, kOne, kOne);
  return info;
}

inline lint gesdd(char jobz, lint m, lint n, float* a, float* s, float* u, lint ldu, float* vt, lint ldvt, float* work,
                  lint lwork, lint* iwork) {
  lint info = 0;
  const lint lda = std::max<lint>(1, m);
  LAPACK_sgesdd_base(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, kOne);
  return info;
}
inline lint gesdd(char jobz, lint m, lint n, double* a, double* s, double* u, lint ldu, double* vt, lint ldvt,
                  double* work, lint lwork, lint* iwork) {
  lint info = 0;
  const lint lda = std::max<lint>(1, m);
  LAPACK_dgesdd_base(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, kOne);
  return info;
}

// The real Schur form A = Z T Z^T (jobvs 'V', no ordering): T quasi upper triangular (1x1 and
// 2x2 diagonal blocks, the latter for complex-conjugate eigenvalue pairs), Z orthogonal.
inline lint gees(lint n, float* a, float* wr, float* wi, float* vs, float* work, lint lwork) {
  lint info = 0, sdim = 0;
  const char jobvs = 'V', sort = 'N';
  LAPACK_sgees_base(&jobvs, &sort, nullptr, &n, a, &n, &sdim, wr, wi, vs, &n, work, &lwork, nullptr, &info, kOne, kOne);
  return info;
}
inline lint gees(lint n, double* a, double* wr, double* wi, double* vs, double* work, lint lwork) {
  lint info = 0, sdim = 0;
  const char jobvs = 'V', sort = 'N';
  LAPACK_dgees_base(&jobvs, &sort, nullptr, &n, a, &n, &sdim, wr, wi, vs, &n, work, &lwork, nullptr, &info, kOne, kOne);
  return info;
}
// C := op(A) op(B) for column-major n x n matrices.
inline void gemm_square(bool ta, bool tb, lint n, const float* a, const float* b, float* c) {
  scipy_cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, n, n, n, 1.0f, a, n,
                    b, n, 0.0f, c, n);
}
inline void gemm_square(bool ta, bool tb, lint n, const double* a, const double* b, double* c) {
  scipy_cblas_dgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, n, n, n, 1.0, a, n,
                    b, n, 0.0, c, n);
}
// B := op(A)^-1 B for a triangular m x m A and an m x n B, row-major.
inline void trsm(bool lower, bool trans, lint m, lint n, const float* a, float* b) {
  scipy_cblas_strsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
                    CblasNonUnit, m, n, 1.0f, a, m, b, n);
}
inline void trsm(bool lower, bool trans, lint m, lint n, const double* a, double* b) {
  scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
                    CblasNonUnit, m, n, 1.0, a, m, b, n);
}

// The size of work a workspace query (lwork = -1) reported in work[0].
template <typename C>
lint query_size(C reported) {
  return std::max<lint>(1, static_cast<lint>(reported));
}

}  // namespace lapack

namespace linalg {

// The LAPACK precision of T: float for float32 and the 16-bit floats, double for float64.
template <typename T>
using lapack_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// dst (column-major, rows x cols) = the row-major rows x cols matrix at src, or (transposed)
// src read as a cols x rows matrix and transposed, i.e. src's bytes read column-major.
template <typename T, typename C>
void load_col_major(const T* src, int64_t rows, int64_t cols, bool transposed, C* dst) {
  if (transposed) {
    for (int64_t i = 0; i < rows * cols; ++i) dst[i] = static_cast<C>(src[i]);
    return;
  }
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) dst[j * rows + i] = static_cast<C>(src[i * cols + j]);
  }
}

// dst (row-major, rows x cols) = the column-major rows x cols matrix at src (leading
// dimension ld).
template <typename C, typename T>
void store_row_major(const C* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = static_cast<T>(src[j * ld + i]);
  }
}

// Calls fn(begin, end, fail) over ranges of the matrices [0, batches), spread over the threads
// (a matrix costs about `flops`). fn calls fail(b) for a matrix it cannot process (and may stop
// its range there). Returns the lowest failed index, -1 if none failed.
template <typename F>
int64_t for_each_matrix(int64_t batches, int64_t flops, F fn) {
  std::atomic<int64_t> first_failure{std::numeric_limits<int64_t>::max()};
  auto fail = [&](int64_t b) {
    int64_t cur = first_failure.load();
    while (b < cur && !first_failure.compare_exchange_weak(cur, b)) {
    }
  };
  // Before the first call: a LAPACK call on the calling thread must not start OpenBLAS's own pool
  // (a single large matrix then runs on one core; batches spread over the runtime's threads).
  blas::use_single_thread();
  const int64_t grain = std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, flops));
  parallel_for(batches, grain, [&](int64_t b0, int64_t b1) { fn(b0, b1, fail); });
  const int64_t f = first_failure.load();
  return f == std::numeric_limits<int64_t>::max() ? -1 : f;
}

// The number of matrices in a tensor of rank >= 2 (its leading dims' product).
inline int64_t batch_count(const Shape& s) {
  int64_t n = 1;
  for (int i = 0; i + 2 < s.rank(); ++i) n *= s.dim(i);
  return n;
}

// An error unless every dim of the matrices fits LAPACK's 32-bit integers.
template <typename Ctx>
Status check_lapack_dims(const Ctx& ctx, const Shape& s) {
  if (s.dim(s.rank() - 2) > lapack::kMaxDim || s.dim(s.rank() - 1) > lapack::kMaxDim) {
    return ctx.error("matrix dimensions exceed LAPACK's limit of ", lapack::kMaxDim, ", got shape ", s.to_string());
  }
  return Status::OK();
}

// The position of a batch index in a tensor of batch shape `batch` broadcast to `out`.
inline std::vector<int64_t> broadcast_offsets(const std::vector<int64_t>& batch, const std::vector<int64_t>& out) {
  const size_t r = out.size();
  std::vector<int64_t> strides(r, 0);
  int64_t acc = 1;
  for (size_t k = 0; k < batch.size(); ++k) {
    const size_t i = batch.size() - 1 - k;
    if (batch[i] != 1) strides[r - 1 - k] = acc;
    acc *= batch[i];
  }
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<int64_t> offsets(static_cast<size_t>(n), 0);
  for (int64_t b = 0; b < n; ++b) {
    int64_t rem = b, off = 0;
    for (size_t k = 0; k < r; ++k) {
      const size_t i = r - 1 - k;
      off += (rem % out[i]) * strides[i];
      rem /= out[i];
    }
    offsets[static_cast<size_t>(b)] = off;
  }
  return offsets;
}

}  // namespace linalg
}  // namespace opforge
