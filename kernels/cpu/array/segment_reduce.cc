// UnsortedSegmentMax / Min / Prod: per segment id, the max / min / product of the rows of data
// with that id (UnsortedSegmentSum is in gather_scatter.cc). Ids are checked before anything is
// written; negative ids are dropped, as in TensorFlow; an empty segment holds the reduction's
// identity (the dtype's lowest value for max, its largest for min, 1 for the product).
#include <algorithm>
#include <limits>
#include <type_traits>

#include "cpu/array/array_util.h"
#include "opforge/ops/array/unsorted_segment_max.h"
#include "opforge/ops/array/unsorted_segment_min.h"
#include "opforge/ops/array/unsorted_segment_prod.h"

namespace opforge {
namespace {

enum class Reduce { kMax, kMin, kProd };

template <typename T>
T identity_of(Reduce r) {
  if (r == Reduce::kProd) return static_cast<T>(1);
  if constexpr (std::is_same_v<T, half>) {  // binary16's largest finite value
    return half(r == Reduce::kMax ? -65504.0f : 65504.0f);
  } else {
    return r == Reduce::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

template <typename T>
T reduce_pair(Reduce r, T a, T b) {
  using C = cpu::compute_t<T>;
  if (r == Reduce::kMax) return static_cast<C>(b) > static_cast<C>(a) ? b : a;
  if (r == Reduce::kMin) return static_cast<C>(b) < static_cast<C>(a) ? b : a;
  if constexpr (std::is_integral_v<T>) {  // wraps (NumPy's and TensorFlow's integer products), no UB
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(static_cast<C>(a) * static_cast<C>(b));
  }
}

template <typename T>
Status segment_reduce(KernelContext& ctx, const Tensor& data, const Tensor& segment_ids, Tensor& output, Reduce r) {
  const int64_t segments = output.dim(0);
  int64_t inner = 1;
  for (int d = segment_ids.rank(); d < data.rank(); ++d) inner *= data.dim(d);
  std::vector<int64_t> ids;
  OPF_RETURN_IF_ERROR(array::read_ints(segment_ids, &ids));
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] >= segments) {
      return ctx.error("segment_ids[", j, "] = ", ids[j], " is out of range [0, ", segments, ")");
    }
  }
  T* out = output.data<T>();
  std::fill(out, out + output.num_elements(), identity_of<T>(r));
  const T* src = data.data<T>();
  for (size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0) continue;
    T* d = out + ids[j] * inner;
    const T* s = src + static_cast<int64_t>(j) * inner;
    for (int64_t k = 0; k < inner; ++k) d[k] = reduce_pair<T>(r, d[k], s[k]);
  }
  return Status::OK();
}

template <typename T>
Status UnsortedSegmentMaxCpu(ops::UnsortedSegmentMaxArgs& a) {
  return segment_reduce<T>(a.ctx, a.data, a.segment_ids, a.output, Reduce::kMax);
}

template <typename T>
Status UnsortedSegmentMinCpu(ops::UnsortedSegmentMinArgs& a) {
  return segment_reduce<T>(a.ctx, a.data, a.segment_ids, a.output, Reduce::kMin);
}

template <typename T>
Status UnsortedSegmentProdCpu(ops::UnsortedSegmentProdArgs& a) {
  return segment_reduce<T>(a.ctx, a.data, a.segment_ids, a.output, Reduce::kProd);
}

#define OPF_SEGMENT int8_t, int16_t, int32_t, int64_t, uint8_t, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(UnsortedSegmentMax, CPU, UnsortedSegmentMaxCpu, OPF_SEGMENT)
OPFORGE_REGISTER_KERNEL(UnsortedSegmentMin, CPU, UnsortedSegmentMinCpu, OPF_SEGMENT)
OPFORGE_REGISTER_KERNEL(UnsortedSegmentProd, CPU, UnsortedSegmentProdCpu, OPF_SEGMENT)

}  // namespace opforge
