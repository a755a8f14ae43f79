// SparseTensor kernels that move values around: SparseConcat, SparseSlice (+ SparseSliceGrad),
// SparseReshape, SparseSplit, SparseFillEmptyRows (+ its gradient) and SparseTensorDenseMatMul.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/sparse/sparse_util.h"
#include "opforge/ops/sparse/sparse_concat.h"
#include "opforge/ops/sparse/sparse_fill_empty_rows.h"
#include "opforge/ops/sparse/sparse_fill_empty_rows_grad.h"
#include "opforge/ops/sparse/sparse_reshape.h"
#include "opforge/ops/sparse/sparse_slice.h"
#include "opforge/ops/sparse/sparse_slice_grad.h"
#include "opforge/ops/sparse/sparse_split.h"
#include "opforge/ops/sparse/sparse_tensor_dense_mat_mul.h"

namespace opforge {
namespace {

using cpu::compute_t;

template <typename T>
Status SparseConcatCpu(ops::SparseConcatArgs& a) {
  const int n = a.indices.size;
  std::vector<sparse::View> in(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.indices[k], a.values[k], a.shapes[k], &in[static_cast<size_t>(k)]));
  }
  const int rank = in[0].rank;
  const int64_t dim = a.concat_dim < 0 ? a.concat_dim + rank : a.concat_dim;
  if (dim < 0 || dim >= rank) {
    return a.ctx.error("Concat dimension must be in range [", -rank, ", ", rank, "), got ", a.concat_dim);
  }
  std::vector<int64_t> shape = in[0].shape;
  shape[static_cast<size_t>(dim)] = 0;
  std::vector<int64_t> rows, from, offsets;
  for (int k = 0; k < n; ++k) {
    const sparse::View& v = in[static_cast<size_t>(k)];
    if (v.rank != rank)
      return a.ctx.error("Ranks of all input tensors must match: expected ", rank, " but got ", v.rank, " at position ",
                         k);
    for (int d = 0; d < rank; ++d) {
      if (d != dim && v.shape[static_cast<size_t>(d)] != in[0].shape[static_cast<size_t>(d)]) {
        return a.ctx.error("Input shapes must match: expected ", in[0].shape[static_cast<size_t>(d)], " for dimension ",
                           d, " but got ", v.shape[static_cast<size_t>(d)], " at position ", k);
      }
    }
    const int64_t offset = shape[static_cast<size_t>(dim)];
    for (int64_t i = 0; i < v.n; ++i) {
      for (int d = 0; d < rank; ++d) rows.push_back(v.at(i, d) + (d == dim ? offset : 0));
      from.push_back(static_cast<int64_t>(offsets.size()));
      offsets.push_back(k);  // which input; `from` numbers the values across the inputs
    }
    shape[static_cast<size_t>(dim)] += v.shape[static_cast<size_t>(dim)];
  }
  // Canonical order (a stable sort: repeated indices keep their order).
  const int64_t total = static_cast<int64_t>(from.size());
  std::vector<int64_t> order(static_cast<size_t>(total));
  std::iota(order.begin(), order.end(), 0);
  const int64_t* r = rows.data();
  std::stable_sort(order.begin(), order.end(), [r, rank](int64_t x, int64_t y) {
    return std::lexicographical_compare(r + x * rank, r + (x + 1) * rank, r + y * rank, r + (y + 1) * rank);
  });
  std::vector<int64_t> sorted_rows;
  sorted_rows.reserve(rows.size());
  for (int64_t o : order) sorted_rows.insert(sorted_rows.end(), r + o * rank, r + (o + 1) * rank);
  // The values, gathered from their inputs in that order.
  std::vector<int64_t> starts(static_cast<size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k)
    starts[static_cast<size_t>(k) + 1] = starts[static_cast<size_t>(k)] + in[static_cast<size_t>(k)].n;
  if (a.values[0].dtype() == DType::kString) {
    std::vector<std::string> vals;
    for (int64_t o : order) {
      const int k = static_cast<int>(offsets[static_cast<size_t>(o)]);
      vals.push_back((*a.values[k].strings())[static_cast<size_t>(o - starts[static_cast<size_t>(k)])]);
    }
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape{total}, std::move(vals), &a.ctx.output(1)));
  } else {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{total}, &a.ctx.output(1)));
    T* out = a.ctx.output(1).template data<T>();
    for (int64_t q = 0; q < total; ++q) {
      const int64_t o = order[static_cast<size_t>(q)];
      const int k = static_cast<int>(offsets[static_cast<size_t>(o)]);
      out[q] = a.values[k].template data<T>()[o - starts[static_cast<size_t>(k)]];
    }
  }
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(sorted_rows, total, rank, &a.ctx.output(0)));
  return sparse::int64_vector(shape, &a.ctx.output(2));
}

