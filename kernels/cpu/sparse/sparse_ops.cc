// SparseToDense (a dense tensor from COO indices and values, a default elsewhere) and
// SparseReorder (the indices in row-major order).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "opforge/ops/sparse/sparse_reorder.h"
#include "opforge/ops/sparse/sparse_to_dense.h"

namespace opforge {
namespace {

// Reads an index tensor of int32 or int64 as int64.
std::vector<int64_t> as_int64(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out[static_cast<size_t>(i)] = t.dtype() == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return out;
}

std::string index_string(const std::vector<int64_t>& ix, int64_t row, int64_t rank) {
  std::string s = "[";
  for (int64_t d = 0; d < rank; ++d) {
    if (d) s += ",";
    s += std::to_string(ix[static_cast<size_t>(row * rank + d)]);
  }
  return s + "]";
}

// Copies element `from` of src into element `to` of dst (same dtype; strings included).
void copy_element(const Tensor& src, int64_t from, Tensor& dst, int64_t to, std::vector<std::string>* strings) {
  if (strings != nullptr) {
    (*strings)[static_cast<size_t>(to)] = (*src.strings())[static_cast<size_t>(from)];
    return;
  }
  const size_t size = dtype_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + to * size, static_cast<const char*>(src.raw_data()) + from * size,
              size);
}

template <typename T>
Status SparseToDenseCpu(ops::SparseToDenseArgs& a) {
  if (a.sparse_indices.rank() > 2) {
    return a.ctx.error("sparse_indices should be a scalar, vector, or matrix, got shape ",
                       a.sparse_indices.shape().to_string());
  }
  if (a.output_shape.rank() > 1) {
    return a.ctx.error("output_shape should be a scalar or vector, got shape ", a.output_shape.shape().to_string());
  }
  const int64_t num_values = a.sparse_indices.rank() == 0 ? 1 : a.sparse_indices.shape().dim(0);
  const int64_t rank = a.sparse_indices.rank() == 2 ? a.sparse_indices.shape().dim(1) : 1;
  if (a.sparse_values.rank() > 1 || (a.sparse_values.rank() == 1 && a.sparse_values.shape().dim(0) != num_values)) {
    return a.ctx.error("sparse_values has incorrect shape ", a.sparse_values.shape().to_string(), ", should be [] or [",
                       num_values, "]");
  }
  if (a.default_value.num_elements() != 1 || a.default_value.rank() != 0) {
    return a.ctx.error("default_value should be a scalar, got shape ", a.default_value.shape().to_string());
  }
  const std::vector<int64_t> shape = as_int64(a.output_shape);
  if (static_cast<int64_t>(shape.size()) != rank) {
    return a.ctx.error("output_shape has incorrect number of elements: ", shape.size(), " should be: ", rank);
  }
  for (int64_t d : shape) {
    if (d < 0) return a.ctx.error("output_shape must be non-negative, got ", Shape(shape).to_string());
  }
  const std::vector<int64_t> ix = as_int64(a.sparse_indices);
  std::vector<int64_t> flat(static_cast<size_t>(num_values));
  for (int64_t n = 0; n < num_values; ++n) {
    int64_t pos = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = ix[static_cast<size_t>(n * rank + d)];
      if (v < 0 || v >= shape[static_cast<size_t>(d)]) {
        return a.ctx.error("indices[", n, "] = ", index_string(ix, n, rank), " is out of bounds: need 0 <= index < ",
                           Shape(shape).to_string());
      }
      pos = pos * shape[static_cast<size_t>(d)] + v;
    }
    if (n > 0 && a.validate_indices) {
      // Lexicographic order of the index rows is the order of their flat positions.
      const int64_t prev = flat[static_cast<size_t>(n - 1)];
      if (pos < prev) {
        return a.ctx.error("indices[", n, "] = ", index_string(ix, n, rank),
                           " is out of order. Many sparse ops require sorted indices.");
      }
      if (pos == prev) return a.ctx.error("indices[", n, "] = ", index_string(ix, n, rank), " is repeated");
    }
    flat[static_cast<size_t>(n)] = pos;
  }
  Tensor& out = a.ctx.output(0);
  const DType dt = a.sparse_values.dtype();
  int64_t total = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(total, d, &total)) {
      return a.ctx.error("output_shape ", Shape(shape).to_string(), " has too many elements");
    }
  }
  const bool scalar_values = a.sparse_values.rank() == 0;
  if (dt == DType::kString) {
    std::vector<std::string> values(static_cast<size_t>(total), (*a.default_value.strings())[0]);
    for (int64_t n = 0; n < num_values; ++n)
      copy_element(a.sparse_values, scalar_values ? 0 : n, out, flat[static_cast<size_t>(n)], &values);
    return Tensor::FromStrings(Shape(shape), std::move(values), &out);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(dt, Shape(shape), &out));
  for (int64_t k = 0; k < total; ++k) copy_element(a.default_value, 0, out, k, nullptr);
  for (int64_t n = 0; n < num_values; ++n) {
    copy_element(a.sparse_values, scalar_values ? 0 : n, out, flat[static_cast<size_t>(n)], nullptr);
  }
  return Status::OK();
}

