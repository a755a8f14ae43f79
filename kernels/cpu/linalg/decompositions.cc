// The decompositions: Qr (LAPACK geqrf + orgqr), SelfAdjointEigV2 (syevd on the lower
// triangle) and Svd (gesdd), each called as NumPy calls it, so the signs of the vectors are
// NumPy's.
#include <algorithm>
#include <vector>

#include "cpu/linalg/lapack.h"
#include "opforge/ops/linalg/qr.h"
#include "opforge/ops/linalg/self_adjoint_eig_v2.h"
#include "opforge/ops/linalg/svd.h"

namespace opforge {
namespace {

using lapack::lint;
using linalg::batch_count;
using linalg::for_each_matrix;
using linalg::lapack_t;

// dst (row-major rows x cols) = the identity's leading rows x cols block.
template <typename T>
void store_identity(int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = T(i == j ? 1 : 0);
  }
}

// ---- Qr

template <typename T>
Status QrCpu(ops::QrArgs& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1), p = std::min(m, n);
  const int64_t qcols = a.full_matrices ? m : p, rrows = a.full_matrices ? m : p;
  const int64_t batches = batch_count(s);
  const T* in = a.input.template data<T>();
  T* Q = a.q.template data<T>();
  T* R = a.r.template data<T>();
  const int64_t failed =
      for_each_matrix(batches, m * n * std::max<int64_t>(1, p), [&](int64_t b0, int64_t b1, auto fail) {
        std::vector<C> x(static_cast<size_t>(m * n)), q(static_cast<size_t>(m * qcols)), tau(static_cast<size_t>(p));
        lint lwork = 1;
        if (p > 0) {  // one workspace for both calls
          C qr_size = 0, q_size = 0;
          lapack::geqrf(static_cast<lint>(m), static_cast<lint>(n), x.data(), tau.data(), &qr_size, -1);
          lapack::orgqr(static_cast<lint>(m), static_cast<lint>(qcols), static_cast<lint>(p), q.data(), tau.data(),
                        &q_size, -1);
          lwork = std::max(lapack::query_size(qr_size), lapack::query_size(q_size));
        }
        std::vector<C> work(static_cast<size_t>(lwork));
        for (int64_t b = b0; b < b1; ++b) {
          T* qb = Q + b * m * qcols;
          T* rb = R + b * rrows * n;
          if (p == 0) {  // an empty matrix: Q is the identity, R empty or zero
            store_identity(m, qcols, qb);
            std::fill(rb, rb + rrows * n, T(0));
            continue;
          }
          linalg::load_col_major(in + b * m * n, m, n, false, x.data());
          if (lapack::geqrf(static_cast<lint>(m), static_cast<lint>(n), x.data(), tau.data(), work.data(), lwork) !=
              0) {
            fail(b);
            return;
          }
          for (int64_t i = 0; i < rrows; ++i) {  // R: the upper triangle (rows past P are zero)
            for (int64_t j = 0; j < n; ++j) rb[i * n + j] = j >= i ? static_cast<T>(x[j * m + i]) : T(0);
          }
          // The reflectors are the first P columns of x; orgqr expands them into Q's columns.
          std::copy(x.begin(), x.begin() + m * std::min(n, qcols), q.begin());
          if (lapack::orgqr(static_cast<lint>(m), static_cast<lint>(qcols), static_cast<lint>(p), q.data(), tau.data(),
                            work.data(), lwork) != 0) {
            fail(b);
            return;
          }
          linalg::store_row_major(q.data(), m, m, qcols, qb);
        }
      });
  if (failed >= 0) return a.ctx.error("QR decomposition was not successful. The input might not be valid.");
  return Status::OK();
}

// ---- SelfAdjointEigV2

