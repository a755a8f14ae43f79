// The triangular ops: Cholesky (LAPACK potrf on the lower triangle, as NumPy) and
// MatrixTriangularSolve (BLAS trsm, batch dims broadcast as in TensorFlow).
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu/linalg/lapack.h"
#include "ops/math.h"
#include "opforge/ops/linalg/cholesky.h"
#include "opforge/ops/linalg/matrix_triangular_solve.h"

namespace opforge {
namespace {

using linalg::batch_count;
using linalg::for_each_matrix;
using linalg::lapack_t;

// ---- Cholesky

template <typename T>
Status CholeskyCpu(ops::CholeskyArgs& a) {
  using C = lapack_t<T>;
  const Shape& s = a.input.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, s));
  const int64_t n = s.dim(s.rank() - 1), batches = batch_count(s);
  if (n == 0 || batches == 0) return Status::OK();
  const T* in = a.input.template data<T>();
  T* out = a.output.template data<T>();
  const int64_t failed = for_each_matrix(batches, n * n * n, [&](int64_t b0, int64_t b1, auto fail) {
    std::vector<C> m(static_cast<size_t>(n * n));
    for (int64_t b = b0; b < b1; ++b) {
      linalg::load_col_major(in + b * n * n, n, n, false, m.data());
      if (lapack::potrf('L', static_cast<lapack::lint>(n), m.data()) != 0) {
        fail(b);
        return;
      }
      T* o = out + b * n * n;
      for (int64_t i = 0; i < n; ++i) {  // L, with zeros above the diagonal (potrf leaves A there)
        for (int64_t j = 0; j < n; ++j) o[i * n + j] = j <= i ? static_cast<T>(m[j * n + i]) : T(0);
      }
    }
  });
  if (failed >= 0) return a.ctx.error("Cholesky decomposition was not successful. The input might not be valid.");
  return Status::OK();
}

// ---- MatrixTriangularSolve

template <typename T>
Status MatrixTriangularSolveCpu(ops::MatrixTriangularSolveArgs& a) {
  using C = lapack_t<T>;
  const Shape& ms = a.matrix.shape();
  const Shape& rs = a.rhs.shape();
  const Shape& os = a.output.shape();
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, ms));
  OPF_RETURN_IF_ERROR(linalg::check_lapack_dims(a.ctx, rs));
  const int64_t n = ms.dim(ms.rank() - 1), k = rs.dim(rs.rank() - 1);
  if (a.output.num_elements() == 0) return Status::OK();
  const std::vector<int64_t> out_batch = math_semantics::batch_of(os).dims();
  const std::vector<int64_t> ma = linalg::broadcast_offsets(math_semantics::batch_of(ms).dims(), out_batch);
  const std::vector<int64_t> rb = linalg::broadcast_offsets(math_semantics::batch_of(rs).dims(), out_batch);
  const T* A = a.matrix.template data<T>();
  const T* B = a.rhs.template data<T>();
  T* X = a.output.template data<T>();
  const auto ln = static_cast<lapack::lint>(n), lk = static_cast<lapack::lint>(k);
  for_each_matrix(static_cast<int64_t>(ma.size()), n * n * k, [&](int64_t b0, int64_t b1, auto) {
    std::vector<C> m, x;  // float copies of 16-bit matrices
    for (int64_t b = b0; b < b1; ++b) {
      const T* src_a = A + ma[static_cast<size_t>(b)] * n * n;
      const T* src_b = B + rb[static_cast<size_t>(b)] * n * k;
      T* dst = X + b * n * k;
      if constexpr (std::is_same_v<T, C>) {  // row-major in place in the output
        std::memcpy(dst, src_b, static_cast<size_t>(n * k) * sizeof(T));
        lapack::trsm(a.lower, a.adjoint, ln, lk, src_a, dst);
      } else {
        m.resize(static_cast<size_t>(n * n));
        x.resize(static_cast<size_t>(n * k));
        for (int64_t i = 0; i < n * n; ++i) m[static_cast<size_t>(i)] = static_cast<C>(src_a[i]);
        for (int64_t i = 0; i < n * k; ++i) x[static_cast<size_t>(i)] = static_cast<C>(src_b[i]);
        lapack::trsm(a.lower, a.adjoint, ln, lk, m.data(), x.data());
        for (int64_t i = 0; i < n * k; ++i) dst[i] = static_cast<T>(x[static_cast<size_t>(i)]);
      }
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Cholesky, CPU, CholeskyCpu, half, float, double)
OPFORGE_REGISTER_KERNEL(MatrixTriangularSolve, CPU, MatrixTriangularSolveCpu, bfloat16, half, float, double)

}  // namespace opforge
