// complex64 / complex128 on CPU: the complex element ops (Complex, Real, Imag, Conj, Angle,
// ComplexAbs) and the complex kernels of the arithmetic, reductions and products TensorFlow
// registers for complex on CPU (AddV2, Sub, Mul, RealDiv, Neg, Square, Exp, Log, Sqrt,
// Reciprocal, Sum, Mean, Prod, MatMul, BatchMatMulV2). One file, so the complex instantiations
// compile once; the real dtypes' kernels of the same ops live in their own files.
#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/math/reduce_util.h"
#include "opforge/complex.h"
#include "opforge/ops/math/add_v2.h"
#include "opforge/ops/math/angle.h"
#include "opforge/ops/math/batch_mat_mul_v2.h"
#include "opforge/ops/math/complex.h"
#include "opforge/ops/math/complex_abs.h"
#include "opforge/ops/math/conj.h"
#include "opforge/ops/math/exp.h"
#include "opforge/ops/math/imag.h"
#include "opforge/ops/math/log.h"
#include "opforge/ops/math/mat_mul.h"
#include "opforge/ops/math/mean.h"
#include "opforge/ops/math/mul.h"
#include "opforge/ops/math/neg.h"
#include "opforge/ops/math/prod.h"
#include "opforge/ops/math/real.h"
#include "opforge/ops/math/real_div.h"
#include "opforge/ops/math/reciprocal.h"
#include "opforge/ops/math/sqrt.h"
#include "opforge/ops/math/square.h"
#include "opforge/ops/math/sub.h"
#include "opforge/ops/math/sum.h"

namespace opforge {
namespace {

// ---- the complex element ops

// The real and complex dtypes must pair up (float with complex64, double with complex128), as
// TensorFlow's kernels are registered.
template <typename R, typename Args>
Status check_pair(Args& a, DType real, DType cplx, const char* real_name, const char* cplx_name) {
  if (real != DTypeOf<R>::value || cplx != DTypeOf<std::complex<R>>::value) {
    return a.ctx.error(real_name, " ", dtype_name(real), " does not pair with ", cplx_name, " ", dtype_name(cplx),
                       " (float32 goes with complex64, float64 with complex128)");
  }
  return Status::OK();
}

template <typename R>
Status ComplexCpu(ops::ComplexArgs& a) {
  OPF_RETURN_IF_ERROR(check_pair<R>(a, a.T, a.Tout, "T", "Tout"));
  cpu::map_binary<R, std::complex<R>>(a.real, a.imag, a.out, [](R re, R im) { return std::complex<R>(re, im); });
  return Status::OK();
}

// A complex -> real element map from `in` to `out` with the Tout check.
template <typename C, typename Args, typename F>
Status to_real(Args& a, const Tensor& in, Tensor& out, F f) {
  using R = typename C::value_type;
  OPF_RETURN_IF_ERROR(check_pair<R>(a, a.Tout, a.T, "Tout", "T"));
  cpu::map_unary<C, R>(in, out, f);
  return Status::OK();
}

template <typename C>
Status RealCpu(ops::RealArgs& a) {
  return to_real<C>(a, a.input, a.output, [](C v) { return v.real(); });
}
template <typename C>
Status ImagCpu(ops::ImagArgs& a) {
  return to_real<C>(a, a.input, a.output, [](C v) { return v.imag(); });
}
template <typename C>
Status AngleCpu(ops::AngleArgs& a) {
  return to_real<C>(a, a.input, a.output, [](C v) { return std::arg(v); });
}
template <typename C>
Status ComplexAbsCpu(ops::ComplexAbsArgs& a) {  // (TF names its arguments x and y)
  return to_real<C>(a, a.x, a.y, [](C v) { return std::abs(v); });
}
template <typename C>
Status ConjCpu(ops::ConjArgs& a) {
  cpu::map_unary<C, C>(a.input, a.output, [](C v) { return std::conj(v); });
  return Status::OK();
}

// ---- arithmetic

template <typename C>
Status AddV2Cpu(ops::AddV2Args& a) {
  cpu::map_binary<C, C>(a.x, a.y, a.z, [](C u, C v) { return u + v; });
  return Status::OK();
}
template <typename C>
Status SubCpu(ops::SubArgs& a) {
  cpu::map_binary<C, C>(a.x, a.y, a.z, [](C u, C v) { return u - v; });
  return Status::OK();
}
template <typename C>
Status MulCpu(ops::MulArgs& a) {
  cpu::map_binary<C, C>(a.x, a.y, a.z, [](C u, C v) { return u * v; });
  return Status::OK();
}
template <typename C>
Status RealDivCpu(ops::RealDivArgs& a) {
  cpu::map_binary<C, C>(a.x, a.y, a.z, [](C u, C v) { return u / v; });
  return Status::OK();
}
template <typename C>
Status NegCpu(ops::NegArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return -v; });
  return Status::OK();
}
template <typename C>
Status SquareCpu(ops::SquareArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return v * v; });
  return Status::OK();
}
template <typename C>
Status ExpCpu(ops::ExpArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return std::exp(v); });
  return Status::OK();
}
template <typename C>
Status LogCpu(ops::LogArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return std::log(v); });
  return Status::OK();
}
template <typename C>
Status SqrtCpu(ops::SqrtArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return std::sqrt(v); });
  return Status::OK();
}
template <typename C>
Status ReciprocalCpu(ops::ReciprocalArgs& a) {
  cpu::map_unary<C, C>(a.x, a.y, [](C v) { return C(1) / v; });
  return Status::OK();
}

