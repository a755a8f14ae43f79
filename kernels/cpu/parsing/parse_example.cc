// ParseExample, ParseExampleV2 and ParseSingleExample: the same parser (example_parser.h),
// configured from each op's way of naming the features (tensors or attrs).
#include <algorithm>
#include <string>
#include <vector>

#include "cpu/parsing/example_parser.h"
#include "opforge/ops/parsing/parse_example.h"
#include "opforge/ops/parsing/parse_example_v2.h"
#include "opforge/ops/parsing/parse_sequence_example_v2.h"
#include "opforge/ops/parsing/parse_single_example.h"
#include "opforge/ops/parsing/parse_single_sequence_example.h"

namespace opforge {
namespace {

// The strings of a keys tensor (a vector, or a scalar for ParseExample's one-key inputs).
Status keys_of(KernelContext& ctx, const char* what, const Tensor& t, std::vector<std::string>* out) {
  if (t.rank() > 1) return ctx.error(what, " must be a vector, got shape: ", t.shape().to_string());
  *out = *t.strings();
  return Status::OK();
}

Status check_count(KernelContext& ctx, const char* what, size_t got, size_t want, const char* of) {
  if (got != want) return ctx.error(what, " has ", got, " entries but ", of, " has ", want);
  return Status::OK();
}

std::vector<example::DenseConfig> dense_configs(const std::vector<std::string>& keys, const std::vector<DType>& types,
                                                const std::vector<Shape>& shapes, TensorList defaults) {
  std::vector<example::DenseConfig> out;
  for (size_t d = 0; d < keys.size(); ++d) {
    out.push_back({keys[d], types[d], shapes[d], &defaults[static_cast<int>(d)]});
  }
  return out;
}

std::vector<example::SparseConfig> sparse_configs(const std::vector<std::string>& keys,
                                                  const std::vector<DType>& types) {
  std::vector<example::SparseConfig> out;
  for (size_t k = 0; k < keys.size(); ++k) out.push_back({keys[k], types[k]});
  return out;
}

Status ParseExampleV2Cpu(ops::ParseExampleV2Args& a) {
  std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
  OPF_RETURN_IF_ERROR(keys_of(a.ctx, "sparse_keys", a.sparse_keys, &sparse_keys));
  OPF_RETURN_IF_ERROR(keys_of(a.ctx, "dense_keys", a.dense_keys, &dense_keys));
  OPF_RETURN_IF_ERROR(keys_of(a.ctx, "ragged_keys", a.ragged_keys, &ragged_keys));
  OPF_RETURN_IF_ERROR(
      check_count(a.ctx, "sparse_keys", sparse_keys.size(), static_cast<size_t>(a.num_sparse), "num_sparse"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "sparse_types", a.sparse_types.size(), sparse_keys.size(), "sparse_keys"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "dense_keys", dense_keys.size(), a.Tdense.size(), "Tdense"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "dense_shapes", a.dense_shapes.size(), a.Tdense.size(), "Tdense"));
  OPF_RETURN_IF_ERROR(
      check_count(a.ctx, "ragged_keys", ragged_keys.size(), a.ragged_value_types.size(), "ragged_value_types"));
  OPF_RETURN_IF_ERROR(
      check_count(a.ctx, "ragged_split_types", a.ragged_split_types.size(), ragged_keys.size(), "ragged_keys"));
  std::vector<example::RaggedConfig> ragged;
  for (size_t r = 0; r < ragged_keys.size(); ++r) {
    ragged.push_back({ragged_keys[r], a.ragged_value_types[r], a.ragged_split_types[r]});
  }
  return example::parse_examples(a.ctx, a.serialized, &a.names, sparse_configs(sparse_keys, a.sparse_types),
                                 dense_configs(dense_keys, a.Tdense, a.dense_shapes, a.dense_defaults), ragged);
}

// The strings of a list of scalar key tensors (the TF1 ops' `N * string` inputs).
Status scalar_keys(KernelContext& ctx, const char* what, TensorList keys, std::vector<std::string>* out) {
  out->clear();
  for (int k = 0; k < keys.size; ++k) {
    const Tensor& t = keys[k];
    if (t.num_elements() != 1) return ctx.error(what, "[", k, "] must be a scalar, got ", t.shape().to_string());
    out->push_back((*t.strings())[0]);
  }
  return Status::OK();
}

Status ParseExampleCpu(ops::ParseExampleArgs& a) {
  if (a.serialized.rank() != 1) {
    return a.ctx.error("Expected serialized to be a vector, got shape: ", a.serialized.shape().to_string());
  }
  std::vector<std::string> sparse_keys, dense_keys;
  OPF_RETURN_IF_ERROR(scalar_keys(a.ctx, "sparse_keys", a.sparse_keys, &sparse_keys));
  OPF_RETURN_IF_ERROR(scalar_keys(a.ctx, "dense_keys", a.dense_keys, &dense_keys));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "sparse_types", a.sparse_types.size(), sparse_keys.size(), "sparse_keys"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "Tdense", a.Tdense.size(), dense_keys.size(), "dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "dense_shapes", a.dense_shapes.size(), dense_keys.size(), "dense_keys"));
  return example::parse_examples(a.ctx, a.serialized, &a.names, sparse_configs(sparse_keys, a.sparse_types),
                                 dense_configs(dense_keys, a.Tdense, a.dense_shapes, a.dense_defaults), {});
}

Status ParseSingleExampleCpu(ops::ParseSingleExampleArgs& a) {
  if (a.serialized.rank() != 0) {
    return a.ctx.error("Expected serialized to be a scalar, got shape: ", a.serialized.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(
      check_count(a.ctx, "sparse_keys", a.sparse_keys.size(), static_cast<size_t>(a.num_sparse), "num_sparse"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "sparse_types", a.sparse_types.size(), a.sparse_keys.size(), "sparse_keys"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "dense_keys", a.dense_keys.size(), a.Tdense.size(), "Tdense"));
  OPF_RETURN_IF_ERROR(check_count(a.ctx, "dense_shapes", a.dense_shapes.size(), a.Tdense.size(), "Tdense"));
  return example::parse_examples(a.ctx, a.serialized, nullptr, sparse_configs(a.sparse_keys, a.sparse_types),
                                 dense_configs(a.dense_keys, a.Tdense, a.dense_shapes, a.dense_defaults), {});
}

Status ParseSequenceExampleV2Cpu(ops::ParseSequenceExampleV2Args& a) {
  KernelContext& ctx = a.ctx;
  std::vector<std::string> c_sparse, c_dense, c_ragged, l_sparse, l_dense, l_ragged;
  OPF_RETURN_IF_ERROR(keys_of(ctx, "context_sparse_keys", a.context_sparse_keys, &c_sparse));
  OPF_RETURN_IF_ERROR(keys_of(ctx, "context_dense_keys", a.context_dense_keys, &c_dense));
  OPF_RETURN_IF_ERROR(keys_of(ctx, "context_ragged_keys", a.context_ragged_keys, &c_ragged));
  OPF_RETURN_IF_ERROR(keys_of(ctx, "feature_list_sparse_keys", a.feature_list_sparse_keys, &l_sparse));
  OPF_RETURN_IF_ERROR(keys_of(ctx, "feature_list_dense_keys", a.feature_list_dense_keys, &l_dense));
  OPF_RETURN_IF_ERROR(keys_of(ctx, "feature_list_ragged_keys", a.feature_list_ragged_keys, &l_ragged));
  OPF_RETURN_IF_ERROR(check_count(ctx, "context_sparse_keys", c_sparse.size(), static_cast<size_t>(a.Ncontext_sparse),
                                  "Ncontext_sparse"));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "context_sparse_types", a.context_sparse_types.size(), c_sparse.size(), "context_sparse_keys"));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "context_dense_keys", c_dense.size(), a.Tcontext_dense.size(), "Tcontext_dense"));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "context_dense_shapes", a.context_dense_shapes.size(), c_dense.size(), "context_dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "context_ragged_keys", c_ragged.size(), a.context_ragged_value_types.size(),
                                  "context_ragged_value_types"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "context_ragged_split_types", a.context_ragged_split_types.size(),
                                  c_ragged.size(), "context_ragged_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_sparse_keys", l_sparse.size(),
                                  static_cast<size_t>(a.Nfeature_list_sparse), "Nfeature_list_sparse"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_sparse_types", a.feature_list_sparse_types.size(), l_sparse.size(),
                                  "feature_list_sparse_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_keys", l_dense.size(),
                                  static_cast<size_t>(a.Nfeature_list_dense), "Nfeature_list_dense"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_types", a.feature_list_dense_types.size(), l_dense.size(),
                                  "feature_list_dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_shapes", a.feature_list_dense_shapes.size(), l_dense.size(),
                                  "feature_list_dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_ragged_keys", l_ragged.size(),
                                  a.feature_list_ragged_value_types.size(), "feature_list_ragged_value_types"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_ragged_split_types", a.feature_list_ragged_split_types.size(),
                                  l_ragged.size(), "feature_list_ragged_keys"));
  const Tensor& missing = a.feature_list_dense_missing_assumed_empty;
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_missing_assumed_empty",
                                  static_cast<size_t>(missing.num_elements()), l_dense.size(),
                                  "feature_list_dense_keys"));

  std::vector<example::RaggedConfig> c_ragged_configs;
  for (size_t r = 0; r < c_ragged.size(); ++r) {
    c_ragged_configs.push_back({c_ragged[r], a.context_ragged_value_types[r], a.context_ragged_split_types[r]});
  }
  OPF_RETURN_IF_ERROR(example::parse_examples(
      ctx, a.serialized, &a.debug_name, sparse_configs(c_sparse, a.context_sparse_types),
      dense_configs(c_dense, a.Tcontext_dense, a.context_dense_shapes, a.context_dense_defaults), c_ragged_configs));
  using L = example::FeatureListConfig;
  std::vector<L> lists;
  for (size_t k = 0; k < l_sparse.size(); ++k)
    lists.push_back({l_sparse[k], a.feature_list_sparse_types[k], L::kSparse, Shape{}});
  for (size_t k = 0; k < l_dense.size(); ++k) {
    lists.push_back({l_dense[k], a.feature_list_dense_types[k], L::kDense, a.feature_list_dense_shapes[k],
                     missing.data<bool>()[k]});
  }
  for (size_t k = 0; k < l_ragged.size(); ++k) {
    lists.push_back({l_ragged[k], a.feature_list_ragged_value_types[k], L::kRagged, Shape{}, true,
                     a.feature_list_ragged_split_types[k]});
  }
  const int context_outputs = static_cast<int>(3 * c_sparse.size() + c_dense.size() + 2 * c_ragged.size());
  return example::parse_feature_lists(ctx, a.serialized, &a.debug_name, lists, context_outputs);
}

