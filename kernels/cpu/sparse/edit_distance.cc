// EditDistance: Levenshtein distances between the sequences (last dimension) of two SparseTensors,
// per position of their other dimensions. Every index is checked (in range, row-major order)
// before anything is computed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/sparse/edit_distance.h"

namespace opforge {
namespace {

// Groups the entries of one SparseTensor by the row-major offset of their first R-1 coordinates
// in `out_dims` (entry positions, in order); checks shapes, ranges and ordering.
Status group(KernelContext& ctx, const char* which, const Tensor& ix, const Tensor& vals, const Tensor& shape,
             const std::vector<int64_t>& out_dims, std::map<int64_t, std::vector<int64_t>>* groups) {
  const int64_t r = shape.num_elements();
  if (ix.rank() != 2 || ix.dim(1) != r || vals.rank() != 1 || vals.dim(0) != ix.dim(0)) {
    return ctx.error(which, ": indices must be [N, ", r, "] and values [N], got ", ix.shape().to_string(), " and ",
                     vals.shape().to_string());
  }
  const int64_t* p = ix.data<int64_t>();
  const int64_t* dims = shape.data<int64_t>();
  for (int64_t n = 0; n < ix.dim(0); ++n) {
    int64_t key = 0;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t v = p[n * r + d];
      if (v < 0 || v >= dims[d]) {
        return ctx.error(which, "_indices[", n, "] is out of bounds: coordinate ", d, " = ", v, " not in [0, ", dims[d],
                         ")");
      }
      if (d + 1 < r) key = key * out_dims[static_cast<size_t>(d)] + v;
    }
    if (n > 0 && !std::lexicographical_compare(p + (n - 1) * r, p + n * r, p + n * r, p + (n + 1) * r)) {
      return ctx.error(which, "_indices[", n, "] is out of order: the indices must be sorted in row-major order");
    }
    (*groups)[key].push_back(n);
  }
  return Status::OK();
}

template <typename T>
bool same(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  if constexpr (std::is_same_v<T, StringTag>) {
    return (*a.strings())[static_cast<size_t>(i)] == (*b.strings())[static_cast<size_t>(j)];
  } else {
    using C = cpu::compute_t<T>;
    return static_cast<C>(a.data<T>()[i]) == static_cast<C>(b.data<T>()[j]);
  }
}

template <typename T>
Status EditDistanceCpu(ops::EditDistanceArgs& a) {
  const int64_t r = a.hypothesis_shape.num_elements();
  if (a.hypothesis_shape.rank() != 1 || a.truth_shape.rank() != 1 || a.truth_shape.num_elements() != r || r < 1) {
    return a.ctx.error("hypothesis_shape and truth_shape must be vectors of the same length >= 1, got ",
                       a.hypothesis_shape.shape().to_string(), " and ", a.truth_shape.shape().to_string());
  }
  std::vector<int64_t> out_dims(static_cast<size_t>(r - 1));
  for (int64_t d = 0; d + 1 < r; ++d)
    out_dims[static_cast<size_t>(d)] =
        std::max(a.hypothesis_shape.data<int64_t>()[d], a.truth_shape.data<int64_t>()[d]);
  std::map<int64_t, std::vector<int64_t>> hyp, truth;
  OPF_RETURN_IF_ERROR(
      group(a.ctx, "hypothesis", a.hypothesis_indices, a.hypothesis_values, a.hypothesis_shape, out_dims, &hyp));
  OPF_RETURN_IF_ERROR(group(a.ctx, "truth", a.truth_indices, a.truth_values, a.truth_shape, out_dims, &truth));
  float* out = a.output.data<float>();
  if (a.output.nbytes()) std::memset(out, 0, a.output.nbytes());
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& [key, h] : hyp) {
    const auto t = truth.find(key);
    if (t == truth.end()) {
      out[key] = a.normalize ? inf : static_cast<float>(h.size());
      continue;
    }
    const std::vector<int64_t>& s = t->second;
    std::vector<int64_t> prev(s.size() + 1), cur(s.size() + 1);
    for (size_t j = 0; j <= s.size(); ++j) prev[j] = static_cast<int64_t>(j);
    for (size_t i = 1; i <= h.size(); ++i) {
      cur[0] = static_cast<int64_t>(i);
      for (size_t j = 1; j <= s.size(); ++j) {
        const int64_t sub = prev[j - 1] + (same<T>(a.hypothesis_values, h[i - 1], a.truth_values, s[j - 1]) ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    const float dist = static_cast<float>(prev[s.size()]);
    out[key] = a.normalize ? dist / static_cast<float>(s.size()) : dist;
  }
  for (const auto& [key, s] : truth) {
    if (!hyp.count(key)) out[key] = a.normalize ? 1.0f : static_cast<float>(s.size());
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(EditDistance, CPU, EditDistanceCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16,
                        half, float, double, StringTag)

}  // namespace opforge
