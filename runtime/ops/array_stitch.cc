// Shape functions of the data-dependent array ops: DynamicPartition, DynamicStitch and
// ParallelDynamicStitch (TensorFlow's: partial shapes propagate; the first dim of a partition is
// never known, that of a stitch only when every indices tensor is a known value), ListDiff,
// LowerBound/UpperBound, UnravelIndex and Bitcast.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// Checks that `prefix` can lead `full` (unknown dims agree with anything) and merges the rest of
// `full` (from prefix's rank on) into *rest (unknown rank: nothing known yet).
Status merge_suffix(ShapeContext& c, const Shape& full, const Shape& prefix, const char* what, Shape* rest) {
  if (full.unknown_rank() || prefix.unknown_rank()) return Status::OK();
  bool ok = prefix.rank() <= full.rank();
  for (int d = 0; ok && d < prefix.rank(); ++d)
    ok = prefix.dim(d) < 0 || full.dim(d) < 0 || prefix.dim(d) == full.dim(d);
  if (!ok) return c.error(what, ": ", full.to_string(), " does not start with ", prefix.to_string());
  std::vector<int64_t> tail(full.dims().begin() + prefix.rank(), full.dims().end());
  if (rest->unknown_rank()) {
    *rest = Shape(tail);
    return Status::OK();
  }
  if (rest->rank() != static_cast<int>(tail.size())) {
    return c.error(what, ": the inner shapes ", rest->to_string(), " and ", Shape(tail).to_string(), " differ");
  }
  std::vector<int64_t> merged = rest->dims();
  for (size_t d = 0; d < tail.size(); ++d) {
    if (merged[d] >= 0 && tail[d] >= 0 && merged[d] != tail[d]) {
      return c.error(what, ": the inner shapes ", rest->to_string(), " and ", Shape(tail).to_string(), " differ");
    }
    if (merged[d] < 0) merged[d] = tail[d];
  }
  *rest = Shape(merged);
  return Status::OK();
}

Shape with_leading(int64_t first, const Shape& rest) {
  if (rest.unknown_rank()) return Shape::UnknownRank();
  std::vector<int64_t> dims{first};
  dims.insert(dims.end(), rest.dims().begin(), rest.dims().end());
  return Shape(dims);
}

Status DynamicPartitionShape(ShapeContext& c) {
  Shape rest = Shape::UnknownRank();
  OPF_RETURN_IF_ERROR(merge_suffix(c, c.input_shape(0), c.input_shape(1), "data.shape and partitions.shape", &rest));
  if (c.input_shape(0).unknown_rank() || c.input_shape(1).unknown_rank()) rest = Shape::UnknownRank();
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, with_leading(-1, rest));
  return Status::OK();
}

Status DynamicStitchShape(ShapeContext& c) {
  const int n = c.num_inputs(0);
  if (c.num_inputs(1) != n) return c.error("indices and data must have the same length");
  Shape rest = Shape::UnknownRank();
  bool all_known = true;
  int64_t max_index = -1;
  for (int i = 0; i < n; ++i) {
    OPF_RETURN_IF_ERROR(
        merge_suffix(c, c.input_shape(1, i), c.input_shape(0, i), "data[i].shape and indices[i].shape", &rest));
    const Tensor* v = c.input_value(0, i);
    if (v == nullptr) {
      all_known = false;
      continue;
    }
    const int32_t* p = v->data<int32_t>();
    for (int64_t k = 0; k < v->num_elements(); ++k) max_index = std::max<int64_t>(max_index, p[k]);
  }
  c.set_output(0, with_leading(all_known ? max_index + 1 : -1, rest));
  return Status::OK();
}

Status ListDiffShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  c.set_output(0, Shape({-1}));
  c.set_output(1, Shape({-1}));
  return Status::OK();
}

// LowerBound/UpperBound: both inputs at least 1-D; the output has the shape of values.
Status BoundShape(ShapeContext& c) {
  for (int i = 0; i < 2; ++i) {
    const Shape& s = c.input_shape(i);
    if (!s.unknown_rank() && s.rank() < 1) {
      return c.error(c.op().inputs[static_cast<size_t>(i)].name, " must be at least 1-D, got shape ", s.to_string());
    }
  }
  c.set_output(0, c.input_shape(1));
  return Status::OK();
}

// UnravelIndex: a scalar index gives [len(dims)]; N indices of any other shape give
// [len(dims), N] (TensorFlow flattens them).
Status UnravelIndexShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& ix = c.input_shape(0);
  const Shape& dims = c.input_shape(1);
  const int64_t k = dims.unknown_rank() ? -1 : dims.dim(0);
  if (ix.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
  } else if (ix.rank() == 0) {
    c.set_output(0, Shape({k}));
  } else {
    c.set_output(0, Shape({k, ix.fully_defined() ? ix.num_elements() : -1}));
  }
  return Status::OK();
}

// The output shape of a bitcast of `in` from elements of `from` bytes to elements of `to` bytes
// (unknown dims stay unknown; the dim a narrowing bitcast removes must be known there).
Status bitcast_shape(const std::string& op, const Shape& in, size_t from, size_t to, Shape* out) {
  if (in.unknown_rank() || from == to) {
    *out = in;
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  if (from > to) {
    dims.push_back(static_cast<int64_t>(from / to));
  } else {
    const int64_t want = static_cast<int64_t>(to / from);
    if (dims.empty() || (dims.back() >= 0 && dims.back() != want)) {
      return errors::InvalidArgument(op, ": cannot bitcast a tensor of shape ", in.to_string(), " from ", from,
                                     "-byte to ", to, "-byte elements: the last dimension must be ", want);
    }
    dims.pop_back();
  }
  *out = Shape(dims);
  return Status::OK();
}

Status BitcastShape(ShapeContext& c) {
  Shape out;
  const size_t from = dtype_size(c.attr(c.op().attr_index("T")).type);
  const size_t to = dtype_size(c.attr(c.op().attr_index("type")).type);
  OPF_RETURN_IF_ERROR(bitcast_shape(c.op().name, c.input_shape(0), from, to, &out));
  c.set_output(0, out);
  return Status::OK();
}

const array::CustomShape bitcast_shape_fn("Bitcast", BitcastShape);
const array::CustomShape list_diff_shape("ListDiff", ListDiffShape);
const array::CustomShape lower_bound_shape("LowerBound", BoundShape);
const array::CustomShape upper_bound_shape("UpperBound", BoundShape);
const array::CustomShape unravel_index_shape("UnravelIndex", UnravelIndexShape);
const array::CustomShape dynamic_partition_shape("DynamicPartition", DynamicPartitionShape);
const array::CustomShape dynamic_stitch_shape("DynamicStitch", DynamicStitchShape);
const array::CustomShape parallel_dynamic_stitch_shape("ParallelDynamicStitch", DynamicStitchShape);

}  // namespace
}  // namespace opforge