template <typename T>
Status SelfAdjointEigV2Cpu(ops::SelfAdjointEigV2Args& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  if (n == 0 || batches == 0) return Status::OK();
  const bool want_v = a.compute_v;
  const char jobz = want_v ? 'V' : 'N';
  const T* in = a.input.template data<T>();
  T* E = a.e.template data<T>();
  T* V = want_v ? a.v.template data<T>() : nullptr;
  const lint ln = static_cast<lint>(n);
  const int64_t failed = for_each_matrix(batches, n * n * n, [&](int64_t b0, int64_t b1, auto fail) {
    std::vector<C> x(static_cast<size_t>(n * n)), w(static_cast<size_t>(n));
    C work_size = 0;
    lint iwork_size = 0;
    lapack::syevd(jobz, 'L', ln, x.data(), w.data(), &work_size, -1, &iwork_size, -1);
    std::vector<C> work(static_cast<size_t>(lapack::query_size(work_size)));
    std::vector<lint> iwork(static_cast<size_t>(std::max<lint>(1, iwork_size)));
    for (int64_t b = b0; b < b1; ++b) {
      linalg::load_col_major(in + b * n * n, n, n, false, x.data());
      if (lapack::syevd(jobz, 'L', ln, x.data(), w.data(), work.data(), static_cast<lint>(work.size()), iwork.data(),
                        static_cast<lint>(iwork.size())) != 0) {
        fail(b);
        return;
      }
      for (int64_t i = 0; i < n; ++i) E[b * n + i] = static_cast<T>(w[static_cast<size_t>(i)]);
      if (want_v) linalg::store_row_major(x.data(), n, n, n, V + b * n * n);  // eigenvectors in columns
    }
  });
  if (failed >= 0) {
    return a.ctx.error("Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  }
  return Status::OK();
}

// ---- Svd

template <typename T>
Status SvdCpu(ops::SvdArgs& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1), p = std::min(m, n);
  const bool uv = a.compute_uv, full = a.full_matrices;
  const int64_t ucols = uv ? (full ? m : p) : 0, vcols = uv ? (full ? n : p) : 0;
  const char jobz = !uv ? 'N' : (full ? 'A' : 'S');
  const int64_t batches = batch_count(s);
  const T* in = a.input.template data<T>();
  T* S = a.s.template data<T>();
  T* U = uv ? a.u.template data<T>() : nullptr;
  T* V = uv ? a.v.template data<T>() : nullptr;
  const lint lm = static_cast<lint>(m), ln = static_cast<lint>(n);
  // LAPACK wants leading dimensions >= 1 even where it does not touch u or vt.
  const lint ldu = std::max<lint>(1, lm), ldvt = std::max<lint>(1, static_cast<lint>(vcols));
  const int64_t failed =
      for_each_matrix(batches, m * n * std::max<int64_t>(1, p), [&](int64_t b0, int64_t b1, auto fail) {
        std::vector<C> x(static_cast<size_t>(m * n)), sv(static_cast<size_t>(p));
        std::vector<C> u(static_cast<size_t>(std::max<int64_t>(1, m * ucols)));
        std::vector<C> vt(static_cast<size_t>(std::max<int64_t>(1, vcols * n)));
        std::vector<lint> iwork(static_cast<size_t>(std::max<int64_t>(1, 8 * p)));
        lint lwork = 1;
        if (p > 0) {
          C query = 0;
          lapack::gesdd(jobz, lm, ln, x.data(), sv.data(), u.data(), ldu, vt.data(), ldvt, &query, -1, iwork.data());
          lwork = lapack::query_size(query);
        }
        std::vector<C> work(static_cast<size_t>(lwork));
        for (int64_t b = b0; b < b1; ++b) {
          if (p == 0) {  // an empty matrix: no singular values, identity singular vectors
            if (uv) {
              store_identity(m, ucols, U + b * m * ucols);
              store_identity(n, vcols, V + b * n * vcols);
            }
            continue;
          }
          linalg::load_col_major(in + b * m * n, m, n, false, x.data());
          if (lapack::gesdd(jobz, lm, ln, x.data(), sv.data(), u.data(), ldu, vt.data(), ldvt, work.data(), lwork,
                            iwork.data()) != 0) {
            fail(b);
            return;
          }
          for (int64_t i = 0; i < p; ++i) S[b * p + i] = static_cast<T>(sv[static_cast<size_t>(i)]);
          if (!uv) continue;
          linalg::store_row_major(u.data(), m, m, ucols, U + b * m * ucols);
          // v = vt^T: column-major vt (vcols x n) read row-major is already v (n x vcols).
          T* vb = V + b * n * vcols;
          for (int64_t i = 0; i < n * vcols; ++i) vb[i] = static_cast<T>(vt[static_cast<size_t>(i)]);
        }
      });
  if (failed >= 0) return a.ctx.error("SVD did not converge. The input might not be valid.");
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Qr, CPU, QrCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(SelfAdjointEigV2, CPU, SelfAdjointEigV2Cpu, half, float, double)
OPFORGE_REGISTER_KERNEL(Svd, CPU, SvdCpu, half, float, double)

}  // namespace opforge