// The values of v inside [start, start + size) per dim: their positions, shifted rows and the
// output shape (the slice clipped to the dense shape).
Status slice_rows(const KernelContext& ctx, const sparse::View& v, const Tensor& start_t, const Tensor& size_t_,
                  std::vector<int64_t>* from, std::vector<int64_t>* rows, std::vector<int64_t>* shape) {
  const std::vector<int64_t> start = sparse::ints(start_t), size = sparse::ints(size_t_);
  if (static_cast<int>(start.size()) != v.rank) {
    return ctx.error("Expected start to be a vector of length ", v.rank, " but got length ", start.size());
  }
  if (static_cast<int>(size.size()) != v.rank) {
    return ctx.error("Expected size to be a vector of length ", v.rank, " but got length ", size.size());
  }
  for (int d = 0; d < v.rank; ++d) {
    if (start[static_cast<size_t>(d)] < 0 || size[static_cast<size_t>(d)] < 0) {
      return ctx.error("start and size must be non-negative, got start ", Shape(start).to_string(), " and size ",
                       Shape(size).to_string());
    }
    const int64_t dim = v.shape[static_cast<size_t>(d)], s = start[static_cast<size_t>(d)];
    const int64_t end = size[static_cast<size_t>(d)] > dim - s ? dim : s + size[static_cast<size_t>(d)];
    shape->push_back(std::max<int64_t>(0, end - s));
  }
  for (int64_t i = 0; i < v.n; ++i) {
    bool inside = true;
    for (int d = 0; inside && d < v.rank; ++d) {
      const int64_t x = v.at(i, d) - start[static_cast<size_t>(d)];
      inside = x >= 0 && x < (*shape)[static_cast<size_t>(d)];
    }
    if (!inside) continue;
    from->push_back(i);
    for (int d = 0; d < v.rank; ++d) rows->push_back(v.at(i, d) - start[static_cast<size_t>(d)]);
  }
  return Status::OK();
}

template <typename T>
Status SparseSliceCpu(ops::SparseSliceArgs& a) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.indices, a.values, a.shape, &v));
  std::vector<int64_t> from, rows, shape;
  OPF_RETURN_IF_ERROR(slice_rows(a.ctx, v, a.start, a.size, &from, &rows, &shape));
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, static_cast<int64_t>(from.size()), v.rank, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(sparse::pick(a.values, from, nullptr, &a.ctx.output(1)));
  return sparse::int64_vector(shape, &a.ctx.output(2));
}

