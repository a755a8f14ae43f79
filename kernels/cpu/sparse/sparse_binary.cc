// Binary SparseTensor kernels: SparseAdd (and its gradient SparseAddGrad), SparseSparseMaximum /
// SparseSparseMinimum (merges of two canonical SparseTensors), SparseTensorDenseAdd, and the
// SparseDenseCwise{Mul,Div,Add} family (a dense tensor broadcast onto the sparse values).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/sparse/sparse_util.h"
#include "opforge/ops/sparse/sparse_add.h"
#include "opforge/ops/sparse/sparse_add_grad.h"
#include "opforge/ops/sparse/sparse_dense_cwise_add.h"
#include "opforge/ops/sparse/sparse_dense_cwise_div.h"
#include "opforge/ops/sparse/sparse_dense_cwise_mul.h"
#include "opforge/ops/sparse/sparse_sparse_maximum.h"
#include "opforge/ops/sparse/sparse_sparse_minimum.h"
#include "opforge/ops/sparse/sparse_tensor_dense_add.h"

namespace opforge {
namespace {

using cpu::compute_t;

// Two canonical SparseTensors of one dense shape.
Status two_operands(const KernelContext& ctx, const Tensor& ai, const Tensor& av, const Tensor& as, const Tensor& bi,
                    const Tensor& bv, const Tensor& bs, sparse::View* a, sparse::View* b) {
  OPF_RETURN_IF_ERROR(sparse::view(ctx, ai, av, as, a, "a_"));
  OPF_RETURN_IF_ERROR(sparse::view(ctx, bi, bv, bs, b, "b_"));
  if (a->rank != b->rank) {
    return ctx.error("Operands do not have the same ranks; got shapes: ", Shape(a->shape).to_string(), " and ",
                     Shape(b->shape).to_string());
  }
  if (a->shape != b->shape) {
    return ctx.error("Operands' shapes do not match: got ", Shape(a->shape).to_string(), " and ",
                     Shape(b->shape).to_string());
  }
  OPF_RETURN_IF_ERROR(sparse::check_sorted(ctx, *a, "a_"));
  return sparse::check_sorted(ctx, *b, "b_");
}

// Walks the union of two canonical index lists: f(i, j) with i or j = -1 where one side has no
// value at that index; the index rows are appended to `rows`.
template <typename F>
void merge(const sparse::View& a, const sparse::View& b, std::vector<int64_t>* rows, F f) {
  int64_t i = 0, j = 0;
  while (i < a.n || j < b.n) {
    int c = i >= a.n ? 1 : j >= b.n ? -1 : sparse::compare(a, i, b, j);
    const sparse::View& from = c <= 0 ? a : b;
    const int64_t r = c <= 0 ? i : j;
    if (f(c <= 0 ? i : -1, c >= 0 ? j : -1))
      rows->insert(rows->end(), from.ix + r * from.rank, from.ix + (r + 1) * from.rank);
    if (c <= 0) ++i;
    if (c >= 0) ++j;
  }
}

template <typename T>
Status SparseAddCpu(ops::SparseAddArgs& a) {
  sparse::View x, y;
  OPF_RETURN_IF_ERROR(
      two_operands(a.ctx, a.a_indices, a.a_values, a.a_shape, a.b_indices, a.b_values, a.b_shape, &x, &y));
  if (a.thresh.num_elements() != 1)
    return a.ctx.error("The magnitude threshold must be a scalar: got shape ", a.thresh.shape().to_string());
  double thresh = 0;
  const bool numeric = visit_dtype(a.thresh.dtype(), [&](auto tag) {
    using R = decltype(tag);
    if constexpr (!std::is_same_v<R, bool>) {
      thresh = static_cast<double>(static_cast<compute_t<R>>(a.thresh.template data<R>()[0]));
    }
  });
  if (!numeric || a.thresh.dtype() == DType::kBool) return a.ctx.error("unsupported thresh dtype");
  const T* av = a.a_values.template data<T>();
  const T* bv = a.b_values.template data<T>();
  std::vector<int64_t> rows;
  std::vector<T> vals;
  merge(x, y, &rows, [&](int64_t i, int64_t j) {
    if (i >= 0 && j >= 0) {
      const compute_t<T> s = static_cast<compute_t<T>>(av[i]) + static_cast<compute_t<T>>(bv[j]);
      if (!(thresh <= std::abs(static_cast<double>(s)))) return false;
      vals.push_back(static_cast<T>(s));
    } else {
      vals.push_back(i >= 0 ? av[i] : bv[j]);
    }
    return true;
  });
  const int64_t n = static_cast<int64_t>(vals.size());
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, n, x.rank, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{n}, &a.ctx.output(1)));
  std::copy(vals.begin(), vals.end(), a.ctx.output(1).template data<T>());
  return sparse::int64_vector(x.shape, &a.ctx.output(2));
}

