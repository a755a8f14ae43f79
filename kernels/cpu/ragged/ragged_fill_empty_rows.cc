// RaggedFillEmptyRows (one default value in each empty row of a value_rowids-form ragged tensor)
// and its gradient RaggedFillEmptyRowsGrad.
#include <cstdint>
#include <vector>

#include "cpu/alloc_guard.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/ragged/ragged_fill_empty_rows.h"
#include "opforge/ops/ragged/ragged_fill_empty_rows_grad.h"

namespace opforge {
namespace {

template <typename T>
Status RaggedFillEmptyRowsBody(ops::RaggedFillEmptyRowsArgs& a) {
  if (a.value_rowids.rank() != 1 || a.values.rank() != 1) {
    return a.ctx.error("value_rowids and values must be vectors, got shapes ", a.value_rowids.shape().to_string(),
                       " and ", a.values.shape().to_string());
  }
  if (a.nrows.rank() != 0 || a.default_value.rank() != 0) {
    return a.ctx.error("nrows and default_value must be scalars, got shapes ", a.nrows.shape().to_string(), " and ",
                       a.default_value.shape().to_string());
  }
  const int64_t n = a.values.dim(0), nrows = a.nrows.data<int64_t>()[0];
  if (a.value_rowids.dim(0) != n) {
    return a.ctx.error("value_rowids and values must have the same length, got ", a.value_rowids.dim(0), " and ", n);
  }
  if (nrows < 0) return a.ctx.error("nrows must be non-negative, got ", nrows);
  const int64_t* ids = a.value_rowids.data<int64_t>();
  std::vector<int64_t> counts(static_cast<size_t>(nrows), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= nrows)
      return a.ctx.error("value_rowids[", i, "] = ", ids[i], " is not in [0, ", nrows, ")");
    if (i > 0 && ids[i] < ids[i - 1])
      return a.ctx.error("value_rowids must be sorted, got ", ids[i - 1], " before ", ids[i]);
    ++counts[static_cast<size_t>(ids[i])];
  }
  int64_t empty = 0;
  for (int64_t c : counts) empty += c == 0;
  const int64_t total = n + empty;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{total}, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{total}, &a.ctx.output(1)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, Shape{nrows}, &a.ctx.output(2)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{n}, &a.ctx.output(3)));
  int64_t* out_ids = a.ctx.output(0).data<int64_t>();
  T* out_vals = a.ctx.output(1).template data<T>();
  bool* is_empty = a.ctx.output(2).data<bool>();
  int64_t* reverse = a.ctx.output(3).data<int64_t>();
  const T* vals = a.values.template data<T>();
  const T dflt = a.default_value.template data<T>()[0];
  int64_t in = 0, out = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    is_empty[r] = counts[static_cast<size_t>(r)] == 0;
    if (is_empty[r]) {
      out_ids[out] = r;
      out_vals[out++] = dflt;
      continue;
    }
    for (int64_t k = 0; k < counts[static_cast<size_t>(r)]; ++k, ++in) {
      reverse[in] = out;
      out_ids[out] = r;
      out_vals[out++] = vals[in];
    }
  }
  return Status::OK();
}

template <typename T>
Status RaggedFillEmptyRowsCpu(ops::RaggedFillEmptyRowsArgs& a) {
  return cpu::guarded("RaggedFillEmptyRows", [&] { return RaggedFillEmptyRowsBody<T>(a); });
}

template <typename T>
Status RaggedFillEmptyRowsGradCpu(ops::RaggedFillEmptyRowsGradArgs& a) {
  if (a.reverse_index_map.rank() != 1 || a.grad_values.rank() != 1) {
    return a.ctx.error("reverse_index_map and grad_values must be vectors, got ",
                       a.reverse_index_map.shape().to_string(), " and ", a.grad_values.shape().to_string());
  }
  const int64_t n = a.reverse_index_map.dim(0), m = a.grad_values.dim(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{n}, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{}, &a.ctx.output(1)));
  const int64_t* map = a.reverse_index_map.data<int64_t>();
  const T* g = a.grad_values.template data<T>();
  T* dv = a.ctx.output(0).template data<T>();
  std::vector<bool> taken(static_cast<size_t>(m), false);
  for (int64_t i = 0; i < n; ++i) {
    if (map[i] < 0 || map[i] >= m) {
      return a.ctx.error("Invalid reverse_index_map[", i, "] = ", map[i], ": not in [0, ", m, ")");
    }
    dv[i] = g[map[i]];
    taken[static_cast<size_t>(map[i])] = true;
  }
  cpu::compute_t<T> rest = 0;
  for (int64_t k = 0; k < m; ++k) {
    if (!taken[static_cast<size_t>(k)]) rest += static_cast<cpu::compute_t<T>>(g[k]);
  }
  a.ctx.output(1).template data<T>()[0] = static_cast<T>(rest);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(RaggedFillEmptyRows, CPU, RaggedFillEmptyRowsCpu, bool, uint8_t, int8_t, int16_t,
                                   int32_t, int64_t, bfloat16, half, float, double)
OPFORGE_REGISTER_FORWARDING_KERNEL(RaggedFillEmptyRowsGrad, CPU, RaggedFillEmptyRowsGradCpu, bfloat16, half, float,
                                   double, int8_t, int16_t, int32_t, int64_t, uint8_t)

}  // namespace opforge