template <typename T>
Status SparseSliceGradCpu(ops::SparseSliceGradArgs& a) {
  const Tensor &in = a.input_indices, &out = a.output_indices;
  if (in.rank() != 2 || out.rank() != 2 || in.dim(1) != out.dim(1)) {
    return a.ctx.error("input_indices and output_indices must be matrices of one rank, got ", in.shape().to_string(),
                       " and ", out.shape().to_string());
  }
  const int64_t rank = in.dim(1);
  const std::vector<int64_t> start = sparse::ints(a.input_start);
  if (static_cast<int64_t>(start.size()) != rank) return a.ctx.error("input_start must have ", rank, " elements");
  if (a.backprop_val_grad.rank() != 1 || a.backprop_val_grad.dim(0) != out.dim(0)) {
    return a.ctx.error("backprop_val_grad must have one value per output index, got shape ",
                       a.backprop_val_grad.shape().to_string());
  }
  Tensor& g = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{in.dim(0)}, &g));
  T* o = g.template data<T>();
  std::fill(o, o + in.dim(0), T(0));
  const int64_t* pi = in.data<int64_t>();
  const int64_t* po = out.data<int64_t>();
  const T* b = a.backprop_val_grad.template data<T>();
  // The slice keeps the input's order: one walk matches each output row to its input row.
  int64_t j = 0;
  for (int64_t i = 0; i < in.dim(0) && j < out.dim(0); ++i) {
    bool same = true;
    for (int64_t d = 0; same && d < rank; ++d)
      // input - start == output, in wrapping (unsigned) arithmetic: a hostile start cannot overflow
      same = static_cast<uint64_t>(pi[i * rank + d]) - static_cast<uint64_t>(start[static_cast<size_t>(d)]) ==
             static_cast<uint64_t>(po[j * rank + d]);
    if (same) o[i] = b[j++];
  }
  if (j != out.dim(0)) return a.ctx.error("output_indices are not a slice of input_indices");
  return Status::OK();
}

Status SparseReshapeCpu(ops::SparseReshapeArgs& a) {
  if (a.input_indices.rank() != 2) {
    return a.ctx.error("Input indices should be a matrix but received shape ", a.input_indices.shape().to_string());
  }
  if (a.input_shape.rank() != 1 || a.new_shape.rank() != 1) {
    return a.ctx.error("Input shape and new shape should be vectors, got ", a.input_shape.shape().to_string(), " and ",
                       a.new_shape.shape().to_string());
  }
  const std::vector<int64_t> in_shape = sparse::ints(a.input_shape);
  std::vector<int64_t> out_shape = sparse::ints(a.new_shape);
  if (a.input_indices.dim(1) != static_cast<int64_t>(in_shape.size())) {
    return a.ctx.error("Input tensor rank (", in_shape.size(), ") and indices rank (", a.input_indices.dim(1),
                       ") do not match");
  }
  int64_t dense = 1, product = 1;
  int unknown = -1;
  for (int64_t d : in_shape) {
    if (d < 0 || __builtin_mul_overflow(dense, d, &dense)) {
      return a.ctx.error("Input shape ", Shape(in_shape).to_string(), " is not a valid shape");
    }
  }
  for (size_t d = 0; d < out_shape.size(); ++d) {
    if (out_shape[d] == -1) {
      if (unknown != -1) return a.ctx.error("only one output dimension may be -1, not both ", unknown, " and ", d);
      unknown = static_cast<int>(d);
    } else if (out_shape[d] < 0) {
      return a.ctx.error("size ", d, " must be non-negative, not ", out_shape[d]);
    } else if (__builtin_mul_overflow(product, out_shape[d], &product)) {
      return a.ctx.error("the new shape ", Shape(out_shape).to_string(), " has too many elements");
    }
  }
  if (unknown != -1) {
    if (product == 0 || dense % product != 0) {
      return a.ctx.error("Input to reshape is a SparseTensor with ", dense, " dense values, but the requested shape ",
                         "requires a multiple of ", product, ". inputs: ", Shape(in_shape).to_string(),
                         ", outputs: ", Shape(out_shape).to_string());
    }
    out_shape[static_cast<size_t>(unknown)] = dense / product;
    product = dense;
  }
  if (product != dense) {
    return a.ctx.error("Input to reshape is a tensor with ", dense, " dense values, but the requested shape has ",
                       product, ". inputs: ", Shape(in_shape).to_string(), ", outputs: ", Shape(out_shape).to_string());
  }
  const int64_t n = a.input_indices.dim(0);
  const int in_rank = static_cast<int>(in_shape.size()), out_rank = static_cast<int>(out_shape.size());
  const int64_t* ix = a.input_indices.data<int64_t>();
  std::vector<int64_t> rows(static_cast<size_t>(n * out_rank));
  for (int64_t i = 0; i < n; ++i) {
    int64_t pos = 0;
    for (int d = 0; d < in_rank; ++d) {
      const int64_t x = ix[i * in_rank + d];
      if (x < 0 || x >= in_shape[static_cast<size_t>(d)]) {
        return a.ctx.error("indices[", i, "] is out of bounds of the input shape ", Shape(in_shape).to_string());
      }
      pos = pos * in_shape[static_cast<size_t>(d)] + x;
    }
    for (int d = out_rank - 1; d >= 0; --d) {
      rows[static_cast<size_t>(i * out_rank + d)] = pos % out_shape[static_cast<size_t>(d)];
      pos /= out_shape[static_cast<size_t>(d)];
    }
  }
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, n, out_rank, &a.ctx.output(0)));
  return sparse::int64_vector(out_shape, &a.ctx.output(1));
}