// ---- reductions (accumulating in complex128)

template <typename C>
struct SumC {
  using Acc = complex128;
  static Acc init() { return Acc(0); }
  static Acc step(Acc a, C v) { return a + Acc(v); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static C finish(Acc a, int64_t) { return C(a); }
};
template <typename C>
struct MeanC : SumC<C> {
  static C finish(complex128 a, int64_t n) { return C(a / static_cast<double>(n)); }  // empty: NaN, as floats
};

template <typename C>
struct ProdC {
  using Acc = complex128;
  static Acc init() { return Acc(1); }
  static Acc step(Acc a, C v) { return a * Acc(v); }
  static Acc merge(Acc a, Acc b) { return a * b; }
  static C finish(Acc a, int64_t) { return C(a); }
};

template <typename C>
Status SumCpu(ops::SumArgs& a) {
  return cpu::reduction::reduce_kernel<C, SumC<C>>(a);
}
template <typename C>
Status MeanCpu(ops::MeanArgs& a) {
  return cpu::reduction::reduce_kernel<C, MeanC<C>>(a);
}
template <typename C>
Status ProdCpu(ops::ProdArgs& a) {
  return cpu::reduction::reduce_kernel<C, ProdC<C>>(a);
}

// ---- products: OpenBLAS cgemm / zgemm

// C = op(A) op(B), row-major; op: none, transpose or (conj) adjoint.
template <typename C>
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const C* A, const C* B, C* out) {
  const C one(1), zero(0);
  const auto lda = static_cast<blasint>(ta == CblasNoTrans ? k : m),
             ldb = static_cast<blasint>(tb == CblasNoTrans ? n : k);
  if constexpr (std::is_same_v<C, complex64>) {
    scipy_cblas_cgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k),
                      &one, A, lda, B, ldb, &zero, out, static_cast<blasint>(n));
  } else {
    scipy_cblas_zgemm(CblasRowMajor, ta, tb, static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k),
                      &one, A, lda, B, ldb, &zero, out, static_cast<blasint>(n));
  }
}

constexpr int64_t kBlasMax = 2147483647;

