// MatMul. float32/float64 call OpenBLAS (scipy-openblas32: 32-bit BLAS ints, scipy_ prefix);
// float16/bfloat16 widen to float32, multiply with sgemm and round back; integers use a
// cache-friendly i-k-j loop split over rows, wrapping on overflow like NumPy.
#include <cblas.h>

#include "src/blas.h"

#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/math/mat_mul.h"

namespace opforge {
namespace {

struct Dims {
  int64_t m, k, n;
};

Dims dims_of(const ops::MatMulArgs& a) {
  return {a.a.dim(a.transpose_a ? 1 : 0), a.a.dim(a.transpose_a ? 0 : 1), a.b.dim(a.transpose_b ? 0 : 1)};
}

template <typename T>
void gemm(bool ta, bool tb, const Dims& d, const T* A, const T* B, T* C) {
  const blasint lda = static_cast<blasint>(ta ? d.m : d.k), ldb = static_cast<blasint>(tb ? d.k : d.n);
  blas::gemm(ta, tb, d.m, d.n, d.k, T(1), A, lda, B, ldb, T(0), C, d.n);
}

template <typename T>
void int_matmul(bool ta, bool tb, const Dims& d, const T* A, const T* B, T* C) {
  using U = std::make_unsigned_t<T>;
  parallel_for(d.m, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, d.k * d.n)), [&](int64_t r0, int64_t r1) {
    std::vector<U> row(static_cast<size_t>(d.n));
    for (int64_t i = r0; i < r1; ++i) {
      std::fill(row.begin(), row.end(), U(0));
      for (int64_t p = 0; p < d.k; ++p) {
        U av = static_cast<U>(ta ? A[p * d.m + i] : A[i * d.k + p]);
        for (int64_t j = 0; j < d.n; ++j) {
          U bv = static_cast<U>(tb ? B[j * d.k + p] : B[p * d.n + j]);
          row[j] = static_cast<U>(row[j] + av * bv);
        }
      }
      for (int64_t j = 0; j < d.n; ++j) C[i * d.n + j] = static_cast<T>(row[j]);
    }
  });
}

template <typename T>
Status MatMulCpu(ops::MatMulArgs& a) {
  Dims d = dims_of(a);
  T* out = a.product.data<T>();
  if (d.m == 0 || d.n == 0) return Status::OK();
  if (d.k == 0) {
    std::fill(out, out + d.m * d.n, T(0));
    return Status::OK();
  }
  if constexpr (std::is_integral_v<T>) {
    int_matmul<T>(a.transpose_a, a.transpose_b, d, a.a.data<T>(), a.b.data<T>(), out);
    return Status::OK();
  } else {
    constexpr int64_t kMax = std::numeric_limits<blasint>::max();
    if (d.m > kMax || d.n > kMax || d.k > kMax) {
      return a.ctx.error("matrix dimensions exceed the BLAS limit of ", kMax);
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      gemm<T>(a.transpose_a, a.transpose_b, d, a.a.data<T>(), a.b.data<T>(), out);
    } else {
      std::vector<float> A(static_cast<size_t>(a.a.num_elements())), B(static_cast<size_t>(a.b.num_elements())),
          C(static_cast<size_t>(d.m * d.n));
      for (size_t i = 0; i < A.size(); ++i) A[i] = a.a.data<T>()[i];
      for (size_t i = 0; i < B.size(); ++i) B[i] = a.b.data<T>()[i];
      gemm<float>(a.transpose_a, a.transpose_b, d, A.data(), B.data(), C.data());
      for (size_t i = 0; i < C.size(); ++i) out[i] = T(C[i]);
    }
    return Status::OK();
  }
}

}  // namespace

OPFORGE_REGISTER_KERNEL(MatMul, CPU, MatMulCpu, bfloat16, half, float, double, int32_t, int64_t)

}  // namespace opforge
