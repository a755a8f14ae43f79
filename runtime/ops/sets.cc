// The shape functions of the set ops (SetSize, DenseToDense/DenseToSparse/SparseToSparse
// SetOperation; the kernels: kernels/cpu/sparse/set_ops.cc).
#include <cstdint>

#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// The rank a dense set input says (-1: unknown); it must be at least 2.
Status dense_rank(ShapeContext& c, int input, int64_t* rank) {
  const Shape& s = c.input_shape(input);
  if (s.unknown_rank()) return Status::OK();
  if (s.rank() < 2) return c.error("a set input must have rank >= 2, got shape ", s.to_string());
  *rank = s.rank();
  return Status::OK();
}

// The rank a SparseTensor's dense-shape vector (input `shape`) says, -1 when unknown.
Status sparse_rank(ShapeContext& c, int shape, int64_t* rank) {
  const Shape& s = c.input_shape(shape);
  if (s.unknown_rank() || s.dim(0) < 0) return Status::OK();
  if (s.rank() != 1) return c.error("a SparseTensor's shape must be a vector, got shape ", s.to_string());
  if (s.dim(0) < 2) return c.error("a set input must have rank >= 2, got rank ", s.dim(0));
  if (*rank >= 0 && *rank != s.dim(0)) return c.error("the two sets have ranks ", *rank, " and ", s.dim(0));
  *rank = s.dim(0);
  return Status::OK();
}

Status set_result(ShapeContext& c, int64_t rank) {
  c.set_output(0, Shape({-1, rank}));
  c.set_output(1, Shape({-1}));
  c.set_output(2, Shape({rank}));
  return Status::OK();
}

[[maybe_unused]] const bool set_shapes_registered = [] {
  shape_fns::register_custom("SetSize", [](ShapeContext& c) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  });
  shape_fns::register_custom("DenseToDenseSetOperation", [](ShapeContext& c) {
    int64_t r1 = -1, r2 = -1;
    OPF_RETURN_IF_ERROR(dense_rank(c, 0, &r1));
    OPF_RETURN_IF_ERROR(dense_rank(c, 1, &r2));
    if (r1 >= 0 && r2 >= 0 && r1 != r2) return c.error("the two sets have ranks ", r1, " and ", r2);
    return set_result(c, r1 >= 0 ? r1 : r2);
  });
  shape_fns::register_custom("DenseToSparseSetOperation", [](ShapeContext& c) {
    int64_t rank = -1;
    OPF_RETURN_IF_ERROR(dense_rank(c, 0, &rank));
    OPF_RETURN_IF_ERROR(sparse_rank(c, 3, &rank));
    return set_result(c, rank);
  });
  shape_fns::register_custom("SparseToSparseSetOperation", [](ShapeContext& c) {
    int64_t rank = -1;
    OPF_RETURN_IF_ERROR(sparse_rank(c, 2, &rank));
    OPF_RETURN_IF_ERROR(sparse_rank(c, 5, &rank));
    return set_result(c, rank);
  });
  return true;
}();

}  // namespace
}  // namespace opforge