template <typename C>
Status MatMulCpu(ops::MatMulArgs& a) {
  const int64_t m = a.a.dim(a.transpose_a ? 1 : 0), k = a.a.dim(a.transpose_a ? 0 : 1);
  const int64_t n = a.b.dim(a.transpose_b ? 0 : 1);
  C* out = a.product.data<C>();
  if (m == 0 || n == 0) return Status::OK();
  if (k == 0) {
    std::fill(out, out + m * n, C(0));
    return Status::OK();
  }
  if (m > kBlasMax || n > kBlasMax || k > kBlasMax) return a.ctx.error("matrix dimensions exceed the BLAS limit");
  // MatMul transposes without conjugating (TensorFlow's transpose_a / transpose_b).
  gemm<C>(a.transpose_a ? CblasTrans : CblasNoTrans, a.transpose_b ? CblasTrans : CblasNoTrans, m, n, k, a.a.data<C>(),
          a.b.data<C>(), out);
  return Status::OK();
}

// BatchMatMulV2: adj_x / adj_y are adjoints (conjugate transposes); batch dims broadcast.
template <typename C>
Status BatchMatMulV2Cpu(ops::BatchMatMulV2Args& a) {
  const Shape& xs = a.x.shape();
  const Shape& ys = a.y.shape();
  const Shape& os = a.output.shape();
  const int xr = xs.rank(), yr = ys.rank(), orank = os.rank();
  const int64_t m = os.dim(orank - 2), n = os.dim(orank - 1);
  const int64_t k = a.adj_x ? xs.dim(xr - 2) : xs.dim(xr - 1);
  const int64_t batches =
      orank > 2 ? Shape(std::vector<int64_t>(os.dims().begin(), os.dims().end() - 2)).num_elements() : 1;
  C* out = a.output.data<C>();
  if (batches == 0 || m == 0 || n == 0) return Status::OK();
  if (m > kBlasMax || n > kBlasMax || k > kBlasMax) return a.ctx.error("matrix dimensions exceed the BLAS limit");
  // The offset of batch b of an operand with batch dims `dims` right-aligned to the output's.
  auto offset = [&](const Shape& s, int rank, int64_t b) {
    int64_t off = 0, stride = s.dim(rank - 2) * s.dim(rank - 1);
    for (int d = orank - 3, e = rank - 3; d >= 0; --d, --e) {
      const int64_t od = os.dim(d);
      const int64_t idx = b % od;
      b /= od;
      if (e >= 0) {
        if (s.dim(e) != 1) off += idx * stride;
        stride *= s.dim(e);
      }
    }
    return off;
  };
  const C* x = a.x.data<C>();
  const C* y = a.y.data<C>();
  for (int64_t b = 0; b < batches; ++b) {
    C* o = out + b * m * n;
    if (k == 0) {
      std::fill(o, o + m * n, C(0));
      continue;
    }
    gemm<C>(a.adj_x ? CblasConjTrans : CblasNoTrans, a.adj_y ? CblasConjTrans : CblasNoTrans, m, n, k,
            x + offset(xs, xr, b), y + offset(ys, yr, b), o);
  }
  return Status::OK();
}

#define OPF_COMPLEX complex64, complex128

}  // namespace

OPFORGE_REGISTER_KERNEL(Complex, CPU, ComplexCpu, float, double)
OPFORGE_REGISTER_KERNEL(Real, CPU, RealCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Imag, CPU, ImagCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Angle, CPU, AngleCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(ComplexAbs, CPU, ComplexAbsCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Conj, CPU, ConjCpu, OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(AddV2, CPU, AddV2Cpu, inplace_args(0, 1), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Sub, CPU, SubCpu, inplace_args(0, 1), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Mul, CPU, MulCpu, inplace_args(0, 1), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(RealDiv, CPU, RealDivCpu, inplace_args(0, 1), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Neg, CPU, NegCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Square, CPU, SquareCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Exp, CPU, ExpCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Log, CPU, LogCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Sqrt, CPU, SqrtCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_INPLACE_KERNEL(Reciprocal, CPU, ReciprocalCpu, inplace_args(0), OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Sum, CPU, SumCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Mean, CPU, MeanCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(Prod, CPU, ProdCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(MatMul, CPU, MatMulCpu, OPF_COMPLEX)
OPFORGE_REGISTER_KERNEL(BatchMatMulV2, CPU, BatchMatMulV2Cpu, OPF_COMPLEX)

}  // namespace opforge
