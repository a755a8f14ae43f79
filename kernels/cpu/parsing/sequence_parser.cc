// The feature lists of serialized tf.train.SequenceExamples to tensors (see example_parser.h),
// as TensorFlow's ParseSequenceExampleV2 gives them: one pass over each proto finds the
// requested lists, then each list's steps are checked and gathered.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cpu/parsing/example_parser.h"
#include "cpu/parsing/example_values.h"
#include "cpu/parsing/example_wire.h"

namespace opforge {
namespace example {
namespace {

// What one feature list gathers over the batch: its values and, per example, the number of
// values in each step.
struct GatheredList {
  Values values;
  std::vector<std::vector<int64_t>> steps;  // [example][step] -> value count
};

Status make_splits(DType type, const std::vector<int64_t>& splits, Shape shape, Tensor* out) {
  if (type == DType::kInt64) return make_int64(std::move(shape), splits, out);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, std::move(shape), out));
  for (size_t k = 0; k < splits.size(); ++k) out->data<int32_t>()[k] = static_cast<int32_t>(splits[k]);
  return Status::OK();
}

}  // namespace

Status parse_feature_lists(KernelContext& ctx, const Tensor& serialized, const Tensor* names,
                           const std::vector<FeatureListConfig>& lists, int first_output, bool with_lengths) {
  using L = FeatureListConfig;
  const bool scalar = serialized.rank() == 0;
  const std::vector<std::string>& protos = *serialized.strings();
  const size_t batch = protos.size();
  const std::vector<std::string>* name_strings =
      names != nullptr && names->num_elements() > 0 ? names->strings() : nullptr;
  std::unordered_map<std::string_view, size_t> slot_of;
  std::vector<int64_t> stride(lists.size(), 1);
  for (size_t k = 0; k < lists.size(); ++k) {
    if (!slot_of.emplace(lists[k].key, k).second) return ctx.error("Duplicate feature list key: ", lists[k].key);
    if (lists[k].layout == L::kDense) {
      const Shape& s = lists[k].shape;
      if (s.unknown_rank() || !s.fully_defined()) {
        return ctx.error("feature_list_dense_shapes for ", lists[k].key, " must be fully defined, got ", s.to_string());
      }
      for (int64_t d : s.dims()) stride[k] *= d;
    }
  }

  std::vector<GatheredList> gathered(lists.size());
  std::vector<std::string_view> found(lists.size());
  std::vector<bool> present(lists.size());
  FeatureView view;
  for (size_t b = 0; b < batch; ++b) {
    const std::string& proto = protos[b];
    const std::string name = name_strings ? (*name_strings)[b] : std::string("<unknown>");
    std::fill(present.begin(), present.end(), false);
    const bool ok = for_each_feature_list(proto, [&](std::string_view key, std::string_view value) {
      auto it = slot_of.find(key);
      if (it != slot_of.end()) {
        found[it->second] = value;
        present[it->second] = true;
      }
      return true;
    });
    if (!ok) return ctx.error("Could not parse example input, value: '", preview(proto), "'");
    for (size_t k = 0; k < lists.size(); ++k) {
      const FeatureListConfig& c = lists[k];
      GatheredList& g = gathered[k];
      g.steps.emplace_back();
      if (!present[k]) {
        if (c.layout == L::kDense && !c.missing_ok) {
          return ctx.error("Name: ", name, ", Feature list '", c.key,
                           "' is required but could not be found.  Did you mean to include it in "
                           "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?");
        }
        continue;
      }
      Status status = Status::OK();
      // "Index" in TensorFlow's messages here is the step's index in the list.
      const bool parsed = for_each_repeated(found[k], 1, [&](std::string_view step) {
        const size_t index = g.steps.back().size();
        if (!decode_feature(step, &view)) return false;
        if (view.kind != Kind::kNone && view.kind != kind_of(c.dtype)) {
          status = ctx.error("Name: ", name, ", Feature list: ", c.key, ", Index: ", index,
                             ".  Data types don't match. Expected type: ", type_name(c.dtype));
          return false;
        }
        const size_t before = g.values.size(c.dtype);
        if (view.kind != Kind::kNone && !g.values.append(view, c.dtype)) return false;
        const int64_t count = static_cast<int64_t>(g.values.size(c.dtype) - before);
        if (c.layout == L::kDense && count != stride[k]) {
          status = ctx.error("Name: ", name, ", Key: ", c.key, ", Index: ", index,
                             ".  Number of values != expected.  values size: ", count,
                             " but output shape: ", c.shape.to_string());
          return false;
        }
        g.steps.back().push_back(count);
        return true;
      });
      OPF_RETURN_IF_ERROR(status);
      if (!parsed) return ctx.error("Could not parse example input, value: '", preview(proto), "'");
    }
  }

  // Outputs: sparse (indices, values, shapes), dense (values, lengths), ragged (values, outer
  // and inner splits), each group in the order of its feature lists.
  std::vector<size_t> sparse, dense, ragged;
  for (size_t k = 0; k < lists.size(); ++k) {
    (lists[k].layout == L::kSparse ? sparse : lists[k].layout == L::kDense ? dense : ragged).push_back(k);
  }
  const int ns = static_cast<int>(sparse.size()), nd = static_cast<int>(dense.size());
  const int nr = static_cast<int>(ragged.size());
  const int64_t b_dim = static_cast<int64_t>(batch);
  int out = first_output;
  for (int i = 0; i < ns; ++i) {
    const size_t k = sparse[static_cast<size_t>(i)];
    GatheredList& g = gathered[k];
    std::vector<int64_t> indices;
    int64_t max_steps = 0, max_values = 0;
    for (size_t b = 0; b < batch; ++b) {
      const auto& steps = g.steps[b];
      max_steps = std::max<int64_t>(max_steps, static_cast<int64_t>(steps.size()));
      for (size_t t = 0; t < steps.size(); ++t) {
        max_values = std::max(max_values, steps[t]);
        for (int64_t j = 0; j < steps[t]; ++j) {
          if (!scalar) indices.push_back(static_cast<int64_t>(b));
          indices.push_back(static_cast<int64_t>(t));
          indices.push_back(j);
        }
      }
    }
    const int64_t cols = scalar ? 2 : 3;
    const int64_t n = static_cast<int64_t>(indices.size()) / cols;
    OPF_RETURN_IF_ERROR(make_int64(Shape{n, cols}, indices, &ctx.output(out + i)));
    OPF_RETURN_IF_ERROR(g.values.to_tensor(lists[k].dtype, Shape{n}, &ctx.output(out + ns + i)));
    const std::vector<int64_t> shape =
        scalar ? std::vector<int64_t>{max_steps, max_values} : std::vector<int64_t>{b_dim, max_steps, max_values};
    OPF_RETURN_IF_ERROR(make_int64(Shape{cols}, shape, &ctx.output(out + 2 * ns + i)));
  }
  out += 3 * ns;
  for (int i = 0; i < nd; ++i) {
    const size_t k = dense[static_cast<size_t>(i)];
    GatheredList& g = gathered[k];
    const FeatureListConfig& c = lists[k];
    int64_t max_steps = 0;
    std::vector<int64_t> lengths;
    for (const auto& steps : g.steps) {
      lengths.push_back(static_cast<int64_t>(steps.size()));
      max_steps = std::max(max_steps, lengths.back());
    }
    // Each example's steps, zero-padded to the longest.
    Values padded;
    size_t at = 0;
    for (size_t b = 0; b < batch; ++b) {
      const int64_t n = lengths[b] * stride[k];
      padded.take(g.values, c.dtype, at, static_cast<size_t>(n));
      at += static_cast<size_t>(n);
      padded.pad(c.dtype, nullptr, static_cast<size_t>((max_steps - lengths[b]) * stride[k]));
    }
    std::vector<int64_t> dims = scalar ? std::vector<int64_t>{max_steps} : std::vector<int64_t>{b_dim, max_steps};
    for (int64_t d : c.shape.dims()) dims.push_back(d);
    OPF_RETURN_IF_ERROR(padded.to_tensor(c.dtype, Shape(dims), &ctx.output(out + i)));
    if (with_lengths) {
      OPF_RETURN_IF_ERROR(make_int64(scalar ? Shape{} : Shape{b_dim}, lengths, &ctx.output(out + nd + i)));
    }
  }
  out += with_lengths ? 2 * nd : nd;
  for (int i = 0; i < nr; ++i) {
    const size_t k = ragged[static_cast<size_t>(i)];
    GatheredList& g = gathered[k];
    const FeatureListConfig& c = lists[k];
    const int64_t total = static_cast<int64_t>(g.values.size(c.dtype));
    OPF_RETURN_IF_ERROR(g.values.to_tensor(c.dtype, Shape{total}, &ctx.output(out + i)));
    std::vector<int64_t> outer{0}, inner{0};
    for (const auto& steps : g.steps) {
      outer.push_back(outer.back() + static_cast<int64_t>(steps.size()));
      for (int64_t n : steps) inner.push_back(inner.back() + n);
    }
    // A scalar proto's outer splits are a scalar 0, as TensorFlow gives them.
    if (scalar) {
      OPF_RETURN_IF_ERROR(make_splits(c.split_type, {0}, Shape{}, &ctx.output(out + nr + i)));
    } else {
      OPF_RETURN_IF_ERROR(make_splits(c.split_type, outer, Shape{b_dim + 1}, &ctx.output(out + nr + i)));
    }
    OPF_RETURN_IF_ERROR(
        make_splits(c.split_type, inner, Shape{static_cast<int64_t>(inner.size())}, &ctx.output(out + 2 * nr + i)));
  }
  return Status::OK();
}

}  // namespace example
}  // namespace opforge
