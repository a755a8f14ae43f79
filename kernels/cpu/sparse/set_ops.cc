// The set ops (TensorFlow's core/kernels/set_kernels.cc): SetSize and the set operations
// ("a-b", "b-a", "intersection", "union") along the last dimension of dense and sparse inputs.
// A set is the distinct values of one group, the elements that share all indices but the last;
// results are SparseTensors with each group's values sorted.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/sparse/dense_to_dense_set_operation.h"
#include "opforge/ops/sparse/dense_to_sparse_set_operation.h"
#include "opforge/ops/sparse/set_size.h"
#include "opforge/ops/sparse/sparse_to_sparse_set_operation.h"

namespace opforge {
namespace {

// The element type sets are kept in: the strings, or the integers widened to int64.
template <typename T>
using Elem = std::conditional_t<std::is_same_v<T, StringTag>, std::string, int64_t>;

// Groups (the indices but the last, row-major order) -> their set.
template <typename T>
using Groups = std::map<std::vector<int64_t>, std::set<Elem<T>>>;

template <typename T>
Elem<T> element(const Tensor& values, int64_t i) {
  if constexpr (std::is_same_v<T, StringTag>) {
    return (*values.strings())[static_cast<size_t>(i)];
  } else {
    return static_cast<int64_t>(values.data<T>()[i]);
  }
}

// A dense input: its leading dimensions, and a set per group (every group, even an empty one).
template <typename T>
Status dense_groups(KernelContext& ctx, const Tensor& t, const char* what, std::vector<int64_t>* lead,
                    Groups<T>* groups) {
  if (t.rank() < 2) return ctx.error(what, " must have rank >= 2, got shape ", t.shape().to_string());
  lead->assign(t.shape().dims().begin(), t.shape().dims().end() - 1);
  const int64_t width = t.dim(t.rank() - 1);
  const int64_t rows = width == 0 ? 0 : t.num_elements() / width;
  std::vector<int64_t> key(lead->size(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t rest = r;
    for (int d = static_cast<int>(key.size()) - 1; d >= 0; --d) {
      key[static_cast<size_t>(d)] = rest % (*lead)[static_cast<size_t>(d)];
      rest /= (*lead)[static_cast<size_t>(d)];
    }
    auto& set = (*groups)[key];
    for (int64_t j = 0; j < width; ++j) set.insert(element<T>(t, r * width + j));
  }
  return Status::OK();
}

// A SparseTensor input: its dense shape's leading dimensions and a set per group it has.
template <typename T>
Status sparse_groups(KernelContext& ctx, const Tensor& indices, const Tensor& values, const Tensor& shape,
                     bool validate, const char* what, std::vector<int64_t>* lead, Groups<T>* groups) {
  if (shape.rank() != 1) return ctx.error(what, " shape must be a vector, got ", shape.shape().to_string());
  const int64_t rank = shape.dim(0);
  if (rank < 2) return ctx.error(what, " must have rank >= 2, got rank ", rank);
  if (indices.rank() != 2 || indices.dim(1) != rank) {
    return ctx.error(what, " indices must be [N, ", rank, "], got ", indices.shape().to_string());
  }
  if (values.rank() != 1 || values.dim(0) != indices.dim(0)) {
    return ctx.error(what, " values must be [", indices.dim(0), "], got ", values.shape().to_string());
  }
  const int64_t* dims = shape.data<int64_t>();
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) return ctx.error(what, " shape has a negative dimension: ", dims[d]);
  }
  lead->assign(dims, dims + rank - 1);
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t i = 0; i < indices.dim(0); ++i) {
    const int64_t* at = idx + i * rank;
    if (validate) {
      for (int64_t d = 0; d < rank; ++d) {
        if (at[d] < 0 || at[d] >= dims[d]) {
          return ctx.error(what, " index ", i, " is out of bounds: ", at[d], " in dimension ", d, " of size ", dims[d]);
        }
      }
      if (i > 0 && !std::lexicographical_compare(at - rank, at, at, at + rank)) {
        return ctx.error(what, " indices are out of order: index ", i, " does not follow index ", i - 1,
                         " in row-major order");
      }
    }
    (*groups)[std::vector<int64_t>(at, at + rank - 1)].insert(element<T>(values, i));
  }
  return Status::OK();
}

