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

}  // namespace
}  // namespace opforge
