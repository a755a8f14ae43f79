// BatchMatMulV2: matrices in the last two dims, batch dims broadcast (NumPy rules).
// float32/float64 call OpenBLAS gemm per batch; many small batches are spread over the
// threads, while a few large ones run one after another with OpenBLAS's own threading.
// 16-bit floats widen to float32 per batch; integers use an i-k-j loop that wraps.
#include <cblas.h>

#include "src/blas.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/math/batch_mat_mul_v2.h"
#include "opforge/shape_fns.h"
#include "ops/math.h"

namespace opforge {
namespace {

using math_semantics::batch_of;

struct Dims {
  int64_t m, k, n;
  bool ta, tb;
};

template <typename T>
void gemm(const Dims& d, const T* A, const T* B, T* C) {
  const blasint lda = static_cast<blasint>(d.ta ? d.m : d.k), ldb = static_cast<blasint>(d.tb ? d.k : d.n);
  blas::gemm(d.ta, d.tb, d.m, d.n, d.k, T(1), A, lda, B, ldb, T(0), C, d.n);
}

template <typename T>
void int_matmul(const Dims& d, const T* A, const T* B, T* C) {
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  std::vector<U> row(static_cast<size_t>(d.n));
  for (int64_t i = 0; i < d.m; ++i) {
    std::fill(row.begin(), row.end(), U(0));
    for (int64_t p = 0; p < d.k; ++p) {
      const U av = static_cast<U>(d.ta ? A[p * d.m + i] : A[i * d.k + p]);
      for (int64_t j = 0; j < d.n; ++j) {
        const U bv = static_cast<U>(d.tb ? B[j * d.k + p] : B[p * d.n + j]);
        row[j] = static_cast<U>(row[j] + av * bv);
      }
    }
    for (int64_t j = 0; j < d.n; ++j) C[i * d.n + j] = static_cast<T>(row[j]);
  }
}

template <typename T>
void one_matmul(const Dims& d, const T* A, const T* B, T* C) {
  if (d.k == 0) {
    std::fill(C, C + d.m * d.n, T(0));
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    gemm<T>(d, A, B, C);
  } else if constexpr (std::is_integral_v<T>) {
    int_matmul<T>(d, A, B, C);
  } else {  // half, bfloat16: through float32
    std::vector<float> a(static_cast<size_t>(d.m * d.k)), b(static_cast<size_t>(d.k * d.n)),
        c(static_cast<size_t>(d.m * d.n));
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(A[i]);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(B[i]);
    gemm<float>(d, a.data(), b.data(), c.data());
    for (size_t i = 0; i < c.size(); ++i) C[i] = static_cast<T>(c[i]);
  }
}

// Offsets (in matrices) of x's and y's matrix for each output batch index.
void batch_offsets(const Shape& xb, const Shape& yb, const Shape& ob, std::vector<int64_t>* ox,
                   std::vector<int64_t>* oy) {
  const int r = ob.rank();
  const int64_t nb = ob.num_elements();
  auto strides = [&](const Shape& s) {
    std::vector<int64_t> st(static_cast<size_t>(r), 0);
    int64_t acc = 1;
    for (int i = s.rank() - 1; i >= 0; --i) {
      if (s.dim(i) != 1) st[static_cast<size_t>(i + r - s.rank())] = acc;
      acc *= s.dim(i);
    }
    return st;
  };
  const std::vector<int64_t> sx = strides(xb), sy = strides(yb);
  ox->assign(static_cast<size_t>(nb), 0);
  oy->assign(static_cast<size_t>(nb), 0);
  for (int64_t b = 0; b < nb; ++b) {
    int64_t rem = b, a = 0, c = 0;
    for (int i = r - 1; i >= 0; --i) {
      const int64_t k = rem % ob.dim(i);
      rem /= ob.dim(i);
      a += k * sx[static_cast<size_t>(i)];
      c += k * sy[static_cast<size_t>(i)];
    }
    (*ox)[static_cast<size_t>(b)] = a;
    (*oy)[static_cast<size_t>(b)] = c;
  }
}

template <typename T>
Status BatchMatMulV2Cpu(ops::BatchMatMulV2Args& a) {
  const Shape& xs = a.x.shape();
  const Shape& ys = a.y.shape();
  const Shape& os = a.output.shape();
  Dims d;
  d.ta = a.adj_x;
  d.tb = a.adj_y;
  d.m = os.dim(os.rank() - 2);
  d.n = os.dim(os.rank() - 1);
  d.k = xs.dim(xs.rank() - (d.ta ? 2 : 1));
  if (a.output.num_elements() == 0) return Status::OK();
  if constexpr (!std::is_integral_v<T>) {
    constexpr int64_t kMax = std::numeric_limits<blasint>::max();
    if (d.m > kMax || d.n > kMax || d.k > kMax) {
      return a.ctx.error("matrix dimensions exceed the BLAS limit of ", kMax);
    }
  }
  std::vector<int64_t> ox, oy;
  batch_offsets(batch_of(xs), batch_of(ys), batch_of(os), &ox, &oy);
  const int64_t nb = static_cast<int64_t>(ox.size());
  const int64_t sx = d.m * d.k, sy = d.k * d.n, so = d.m * d.n;
  const T* X = a.x.template data<T>();
  const T* Y = a.y.template data<T>();
  T* O = a.output.template data<T>();
  const int64_t work = std::max<int64_t>(1, d.m * d.n * std::max<int64_t>(1, d.k));
  // Below ~64^3 multiply-adds per matrix OpenBLAS stays on one thread: spread the batches.
  const bool spread = nb > 1 && (work <= 64 * 64 * 64 || std::is_integral_v<T>);
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      one_matmul<T>(d, X + ox[static_cast<size_t>(b)] * sx, Y + oy[static_cast<size_t>(b)] * sy, O + b * so);
    }
  };
  if (spread) {
    parallel_for(nb, std::max<int64_t>(1, cpu::kGrain / work), run);
  } else {
    run(0, nb);
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(BatchMatMulV2, CPU, BatchMatMulV2Cpu, bfloat16, half, float, double, uint8_t, int16_t, int32_t,
                        int64_t)

}  // namespace opforge
