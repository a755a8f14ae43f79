// EditDistance: Levenshtein distances between the sequences (last dimension) of two SparseTensors,
// per position of their other dimensions, grouped as TensorFlow groups them (runs; see Run).
// Every group is checked to lie inside the output before anything is computed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/sparse/edit_distance.h"

namespace opforge {
namespace {

// The entries of one SparseTensor in runs of equal group coordinates (the first R-1), in
// order: TensorFlow's grouping, which reads the indices as sorted and takes each run of one group
// as that group's sequence, in entry order (the last coordinate only orders them, and is not
// checked against the shape: the TensorFlow Cookbook builds [N, 1, 1] shapes over longer
// sequences). A group outside the output is an error.
struct Run {
  std::vector<int64_t> key;      // group coordinates
  int64_t offset = 0;            // row-major offset in the output
  std::vector<int64_t> entries;  // entry positions, in order
};

Status runs(KernelContext& ctx, const char* which, const Tensor& ix, const Tensor& vals, const Tensor& shape,
            const std::vector<int64_t>& out_dims, std::vector<Run>* out) {
  const int64_t r = shape.num_elements();
  if (ix.rank() != 2 || ix.dim(1) != r || vals.rank() != 1 || vals.dim(0) != ix.dim(0)) {
    return ctx.error(which, ": indices must be [N, ", r, "] and values [N], got ", ix.shape().to_string(), " and ",
                     vals.shape().to_string());
  }
  const int64_t* p = ix.data<int64_t>();
  for (int64_t n = 0; n < ix.dim(0); ++n) {
    const int64_t* key = p + n * r;
    if (out->empty() || !std::equal(key, key + r - 1, out->back().key.begin())) {
      Run run;
      run.key.assign(key, key + r - 1);
      for (int64_t d = 0; d + 1 < r; ++d) {
        const int64_t v = key[d], dim = out_dims[static_cast<size_t>(d)];
        if (v < 0 || v >= dim) {
          return ctx.error(which, "_indices[", n, "] is out of bounds: coordinate ", d, " = ", v, " not in [0, ", dim,
                           ")");
        }
        run.offset = run.offset * dim + v;
      }
      out->push_back(std::move(run));
    }
    out->back().entries.push_back(n);
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
  std::vector<Run> hyp, truth;
  OPF_RETURN_IF_ERROR(
      runs(a.ctx, "hypothesis", a.hypothesis_indices, a.hypothesis_values, a.hypothesis_shape, out_dims, &hyp));
  OPF_RETURN_IF_ERROR(runs(a.ctx, "truth", a.truth_indices, a.truth_values, a.truth_shape, out_dims, &truth));
  float* out = a.output.data<float>();
  if (a.output.nbytes()) std::memset(out, 0, a.output.nbytes());
  const float inf = std::numeric_limits<float>::infinity();
  const auto hypothesis_only = [&](const Run& h) {
    out[h.offset] = a.normalize ? inf : static_cast<float>(h.entries.size());
  };
  const auto truth_only = [&](const Run& t) {
    out[t.offset] = a.normalize ? 1.0f : static_cast<float>(t.entries.size());
  };
  // The two lists of runs merged in order of their groups, as TensorFlow's kernel walks them.
  size_t hi = 0, ti = 0;
  while (hi < hyp.size() && ti < truth.size()) {
    const Run& h = hyp[hi];
    const Run& t = truth[ti];
    if (h.key < t.key) {
      hypothesis_only(h);
      ++hi;
      continue;
    }
    if (t.key < h.key) {
      truth_only(t);
      ++ti;
      continue;
    }
    const std::vector<int64_t>& hs = h.entries;
    const std::vector<int64_t>& ts = t.entries;
    std::vector<int64_t> prev(ts.size() + 1), cur(ts.size() + 1);
    for (size_t j = 0; j <= ts.size(); ++j) prev[j] = static_cast<int64_t>(j);
    for (size_t i = 1; i <= hs.size(); ++i) {
      cur[0] = static_cast<int64_t>(i);
      for (size_t j = 1; j <= ts.size(); ++j) {
        const int64_t sub = prev[j - 1] + (same<T>(a.hypothesis_values, hs[i - 1], a.truth_values, ts[j - 1]) ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    const float dist = static_cast<float>(prev[ts.size()]);
    out[h.offset] = a.normalize ? dist / static_cast<float>(ts.size()) : dist;
    ++hi;
    ++ti;
  }
  for (; hi < hyp.size(); ++hi) hypothesis_only(hyp[hi]);
  for (; ti < truth.size(); ++ti) truth_only(truth[ti]);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(EditDistance, CPU, EditDistanceCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16,
                        half, float, double, StringTag)

}  // namespace opforge
