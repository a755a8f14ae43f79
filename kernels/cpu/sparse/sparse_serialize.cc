// SerializeSparse, SerializeManySparse and DeserializeManySparse: SparseTensors as three of
// TensorFlow's serialized TensorProtos (indices, values, shape), byte for byte as TensorFlow
// writes them (cpu/parsing/tensor_proto.h).
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/parsing/tensor_proto.h"
#include "cpu/sparse/sparse_util.h"
#include "opforge/ops/sparse/deserialize_many_sparse.h"
#include "opforge/ops/sparse/serialize_many_sparse.h"
#include "opforge/ops/sparse/serialize_sparse.h"

namespace opforge {
namespace {

// The serialized SparseTensor (3 strings), or with `many` one per row of the first dimension
// ([rows, 3]: each the values whose first index is that row, without the first column).
Status serialize_rows(KernelContext& ctx, const sparse::View& v, const Tensor& values, bool many) {
  if (!many) {
    std::vector<std::string> out{tensor_proto::encode(ctx.input(0), {v.n, v.rank}, 0, v.n * v.rank),
                                 tensor_proto::encode(values, {v.n}, 0, v.n),
                                 tensor_proto::encode(ctx.input(2), {v.rank}, 0, v.rank)};
    return Tensor::FromStrings(Shape{3}, std::move(out), &ctx.output(0));
  }
  if (v.rank < 2) return ctx.error("Rank of input SparseTensor should be > 1, but saw rank: ", v.rank);
  const int64_t rows = v.shape[0];
  OPF_RETURN_IF_ERROR(
      cpu::check_allocation("SerializeManySparse", rows, sizeof(std::vector<int64_t>) + 3 * sizeof(std::string)));
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(rows));
  for (int64_t i = 0; i < v.n; ++i) {
    const int64_t r = v.at(i, 0);
    if (r < 0 || r >= rows)
      return ctx.error("indices[", i, "] = ", sparse::row_string(v, i), " is out of bounds: need 0 <= index < ",
                       Shape(v.shape).to_string());
    members[static_cast<size_t>(r)].push_back(i);
  }
  Tensor sub_shape;
  OPF_RETURN_IF_ERROR(sparse::int64_vector(std::vector<int64_t>(v.shape.begin() + 1, v.shape.end()), &sub_shape));
  std::vector<std::string> out;
  for (int64_t r = 0; r < rows; ++r) {
    const auto& m = members[static_cast<size_t>(r)];
    const int64_t n = static_cast<int64_t>(m.size());
    std::vector<int64_t> rows_ix;
    for (int64_t i : m) rows_ix.insert(rows_ix.end(), v.ix + i * v.rank + 1, v.ix + (i + 1) * v.rank);
    Tensor ix, vals;
    OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows_ix, n, v.rank - 1, &ix));
    OPF_RETURN_IF_ERROR(sparse::pick(values, m, nullptr, &vals));
    out.push_back(tensor_proto::encode(ix, {n, v.rank - 1}, 0, n * (v.rank - 1)));
    out.push_back(tensor_proto::encode(vals, {n}, 0, n));
    out.push_back(tensor_proto::encode(sub_shape, {v.rank - 1}, 0, v.rank - 1));
  }
  return Tensor::FromStrings(Shape{rows, 3}, std::move(out), &ctx.output(0));
}

template <typename T>
Status SerializeSparseCpu(ops::SerializeSparseArgs& a) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.sparse_indices, a.sparse_values, a.sparse_shape, &v));
  return serialize_rows(a.ctx, v, a.sparse_values, false);
}

template <typename T>
Status SerializeManySparseCpu(ops::SerializeManySparseArgs& a) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.sparse_indices, a.sparse_values, a.sparse_shape, &v));
  return sparse::guarded("SerializeManySparse", [&] { return serialize_rows(a.ctx, v, a.sparse_values, true); });
}

using tensor_proto::decode;
using tensor_proto::Decoded;
using tensor_proto::elements;

