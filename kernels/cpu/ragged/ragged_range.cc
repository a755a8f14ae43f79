// RaggedRange: the ranges of several rows as one ragged tensor (values and row splits).
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "cpu/alloc_guard.h"
#include "opforge/ops/ragged/ragged_range.h"

namespace opforge {
namespace {

template <typename T>
int64_t range_size(T start, T limit, T delta) {
  if ((delta > 0 && limit < start) || (delta < 0 && limit > start)) return 0;
  if constexpr (std::is_integral_v<T>) {  // in unsigned arithmetic: no overflow at the int64 extremes
    const uint64_t lo = static_cast<uint64_t>(static_cast<int64_t>(std::min(start, limit)));
    const uint64_t hi = static_cast<uint64_t>(static_cast<int64_t>(std::max(start, limit)));
    const uint64_t span = hi - lo;
    const uint64_t step = delta < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(delta))
                                    : static_cast<uint64_t>(static_cast<int64_t>(delta));
    const uint64_t n = span / step + (span % step != 0);
    return n > (uint64_t{1} << 62) ? (int64_t{1} << 62) : static_cast<int64_t>(n);
  } else {
    const double n = std::ceil(std::abs((static_cast<double>(limit) - start) / delta));
    return std::isfinite(n) && n < 4.6e18 ? static_cast<int64_t>(n) : (int64_t{1} << 62);
  }
}

template <typename T, typename S>
Status RaggedRangeBody(ops::RaggedRangeArgs& a) {
  const Tensor* in[3] = {&a.starts, &a.limits, &a.deltas};
  const char* names[3] = {"starts", "limits", "deltas"};
  int64_t nrows = -1;
  for (int k = 0; k < 3; ++k) {
    if (in[k]->rank() > 1)
      return a.ctx.error(names[k], " must be a scalar or vector, got shape ", in[k]->shape().to_string());
    if (in[k]->rank() == 1) {
      if (nrows >= 0 && in[k]->dim(0) != nrows)
        return a.ctx.error("starts, limits, and deltas must have the same shape");
      nrows = in[k]->dim(0);
    }
  }
  if (nrows < 0) nrows = 1;
  const auto at = [&](int k, int64_t i) { return in[k]->template data<T>()[in[k]->rank() == 0 ? 0 : i]; };
  std::vector<S> splits(static_cast<size_t>(nrows + 1), 0);
  for (int64_t i = 0; i < nrows; ++i) {
    const T delta = at(2, i);
    if (delta == 0) return a.ctx.error("Requires delta != 0");
    const int64_t n = range_size<T>(at(0, i), at(1, i), delta);
    if (n > (int64_t{1} << 40)) return a.ctx.error("Requires ((limit - start) / delta) <= 2^40, got ", n);
    splits[static_cast<size_t>(i + 1)] = static_cast<S>(splits[static_cast<size_t>(i)] + n);
  }
  const int64_t total = static_cast<int64_t>(splits.back());
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<S>::value, Shape{nrows + 1}, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{total}, &a.ctx.output(1)));
  std::copy(splits.begin(), splits.end(), a.ctx.output(0).template data<S>());
  T* out = a.ctx.output(1).template data<T>();
  for (int64_t i = 0; i < nrows; ++i) {
    const T start = at(0, i), delta = at(2, i);
    const int64_t n = static_cast<int64_t>(splits[static_cast<size_t>(i + 1)] - splits[static_cast<size_t>(i)]);
    for (int64_t j = 0; j < n; ++j) *out++ = static_cast<T>(start + static_cast<T>(j) * delta);
  }
  return Status::OK();
}

template <typename T>
Status RaggedRangeCpu(ops::RaggedRangeArgs& a) {
  return cpu::guarded("RaggedRange", [&] {
    return a.Tsplits == DType::kInt32 ? RaggedRangeBody<T, int32_t>(a) : RaggedRangeBody<T, int64_t>(a);
  });
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(RaggedRange, CPU, RaggedRangeCpu, float, double, int32_t, int64_t)

}  // namespace opforge