template <typename T>
Status SparseSplitCpu(ops::SparseSplitArgs& a) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.indices, a.values, a.shape, &v));
  if (a.split_dim.num_elements() != 1) return a.ctx.error("split_dim should be a scalar");
  const int64_t raw = sparse::ints(a.split_dim)[0];
  const int64_t dim = raw < 0 ? raw + v.rank : raw;
  if (dim < 0 || dim >= v.rank) {
    return a.ctx.error("Input split_dim should be between ", -v.rank, " and ", v.rank, ", got ", raw);
  }
  const int64_t size = v.shape[static_cast<size_t>(dim)], parts = a.num_split;
  if (parts < 1 || parts > size) {
    return a.ctx.error("Input num_split should be between 1 and the splitting dimension size (", size, "), got ",
                       parts);
  }
  OPF_RETURN_IF_ERROR(sparse::check_bounds(a.ctx, v));
  const int64_t base = size / parts, extra = size % parts;
  auto part_of = [&](int64_t x) {  // the first `extra` parts are one larger
    return x < extra * (base + 1) ? x / (base + 1) : extra + (x - extra * (base + 1)) / base;
  };
  auto part_start = [&](int64_t p) { return p < extra ? p * (base + 1) : extra * (base + 1) + (p - extra) * base; };
  std::vector<std::vector<int64_t>> from(static_cast<size_t>(parts)), rows(static_cast<size_t>(parts));
  for (int64_t i = 0; i < v.n; ++i) {
    const int64_t p = part_of(v.at(i, static_cast<int>(dim)));
    from[static_cast<size_t>(p)].push_back(i);
    for (int d = 0; d < v.rank; ++d)
      rows[static_cast<size_t>(p)].push_back(v.at(i, d) - (d == dim ? part_start(p) : 0));
  }
  for (int64_t p = 0; p < parts; ++p) {
    std::vector<int64_t> shape = v.shape;
    shape[static_cast<size_t>(dim)] = base + (p < extra ? 1 : 0);
    const int64_t count = static_cast<int64_t>(from[static_cast<size_t>(p)].size());
    OPF_RETURN_IF_ERROR(
        sparse::int64_matrix(rows[static_cast<size_t>(p)], count, v.rank, &a.ctx.output(static_cast<int>(p))));
    OPF_RETURN_IF_ERROR(
        sparse::pick(a.values, from[static_cast<size_t>(p)], nullptr, &a.ctx.output(static_cast<int>(parts + p))));
    OPF_RETURN_IF_ERROR(sparse::int64_vector(shape, &a.ctx.output(static_cast<int>(2 * parts + p))));
  }
  return Status::OK();
}