template <typename T>
Status set_operation(KernelContext& ctx, DType dtype, const std::string& op, const std::vector<int64_t>& lead1,
                     const Groups<T>& set1, const std::vector<int64_t>& lead2, const Groups<T>& set2) {
  if (op != "a-b" && op != "b-a" && op != "intersection" && op != "union") {
    return ctx.error("Invalid set_operation ", op, ": one of 'a-b', 'b-a', 'intersection', 'union'");
  }
  if (lead1 != lead2) {
    return ctx.error("Shapes of the two sets differ in their leading dimensions: ", Shape(lead1).to_string(), " vs ",
                     Shape(lead2).to_string());
  }
  static const std::set<Elem<T>> kEmpty;
  std::map<std::vector<int64_t>, std::vector<Elem<T>>> result;
  auto compute = [&](const std::vector<int64_t>& key) {
    const auto i1 = set1.find(key), i2 = set2.find(key);
    const std::set<Elem<T>>& a = i1 == set1.end() ? kEmpty : i1->second;
    const std::set<Elem<T>>& b = i2 == set2.end() ? kEmpty : i2->second;
    std::vector<Elem<T>> out;
    if (op == "a-b") {
      std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    } else if (op == "b-a") {
      std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(out));
    } else if (op == "intersection") {
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    } else {
      std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    }
    if (!out.empty()) result[key] = std::move(out);
  };
  for (const auto& kv : set1) compute(kv.first);
  for (const auto& kv : set2) {
    if (set1.find(kv.first) == set1.end()) compute(kv.first);
  }
  int64_t total = 0, widest = 0;
  for (const auto& kv : result) {
    total += static_cast<int64_t>(kv.second.size());
    widest = std::max(widest, static_cast<int64_t>(kv.second.size()));
  }
  const int64_t rank = static_cast<int64_t>(lead1.size()) + 1;
  Tensor indices, values, shape;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({total, rank}), &indices));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({rank}), &shape));
  int64_t* ip = indices.data<int64_t>();
  std::vector<Elem<T>> flat;
  flat.reserve(static_cast<size_t>(total));
  for (const auto& kv : result) {
    for (size_t j = 0; j < kv.second.size(); ++j) {
      ip = std::copy(kv.first.begin(), kv.first.end(), ip);
      *ip++ = static_cast<int64_t>(j);
      flat.push_back(kv.second[j]);
    }
  }
  if constexpr (std::is_same_v<T, StringTag>) {
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape({total}), std::move(flat), &values));
  } else {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(dtype, Shape({total}), &values));
    std::transform(flat.begin(), flat.end(), values.data<T>(), [](int64_t v) { return static_cast<T>(v); });
  }
  std::copy(lead1.begin(), lead1.end(), shape.data<int64_t>());
  shape.data<int64_t>()[rank - 1] = widest;
  ctx.output(0) = std::move(indices);
  ctx.output(1) = std::move(values);
  ctx.output(2) = std::move(shape);
  return Status::OK();
}

template <typename T>
Status DenseToDenseSetOperationCpu(ops::DenseToDenseSetOperationArgs& a) {
  std::vector<int64_t> lead1, lead2;
  Groups<T> set1, set2;
  OPF_RETURN_IF_ERROR(dense_groups<T>(a.ctx, a.set1, "set1", &lead1, &set1));
  OPF_RETURN_IF_ERROR(dense_groups<T>(a.ctx, a.set2, "set2", &lead2, &set2));
  return set_operation<T>(a.ctx, a.T, a.set_operation, lead1, set1, lead2, set2);
}

template <typename T>
Status DenseToSparseSetOperationCpu(ops::DenseToSparseSetOperationArgs& a) {
  std::vector<int64_t> lead1, lead2;
  Groups<T> set1, set2;
  OPF_RETURN_IF_ERROR(dense_groups<T>(a.ctx, a.set1, "set1", &lead1, &set1));
  OPF_RETURN_IF_ERROR(
      sparse_groups<T>(a.ctx, a.set2_indices, a.set2_values, a.set2_shape, a.validate_indices, "set2", &lead2, &set2));
  return set_operation<T>(a.ctx, a.T, a.set_operation, lead1, set1, lead2, set2);
}

template <typename T>
Status SparseToSparseSetOperationCpu(ops::SparseToSparseSetOperationArgs& a) {
  std::vector<int64_t> lead1, lead2;
  Groups<T> set1, set2;
  OPF_RETURN_IF_ERROR(
      sparse_groups<T>(a.ctx, a.set1_indices, a.set1_values, a.set1_shape, a.validate_indices, "set1", &lead1, &set1));
  OPF_RETURN_IF_ERROR(
      sparse_groups<T>(a.ctx, a.set2_indices, a.set2_values, a.set2_shape, a.validate_indices, "set2", &lead2, &set2));
  return set_operation<T>(a.ctx, a.T, a.set_operation, lead1, set1, lead2, set2);
}

template <typename T>
Status SetSizeCpu(ops::SetSizeArgs& a) {
  std::vector<int64_t> lead;
  Groups<T> groups;
  OPF_RETURN_IF_ERROR(
      sparse_groups<T>(a.ctx, a.set_indices, a.set_values, a.set_shape, a.validate_indices, "set", &lead, &groups));
  Tensor size;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape(lead), &size));
  int32_t* out = size.data<int32_t>();
  std::fill(out, out + size.num_elements(), 0);
  for (const auto& kv : groups) {
    int64_t flat = 0;
    for (size_t d = 0; d < lead.size(); ++d) {
      if (kv.first[d] < 0 || kv.first[d] >= lead[d]) {
        return a.ctx.error("set index out of bounds in dimension ", d, ": ", kv.first[d], " of ", lead[d]);
      }
      flat = flat * lead[d] + kv.first[d];
    }
    out[flat] = static_cast<int32_t>(kv.second.size());
  }
  a.ctx.output(0) = std::move(size);
  return Status::OK();
}

#define OPF_SET_TYPES int8_t, int16_t, int32_t, int64_t, uint8_t, StringTag

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(SetSize, CPU, SetSizeCpu, OPF_SET_TYPES)
OPFORGE_REGISTER_FORWARDING_KERNEL(DenseToDenseSetOperation, CPU, DenseToDenseSetOperationCpu, OPF_SET_TYPES)
OPFORGE_REGISTER_FORWARDING_KERNEL(DenseToSparseSetOperation, CPU, DenseToSparseSetOperationCpu, OPF_SET_TYPES)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseToSparseSetOperation, CPU, SparseToSparseSetOperationCpu, OPF_SET_TYPES)

}  // namespace opforge