template <typename T>
Status SparseReorderCpu(ops::SparseReorderArgs& a) {
  const Tensor& ix = a.input_indices;
  if (ix.rank() != 2)
    return a.ctx.error("Input indices should be a matrix but received shape ", ix.shape().to_string());
  if (a.input_values.rank() != 1) {
    return a.ctx.error("Input values should be a vector but received shape ", a.input_values.shape().to_string());
  }
  if (a.input_shape.rank() != 1) {
    return a.ctx.error("Input shape should be a vector but received shape ", a.input_shape.shape().to_string());
  }
  const int64_t n = ix.shape().dim(0), rank = ix.shape().dim(1);
  if (rank != a.input_shape.num_elements()) {
    return a.ctx.error("Index rank (", rank, ") and shape rank (", a.input_shape.num_elements(), ") do not match");
  }
  if (a.input_values.num_elements() != n) {
    return a.ctx.error("Number of values (", a.input_values.num_elements(), ") and indices (", n, ") do not match");
  }
  const int64_t* rows = ix.data<int64_t>();
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) order[static_cast<size_t>(k)] = k;
  std::stable_sort(order.begin(), order.end(), [rows, rank](int64_t x, int64_t y) {
    return std::lexicographical_compare(rows + x * rank, rows + (x + 1) * rank, rows + y * rank, rows + (y + 1) * rank);
  });
  Tensor& out_ix = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, ix.shape(), &out_ix));
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(out_ix.data<int64_t>() + k * rank, rows + order[static_cast<size_t>(k)] * rank,
                static_cast<size_t>(rank) * sizeof(int64_t));
  }
  Tensor& out_values = a.ctx.output(1);
  if (a.input_values.dtype() == DType::kString) {
    std::vector<std::string> values(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k)
      values[static_cast<size_t>(k)] = (*a.input_values.strings())[static_cast<size_t>(order[static_cast<size_t>(k)])];
    return Tensor::FromStrings(a.input_values.shape(), std::move(values), &out_values);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.input_values.dtype(), a.input_values.shape(), &out_values));
  for (int64_t k = 0; k < n; ++k) copy_element(a.input_values, order[static_cast<size_t>(k)], out_values, k, nullptr);
  return Status::OK();
}

}  // namespace

// One body for every dtype (it copies elements by size, strings by value); it makes its output.
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseToDense, CPU, SparseToDenseCpu, bool, uint8_t, int8_t, int16_t, int32_t,
                                   int64_t, bfloat16, half, float, double, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseReorder, CPU, SparseReorderCpu, bool, uint8_t, int8_t, int16_t, int32_t,
                                   int64_t, bfloat16, half, float, double, StringTag)

}  // namespace opforge