template <typename T>
Status SparseFillEmptyRowsBody(ops::SparseFillEmptyRowsArgs& a) {
  if (a.dense_shape.rank() != 1 || a.dense_shape.num_elements() < 1) {
    return a.ctx.error("dense_shape must be a non-empty vector, got shape ", a.dense_shape.shape().to_string());
  }
  if (a.default_value.rank() != 0) {
    return a.ctx.error("default_value must be a scalar, got shape ", a.default_value.shape().to_string());
  }
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.indices, a.values, a.dense_shape, &v));
  const int64_t rows = v.shape[0];
  OPF_RETURN_IF_ERROR(cpu::check_allocation("SparseFillEmptyRows", rows, 3 * sizeof(int64_t)));
  std::vector<int64_t> count(static_cast<size_t>(rows), 0);
  for (int64_t i = 0; i < v.n; ++i) {
    const int64_t r = v.at(i, 0);
    if (r < 0 || r >= rows) return a.ctx.error("indices(", i, ", 0) is invalid: ", r, " is not in [0, ", rows, ")");
    ++count[static_cast<size_t>(r)];
  }
  // Output layout: per row, its values in input order, or one default value if it has none.
  std::vector<int64_t> start(static_cast<size_t>(rows) + 1, 0);
  for (int64_t r = 0; r < rows; ++r)
    start[static_cast<size_t>(r) + 1] =
        start[static_cast<size_t>(r)] + std::max<int64_t>(count[static_cast<size_t>(r)], 1);
  const int64_t total = start[static_cast<size_t>(rows)];
  std::vector<int64_t> out_rows(static_cast<size_t>(total * v.rank), 0), from(static_cast<size_t>(total), -1);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape{v.n}, &a.ctx.output(3)));
  int64_t* reverse = a.ctx.output(3).data<int64_t>();
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < v.n; ++i) {
    const int64_t o = next[static_cast<size_t>(v.at(i, 0))]++;
    std::copy(v.ix + i * v.rank, v.ix + (i + 1) * v.rank, out_rows.begin() + o * v.rank);
    from[static_cast<size_t>(o)] = i;
    reverse[i] = o;
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, Shape{rows}, &a.ctx.output(2)));
  bool* empty = a.ctx.output(2).data<bool>();
  for (int64_t r = 0; r < rows; ++r) {
    empty[r] = count[static_cast<size_t>(r)] == 0;
    if (empty[r]) out_rows[static_cast<size_t>(start[static_cast<size_t>(r)] * v.rank)] = r;
  }
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(out_rows, total, v.rank, &a.ctx.output(0)));
  return sparse::pick(a.values, from, &a.default_value, &a.ctx.output(1));
}

template <typename T>
Status SparseFillEmptyRowsCpu(ops::SparseFillEmptyRowsArgs& a) {
  return sparse::guarded("SparseFillEmptyRows", [&] { return SparseFillEmptyRowsBody<T>(a); });
}

template <typename T>
Status SparseFillEmptyRowsGradCpu(ops::SparseFillEmptyRowsGradArgs& a) {
  if (a.reverse_index_map.rank() != 1 || a.grad_values.rank() != 1) {
    return a.ctx.error("reverse_index_map and grad_values must be vectors, got ",
                       a.reverse_index_map.shape().to_string(), " and ", a.grad_values.shape().to_string());
  }
  const int64_t n = a.reverse_index_map.dim(0), m = a.grad_values.dim(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{n}, &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{}, &a.ctx.output(1)));
  const int64_t* map = a.reverse_index_map.data<int64_t>();
  const T* g = a.grad_values.template data<T>();
  T* dv = a.ctx.output(0).template data<T>();
  std::vector<bool> taken(static_cast<size_t>(m), false);
  for (int64_t i = 0; i < n; ++i) {
    if (map[i] < 0 || map[i] >= m)
      return a.ctx.error("Invalid reverse_index_map[", i, "] = ", map[i], ": not in [0, ", m, ")");
    dv[i] = g[map[i]];
    taken[static_cast<size_t>(map[i])] = true;
  }
  compute_t<T> rest = 0;
  for (int64_t k = 0; k < m; ++k) {
    if (!taken[static_cast<size_t>(k)]) rest += static_cast<compute_t<T>>(g[k]);
  }
  a.ctx.output(1).template data<T>()[0] = static_cast<T>(rest);
  return Status::OK();
}

