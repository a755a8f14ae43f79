// The shape functions of the Unicode string ops (the kernels: kernels/cpu/strings/unicode_ops.cc)
// and of the ragged ops (kernels/cpu/ragged/).
#include <cstdint>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// UnicodeDecode(WithOffsets): splits [num_elements(input) + 1], then vectors of characters.
Status UnicodeDecodeShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const int64_t rows = in.fully_defined() ? in.num_elements() + 1 : Shape::kUnknownDim;
  c.set_output(0, Shape{rows});
  for (int i = 1; i < c.num_outputs(); ++i) c.set_output(i, Shape{Shape::kUnknownDim});
  return Status::OK();
}

// UnicodeEncode: one string per row, [len(input_splits) - 1].
Status UnicodeEncodeShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& splits = c.input_shape(1);
  const int64_t n = splits.unknown_rank() || splits.dim(0) < 0 ? Shape::kUnknownDim : splits.dim(0) - 1;
  c.set_output(0, Shape{n});
  return Status::OK();
}

// RaggedRange: splits [nrows + 1] (nrows from whichever input is a vector), values [?].
Status RaggedRangeShape(ShapeContext& c) {
  int64_t rows = 1;
  for (int i = 0; i < 3; ++i) {
    const Shape& s = c.input_shape(i);
    if (s.unknown_rank()) {
      rows = Shape::kUnknownDim;
      continue;
    }
    if (s.rank() > 1)
      return c.error("starts, limits and deltas must each be a scalar or vector, got shape ", s.to_string());
    if (s.rank() == 1 && rows != Shape::kUnknownDim) rows = s.dim(0);
  }
  c.set_output(0, Shape{rows == Shape::kUnknownDim ? rows : rows + 1});
  c.set_output(1, Shape{Shape::kUnknownDim});
  return Status::OK();
}

// RaggedFillEmptyRows: [?] rowids and values, [nrows] indicator, [len(values)] reverse map.
Status RaggedFillEmptyRowsShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 3, 0, "a scalar"));
  std::vector<int64_t> nrows;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &nrows, &known));
  const Shape& values = c.input_shape(1);
  c.set_output(0, Shape{Shape::kUnknownDim});
  c.set_output(1, Shape{Shape::kUnknownDim});
  c.set_output(2, Shape{known && nrows.size() == 1 ? nrows[0] : Shape::kUnknownDim});
  c.set_output(3, Shape{values.unknown_rank() ? Shape::kUnknownDim : values.dim(0)});
  return Status::OK();
}

// RaggedFillEmptyRowsGrad: d_values like reverse_index_map, d_default_value a scalar.
Status RaggedFillEmptyRowsGradShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  c.set_output(0, c.input_shape(0));
  c.set_output(1, Shape{});
  return Status::OK();
}

[[maybe_unused]] const bool unicode_shapes_registered = [] {
  shape_fns::register_custom("RaggedFillEmptyRows", RaggedFillEmptyRowsShape);
  shape_fns::register_custom("RaggedFillEmptyRowsGrad", RaggedFillEmptyRowsGradShape);
  shape_fns::register_custom("RaggedRange", RaggedRangeShape);
  shape_fns::register_custom("UnicodeDecode", UnicodeDecodeShape);
  shape_fns::register_custom("UnicodeDecodeWithOffsets", UnicodeDecodeShape);
  shape_fns::register_custom("UnicodeEncode", UnicodeEncodeShape);
  return true;
}();

}  // namespace
}  // namespace opforge