template <typename T>
Status SparseAddGradCpu(ops::SparseAddGradArgs& a) {
  auto rows_of = [&](const Tensor& t, const char* what, sparse::View* v) -> Status {
    if (t.rank() != 2) return a.ctx.error(what, " should be a matrix but received shape ", t.shape().to_string());
    v->ix = t.data<int64_t>();
    v->n = t.dim(0);
    v->rank = static_cast<int>(t.dim(1));
    return Status::OK();
  };
  sparse::View x, y, s;
  OPF_RETURN_IF_ERROR(rows_of(a.a_indices, "a_indices", &x));
  OPF_RETURN_IF_ERROR(rows_of(a.b_indices, "b_indices", &y));
  OPF_RETURN_IF_ERROR(rows_of(a.sum_indices, "sum_indices", &s));
  if (x.rank != s.rank || y.rank != s.rank) return a.ctx.error("the index ranks of a, b and the sum differ");
  if (a.backprop_val_grad.rank() != 1 || a.backprop_val_grad.dim(0) != s.n) {
    return a.ctx.error("backprop_val_grad shape ", a.backprop_val_grad.shape().to_string(), " does not match ", s.n,
                       " sum values");
  }
  Tensor& ga = a.ctx.output(0);
  Tensor& gb = a.ctx.output(1);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{x.n}, &ga));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{y.n}, &gb));
  T* pa = ga.template data<T>();
  T* pb = gb.template data<T>();
  std::fill(pa, pa + x.n, T(0));
  std::fill(pb, pb + y.n, T(0));
  const T* g = a.backprop_val_grad.template data<T>();
  // Each operand's rows and the sum's rows are canonical: one merge walk per operand.
  for (auto [v, out] : {std::pair<const sparse::View*, T*>{&x, pa}, {&y, pb}}) {
    int64_t k = 0;
    for (int64_t i = 0; i < v->n; ++i) {
      while (k < s.n && sparse::compare(s, k, *v, i) < 0) ++k;
      if (k < s.n && sparse::compare(s, k, *v, i) == 0) out[i] = g[k];
    }
  }
  return Status::OK();
}

template <typename T, bool kMax>
Status sparse_sparse_minmax(KernelContext& ctx, const Tensor& ai, const Tensor& av, const Tensor& as, const Tensor& bi,
                            const Tensor& bv, const Tensor& bs) {
  sparse::View x, y;
  OPF_RETURN_IF_ERROR(two_operands(ctx, ai, av, as, bi, bv, bs, &x, &y));
  const T* pa = av.data<T>();
  const T* pb = bv.data<T>();
  std::vector<int64_t> rows;
  std::vector<T> vals;
  merge(x, y, &rows, [&](int64_t i, int64_t j) {
    const compute_t<T> u = i >= 0 ? static_cast<compute_t<T>>(pa[i]) : compute_t<T>(0);
    const compute_t<T> v = j >= 0 ? static_cast<compute_t<T>>(pb[j]) : compute_t<T>(0);
    vals.push_back(static_cast<T>(kMax ? std::max(u, v) : std::min(u, v)));
    return true;
  });
  const int64_t n = static_cast<int64_t>(vals.size());
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, n, x.rank, &ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{n}, &ctx.output(1)));
  std::copy(vals.begin(), vals.end(), ctx.output(1).template data<T>());
  return Status::OK();
}

template <typename T>
Status SparseSparseMaximumCpu(ops::SparseSparseMaximumArgs& a) {
  return sparse_sparse_minmax<T, true>(a.ctx, a.a_indices, a.a_values, a.a_shape, a.b_indices, a.b_values, a.b_shape);
}

template <typename T>
Status SparseSparseMinimumCpu(ops::SparseSparseMinimumArgs& a) {
  return sparse_sparse_minmax<T, false>(a.ctx, a.a_indices, a.a_values, a.a_shape, a.b_indices, a.b_values, a.b_shape);
}

