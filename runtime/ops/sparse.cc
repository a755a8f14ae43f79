// The shape functions of the sparse ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <cstdint>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// ---- sparse_to_dense (the kernel: kernels/cpu/sparse/sparse_to_dense.cc)

// The output is output_shape's value where known, else of its length's rank.
Status SparseToDenseShape(ShapeContext& c) {
  std::vector<int64_t> shape;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &shape, &known));
  if (known) {
    c.set_output(0, Shape(shape));
    return Status::OK();
  }
  const Shape& s = c.input_shape(1);
  c.set_output(
      0, s.unknown_rank() || s.rank() != 1 ? Shape::UnknownRank() : array::unknown_dims(static_cast<int>(s.dim(0))));
  return Status::OK();
}

// ---- sparse_reorder: the outputs have the inputs' shapes.
Status SparseReorderShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(0));
  c.set_output(1, c.input_shape(1));
  return Status::OK();
}

[[maybe_unused]] const bool sparse_shapes_registered = [] {
  shape_fns::register_custom("SparseToDense", SparseToDenseShape);
  shape_fns::register_custom("SparseReorder", SparseReorderShape);
  return true;
}();

// ---- the SparseTensor ops of kernels/cpu/sparse/sparse_{binary,reduce,layout}.cc

// The rank of a SparseTensor from its indices [n, rank] or its dense shape [rank].
int64_t sparse_rank(ShapeContext& c, int indices, int shape) {
  const Shape& i = c.input_shape(indices);
  if (!i.unknown_rank() && i.rank() == 2 && i.dim(1) >= 0) return i.dim(1);
  const Shape& s = c.input_shape(shape);
  if (!s.unknown_rank() && s.rank() == 1) return s.dim(0);
  return Shape::kUnknownDim;
}

// Sets outputs first.. to a SparseTensor's indices [?, rank], values [?] (and shape [rank]).
void sparse_outputs(ShapeContext& c, int first, int64_t rank, bool with_shape = true) {
  c.set_output(first, Shape{Shape::kUnknownDim, rank});
  c.set_output(first + 1, Shape{Shape::kUnknownDim});
  if (with_shape) c.set_output(first + 2, Shape{rank});
}

// Dim 0 of input `arg` (unknown if its rank is not known).
int64_t dim0(ShapeContext& c, int arg) {
  const Shape& s = c.input_shape(arg);
  return s.unknown_rank() || s.rank() < 1 ? Shape::kUnknownDim : s.dim(0);
}

Status SparseAddShape(ShapeContext& c) {
  sparse_outputs(c, 0, sparse_rank(c, 0, 2));
  return Status::OK();
}

Status SparseSparseMinMaxShape(ShapeContext& c) {
  sparse_outputs(c, 0, sparse_rank(c, 0, 2), false);
  return Status::OK();
}

Status SparseAddGradShape(ShapeContext& c) {
  c.set_output(0, Shape{dim0(c, 1)});
  c.set_output(1, Shape{dim0(c, 2)});
  return Status::OK();
}

Status SparseConcatShape(ShapeContext& c) {
  int64_t rank = Shape::kUnknownDim;
  for (int k = 0; k < c.num_inputs(0) && rank < 0; ++k) {
    const Shape& s = c.input_shape(0, k);
    if (!s.unknown_rank() && s.rank() == 2) rank = s.dim(1);
  }
  sparse_outputs(c, 0, rank);
  return Status::OK();
}

// Like the input's values: one output value per sparse value.
Status LikeValuesShape(ShapeContext& c) {
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

Status SparseReduceShape(ShapeContext& c) {
  const bool keep = c.attr(c.op().attr_index("keep_dims")).b;
  std::vector<int64_t> shape, axes;
  bool shape_known = false, axes_known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &shape, &shape_known));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 3, &axes, &axes_known));
  const int64_t rank = shape_known ? static_cast<int64_t>(shape.size()) : sparse_rank(c, 0, 2);
  if (axes_known && rank >= 0) {
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t raw : axes) {
      const int64_t d = raw < 0 ? raw + rank : raw;
      if (d < 0 || d >= rank)
        return c.error("Invalid reduction dimension ", raw, ", for input with ", rank, " dimensions.");
      reduced[static_cast<size_t>(d)] = true;
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[static_cast<size_t>(d)]) {
        dims.push_back(shape_known ? shape[static_cast<size_t>(d)] : Shape::kUnknownDim);
      } else if (keep) {
        dims.push_back(1);
      }
    }
    c.set_output(0, Shape(dims));
  } else {
    c.set_output(0, keep && rank >= 0 ? array::unknown_dims(static_cast<int>(rank)) : Shape::UnknownRank());
  }
  return Status::OK();
}

Status SparseReduceSparseShape(ShapeContext& c) {
  sparse_outputs(c, 0, Shape::kUnknownDim);
  return Status::OK();
}

Status SparseTensorDenseMatMulShape(ShapeContext& c) {
  const bool adj_a = c.attr(c.op().attr_index("adjoint_a")).b, adj_b = c.attr(c.op().attr_index("adjoint_b")).b;
  std::vector<int64_t> shape;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &shape, &known));
  const int64_t m = known && shape.size() == 2 ? shape[adj_a ? 1 : 0] : Shape::kUnknownDim;
  const Shape& b = c.input_shape(3);
  if (!b.unknown_rank() && b.rank() != 2) return c.error("Tensor 'b' is not a matrix: shape ", b.to_string());
  const int64_t n = b.unknown_rank() ? Shape::kUnknownDim : b.dim(adj_b ? 0 : 1);
  c.set_output(0, Shape{m, n});
  return Status::OK();
}

