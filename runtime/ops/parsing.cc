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
                       int num_ragged, int first = 0, int extra_outputs = 0) {
  if (!batch.unknown_rank() && batch.rank() > 1) {
    return c.error("Expected serialized to be a scalar or vector, got shape: ", batch.to_string());
  }
  const int64_t index_cols = batch.unknown_rank() ? Shape::kUnknownDim : batch.rank() + 1;
  const int num_dense = static_cast<int>(dense_shapes.size());
  const int want = first + 3 * num_sparse + num_dense + 2 * num_ragged + extra_outputs;
  if (c.num_outputs() != want) return c.error("expected ", want, " outputs, got ", c.num_outputs());
  int out = first;
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

// The feature-list outputs of the sequence parsers from output `first` on: per sparse list
// indices [?, rank + 2], values [?], dense shape [rank + 2]; per dense list batch + [?] + its
// step shape, and (with_lengths) lengths of the batch's shape; per ragged list values [?],
// outer splits (batch + 1; a scalar for a scalar batch) and inner splits [?].
void feature_list_outputs(ShapeContext& c, const Shape& batch, int first, int l_sparse,
                          const std::vector<Shape>& l_dense, int l_ragged, bool with_lengths) {
  const bool known = !batch.unknown_rank();
  const int64_t index_cols = known ? batch.rank() + 2 : Shape::kUnknownDim;
  const int num_dense = static_cast<int>(l_dense.size());
  int out = first;
  for (int k = 0; k < l_sparse; ++k) {
    c.set_output(out + k, Shape{Shape::kUnknownDim, index_cols});
    c.set_output(out + l_sparse + k, Shape{Shape::kUnknownDim});
    c.set_output(out + 2 * l_sparse + k, Shape{index_cols});
  }
  out += 3 * l_sparse;
  for (int d = 0; d < num_dense; ++d) {
    const Shape& s = l_dense[static_cast<size_t>(d)];
    if (!known || s.unknown_rank()) {
      c.set_output(out + d, Shape::UnknownRank());
    } else {
      std::vector<int64_t> dims = batch.dims();
      dims.push_back(Shape::kUnknownDim);
      for (int64_t v : s.dims()) dims.push_back(v);
      c.set_output(out + d, Shape(dims));
    }
    if (with_lengths) c.set_output(out + num_dense + d, known ? batch : Shape::UnknownRank());
  }
  out += with_lengths ? 2 * num_dense : num_dense;
  for (int r = 0; r < l_ragged; ++r) {
    c.set_output(out + r, Shape{Shape::kUnknownDim});
    Shape outer = Shape::UnknownRank();
    if (known) {
      outer = batch.rank() == 0 ? Shape{} : Shape{batch.dim(0) < 0 ? Shape::kUnknownDim : batch.dim(0) + 1};
    }
    c.set_output(out + l_ragged + r, outer);
    c.set_output(out + 2 * l_ragged + r, Shape{Shape::kUnknownDim});
  }
}

Status ParseSequenceExampleV2Shape(ShapeContext& c) {
  const Shape& batch = c.input_shape(0);
  const int c_sparse = static_cast<int>(named_attr(c, "Ncontext_sparse").i);
  const std::vector<Shape>& c_dense = named_attr(c, "context_dense_shapes").list_shape;
  const int c_ragged = static_cast<int>(named_attr(c, "context_ragged_value_types").list_type.size());
  const int l_sparse = static_cast<int>(named_attr(c, "Nfeature_list_sparse").i);
  const std::vector<Shape>& l_dense = named_attr(c, "feature_list_dense_shapes").list_shape;
  const int l_ragged = static_cast<int>(named_attr(c, "feature_list_ragged_value_types").list_type.size());
  OPF_RETURN_IF_ERROR(example_outputs(c, batch, c_sparse, c_dense, c_ragged, 0,
                                      3 * l_sparse + 2 * static_cast<int>(l_dense.size()) + 3 * l_ragged));
  feature_list_outputs(c, batch, 3 * c_sparse + static_cast<int>(c_dense.size()) + 2 * c_ragged, l_sparse, l_dense,
                       l_ragged, true);
  return Status::OK();
}

Status ParseSingleSequenceExampleShape(ShapeContext& c) {
  const Shape& batch = c.input_shape(0);
  if (!batch.unknown_rank() && batch.rank() != 0) {
    return c.error("Expected serialized to be a scalar, got shape: ", batch.to_string());
  }
  const int c_sparse = static_cast<int>(named_attr(c, "Ncontext_sparse").i);
  const std::vector<Shape>& c_dense = named_attr(c, "context_dense_shapes").list_shape;
  const int l_sparse = static_cast<int>(named_attr(c, "Nfeature_list_sparse").i);
  const std::vector<Shape>& l_dense = named_attr(c, "feature_list_dense_shapes").list_shape;
  OPF_RETURN_IF_ERROR(
      example_outputs(c, Shape{}, c_sparse, c_dense, 0, 0, 3 * l_sparse + static_cast<int>(l_dense.size())));
  feature_list_outputs(c, Shape{}, 3 * c_sparse + static_cast<int>(c_dense.size()), l_sparse, l_dense, 0, false);
  return Status::OK();
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

// The last dimension is fixed_length / size(out_type) where fixed_length is known.
Status DecodePaddedRawShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  int64_t last = Shape::kUnknownDim;
  const Tensor* fixed = c.input_value(1);
  const size_t size = dtype_size(c.attr(c.op().attr_index("out_type")).type);
  if (fixed != nullptr && fixed->num_elements() == 1 && size > 0) {
    const int64_t n = fixed->data<int32_t>()[0];
    if (n > 0 && n % static_cast<int64_t>(size) == 0) last = n / static_cast<int64_t>(size);
  }
  dims.push_back(last);
  c.set_output(0, Shape(dims));
  return Status::OK();
}

// ---- ParseTensor (kernels/cpu/parsing/tensor_serialization.cc): the shape is in the bytes.

Status ParseTensorShape(ShapeContext& c) {
  c.set_output(0, Shape::UnknownRank());
  return Status::OK();
}

[[maybe_unused]] const bool example_shapes_registered = [] {
  shape_fns::register_custom("ParseExampleV2", ParseExampleV2Shape);
  shape_fns::register_custom("ParseExample", ParseExampleShape);
  shape_fns::register_custom("ParseSingleExample", ParseSingleExampleShape);
  shape_fns::register_custom("ParseSequenceExampleV2", ParseSequenceExampleV2Shape);
  shape_fns::register_custom("ParseSingleSequenceExample", ParseSingleSequenceExampleShape);
  shape_fns::register_custom("DecodeRaw", DecodeRawShape);
  shape_fns::register_custom("DecodePaddedRaw", DecodePaddedRawShape);
  shape_fns::register_custom("ParseTensor", ParseTensorShape);
  return true;
}();

}  // namespace
}  // namespace opforge
