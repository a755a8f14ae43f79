// The shape functions of the string ops whose opdefs say shape_fn: "custom" (the kernels:
// kernels/cpu/strings/).
#include <cstdint>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// StringJoin: the shape of its non-scalar inputs (a scalar if every input is one).
Status StringJoinShape(ShapeContext& c) {
  Shape out{};
  bool unknown = false;
  for (int i = 0; i < c.num_inputs(0); ++i) {
    const Shape& s = c.input_shape(0, i);
    if (s.unknown_rank()) {
      unknown = true;
      continue;
    }
    if (s.rank() == 0) continue;
    if (out.rank() > 0 && !out.is_compatible_with(s) && !s.is_compatible_with(out)) {
      return c.error("Input shapes do not match: ", out.to_string(), " vs. ", s.to_string());
    }
    if (out.rank() == 0) {
      out = s;
    } else {  // the dims either knows
      for (int d = 0; d < s.rank(); ++d) {
        if (out.dim(d) < 0) out.mutable_dims()[static_cast<size_t>(d)] = s.dim(d);
      }
    }
  }
  c.set_output(0, out.rank() == 0 && unknown ? Shape::UnknownRank() : out);
  return Status::OK();
}

// ReduceJoin: the input's shape without the reduced dims (1 for each with keep_dims) where the
// dims are known; with keep_dims the rank is the input's even when they are not.
Status ReduceJoinShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const bool keep = c.attr(c.op().attr_index("keep_dims")).b;
  std::vector<int64_t> axes;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &axes, &known));
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const int rank = in.rank();
  if (!known) {
    c.set_output(0, keep ? array::unknown_dims(rank) : Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t raw : axes) {
    const int64_t d = raw < 0 ? raw + rank : raw;
    if (d < 0 || d >= rank) {
      return errors::OutOfRange(c.op().name, ": Invalid reduction dimension ", raw, " for input with ", rank,
                                " dimension(s)");
    }
    if (reduced[static_cast<size_t>(d)]) return c.error("Duplicate reduction dimension ", d);
    reduced[static_cast<size_t>(d)] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      dims.push_back(in.dim(d));
    } else if (keep) {
      dims.push_back(1);
    }
  }
  c.set_output(0, Shape(dims));
  return Status::OK();
}

// StringSplit, StringSplitV2: a SparseTensor of rank 2.
Status StringSplitShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  c.set_output(0, Shape{Shape::kUnknownDim, 2});
  c.set_output(1, Shape{Shape::kUnknownDim});
  c.set_output(2, Shape{2});
  return Status::OK();
}

// Substr: input broadcast against pos (which has len's shape).
Status SubstrShape(ShapeContext& c) {
  const Shape &pos = c.input_shape(1), &len = c.input_shape(2);
  if (!pos.unknown_rank() && !len.unknown_rank() && !pos.is_compatible_with(len) && !len.is_compatible_with(pos)) {
    return c.error("pos and len should have the same shape, got: ", pos.to_string(), " vs. ", len.to_string());
  }
  return shape_fns::broadcast(c, 0, 1);
}

// UnsortedSegmentJoin: [num_segments] + inputs.shape[rank(segment_ids):].
Status UnsortedSegmentJoinShape(ShapeContext& c) {
  const Shape &in = c.input_shape(0), &ids = c.input_shape(1);
  std::vector<int64_t> n;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &n, &known));
  if (in.unknown_rank() || ids.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (ids.rank() > in.rank()) {
    return c.error("segment_ids.shape = ", ids.to_string(), " is not a prefix of input.shape = ", in.to_string());
  }
  std::vector<int64_t> dims{known && n.size() == 1 ? n[0] : Shape::kUnknownDim};
  for (int d = ids.rank(); d < in.rank(); ++d) dims.push_back(in.dim(d));
  c.set_output(0, Shape(dims));
  return Status::OK();
}

// Fingerprint: [dim 0 of data, 8].
Status FingerprintShape(ShapeContext& c) {
  const Shape& data = c.input_shape(0);
  if (!data.unknown_rank() && data.rank() < 1) {
    return c.error("data must have rank at least one, got shape ", data.to_string());
  }
  c.set_output(0, Shape{data.unknown_rank() ? Shape::kUnknownDim : data.dim(0), 8});
  return Status::OK();
}

[[maybe_unused]] const bool string_shapes_registered = [] {
  shape_fns::register_custom("StringJoin", StringJoinShape);
  shape_fns::register_custom("ReduceJoin", ReduceJoinShape);
  shape_fns::register_custom("StringSplit", StringSplitShape);
  shape_fns::register_custom("StringSplitV2", StringSplitShape);
  shape_fns::register_custom("Substr", SubstrShape);
  shape_fns::register_custom("UnsortedSegmentJoin", UnsortedSegmentJoinShape);
  shape_fns::register_custom("Fingerprint", FingerprintShape);
  shape_fns::register_custom("StringNGrams", [](ShapeContext& c) {  // [?] ngrams, splits like data_splits
    c.set_output(0, Shape{Shape::kUnknownDim});
    c.set_output(1, c.input_shape(1));
    return Status::OK();
  });
  return true;
}();

}  // namespace
}  // namespace opforge
