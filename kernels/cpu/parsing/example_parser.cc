// Serialized tf.train.Examples to tensors (see example_parser.h): one pass over each proto
// finds the requested features (example_wire.h), then each feature's values are checked and
// gathered into its outputs.
#include "cpu/parsing/example_parser.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cpu/parsing/example_values.h"
#include "cpu/parsing/example_wire.h"
#include "opforge/parallel.h"

namespace opforge {
namespace example {
namespace {

// What one feature gathers over the batch.
struct Gathered {
  Values values;
  std::vector<int64_t> counts;  // per example (sparse, ragged, variable-length dense)
};

}  // namespace

Status parse_examples(KernelContext& ctx, const Tensor& serialized, const Tensor* names,
                      const std::vector<SparseConfig>& sparse, const std::vector<DenseConfig>& dense,
                      const std::vector<RaggedConfig>& ragged) {
  if (serialized.rank() > 1) {
    return ctx.error("Expected serialized to be a scalar or vector, got shape: ", serialized.shape().to_string());
  }
  const bool scalar = serialized.rank() == 0;
  const std::vector<std::string>& protos = *serialized.strings();
  const int64_t batch = static_cast<int64_t>(protos.size());
  const std::vector<std::string>* name_strings = nullptr;
  if (names != nullptr && names->num_elements() > 0) {
    if (names->shape() != serialized.shape()) {
      return ctx.error("Expected names to have the shape of serialized (", serialized.shape().to_string(),
                       ") or be empty, got shape: ", names->shape().to_string());
    }
    name_strings = names->strings();
  }

  // The dense features' strides (values per example; per row for variable length) and defaults.
  std::vector<int64_t> stride(dense.size(), 1);
  std::vector<bool> variable(dense.size(), false);
  for (size_t d = 0; d < dense.size(); ++d) {
    const DenseConfig& c = dense[d];
    const Shape& s = c.shape;
    if (s.unknown_rank()) return ctx.error("dense_shapes[", d, "] (feature ", c.key, ") must have a known rank");
    variable[d] = s.rank() > 0 && s.dim(0) == Shape::kUnknownDim;
    for (int k = variable[d] ? 1 : 0; k < s.rank(); ++k) {
      if (s.dim(k) < 0) {
        return ctx.error("dense_shapes[", d, "] (feature ", c.key,
                         ") has an unknown dimension other than the first: ", s.to_string());
      }
      stride[d] *= s.dim(k);
    }
    if (c.default_value->dtype() != c.dtype) {
      return ctx.error("dense_defaults[", d, "] (feature ", c.key, ") has type ", dtype_name(c.default_value->dtype()),
                       " but the feature's type is ", dtype_name(c.dtype));
    }
    const int64_t n = c.default_value->num_elements();
    if (variable[d] ? n > 1 : (n != 0 && c.default_value->shape() != s && n != stride[d])) {
      return ctx.error("dense_defaults[", d, "] (feature ", c.key, ") must be empty or ",
                       variable[d] ? "a scalar (the padding of a variable-length feature)" : "of shape ",
                       variable[d] ? "" : s.to_string(), ", got shape ", c.default_value->shape().to_string());
    }
  }

  // Slots: sparse, then dense, then ragged features, looked up by key.
  const size_t num_sparse = sparse.size(), num_dense = dense.size(), num_ragged = ragged.size();
  const size_t num_slots = num_sparse + num_dense + num_ragged;
  std::vector<DType> slot_type(num_slots);
  std::vector<const std::string*> slot_key(num_slots);
  std::unordered_map<std::string_view, size_t> slot_of;
  for (size_t k = 0; k < num_sparse; ++k) slot_type[k] = sparse[k].dtype, slot_key[k] = &sparse[k].key;
  for (size_t k = 0; k < num_dense; ++k)
    slot_type[num_sparse + k] = dense[k].dtype, slot_key[num_sparse + k] = &dense[k].key;
  for (size_t k = 0; k < num_ragged; ++k) {
    slot_type[num_sparse + num_dense + k] = ragged[k].dtype, slot_key[num_sparse + num_dense + k] = &ragged[k].key;
  }
  for (size_t k = 0; k < num_slots; ++k) {
    if (!slot_of.emplace(*slot_key[k], k).second) return ctx.error("Duplicate feature key: ", *slot_key[k]);
  }

  // Examples [begin, end) into `gathered` (one per slot); the first error stops the range.
  auto parse_range = [&](int64_t begin, int64_t end, std::vector<Gathered>& gathered) -> Status {
    std::vector<FeatureView> views(num_slots);
    std::vector<std::string_view> found(num_slots);
    std::vector<bool> present(num_slots);
    for (int64_t b = begin; b < end; ++b) {
      const std::string& proto = protos[static_cast<size_t>(b)];
      std::fill(present.begin(), present.end(), false);
      const bool ok = for_each_feature(proto, [&](std::string_view key, std::string_view value) {
        auto it = slot_of.find(key);
        if (it != slot_of.end()) {
          found[it->second] = value;  // a repeated key: the last entry wins
          present[it->second] = true;
        }
        return true;
      });
      bool decoded = ok;
      for (size_t k = 0; decoded && k < num_slots; ++k) {
        if (present[k]) decoded = decode_feature(found[k], &views[k]);
      }
      if (!decoded) return ctx.error("Could not parse example input, value: '", preview(proto), "'");

      // "Name: n, Key: k, Index: b." (a batch) or "Key: k." (a scalar proto), as TF words it.
      auto where = [&](size_t k) {
        std::string w;
        if (!scalar) {
          w = "Name: " + (name_strings ? (*name_strings)[static_cast<size_t>(b)] : std::string("<unknown>")) + ", ";
        }
        w += "Key: " + *slot_key[k];
        if (!scalar) w += ", Index: " + std::to_string(b);
        return w + ".  ";
      };
      for (size_t k = 0; k < num_slots; ++k) {
        const DType dt = slot_type[k];
        const bool has = present[k] && views[k].kind != Kind::kNone;  // an empty Feature counts as missing
        Gathered& g = gathered[k];
        if (has && views[k].kind != kind_of(dt)) {
          if (k < num_sparse || k >= num_sparse + num_dense) {
            return ctx.error(where(k), "Data types don't match. Expected type: ", type_name(dt),
                             ", Actual type: ", kind_name(views[k].kind));
          }
          return ctx.error(where(k), "Data types don't match. Data type: ", kind_name(views[k].kind),
                           " but expected type: ", type_name(dt));
        }
        const size_t before = g.values.size(dt);
        if (has && !g.values.append(views[k], dt)) {
          return ctx.error("Could not parse example input, value: '", preview(proto), "'");
        }
        const int64_t count = static_cast<int64_t>(g.values.size(dt) - before);
        if (k < num_sparse || k >= num_sparse + num_dense) {
          g.counts.push_back(count);
          continue;
        }
        const size_t d = k - num_sparse;
        const DenseConfig& c = dense[d];
        if (variable[d]) {
          if (stride[d] == 0 ? count != 0 : count % stride[d] != 0) {
            return ctx.error(where(k), "Number of ", type_name(dt), " values is not a multiple of stride length. Saw ",
                             count, " values but output shape is: ", c.shape.to_string());
          }
          g.counts.push_back(stride[d] == 0 ? 0 : count / stride[d]);
        } else if (!has) {
          if (c.default_value->num_elements() == 0) {
            std::string who = scalar ? std::string() : where(k).substr(0, where(k).find("Key: "));
            return ctx.error(who, "Feature: ", c.key, " (data type: ", type_name(dt),
                             ") is required but could not be found.");
          }
          g.values.append_from(*c.default_value, 0, stride[d], dt);
        } else if (count != stride[d]) {
          return ctx.error(where(k), "Number of ", type_name(dt), " values != expected.  Values size: ", count,
                           " but output shape: ", c.shape.to_string());
        }
      }
    }
    return Status::OK();
  };

  // Ranges of examples parse in parallel, each into its own buffers, joined in order; the
  // error reported is the first in example order, as a serial parse would give it.
  constexpr int64_t kExamplesPerPart = 256;
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(num_threads(), batch / kExamplesPerPart));
  std::vector<std::vector<Gathered>> part_gathered(static_cast<size_t>(parts), std::vector<Gathered>(num_slots));
  std::vector<Status> part_status(static_cast<size_t>(parts));
  parallel_for(parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      part_status[static_cast<size_t>(p)] =
          parse_range(p * batch / parts, (p + 1) * batch / parts, part_gathered[static_cast<size_t>(p)]);
    }
  });
  for (const Status& st : part_status) OPF_RETURN_IF_ERROR(st);
  std::vector<Gathered> gathered = std::move(part_gathered[0]);
  for (size_t p = 1; p < part_gathered.size(); ++p) {
    for (size_t k = 0; k < num_slots; ++k) {
      gathered[k].values.extend(std::move(part_gathered[p][k].values));
      gathered[k].counts.insert(gathered[k].counts.end(), part_gathered[p][k].counts.begin(),
                                part_gathered[p][k].counts.end());
    }
  }

  // Outputs, in the ops' order: sparse indices, values, shapes; dense; ragged values, splits.
  const Shape batch_shape = serialized.shape();
  const int out_rank = scalar ? 1 : 2;
  int out = 0;
  for (size_t k = 0; k < num_sparse; ++k) {
    const Gathered& g = gathered[k];
    std::vector<int64_t> indices;
    indices.reserve(g.values.size(sparse[k].dtype) * static_cast<size_t>(out_rank));
    int64_t max_count = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t n = g.counts[static_cast<size_t>(b)];
      max_count = std::max(max_count, n);
      for (int64_t j = 0; j < n; ++j) {
        if (!scalar) indices.push_back(b);
        indices.push_back(j);
      }
    }
    const int64_t total = static_cast<int64_t>(indices.size()) / out_rank;
    OPF_RETURN_IF_ERROR(make_int64(Shape{total, out_rank}, indices, &ctx.output(out + static_cast<int>(k))));
    std::vector<int64_t> dense_shape =
        scalar ? std::vector<int64_t>{max_count} : std::vector<int64_t>{batch, max_count};
    OPF_RETURN_IF_ERROR(
        make_int64(Shape{out_rank}, dense_shape, &ctx.output(out + static_cast<int>(2 * num_sparse + k))));
  }
  for (size_t k = 0; k < num_sparse; ++k) {
    const int64_t total = static_cast<int64_t>(gathered[k].values.size(sparse[k].dtype));
    OPF_RETURN_IF_ERROR(gathered[k].values.to_tensor(sparse[k].dtype, Shape{total},
                                                     &ctx.output(out + static_cast<int>(num_sparse + k))));
  }
  out += static_cast<int>(3 * num_sparse);
  for (size_t d = 0; d < num_dense; ++d) {
    Gathered& g = gathered[num_sparse + d];
    const DenseConfig& c = dense[d];
    std::vector<int64_t> dims = batch_shape.dims();
    if (variable[d]) {
      // Rows of `stride` values; every example padded to the longest with the default.
      const int64_t rows = g.counts.empty() ? 0 : *std::max_element(g.counts.begin(), g.counts.end());
      Values padded;
      size_t at = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t n = g.counts[static_cast<size_t>(b)] * stride[d];
        padded.take(g.values, c.dtype, at, static_cast<size_t>(n));
        at += static_cast<size_t>(n);
        padded.pad(c.dtype, c.default_value,
                   static_cast<size_t>((rows - g.counts[static_cast<size_t>(b)]) * stride[d]));
      }
      dims.push_back(rows);
      for (int k = 1; k < c.shape.rank(); ++k) dims.push_back(c.shape.dim(k));
      OPF_RETURN_IF_ERROR(padded.to_tensor(c.dtype, Shape(dims), &ctx.output(out + static_cast<int>(d))));
    } else {
      for (int64_t v : c.shape.dims()) dims.push_back(v);
      OPF_RETURN_IF_ERROR(g.values.to_tensor(c.dtype, Shape(dims), &ctx.output(out + static_cast<int>(d))));
    }
  }
  out += static_cast<int>(num_dense);
  for (size_t r = 0; r < num_ragged; ++r) {
    Gathered& g = gathered[num_sparse + num_dense + r];
    const RaggedConfig& c = ragged[r];
    const int64_t total = static_cast<int64_t>(g.values.size(c.dtype));
    OPF_RETURN_IF_ERROR(g.values.to_tensor(c.dtype, Shape{total}, &ctx.output(out + static_cast<int>(r))));
    // A scalar proto's row splits are empty, as TensorFlow gives them.
    std::vector<int64_t> splits;
    if (!scalar) {
      splits.push_back(0);
      for (int64_t n : g.counts) splits.push_back(splits.back() + n);
    }
    Tensor& t = ctx.output(out + static_cast<int>(num_ragged + r));
    const Shape split_shape{static_cast<int64_t>(splits.size())};
    if (c.split_type == DType::kInt64) {
      OPF_RETURN_IF_ERROR(make_int64(split_shape, splits, &t));
    } else {
      OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, split_shape, &t));
      for (size_t k = 0; k < splits.size(); ++k) t.data<int32_t>()[k] = static_cast<int32_t>(splits[k]);
    }
  }
  return Status::OK();
}

}  // namespace example
}  // namespace opforge
