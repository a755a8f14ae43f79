// MatrixSquareRoot: the principal square root of real square matrices, as TensorFlow's Eigen
// MatrixSquareRoot computes it: the real Schur form A = Z T Z^T (LAPACK gees), the square root R
// of the quasi upper-triangular T block by block (Higham's real Schur method), A^1/2 = Z R Z^T.
//  - a 1x1 diagonal block t: sqrt(t) (NaN for t < 0, as in TensorFlow: no real square root);
//  - a 2x2 diagonal block B with eigenvalues mu +- i nu: alpha I + (B - mu I) / (2 alpha), alpha
//    the real part of sqrt(mu + i nu) ((B - mu I)^2 = -nu^2 I for such a block);
//  - the block (i, j) above the diagonal from R_ii X + X R_jj = T_ij - sum_k R_ik R_kj, a
//    Sylvester equation of at most 4 unknowns, solved by Gaussian elimination.
#include <cmath>
#include <vector>

#include "cpu/linalg/lapack.h"
#include "opforge/ops/linalg/matrix_square_root.h"

namespace opforge {
namespace {

using lapack::lint;
using linalg::batch_count;
using linalg::for_each_matrix;

// x with A x = b for a k x k system (k <= 4, row-major A), partial pivoting; a zero pivot gives
// infinities / NaNs in x, as Eigen's solve does for a singular Sylvester equation.
template <typename C>
void solve_small(int k, C* a, C* b) {
  for (int c = 0; c < k; ++c) {
    int p = c;
    for (int r = c + 1; r < k; ++r) {
      if (std::abs(a[r * k + c]) > std::abs(a[p * k + c])) p = r;
    }
    if (p != c) {
      for (int j = 0; j < k; ++j) std::swap(a[c * k + j], a[p * k + j]);
      std::swap(b[c], b[p]);
    }
    for (int r = c + 1; r < k; ++r) {
      const C f = a[r * k + c] / a[c * k + c];
      for (int j = c; j < k; ++j) a[r * k + j] -= f * a[c * k + j];
      b[r] -= f * b[c];
    }
  }
  for (int c = k - 1; c >= 0; --c) {
    C s = b[c];
    for (int j = c + 1; j < k; ++j) s -= a[c * k + j] * b[j];
    b[c] = s / a[c * k + c];
  }
}

// R (column-major n x n, zero on entry) := the square root of the quasi upper-triangular T.
template <typename C>
void sqrt_quasi_triangular(int64_t n, const C* t, C* r) {
  auto T = [&](int64_t i, int64_t j) { return t[j * n + i]; };
  auto R = [&](int64_t i, int64_t j) -> C& { return r[j * n + i]; };
  std::vector<int64_t> start, size;  // the diagonal blocks
  for (int64_t i = 0; i < n;) {
    const int64_t s = (i + 1 < n && T(i + 1, i) != C(0)) ? 2 : 1;
    start.push_back(i);
    size.push_back(s);
    i += s;
  }
  const size_t blocks = start.size();
  for (size_t b = 0; b < blocks; ++b) {
    const int64_t i = start[b];
    if (size[b] == 1) {
      R(i, i) = std::sqrt(T(i, i));
      continue;
    }
    const C a = T(i, i), bb = T(i, i + 1), c = T(i + 1, i), d = T(i + 1, i + 1);
    const C mu = (a + d) / 2, half_diff = (a - d) / 2;
    const C nu = std::sqrt(std::max(C(0), -(half_diff * half_diff + bb * c)));
    const C alpha = std::sqrt((std::hypot(mu, nu) + mu) / 2);
    R(i, i) = alpha + (a - mu) / (2 * alpha);
    R(i, i + 1) = bb / (2 * alpha);
    R(i + 1, i) = c / (2 * alpha);
    R(i + 1, i + 1) = alpha + (d - mu) / (2 * alpha);
  }
  for (size_t bj = 1; bj < blocks; ++bj) {
    const int64_t j0 = start[bj], q = size[bj];
    for (size_t bi = bj; bi-- > 0;) {
      const int64_t i0 = start[bi], p = size[bi];
      const int k = static_cast<int>(p * q);
      C rhs[4], sys[16] = {};
      for (int64_t jj = 0; jj < q; ++jj) {  // rhs = T_ij - sum over the blocks between of R_ik R_kj
        for (int64_t ii = 0; ii < p; ++ii) {
          C s = T(i0 + ii, j0 + jj);
          for (int64_t m = start[bi] + p; m < j0; ++m) s -= R(i0 + ii, m) * R(m, j0 + jj);
          rhs[jj * p + ii] = s;
        }
      }
      // (I_q (x) R_ii + R_jj^T (x) I_p) vec(X), vec column-major: row (jj, ii), column (ll, kk).
      for (int64_t jj = 0; jj < q; ++jj) {
        for (int64_t ii = 0; ii < p; ++ii) {
          const int64_t row = jj * p + ii;
          for (int64_t kk = 0; kk < p; ++kk) sys[row * k + jj * p + kk] += R(i0 + ii, i0 + kk);
          for (int64_t ll = 0; ll < q; ++ll) sys[row * k + ll * p + ii] += R(j0 + ll, j0 + jj);
        }
      }
      solve_small(k, sys, rhs);
      for (int64_t jj = 0; jj < q; ++jj) {
        for (int64_t ii = 0; ii < p; ++ii) R(i0 + ii, j0 + jj) = rhs[jj * p + ii];
      }
    }
  }
}

template <typename T>
Status MatrixSquareRootCpu(ops::MatrixSquareRootArgs& a) {
  using C = T;  // float and double only (TensorFlow's CPU kernels)
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  if (n == 0 || batches == 0) return Status::OK();
  const T* in = a.input.template data<T>();
  T* out = a.output.template data<T>();
  const lint ln = static_cast<lint>(n);
  const size_t nn = static_cast<size_t>(n * n);
  const int64_t failed = for_each_matrix(batches, 25 * n * n * n, [&](int64_t b0, int64_t b1, auto fail) {
    std::vector<C> t(nn), z(nn), r(nn), zr(nn), wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
    C query = 0;
    lapack::gees(ln, t.data(), wr.data(), wi.data(), z.data(), &query, -1);
    std::vector<C> work(static_cast<size_t>(lapack::query_size(query)));
    for (int64_t b = b0; b < b1; ++b) {
      linalg::load_col_major(in + b * n * n, n, n, false, t.data());
      if (lapack::gees(ln, t.data(), wr.data(), wi.data(), z.data(), work.data(), static_cast<lint>(work.size())) !=
          0) {
        fail(b);
        return;
      }
      std::fill(r.begin(), r.end(), C(0));
      sqrt_quasi_triangular(n, t.data(), r.data());
      lapack::gemm_square(false, false, ln, z.data(), r.data(), zr.data());  // Z R
      lapack::gemm_square(false, true, ln, zr.data(), z.data(), t.data());   // (Z R) Z^T
      linalg::store_row_major(t.data(), n, n, n, out + b * n * n);
    }
  });
  if (failed >= 0) return a.ctx.error("the Schur decomposition (LAPACK gees) did not converge");
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(MatrixSquareRoot, CPU, MatrixSquareRootCpu, float, double)

}  // namespace opforge