Status ParseSingleSequenceExampleCpu(ops::ParseSingleSequenceExampleArgs& a) {
  KernelContext& ctx = a.ctx;
  if (a.serialized.rank() != 0) {
    return ctx.error("Expected serialized to be a scalar, got shape: ", a.serialized.shape().to_string());
  }
  if (a.debug_name.rank() != 0) {
    return ctx.error("Expected debug_name to be a scalar, got shape: ", a.debug_name.shape().to_string());
  }
  std::vector<std::string> c_sparse, c_dense, l_sparse, l_dense, may_miss;
  OPF_RETURN_IF_ERROR(scalar_keys(ctx, "context_sparse_keys", a.context_sparse_keys, &c_sparse));
  OPF_RETURN_IF_ERROR(scalar_keys(ctx, "context_dense_keys", a.context_dense_keys, &c_dense));
  OPF_RETURN_IF_ERROR(scalar_keys(ctx, "feature_list_sparse_keys", a.feature_list_sparse_keys, &l_sparse));
  OPF_RETURN_IF_ERROR(scalar_keys(ctx, "feature_list_dense_keys", a.feature_list_dense_keys, &l_dense));
  OPF_RETURN_IF_ERROR(
      keys_of(ctx, "feature_list_dense_missing_assumed_empty", a.feature_list_dense_missing_assumed_empty, &may_miss));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "context_sparse_types", a.context_sparse_types.size(), c_sparse.size(), "context_sparse_keys"));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "Tcontext_dense", a.Tcontext_dense.size(), c_dense.size(), "context_dense_keys"));
  OPF_RETURN_IF_ERROR(
      check_count(ctx, "context_dense_shapes", a.context_dense_shapes.size(), c_dense.size(), "context_dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_sparse_types", a.feature_list_sparse_types.size(), l_sparse.size(),
                                  "feature_list_sparse_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_types", a.feature_list_dense_types.size(), l_dense.size(),
                                  "feature_list_dense_keys"));
  OPF_RETURN_IF_ERROR(check_count(ctx, "feature_list_dense_shapes", a.feature_list_dense_shapes.size(), l_dense.size(),
                                  "feature_list_dense_keys"));
  OPF_RETURN_IF_ERROR(example::parse_examples(
      ctx, a.serialized, nullptr, sparse_configs(c_sparse, a.context_sparse_types),
      dense_configs(c_dense, a.Tcontext_dense, a.context_dense_shapes, a.context_dense_defaults), {}));
  using L = example::FeatureListConfig;
  std::vector<L> lists;
  for (size_t k = 0; k < l_sparse.size(); ++k)
    lists.push_back({l_sparse[k], a.feature_list_sparse_types[k], L::kSparse, Shape{}});
  for (size_t k = 0; k < l_dense.size(); ++k) {
    const bool ok = std::find(may_miss.begin(), may_miss.end(), l_dense[k]) != may_miss.end();
    lists.push_back({l_dense[k], a.feature_list_dense_types[k], L::kDense, a.feature_list_dense_shapes[k], ok});
  }
  const Tensor* name = (*a.debug_name.strings())[0].empty() ? nullptr : &a.debug_name;
  return example::parse_feature_lists(ctx, a.serialized, name, lists,
                                      static_cast<int>(3 * c_sparse.size() + c_dense.size()),
                                      /*with_lengths=*/false);
}

}  // namespace

// The kernels make their outputs themselves: their sizes depend on the protos.
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParseExampleV2, CPU, ParseExampleV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParseExample, CPU, ParseExampleCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParseSingleExample, CPU, ParseSingleExampleCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParseSequenceExampleV2, CPU, ParseSequenceExampleV2Cpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(ParseSingleSequenceExample, CPU, ParseSingleSequenceExampleCpu)

}  // namespace opforge
