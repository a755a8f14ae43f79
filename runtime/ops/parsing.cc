// The shape functions of the parsing ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// ---- decode_csv (the kernels: kernels/cpu/parsing/decode_csv.cc)

Status DecodeCSVShape(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(0));
  return Status::OK();
}

[[maybe_unused]] const bool decode_csv_shape_registered = [] {
  shape_fns::register_custom("DecodeCSV", DecodeCSVShape);
  return true;
}();

// ---- example parsing (the kernels: kernels/cpu/parsing/parse_example.cc)

// Sets the outputs of the parsing ops for a batch of shape `batch` (a scalar or a vector, or
// unknown): per sparse feature indices [?, rank + 1], values [?], dense shape [rank + 1]; per
// dense feature batch + its shape (a variable-length one: batch + [?] + the rest); per ragged
// feature values [?] and row splits [batch + 1] ([0] for a scalar batch).
Status example_outputs(ShapeContext& c, const Shape& batch, int num_sparse, const std::vector<Shape>& dense_shapes,
                       int num_ragged) {
  if (!batch.unknown_rank() && batch.rank() > 1) {
    return c.error("Expected serialized to be a scalar or vector, got shape: ", batch.to_string());
  }
  const int64_t index_cols = batch.unknown_rank() ? Shape::kUnknownDim : batch.rank() + 1;
  const int num_dense = static_cast<int>(dense_shapes.size());
  if (c.num_outputs() != 3 * num_sparse + num_dense + 2 * num_ragged) {
    return c.error("expected ", 3 * num_sparse + num_dense + 2 * num_ragged, " outputs, got ", c.num_outputs());
  }
  int out = 0;
  for (int k = 0; k < num_sparse; ++k) {
    c.set_output(out + k, Shape{Shape::kUnknownDim, index_cols});
    c.set_output(out + num_sparse + k, Shape{Shape::kUnknownDim});
    c.set_output(out + 2 * num_sparse + k, Shape{index_cols});
  }
  out += 3 * num_sparse;
  for (int d = 0; d < num_dense; ++d) {
    const Shape& s = dense_shapes[static_cast<size_t>(d)];
    if (batch.unknown_rank() || s.unknown_rank()) {
      c.set_output(out + d, Shape::UnknownRank());
      continue;
    }
    std::vector<int64_t> dims = batch.dims();
    for (int64_t v : s.dims()) dims.push_back(v);
    c.set_output(out + d, Shape(dims));
  }
  out += num_dense;
  for (int r = 0; r < num_ragged; ++r) {
    c.set_output(out + r, Shape{Shape::kUnknownDim});
    int64_t splits = Shape::kUnknownDim;
    if (!batch.unknown_rank()) {
      splits = batch.rank() == 0 ? 0 : batch.dim(0) < 0 ? Shape::kUnknownDim : batch.dim(0) + 1;
    }
    c.set_output(out + num_ragged + r, Shape{splits});
  }
  return Status::OK();
}

const AttrValue& named_attr(ShapeContext& c, const char* name) { return c.attr(c.op().attr_index(name)); }

Status ParseExampleV2Shape(ShapeContext& c) {
  return example_outputs(c, c.input_shape(0), static_cast<int>(named_attr(c, "num_sparse").i),
                         named_attr(c, "dense_shapes").list_shape,
                         static_cast<int>(named_attr(c, "ragged_value_types").list_type.size()));
}

Status ParseExampleShape(ShapeContext& c) {
  const Shape& batch = c.input_shape(0);
  if (!batch.unknown_rank() && batch.rank() != 1) {
    return c.error("Expected serialized to be a vector, got shape: ", batch.to_string());
  }
  return example_outputs(c, batch, static_cast<int>(named_attr(c, "Nsparse").i),
                         named_attr(c, "dense_shapes").list_shape, 0);
}

Status ParseSingleExampleShape(ShapeContext& c) {
  const Shape& batch = c.input_shape(0);
  if (!batch.unknown_rank() && batch.rank() != 0) {
    return c.error("Expected serialized to be a scalar, got shape: ", batch.to_string());
  }
  return example_outputs(c, Shape{}, static_cast<int>(named_attr(c, "num_sparse").i),
                         named_attr(c, "dense_shapes").list_shape, 0);
}

// ---- decode_raw (the kernel: kernels/cpu/parsing/decode_raw.cc)

Status DecodeRawShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  dims.push_back(Shape::kUnknownDim);  // the values per string: known only from the data
  c.set_output(0, Shape(dims));
  return Status::OK();
}

[[maybe_unused]] const bool example_shapes_registered = [] {
  shape_fns::register_custom("ParseExampleV2", ParseExampleV2Shape);
  shape_fns::register_custom("ParseExample", ParseExampleShape);
  shape_fns::register_custom("ParseSingleExample", ParseSingleExampleShape);
  shape_fns::register_custom("DecodeRaw", DecodeRawShape);
  return true;
}();

}  // namespace
}  // namespace opforge
