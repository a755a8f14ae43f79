// ListDiff (tf.setdiff1d), LowerBound/UpperBound (tf.searchsorted) and UnravelIndex: index
// computations over small inputs. Shapes and index ranges are checked before any output exists.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/array/list_diff.h"
#include "opforge/ops/array/lower_bound.h"
#include "opforge/ops/array/unravel_index.h"
#include "opforge/ops/array/upper_bound.h"

namespace opforge {
namespace {

// Writes positions as an int32 or int64 vector.
Status write_positions(DType dt, const std::vector<int64_t>& v, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(dt, Shape({static_cast<int64_t>(v.size())}), out));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dt == DType::kInt32)
      out->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    else
      out->data<int64_t>()[i] = v[i];
  }
  return Status::OK();
}

template <typename T>
Status ListDiffCpu(ops::ListDiffArgs& a) {
  if (a.x.rank() != 1) return a.ctx.error("x must be a vector, got shape ", a.x.shape().to_string());
  if (a.y.rank() != 1) return a.ctx.error("y must be a vector, got shape ", a.y.shape().to_string());
  std::vector<int64_t> keep;
  if constexpr (std::is_same_v<T, StringTag>) {
    const std::vector<std::string>& xs = *a.x.strings();
    const std::unordered_set<std::string> ys(a.y.strings()->begin(), a.y.strings()->end());
    for (size_t i = 0; i < xs.size(); ++i)
      if (!ys.count(xs[i])) keep.push_back(static_cast<int64_t>(i));
    std::vector<std::string> out;
    for (int64_t i : keep) out.push_back(xs[static_cast<size_t>(i)]);
    const Shape shape({static_cast<int64_t>(out.size())});  // before `out` is moved from
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(shape, std::move(out), &a.out));
  } else {
    using C = cpu::compute_t<T>;  // 16-bit floats compare by value, as NumPy's isin does
    const T* x = a.x.data<T>();
    const T* y = a.y.data<T>();
    std::vector<C> ys(y, y + a.y.num_elements());
    std::sort(ys.begin(), ys.end());
    for (int64_t i = 0; i < a.x.num_elements(); ++i)
      if (!std::binary_search(ys.begin(), ys.end(), static_cast<C>(x[i]))) keep.push_back(i);
    OPF_RETURN_IF_ERROR(Tensor::Allocate(a.x.dtype(), Shape({static_cast<int64_t>(keep.size())}), &a.out));
    for (size_t i = 0; i < keep.size(); ++i) a.out.data<T>()[i] = x[keep[i]];
  }
  return write_positions(a.out_idx, keep, &a.idx);
}

// Per row of `sorted` ([B, N]) the insertion point of each value of the same row of `values`.
template <typename T, bool kUpper>
Status bound(KernelContext& ctx, const Tensor& sorted, const Tensor& values, Tensor& output) {
  if (sorted.rank() != 2 || values.rank() != 2) {
    return ctx.error("sorted_inputs and values must be matrices, got shapes ", sorted.shape().to_string(), " and ",
                     values.shape().to_string());
  }
  if (sorted.dim(0) != values.dim(0)) {
    return ctx.error("the leading dims of sorted_inputs and values must match, got ", sorted.dim(0), " and ",
                     values.dim(0));
  }
  using C = cpu::compute_t<T>;
  const int64_t n = sorted.dim(1), m = values.dim(1);
  std::vector<C> row(static_cast<size_t>(n));
  for (int64_t b = 0; b < sorted.dim(0); ++b) {
    const T* s = sorted.data<T>() + b * n;
    for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] = static_cast<C>(s[j]);
    for (int64_t j = 0; j < m; ++j) {
      const C v = static_cast<C>(values.data<T>()[b * m + j]);
      const auto it =
          kUpper ? std::upper_bound(row.begin(), row.end(), v) : std::lower_bound(row.begin(), row.end(), v);
      const int64_t pos = it - row.begin();
      if (output.dtype() == DType::kInt32)
        output.data<int32_t>()[b * m + j] = static_cast<int32_t>(pos);
      else
        output.data<int64_t>()[b * m + j] = pos;
    }
  }
  return Status::OK();
}

template <typename T>
Status LowerBoundCpu(ops::LowerBoundArgs& a) {
  return bound<T, false>(a.ctx, a.sorted_inputs, a.values, a.output);
}

template <typename T>
Status UpperBoundCpu(ops::UpperBoundArgs& a) {
  return bound<T, true>(a.ctx, a.sorted_inputs, a.values, a.output);
}

template <typename T>
Status UnravelIndexCpu(ops::UnravelIndexArgs& a) {
  const T* dims = a.dims.data<T>();
  const int64_t k = a.dims.num_elements();
  int64_t total = 1;
  for (int64_t d = 0; d < k; ++d) {
    if (dims[d] <= 0) return a.ctx.error("dims[", d, "] = ", static_cast<int64_t>(dims[d]), " must be positive");
    total *= static_cast<int64_t>(dims[d]);
  }
  const T* ix = a.indices.data<T>();
  const int64_t n = a.indices.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (ix[i] < 0 || static_cast<int64_t>(ix[i]) >= total) {
      return a.ctx.error("index ", static_cast<int64_t>(ix[i]), " (position ", i, ") is out of bounds for dims of ",
                         total, " elements");
    }
  }
  T* out = a.output.data<T>();
  for (int64_t i = 0; i < n; ++i) {  // output[d, i]: coordinate d of index i
    int64_t rest = static_cast<int64_t>(ix[i]);
    for (int64_t d = k - 1; d >= 0; --d) {
      out[d * n + i] = static_cast<T>(rest % static_cast<int64_t>(dims[d]));
      rest /= static_cast<int64_t>(dims[d]);
    }
  }
  return Status::OK();
}

#define OPF_REAL uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ListDiff, CPU, ListDiffCpu, OPF_REAL, StringTag)
OPFORGE_REGISTER_KERNEL(LowerBound, CPU, LowerBoundCpu, OPF_REAL)
OPFORGE_REGISTER_KERNEL(UpperBound, CPU, UpperBoundCpu, OPF_REAL)
OPFORGE_REGISTER_KERNEL(UnravelIndex, CPU, UnravelIndexCpu, int32_t, int64_t)

}  // namespace opforge