template <typename T>
Status SparseTensorDenseMatMulCpu(ops::SparseTensorDenseMatMulArgs& a) {
  if (a.a_indices.rank() != 2 || a.a_indices.dim(1) != 2) {
    return a.ctx.error("Tensor 'a_indices' is not a matrix of 2 columns: shape ", a.a_indices.shape().to_string());
  }
  if (a.a_values.rank() != 1 || a.a_values.dim(0) != a.a_indices.dim(0)) {
    return a.ctx.error("Number of rows of a_indices does not match number of entries in a_values");
  }
  const std::vector<int64_t> shape = sparse::ints(a.a_shape);
  if (a.a_shape.rank() != 1 || shape.size() != 2) {
    return a.ctx.error("Tensor 'a_shape' is not a vector of 2 elements: shape ", a.a_shape.shape().to_string());
  }
  if (a.b.rank() != 2) return a.ctx.error("Tensor 'b' is not a matrix: shape ", a.b.shape().to_string());
  const int64_t m = a.adjoint_a ? shape[1] : shape[0], k = a.adjoint_a ? shape[0] : shape[1];
  const int64_t bk = a.adjoint_b ? a.b.dim(1) : a.b.dim(0), n = a.adjoint_b ? a.b.dim(0) : a.b.dim(1);
  if (k != bk) {
    return a.ctx.error("Cannot multiply A and B because inner dimension does not match: ", k, " vs. ", bk,
                       ".  Did you forget a transpose?  Dimensions of A: [", shape[0], ", ", shape[1],
                       ").  Dimensions of B: ", a.b.shape().to_string());
  }
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{m, n}, &out));
  std::vector<compute_t<T>> acc(static_cast<size_t>(m * n), compute_t<T>(0));
  const std::vector<int64_t> ix = sparse::ints(a.a_indices);
  const T* v = a.a_values.template data<T>();
  const T* b = a.b.template data<T>();
  const int64_t bcols = a.b.dim(1);
  for (int64_t e = 0; e < a.a_indices.dim(0); ++e) {
    const int64_t r0 = ix[static_cast<size_t>(2 * e)], c0 = ix[static_cast<size_t>(2 * e + 1)];
    const int64_t row = a.adjoint_a ? c0 : r0, col = a.adjoint_a ? r0 : c0;
    if (row < 0 || row >= m) return a.ctx.error("Row index ", row, " from index[", e, "] out of bounds (>=", m, ")");
    if (col < 0 || col >= k) return a.ctx.error("k (", col, ") from index[", e, "] out of bounds (>=", k, ")");
    const compute_t<T> x = static_cast<compute_t<T>>(v[e]);
    compute_t<T>* o = acc.data() + row * n;
    for (int64_t j = 0; j < n; ++j) {
      o[j] += x * static_cast<compute_t<T>>(a.adjoint_b ? b[j * bcols + col] : b[col * bcols + j]);
    }
  }
  T* o = out.template data<T>();
  for (size_t q = 0; q < acc.size(); ++q) o[q] = static_cast<T>(acc[q]);
  return Status::OK();
}

}  // namespace

#define OPF_SPARSE_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag
#define OPF_SPARSE_NUM bfloat16, half, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseConcat, CPU, SparseConcatCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSlice, CPU, SparseSliceCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSliceGrad, CPU, SparseSliceGradCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(SparseReshape, CPU, SparseReshapeCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSplit, CPU, SparseSplitCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseFillEmptyRows, CPU, SparseFillEmptyRowsCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseFillEmptyRowsGrad, CPU, SparseFillEmptyRowsGradCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseTensorDenseMatMul, CPU, SparseTensorDenseMatMulCpu, half, float, double,
                                   int32_t, int64_t)
#undef OPF_SPARSE_ALL
#undef OPF_SPARSE_NUM

}  // namespace opforge
