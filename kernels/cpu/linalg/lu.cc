// The ops built on an LU factorization with partial pivoting (LAPACK getrf): Lu itself, MatrixInverse
// (getri), MatrixDeterminant and LogMatrixDeterminant (the pivots), MatrixSolve (getrs).
// An exactly singular matrix (a zero pivot) is an error for the inverse and the solve, with
// TensorFlow's messages; the determinant of a singular matrix is 0 (log: -inf, sign 0).
#include <cmath>
#include <vector>

#include "cpu/linalg/lapack.h"
#include "opforge/ops/linalg/log_matrix_determinant.h"
#include "opforge/ops/linalg/lu.h"
#include "opforge/ops/linalg/matrix_determinant.h"
#include "opforge/ops/linalg/matrix_inverse.h"
#include "opforge/ops/linalg/matrix_solve.h"

namespace opforge {
namespace {

using linalg::batch_count;
using linalg::for_each_matrix;
using linalg::lapack_t;

// ---- MatrixInverse

template <typename T>
Status MatrixInverseCpu(ops::MatrixInverseArgs& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  if (n == 0 || batches == 0) return Status::OK();
  const T* in = a.input.template data<T>();
  T* out = a.output.template data<T>();
  const auto ln = static_cast<lapack::lint>(n);
  const int64_t failed = for_each_matrix(batches, n * n * n, [&](int64_t b0, int64_t b1, auto fail) {
    std::vector<C> m(static_cast<size_t>(n * n));
    std::vector<lapack::lint> ipiv(static_cast<size_t>(n));
    C query = 0;
    lapack::getri(ln, m.data(), ipiv.data(), &query, -1);
    std::vector<C> work(static_cast<size_t>(lapack::query_size(query)));
    for (int64_t b = b0; b < b1; ++b) {
      // inv(A^T) = inv(A)^T: with adjoint, A's bytes read column-major are A^T.
      linalg::load_col_major(in + b * n * n, n, n, a.adjoint, m.data());
      if (lapack::getrf(ln, m.data(), ipiv.data()) != 0) {
        fail(b);
        return;
      }
      lapack::getri(ln, m.data(), ipiv.data(), work.data(), static_cast<lapack::lint>(work.size()));
      linalg::store_row_major(m.data(), n, n, n, out + b * n * n);
    }
  });
  if (failed >= 0) return a.ctx.error("Input is not invertible.");
  return Status::OK();
}

// ---- MatrixDeterminant, LogMatrixDeterminant: sign and log|det| from the LU pivots

// sign(det) and log|det| of the n x n matrix at src; sign 0 and -inf when singular.
template <typename T, typename C>
void slogdet(const T* src, int64_t n, C* m, lapack::lint* ipiv, C* sign, C* log_abs) {
  *sign = C(1);
  *log_abs = C(0);
  if (n == 0) return;                          // the determinant of an empty matrix is 1
  linalg::load_col_major(src, n, n, true, m);  // det(A^T) = det(A): no transpose needed
  lapack::getrf(static_cast<lapack::lint>(n), m, ipiv);
  for (int64_t i = 0; i < n; ++i) {
    const C d = m[i * n + i];
    if (ipiv[i] != static_cast<lapack::lint>(i + 1)) *sign = -*sign;
    if (d < C(0)) *sign = -*sign;
    if (d == C(0) || std::isnan(d)) {
      *sign = std::isnan(d) ? d : C(0);
      *log_abs = std::isnan(d) ? d : -std::numeric_limits<C>::infinity();
      return;
    }
    *log_abs += std::log(std::abs(d));
  }
}

template <typename T, typename F>
void for_each_slogdet(const Tensor& input, F store) {
  using C = lapack_t<T>;
  const Shape& s = input.shape();
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  const T* in = input.template data<T>();
  for_each_matrix(batches, n * n * n, [&](int64_t b0, int64_t b1, auto) {
    std::vector<C> m(static_cast<size_t>(n * n));
    std::vector<lapack::lint> ipiv(static_cast<size_t>(n));
    for (int64_t b = b0; b < b1; ++b) {
      C sign, log_abs;
      slogdet(in + b * n * n, n, m.data(), ipiv.data(), &sign, &log_abs);
      store(b, sign, log_abs);
    }
  });
}

template <typename T>
Status MatrixDeterminantCpu(ops::MatrixDeterminantArgs& a) {
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, a.input.shape()));
  T* out = a.output.template data<T>();
  // As TensorFlow and NumPy: sign * exp(log|det|), which under- and overflows gracefully.
  for_each_slogdet<T>(a.input, [&](int64_t b, auto sign, auto log_abs) {
    out[b] = static_cast<T>(sign == 0 ? sign : sign * std::exp(log_abs));
  });
  return Status::OK();
}