template <typename T>
Status SparseTensorDenseAddCpu(ops::SparseTensorDenseAddArgs& a) {
  if (a.a_indices.rank() != 2) {
    return a.ctx.error("Input a_indices should be a matrix but received shape: ", a.a_indices.shape().to_string());
  }
  if (a.a_values.rank() != 1 || a.a_values.dim(0) != a.a_indices.dim(0)) {
    return a.ctx.error("Inputs a_values and a_indices have incompatible shapes: ", a.a_values.shape().to_string(),
                       " vs. ", a.a_indices.shape().to_string());
  }
  const std::vector<int64_t> shape = sparse::ints(a.a_shape);
  if (a.a_shape.rank() != 1 || Shape(shape) != a.b.shape()) {
    return a.ctx.error("Dimension mismatch: a_shape ", Shape(shape).to_string(), " vs. b ", a.b.shape().to_string());
  }
  const int64_t rank = a.a_indices.dim(1), n = a.a_indices.dim(0);
  if (rank != static_cast<int64_t>(shape.size())) {
    return a.ctx.error("a_indices has rank ", rank, " but a_shape has ", shape.size(), " dimensions");
  }
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, a.b.shape(), &out));
  T* o = out.template data<T>();
  std::copy(a.b.template data<T>(), a.b.template data<T>() + a.b.num_elements(), o);
  const std::vector<int64_t> ix = sparse::ints(a.a_indices);
  const T* v = a.a_values.template data<T>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t x = ix[static_cast<size_t>(i * rank + d)];
      if (x < 0 || x >= shape[static_cast<size_t>(d)]) {
        return a.ctx.error("Index ", i, " of a_indices is out of bounds of the dense shape ", Shape(shape).to_string());
      }
      pos = pos * shape[static_cast<size_t>(d)] + x;
    }
    o[pos] = static_cast<T>(static_cast<compute_t<T>>(o[pos]) + static_cast<compute_t<T>>(v[i]));
  }
  return Status::OK();
}

// One output value per sparse value: f(value, dense element broadcast to its index).
template <typename T, typename F>
Status sparse_dense_cwise(KernelContext& ctx, const Tensor& spi, const Tensor& spv, const Tensor& sps,
                          const Tensor& dense, F f) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(ctx, spi, spv, sps, &v));
  const int dr = dense.rank();
  bool ok = dr <= v.rank;
  for (int d = 0; ok && d < dr; ++d) {
    const int64_t dd = dense.dim(d), sd = v.shape[static_cast<size_t>(v.rank - dr + d)];
    ok = dd == 1 || dd == sd;
  }
  if (!ok) {
    return ctx.error("SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: ",
                     Shape(v.shape).to_string(), " vs. ", dense.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(sparse::check_bounds(ctx, v));
  Tensor& out = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{v.n}, &out));
  const T* x = spv.data<T>();
  const T* y = dense.data<T>();
  T* o = out.template data<T>();
  for (int64_t i = 0; i < v.n; ++i) {
    int64_t pos = 0;
    for (int d = 0; d < dr; ++d) {
      const int64_t dd = dense.dim(d);
      pos = pos * dd + (dd == 1 ? 0 : v.at(i, v.rank - dr + d));
    }
    o[i] = static_cast<T>(f(static_cast<compute_t<T>>(x[i]), static_cast<compute_t<T>>(y[pos])));
  }
  return Status::OK();
}

template <typename T>
Status SparseDenseCwiseMulCpu(ops::SparseDenseCwiseMulArgs& a) {
  return sparse_dense_cwise<T>(a.ctx, a.sp_indices, a.sp_values, a.sp_shape, a.dense,
                               [](auto x, auto y) { return x * y; });
}

template <typename T>
Status SparseDenseCwiseAddCpu(ops::SparseDenseCwiseAddArgs& a) {
  return sparse_dense_cwise<T>(a.ctx, a.sp_indices, a.sp_values, a.sp_shape, a.dense,
                               [](auto x, auto y) { return x + y; });
}

template <typename T>
Status SparseDenseCwiseDivCpu(ops::SparseDenseCwiseDivArgs& a) {
  if constexpr (std::is_integral_v<T>) {
    for (int64_t k = 0; k < a.dense.num_elements(); ++k) {
      if (a.dense.template data<T>()[k] == 0) return a.ctx.error("Integer division by zero");
    }
  }
  return sparse_dense_cwise<T>(a.ctx, a.sp_indices, a.sp_values, a.sp_shape, a.dense, [](auto x, auto y) {
    using C = decltype(x);
    if constexpr (std::is_integral_v<C>) {
      if (y == -1) return static_cast<C>(-static_cast<std::make_unsigned_t<C>>(x));  // no INT_MIN / -1 trap
    }
    return static_cast<C>(x / y);
  });
}

}  // namespace

#define OPF_SPARSE_NUM bfloat16, half, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseAdd, CPU, SparseAddCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseAddGrad, CPU, SparseAddGradCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSparseMaximum, CPU, SparseSparseMaximumCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSparseMinimum, CPU, SparseSparseMinimumCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseTensorDenseAdd, CPU, SparseTensorDenseAddCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseDenseCwiseMul, CPU, SparseDenseCwiseMulCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseDenseCwiseAdd, CPU, SparseDenseCwiseAddCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseDenseCwiseDiv, CPU, SparseDenseCwiseDivCpu, OPF_SPARSE_NUM)
#undef OPF_SPARSE_NUM

}  // namespace opforge
