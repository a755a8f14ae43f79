// _FusedMatMul: MatMul + BiasAdd (+ activation), as Grappler's remapper writes it. One GEMM
// (OpenBLAS, threaded as for MatMul), then the epilogue (fused_epilogue.h) over blocks of rows
// split over the threads, in place in the output: no intermediate tensor. float16/bfloat16
// multiply in float32 and round once, after the epilogue.
#include <limits>
#include <vector>

#include "cpu/nn/fused_epilogue.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/nn/_fused_mat_mul.h"

namespace opforge {
namespace {

template <typename T>
Status FusedMatMulCpu(ops::_FusedMatMulArgs& a) {
  using C = nn::acc_t<T>;
  const bool ta = a.transpose_a, tb = a.transpose_b;
  const int64_t m = a.a.dim(ta ? 1 : 0), k = a.a.dim(ta ? 0 : 1), n = a.b.dim(tb ? 0 : 1);
  nn::Epilogue<C> post;
  OPF_RETURN_IF_ERROR(
      nn::Epilogue<C>::template make<T>("_FusedMatMul", a.fused_ops, a.args, n, a.epsilon, a.leakyrelu_alpha, &post));
  if (m == 0 || n == 0) return Status::OK();
  constexpr int64_t kMax = std::numeric_limits<blasint>::max();
  if (m > kMax || n > kMax || k > kMax) return a.ctx.error("matrix dimensions exceed the BLAS limit of ", kMax);
  T* out = a.product.data<T>();
  std::vector<C> wide_a, wide_b, wide_out;
  const C* pa;
  const C* pb;
  C* pc;
  if constexpr (std::is_same_v<T, C>) {
    pa = a.a.data<T>();
    pb = a.b.data<T>();
    pc = out;
  } else {
    wide_a.resize(static_cast<size_t>(a.a.num_elements()));
    wide_b.resize(static_cast<size_t>(a.b.num_elements()));
    wide_out.resize(static_cast<size_t>(m * n));
    for (size_t i = 0; i < wide_a.size(); ++i) wide_a[i] = static_cast<C>(a.a.data<T>()[i]);
    for (size_t i = 0; i < wide_b.size(); ++i) wide_b[i] = static_cast<C>(a.b.data<T>()[i]);
    pa = wide_a.data();
    pb = wide_b.data();
    pc = wide_out.data();
  }
  if (k == 0) {
    std::fill(pc, pc + m * n, C(0));
  } else {
    nn::gemm<C>(ta, tb, m, n, k, pa, ta ? m : k, pb, tb ? k : n, C(0), pc, n);
  }
  parallel_for(m, std::max<int64_t>(1, cpu::kGrain / n), [&](int64_t r0, int64_t r1) {
    post(pc + r0 * n, r1 - r0);
    if constexpr (!std::is_same_v<T, C>) {
      for (int64_t i = r0 * n; i < r1 * n; ++i) out[i] = static_cast<T>(pc[i]);
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(_FusedMatMul, CPU, FusedMatMulCpu, bfloat16, half, float, double)

}  // namespace opforge