template <typename T>
Status LogMatrixDeterminantCpu(ops::LogMatrixDeterminantArgs& a) {
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, a.input.shape()));
  T* sign_out = a.sign.template data<T>();
  T* log_out = a.log_abs_determinant.template data<T>();
  for_each_slogdet<T>(a.input, [&](int64_t b, auto sign, auto log_abs) {
    sign_out[b] = static_cast<T>(sign);
    log_out[b] = static_cast<T>(log_abs);
  });
  return Status::OK();
}

// ---- MatrixSolve: getrf, then getrs with A or A^T

template <typename T>
Status MatrixSolveCpu(ops::MatrixSolveArgs& a) {
  using C = lapack_t<T>;
  const Shape& ms = a.matrix.shape();
  const Shape& rs = a.rhs.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, ms));
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, rs));
  const int64_t n = ms.dim(ms.rank() - 1), k = rs.dim(rs.rank() - 1), batches = batch_count(ms);
  if (a.output.num_elements() == 0) return Status::OK();
  const T* A = a.matrix.template data<T>();
  const T* B = a.rhs.template data<T>();
  T* X = a.output.template data<T>();
  const int64_t failed = for_each_matrix(batches, n * n * (n + k), [&](int64_t b0, int64_t b1, auto fail) {
    std::vector<C> m(static_cast<size_t>(n * n)), x(static_cast<size_t>(n * k));
    std::vector<lapack::lint> ipiv(static_cast<size_t>(n));
    for (int64_t b = b0; b < b1; ++b) {
      linalg::load_col_major(A + b * n * n, n, n, false, m.data());
      if (lapack::getrf(static_cast<lapack::lint>(n), m.data(), ipiv.data()) != 0) {
        fail(b);
        return;
      }
      linalg::load_col_major(B + b * n * k, n, k, false, x.data());
      lapack::getrs(a.adjoint ? 'T' : 'N', static_cast<lapack::lint>(n), static_cast<lapack::lint>(k), m.data(),
                    ipiv.data(), x.data());
      linalg::store_row_major(x.data(), n, n, k, X + b * n * k);
    }
  });
  if (failed >= 0) return a.ctx.error("Input matrix is not invertible.");
  return Status::OK();
}

// ---- Lu: the packed factors and the row permutation (input[p] = L U)

template <typename T>
Status LuCpu(ops::LuArgs& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  if (n == 0 || batches == 0) return Status::OK();
  const T* in = a.input.template data<T>();
  T* out = a.lu.template data<T>();
  const bool p64 = a.output_idx_type == DType::kInt64;
  const auto ln = static_cast<lapack::lint>(n);
  for_each_matrix(batches, n * n * n, [&](int64_t b0, int64_t b1, auto) {
    std::vector<C> m(static_cast<size_t>(n * n));
    std::vector<lapack::lint> ipiv(static_cast<size_t>(n));
    std::vector<int64_t> perm(static_cast<size_t>(n));
    for (int64_t b = b0; b < b1; ++b) {
      linalg::load_col_major(in + b * n * n, n, n, false, m.data());
      lapack::getrf(ln, m.data(), ipiv.data());  // a zero pivot (info > 0) still factors
      linalg::store_row_major(m.data(), n, n, n, out + b * n * n);
      for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
      for (int64_t i = 0; i < n; ++i) {  // the row swaps in order give the permutation
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(ipiv[static_cast<size_t>(i)] - 1)]);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (p64) {
          a.p.template data<int64_t>()[b * n + i] = perm[static_cast<size_t>(i)];
        } else {
          a.p.template data<int32_t>()[b * n + i] = static_cast<int32_t>(perm[static_cast<size_t>(i)]);
        }
      }
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Lu, CPU, LuCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(MatrixInverse, CPU, MatrixInverseCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(MatrixDeterminant, CPU, MatrixDeterminantCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(LogMatrixDeterminant, CPU, LogMatrixDeterminantCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(MatrixSolve, CPU, MatrixSolveCpu, half, float, double)

}  // namespace opforge