Status SparseFillEmptyRowsShape(ShapeContext& c) {
  std::vector<int64_t> shape;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &shape, &known));
  sparse_outputs(c, 0, sparse_rank(c, 0, 2), false);
  c.set_output(2, Shape{known && !shape.empty() ? shape[0] : Shape::kUnknownDim});
  c.set_output(3, Shape{dim0(c, 0)});
  return Status::OK();
}

Status SparseFillEmptyRowsGradShape(ShapeContext& c) {
  c.set_output(0, Shape{dim0(c, 0)});
  c.set_output(1, Shape{});
  return Status::OK();
}

Status SparseSliceShape(ShapeContext& c) {
  sparse_outputs(c, 0, sparse_rank(c, 0, 2));
  return Status::OK();
}

Status SparseSliceGradShape(ShapeContext& c) {
  c.set_output(0, Shape{dim0(c, 1)});
  return Status::OK();
}

Status SparseReshapeShape(ShapeContext& c) {
  const int64_t rank = dim0(c, 2);
  c.set_output(0, Shape{dim0(c, 0), rank});
  c.set_output(1, Shape{rank});
  return Status::OK();
}

Status SparseSplitShape(ShapeContext& c) {
  const int64_t parts = c.attr(c.op().attr_index("num_split")).i;
  const int64_t rank = sparse_rank(c, 1, 3);
  for (int64_t p = 0; p < parts; ++p) {
    c.set_output(static_cast<int>(p), Shape{Shape::kUnknownDim, rank});
    c.set_output(static_cast<int>(parts + p), Shape{Shape::kUnknownDim});
    c.set_output(static_cast<int>(2 * parts + p), Shape{rank});
  }
  return Status::OK();
}

// The segment ops: [rows] + data.shape[1:], rows from input `rows_arg` when known (-1: unknown).
Status segment_shape(ShapeContext& c, int rows_arg) {
  const Shape& data = c.input_shape(0);
  if (data.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (data.rank() < 1) return c.error("data must be at least 1-D, got shape ", data.to_string());
  std::vector<int64_t> rows;
  bool known = false;
  if (rows_arg >= 0) OPF_RETURN_IF_ERROR(array::known_ints(c, rows_arg, &rows, &known));
  std::vector<int64_t> dims = data.dims();
  dims[0] = known && rows.size() == 1 ? rows[0] : Shape::kUnknownDim;
  c.set_output(0, Shape(dims));
  return Status::OK();
}

Status SegmentShape(ShapeContext& c) { return segment_shape(c, -1); }
Status SegmentWithNumShape(ShapeContext& c) { return segment_shape(c, 3); }

[[maybe_unused]] const bool sparse_tensor_shapes_registered = [] {
  shape_fns::register_custom("SparseAdd", SparseAddShape);
  shape_fns::register_custom("SparseAddGrad", SparseAddGradShape);
  shape_fns::register_custom("SparseSparseMaximum", SparseSparseMinMaxShape);
  shape_fns::register_custom("SparseSparseMinimum", SparseSparseMinMaxShape);
  shape_fns::register_custom("SparseTensorDenseAdd", [](ShapeContext& c) {
    c.set_output(0, c.input_shape(3));
    return Status::OK();
  });
  for (const char* op : {"SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseDenseCwiseAdd", "SparseSoftmax"}) {
    shape_fns::register_custom(op, LikeValuesShape);
  }
  shape_fns::register_custom("SparseConcat", SparseConcatShape);
  shape_fns::register_custom("SerializeSparse", [](ShapeContext& c) {
    c.set_output(0, Shape{3});
    return Status::OK();
  });
  shape_fns::register_custom("SerializeManySparse", [](ShapeContext& c) {  // [dense_shape[0], 3]
    std::vector<int64_t> shape;
    bool known = false;
    OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &shape, &known));
    c.set_output(0, Shape{known && !shape.empty() ? shape[0] : Shape::kUnknownDim, 3});
    return Status::OK();
  });
  shape_fns::register_custom("DeserializeManySparse", [](ShapeContext& c) {
    sparse_outputs(c, 0, Shape::kUnknownDim);
    return Status::OK();
  });
  for (const char* op : {"SparseCross", "SparseCrossV2"}) {  // a SparseTensor of rank 2
    shape_fns::register_custom(op, [](ShapeContext& c) {
      sparse_outputs(c, 0, 2);
      return Status::OK();
    });
  }
  shape_fns::register_custom("SparseReduceSum", SparseReduceShape);
  shape_fns::register_custom("SparseReduceMax", SparseReduceShape);
  shape_fns::register_custom("SparseReduceSumSparse", SparseReduceSparseShape);
  shape_fns::register_custom("SparseReduceMaxSparse", SparseReduceSparseShape);
  shape_fns::register_custom("SparseTensorDenseMatMul", SparseTensorDenseMatMulShape);
  shape_fns::register_custom("SparseFillEmptyRows", SparseFillEmptyRowsShape);
  shape_fns::register_custom("SparseFillEmptyRowsGrad", SparseFillEmptyRowsGradShape);
  shape_fns::register_custom("SparseSlice", SparseSliceShape);
  shape_fns::register_custom("SparseSliceGrad", SparseSliceGradShape);
  shape_fns::register_custom("SparseReshape", SparseReshapeShape);
  shape_fns::register_custom("SparseSplit", SparseSplitShape);
  for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"}) {
    shape_fns::register_custom(op, SegmentShape);
  }
  for (const char* op :
       {"SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments",
        "SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"}) {
    shape_fns::register_custom(op, SegmentWithNumShape);
  }
  return true;
}();

}  // namespace
}  // namespace opforge
