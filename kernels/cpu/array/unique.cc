// Unique and UniqueWithCounts: the distinct elements of a vector in first-occurrence order, the
// index of each element's value, and (WithCounts) how often each value occurs. Forwarding
// kernels: the number of distinct values is known only after the pass. NaNs never compare equal,
// so each is its own value (TensorFlow's behaviour).
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/array/unique.h"
#include "opforge/ops/array/unique_with_counts.h"

namespace opforge {
namespace {

// The key a value is hashed by: its bits, so that +0.0 / -0.0 compare as C++ compares them.
template <typename T>
struct Key {
  using C = cpu::compute_t<T>;
  static C of(T v) { return static_cast<C>(v); }
};

template <typename K, typename Get>
void first_occurrence(int64_t n, Get get, std::vector<int64_t>* idx, std::vector<int64_t>* firsts) {
  std::unordered_map<K, int64_t> seen;
  seen.reserve(static_cast<size_t>(n));
  idx->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const K k = get(i);
    int64_t slot;
    if (k != k) {  // NaN: a value of its own
      slot = static_cast<int64_t>(firsts->size());
      firsts->push_back(i);
    } else {
      auto [it, added] = seen.emplace(k, static_cast<int64_t>(firsts->size()));
      if (added) firsts->push_back(i);
      slot = it->second;
    }
    (*idx)[static_cast<size_t>(i)] = slot;
  }
}

template <typename T>
Status unique(KernelContext& ctx, const Tensor& x, DType out_idx, bool with_counts) {
  if (x.rank() != 1) return ctx.error("x must be a vector, got shape ", x.shape().to_string());
  const int64_t n = x.num_elements();
  std::vector<int64_t> idx, firsts;
  if constexpr (std::is_same_v<T, StringTag>) {
    const std::vector<std::string>& s = *x.strings();
    first_occurrence<std::string>(n, [&](int64_t i) { return s[static_cast<size_t>(i)]; }, &idx, &firsts);
    std::vector<std::string> y;
    y.reserve(firsts.size());
    for (int64_t f : firsts) y.push_back(s[static_cast<size_t>(f)]);
    const auto m = static_cast<int64_t>(y.size());
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape({m}), std::move(y), &ctx.output(0)));
  } else {
    const T* p = x.data<T>();
    first_occurrence<typename Key<T>::C>(n, [&](int64_t i) { return Key<T>::of(p[i]); }, &idx, &firsts);
    OPF_RETURN_IF_ERROR(Tensor::Allocate(x.dtype(), Shape({static_cast<int64_t>(firsts.size())}), &ctx.output(0)));
    T* y = ctx.output(0).data<T>();
    for (size_t j = 0; j < firsts.size(); ++j) y[j] = p[firsts[j]];
  }
  const int64_t m = static_cast<int64_t>(firsts.size());
  if (out_idx == DType::kInt32 && (n > INT32_MAX || m > INT32_MAX)) {
    return ctx.error("more than 2^31 - 1 elements: use out_idx=int64");
  }
  std::vector<int64_t> counts;
  if (with_counts) {
    counts.assign(static_cast<size_t>(m), 0);
    for (int64_t k : idx) ++counts[static_cast<size_t>(k)];
  }
  const auto write = [&](const std::vector<int64_t>& v, Tensor* out) -> Status {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(out_idx, Shape({static_cast<int64_t>(v.size())}), out));
    for (size_t i = 0; i < v.size(); ++i) {
      if (out_idx == DType::kInt32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
      } else {
        out->data<int64_t>()[i] = v[i];
      }
    }
    return Status::OK();
  };
  OPF_RETURN_IF_ERROR(write(idx, &ctx.output(1)));
  if (with_counts) OPF_RETURN_IF_ERROR(write(counts, &ctx.output(2)));
  return Status::OK();
}

template <typename T>
Status UniqueCpu(ops::UniqueArgs& a) {
  return unique<T>(a.ctx, a.x, a.out_idx, false);
}

template <typename T>
Status UniqueWithCountsCpu(ops::UniqueWithCountsArgs& a) {
  return unique<T>(a.ctx, a.x, a.out_idx, true);
}

#define OPF_UNIQUE bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Unique, CPU, UniqueCpu, OPF_UNIQUE)
OPFORGE_REGISTER_FORWARDING_KERNEL(UniqueWithCounts, CPU, UniqueWithCountsCpu, OPF_UNIQUE)

}  // namespace opforge
