// Helpers shared by the SparseTensor kernels: checking the three tensors of a SparseTensor,
// comparing index rows, and building value tensors by picking elements (any dtype, strings too).
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/alloc_guard.h"
#include "opforge/kernel.h"
#include "opforge/tensor.h"

namespace opforge {
namespace sparse {

using cpu::guarded;  // cpu/alloc_guard.h

// A SparseTensor's parts, checked: indices [n, rank] int64, values [n], dense shape [rank].
struct View {
  const int64_t* ix = nullptr;
  int64_t n = 0;
  int rank = 0;
  std::vector<int64_t> shape;
  int64_t at(int64_t row, int d) const { return ix[row * rank + d]; }
};

// InvalidArgument (naming op and which operand, e.g. "a_") unless the parts fit together.
inline Status view(const KernelContext& ctx, const Tensor& indices, const Tensor& values, const Tensor& shape,
                   View* out, const std::string& what = "input ") {
  if (indices.rank() != 2) {
    return ctx.error(what, "indices should be a matrix but received shape ", indices.shape().to_string());
  }
  if (values.rank() != 1) {
    return ctx.error(what, "values should be a vector but received shape ", values.shape().to_string());
  }
  if (shape.rank() != 1) {
    return ctx.error(what, "shape should be a vector but received shape ", shape.shape().to_string());
  }
  if (values.dim(0) != indices.dim(0)) {
    return ctx.error("Expected ", indices.dim(0), " non-empty ", what, "values, got ", values.dim(0));
  }
  if (shape.dim(0) != indices.dim(1)) {
    return ctx.error(what, "indices have rank ", indices.dim(1), " but the ", what, "shape has ", shape.dim(0),
                     " dimensions");
  }
  out->ix = indices.data<int64_t>();
  out->n = indices.dim(0);
  out->rank = static_cast<int>(indices.dim(1));
  out->shape.assign(shape.data<int64_t>(), shape.data<int64_t>() + shape.num_elements());
  for (int64_t d : out->shape) {
    if (d < 0) return ctx.error(what, "shape must be non-negative, got ", Shape(out->shape).to_string());
  }
  return Status::OK();
}

// "[i0,i1,...]" of row `row`.
inline std::string row_string(const View& v, int64_t row) {
  std::string s = "[";
  for (int d = 0; d < v.rank; ++d) s += (d ? "," : "") + std::to_string(v.at(row, d));
  return s + "]";
}

// InvalidArgument unless every index is within the dense shape.
inline Status check_bounds(const KernelContext& ctx, const View& v, const std::string& what = "") {
  for (int64_t i = 0; i < v.n; ++i) {
    for (int d = 0; d < v.rank; ++d) {
      const int64_t x = v.at(i, d);
      if (x < 0 || x >= v.shape[static_cast<size_t>(d)]) {
        return ctx.error(what, "indices[", i, "] = ", row_string(v, i), " is out of bounds: need 0 <= index < ",
                         Shape(v.shape).to_string());
      }
    }
  }
  return Status::OK();
}

// -1, 0 or 1: the lexicographic order of row i of a and row j of b (same rank).
inline int compare(const View& a, int64_t i, const View& b, int64_t j) {
  for (int d = 0; d < a.rank; ++d) {
    const int64_t x = a.at(i, d), y = b.at(j, d);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// InvalidArgument unless the rows are in canonical (strictly increasing row-major) order.
inline Status check_sorted(const KernelContext& ctx, const View& v, const std::string& what = "") {
  for (int64_t i = 1; i < v.n; ++i) {
    const int c = compare(v, i - 1, v, i);
    if (c > 0) {
      return ctx.error(what, "indices[", i, "] = ", row_string(v, i),
                       " is out of order. Many sparse ops require sorted indices.");
    }
    if (c == 0) return ctx.error(what, "indices[", i, "] = ", row_string(v, i), " is repeated");
  }
  return Status::OK();
}

// A 1-D tensor of src's dtype whose element k is src[from[k]] (from[k] < 0: fill[0]).
inline Status pick(const Tensor& src, const std::vector<int64_t>& from, const Tensor* fill, Tensor* out) {
  const int64_t n = static_cast<int64_t>(from.size());
  if (src.dtype() == DType::kString) {
    std::vector<std::string> v(from.size());
    for (int64_t k = 0; k < n; ++k) {
      const int64_t f = from[static_cast<size_t>(k)];
      v[static_cast<size_t>(k)] = f < 0 ? (*fill->strings())[0] : (*src.strings())[static_cast<size_t>(f)];
    }
    return Tensor::FromStrings(Shape{n}, std::move(v), out);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(src.dtype(), Shape{n}, out));
  const size_t size = dtype_size(src.dtype());
  char* dst = static_cast<char*>(out->raw_data());
  for (int64_t k = 0; k < n; ++k) {
    const int64_t f = from[static_cast<size_t>(k)];
    const char* p = f < 0 ? static_cast<const char*>(fill->raw_data())
                          : static_cast<const char*>(src.raw_data()) + static_cast<size_t>(f) * size;
    std::memcpy(dst + static_cast<size_t>(k) * size, p, size);
  }
  return Status::OK();
}

// An int64 tensor [rows, cols] (cols may be 0) from row-major values.
inline Status int64_matrix(const std::vector<int64_t>& v, int64_t rows, int64_t cols, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{rows, cols}, out));
  if (!v.empty()) std::memcpy(out->data<int64_t>(), v.data(), v.size() * sizeof(int64_t));
  return Status::OK();
}

inline Status int64_vector(const std::vector<int64_t>& v, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{static_cast<int64_t>(v.size())}, out));
  if (!v.empty()) std::memcpy(out->data<int64_t>(), v.data(), v.size() * sizeof(int64_t));
  return Status::OK();
}

// Reads a 1-D (or scalar) int64/int32 tensor.
inline std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out[static_cast<size_t>(i)] = t.dtype() == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  }
  return out;
}

}  // namespace sparse
}  // namespace opforge