template <typename T>
Status DeserializeManySparseBody(ops::DeserializeManySparseArgs& a) {
  const Tensor& in = a.serialized_sparse;
  if (in.rank() != 2 || in.dim(1) != 3) {
    return a.ctx.error("Serialized sparse should be a matrix of 3 columns, got shape ", in.shape().to_string());
  }
  const int64_t rows = in.dim(0);
  if (rows == 0) {
    return a.ctx.error("Serialized sparse should have at least 1 serialized tensor, but has a zero dimension ",
                       in.shape().to_string());
  }
  const std::vector<std::string>& s = *in.strings();
  int64_t rank = -1;
  std::vector<int64_t> out_shape{rows}, out_rows;
  std::string raw;
  std::vector<std::string> strs;
  for (int64_t r = 0; r < rows; ++r) {
    Decoded ix, vals, shape;
    if (!decode(s[static_cast<size_t>(3 * r)], &ix) || !decode(s[static_cast<size_t>(3 * r + 1)], &vals) ||
        !decode(s[static_cast<size_t>(3 * r + 2)], &shape)) {
      return a.ctx.error("Could not parse serialized_sparse[", r, "]: not TensorProtos");
    }
    std::string ix_raw, shape_raw;
    if (ix.dims.size() != 2 || shape.dims.size() != 1 || !elements(ix, DType::kInt64, &ix_raw, nullptr) ||
        !elements(shape, DType::kInt64, &shape_raw, nullptr)) {
      return a.ctx.error("serialized_sparse[", r, "] does not hold int64 indices [n, rank] and an int64 shape [rank]");
    }
    const int64_t n = ix.dims[0], rr = ix.dims[1];
    if (shape.dims[0] != rr)
      return a.ctx.error("serialized_sparse[", r, "]: indices of rank ", rr, " and a shape of ", shape.dims[0],
                         " dimensions");
    if (rank >= 0 && rr != rank) {
      return a.ctx.error("Inconsistent rank across SparseTensors: rank prior to SparseTensor[", r, "] was: ", rank,
                         " but rank of SparseTensor[", r, "] is: ", rr);
    }
    if (rank < 0) {
      rank = rr;
      out_shape.resize(static_cast<size_t>(rank + 1), 0);
    }
    if (vals.dims.size() != 1 || vals.dims[0] != n) {
      return a.ctx.error("serialized_sparse[", r, "] has ", n, " indices but values of another shape");
    }
    if (!elements(vals, a.dtype, &raw, &strs)) {
      return a.ctx.error("Requested SparseTensor of type ", dtype_name(a.dtype), " but SparseTensor[", r,
                         "].values.dtype() == ", vals.dtype, " (TensorFlow's DataType number), or malformed values");
    }
    const int64_t* dims = reinterpret_cast<const int64_t*>(shape_raw.data());
    for (int64_t d = 0; d < rank; ++d)
      out_shape[static_cast<size_t>(d + 1)] = std::max(out_shape[static_cast<size_t>(d + 1)], dims[d]);
    const int64_t* p = reinterpret_cast<const int64_t*>(ix_raw.data());
    for (int64_t i = 0; i < n; ++i) {
      out_rows.push_back(r);
      out_rows.insert(out_rows.end(), p + i * rank, p + (i + 1) * rank);
    }
  }
  if (rank < 0) rank = 0;
  const int64_t total = static_cast<int64_t>(out_rows.size()) / (rank + 1);
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(out_rows, total, rank + 1, &a.ctx.output(0)));
  if (a.dtype == DType::kString) {
    OPF_RETURN_IF_ERROR(Tensor::FromStrings(Shape{total}, std::move(strs), &a.ctx.output(1)));
  } else {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(a.dtype, Shape{total}, &a.ctx.output(1)));
    if (!raw.empty()) std::memcpy(a.ctx.output(1).raw_data(), raw.data(), raw.size());
  }
  return sparse::int64_vector(out_shape, &a.ctx.output(2));
}

template <typename T>
Status DeserializeManySparseCpu(ops::DeserializeManySparseArgs& a) {
  return sparse::guarded("DeserializeManySparse", [&] { return DeserializeManySparseBody<T>(a); });
}

}  // namespace

#define OPF_SPARSE_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag
OPFORGE_REGISTER_FORWARDING_KERNEL(SerializeSparse, CPU, SerializeSparseCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(SerializeManySparse, CPU, SerializeManySparseCpu, OPF_SPARSE_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(DeserializeManySparse, CPU, DeserializeManySparseCpu, OPF_SPARSE_ALL)
#undef OPF_SPARSE_ALL

}  // namespace opforge
