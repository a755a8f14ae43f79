// The shape functions of the array ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "ops/array.h"

namespace opforge {
namespace {

using array_semantics::GatherDims;
using array_semantics::nonzero;

// ---- gather_scatter (the kernels: kernels/cpu/array/gather_scatter.cc)

constexpr int64_t kMaxDim = int64_t{1} << 48;

Status gather_dims(ShapeContext& c, const Shape& p, const Shape& ix, int64_t axis_v, int64_t bd_v, GatherDims* g) {
  if (p.rank() == 0) return c.error("params must be at least 1-dimensional");
  int64_t bd = bd_v;
  if (bd < 0) bd += ix.rank();
  if (bd < 0 || bd > ix.rank()) {
    return c.error("batch_dims ", bd_v, " is out of range for indices of rank ", ix.rank());
  }
  if (bd >= p.rank()) {
    return c.error("batch_dims ", bd_v, " must be less than the rank of params (", p.rank(), ")");
  }
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, axis_v, p.rank(), &axis));
  if (axis < bd) return c.error("batch_dims (", bd, ") must be less than or equal to axis (", axis, ")");
  for (int i = 0; i < bd; ++i) {
    if (p.dim(i) >= 0 && ix.dim(i) >= 0 && p.dim(i) != ix.dim(i)) {
      return c.error("batch dimension ", i, " of params ", p.to_string(), " and indices ", ix.to_string(),
                     " must match");
    }
  }
  g->axis = axis;
  g->batch_dims = static_cast<int>(bd);
  return Status::OK();
}

Status GatherShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  const Shape& p = c.input_shape(0);
  const Shape& ix = c.input_shape(1);
  std::vector<int64_t> axis_v;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &axis_v, &known));
  if (p.unknown_rank() || ix.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (!known) {  // the axis is unknown, not the rank: params' rank + indices' rank - 1 - batch_dims
    const int64_t bd = c.attr(0).i < 0 ? c.attr(0).i + ix.rank() : c.attr(0).i;
    c.set_output(0, array::unknown_dims(static_cast<int>(p.rank() + ix.rank() - 1 - bd)));
    return Status::OK();
  }
  GatherDims g;
  OPF_RETURN_IF_ERROR(gather_dims(c, p, ix, axis_v.at(0), c.attr(0).i, &g));
  std::vector<int64_t> out(p.dims().begin(), p.dims().begin() + g.axis);
  out.insert(out.end(), ix.dims().begin() + g.batch_dims, ix.dims().end());
  out.insert(out.end(), p.dims().begin() + g.axis + 1, p.dims().end());
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status GatherNdShape(ShapeContext& c) {
  const Shape& p = c.input_shape(0);
  const Shape& ix = c.input_shape(1);
  if (!ix.unknown_rank() && ix.rank() == 0) return c.error("indices must be at least 1-dimensional");
  if (p.unknown_rank() || ix.unknown_rank() || ix.dim(ix.rank() - 1) < 0) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const int64_t K = ix.dim(ix.rank() - 1);
  if (K > p.rank()) {
    return c.error("the last dimension of indices (", K, ") must be at most the rank of params (", p.rank(), ")");
  }
  std::vector<int64_t> out(ix.dims().begin(), ix.dims().end() - 1);
  out.insert(out.end(), p.dims().begin() + K, p.dims().end());
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status ScatterNdShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 1, "a vector"));
  const Shape& ix = c.input_shape(0);
  const Shape& up = c.input_shape(1);
  if (!ix.unknown_rank() && ix.rank() == 0) return c.error("indices must be at least 1-dimensional");
  std::vector<int64_t> shape;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &shape, &known));
  if (!known) {
    c.set_output(0, shape_fns::partial_shape_input(c, 2));
    return Status::OK();
  }
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxDim) return c.error("shape must have non-negative dims, got ", Shape(shape).to_string());
  }
  if (!ix.unknown_rank() && !up.unknown_rank() && ix.dim(ix.rank() - 1) >= 0) {
    const int64_t K = ix.dim(ix.rank() - 1);
    if (K > static_cast<int64_t>(shape.size())) {
      return c.error("the last dimension of indices (", K, ") must be at most the rank of shape (", shape.size(), ")");
    }
    std::vector<int64_t> want(ix.dims().begin(), ix.dims().end() - 1);
    want.insert(want.end(), shape.begin() + K, shape.end());
    bool ok = up.rank() == static_cast<int>(want.size());
    for (int i = 0; ok && i < up.rank(); ++i)
      ok = up.dim(i) < 0 || want[static_cast<size_t>(i)] < 0 || up.dim(i) == want[static_cast<size_t>(i)];
    if (!ok) {
      return c.error("updates must have shape indices.shape[:-1] + shape[K:] = ", Shape(want).to_string(), ", got ",
                     up.to_string());
    }
  }
  c.set_output(0, Shape(std::move(shape)));
  return Status::OK();
}

Status SegmentSumShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  const Shape& d = c.input_shape(0);
  const Shape& ids = c.input_shape(1);
  std::vector<int64_t> num;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &num, &known));
  if (known && (num.at(0) < 0 || num[0] > kMaxDim)) {
    return c.error("num_segments must be non-negative, got ", num[0]);
  }
  if (d.unknown_rank() || ids.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  bool ok = ids.rank() <= d.rank();
  for (int i = 0; ok && i < ids.rank(); ++i) ok = ids.dim(i) < 0 || d.dim(i) < 0 || ids.dim(i) == d.dim(i);
  if (!ok) {
    return c.error("segment_ids shape ", ids.to_string(), " must be a prefix of data shape ", d.to_string());
  }
  std::vector<int64_t> out{known ? num[0] : -1};
  out.insert(out.end(), d.dims().begin() + ids.rank(), d.dims().end());
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status OneHotShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 3, 0, "a scalar"));
  const Shape& ix = c.input_shape(0);
  const int64_t axis = c.attr(0).i;
  std::vector<int64_t> depth;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &depth, &known));
  if (known && (depth.at(0) < 0 || depth[0] > kMaxDim)) return c.error("depth must be non-negative, got ", depth[0]);
  if (ix.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (axis < -1 || axis > ix.rank()) {
    return c.error("axis ", axis, " must be -1 or in [0, ", ix.rank(), "]");
  }
  std::vector<int64_t> out = ix.dims();
  out.insert(out.begin() + (axis == -1 ? ix.rank() : axis), known ? depth[0] : -1);
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status WhereShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  if (!s.unknown_rank() && s.rank() == 0) {  // as TensorFlow ("unhandled input dimensions: 0")
    return c.error("condition must have rank >= 1, got a scalar");
  }
  const Tensor* v = c.input_value(0);
  const int64_t rank = s.unknown_rank() ? -1 : s.rank();
  int64_t n = -1;
  if (v != nullptr) {
    n = 0;
    visit_dtype(v->dtype(), [&](auto t) {
      using T = decltype(t);
      const T* p = v->data<T>();
      for (int64_t i = 0; i < v->num_elements(); ++i) n += nonzero<T>(p[i]) ? 1 : 0;
    });
  }
  c.set_output(0, Shape({n, rank}));
  return Status::OK();
}

const array::CustomShape gather_shape("GatherV2", GatherShape);

const array::CustomShape gather_nd_shape("GatherNd", GatherNdShape);

const array::CustomShape scatter_nd_shape("ScatterNd", ScatterNdShape);

const array::CustomShape segment_sum_shape("UnsortedSegmentSum", SegmentSumShape);

// Unique / UniqueWithCounts: y (and count) a vector of unknown length, idx the shape of x.
Status UniqueShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape({-1}));
  c.set_output(1, c.input_shape(0).unknown_rank() ? Shape({-1}) : c.input_shape(0));
  return Status::OK();
}

const array::CustomShape unique_shape("Unique", UniqueShape);

const array::CustomShape unique_with_counts_shape("UniqueWithCounts", UniqueShape);

const array::CustomShape segment_max_shape("UnsortedSegmentMax", SegmentSumShape);

const array::CustomShape segment_min_shape("UnsortedSegmentMin", SegmentSumShape);

const array::CustomShape segment_prod_shape("UnsortedSegmentProd", SegmentSumShape);

const array::CustomShape one_hot_shape("OneHot", OneHotShape);

const array::CustomShape where_shape("Where", WhereShape);

// ---- join_split (the kernels: kernels/cpu/array/join_split.cc)

// Merges shape `o` into `s` (same rank): unknown dims take the other's value; known dims must
// agree except at `skip`.
Status merge_into(ShapeContext& c, Shape* s, const Shape& o, int skip, const char* what) {
  if (o.unknown_rank()) return Status::OK();
  if (s->unknown_rank()) {
    *s = o;
    return Status::OK();
  }
  if (o.rank() != s->rank()) {
    return c.error(what, " must have the same rank, got shapes ", s->to_string(), " and ", o.to_string());
  }
  for (int d = 0; d < s->rank(); ++d) {
    if (d == skip) continue;
    int64_t a = s->dim(d), b = o.dim(d);
    if (a >= 0 && b >= 0 && a != b) {
      return c.error(what, " must have matching dimensions", skip >= 0 ? " except along the axis" : "", ", got shapes ",
                     s->to_string(), " and ", o.to_string());
    }
    if (a < 0) s->mutable_dims()[static_cast<size_t>(d)] = b;
  }
  return Status::OK();
}

Status ConcatShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  const int n = c.num_inputs(0);
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    const Shape& s = c.input_shape(0, i);
    if (s.unknown_rank()) continue;
    if (rank >= 0 && s.rank() != rank) {
      return c.error("all inputs must have the same rank, got shapes ", c.input_shape(0, 0).to_string(), " and ",
                     s.to_string());
    }
    rank = s.rank();
  }
  if (rank == 0) return c.error("cannot concatenate scalars (use Pack)");
  std::vector<int64_t> axis_v;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &axis_v, &known));
  if (rank < 0 || !known) {
    c.set_output(0, array::unknown_dims(rank));
    return Status::OK();
  }
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, axis_v.at(0), rank, &axis));
  Shape out = Shape::UnknownRank();
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const Shape& s = c.input_shape(0, i);
    OPF_RETURN_IF_ERROR(merge_into(c, &out, s, axis, "inputs"));
    int64_t d = s.unknown_rank() ? -1 : s.dim(axis);
    total = (total < 0 || d < 0) ? -1 : total + d;
  }
  out.mutable_dims()[static_cast<size_t>(axis)] = total;
  c.set_output(0, std::move(out));
  return Status::OK();
}

Status PackShape(ShapeContext& c) {
  const int n = c.num_inputs(0);
  Shape s = Shape::UnknownRank();
  for (int i = 0; i < n; ++i) OPF_RETURN_IF_ERROR(merge_into(c, &s, c.input_shape(0, i), -1, "all inputs"));
  if (s.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, c.attr(2).i, s.rank() + 1, &axis));
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + axis, n);
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

Status SplitShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 0, "a scalar"));
  const int64_t num = c.attr(0).i;
  const Shape& s = c.input_shape(1);
  std::vector<int64_t> axis_v;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 0, &axis_v, &known));
  if (s.unknown_rank() || !known) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, array::unknown_dims(s.rank()));
    return Status::OK();
  }
  if (s.rank() == 0) return c.error("cannot split a scalar");
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, axis_v.at(0), s.rank(), &axis, "split_dim"));
  std::vector<int64_t> dims = s.dims();
  int64_t d = dims[static_cast<size_t>(axis)];
  if (d >= 0 && d % num != 0) {
    return c.error("dimension ", axis, " of size ", d, " is not divisible by num_split=", num);
  }
  dims[static_cast<size_t>(axis)] = d < 0 ? -1 : d / num;
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape(dims));
  return Status::OK();
}

Status SplitVShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const int64_t num = c.attr(0).i;
  const Shape& ss = c.input_shape(1);
  if (!ss.unknown_rank() && ss.dim(0) >= 0 && ss.dim(0) != num) {
    return c.error("size_splits has ", ss.dim(0), " entries but num_split is ", num);
  }
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> axis_v, sizes;
  bool axis_known, sizes_known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &axis_v, &axis_known));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &sizes, &sizes_known));
  if (s.unknown_rank() || !axis_known) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, array::unknown_dims(s.rank()));
    return Status::OK();
  }
  if (s.rank() == 0) return c.error("cannot split a scalar");
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, axis_v.at(0), s.rank(), &axis, "split_dim"));
  std::vector<int64_t> dims = s.dims();
  const int64_t d = dims[static_cast<size_t>(axis)];
  if (!sizes_known) {
    dims[static_cast<size_t>(axis)] = -1;
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape(dims));
    return Status::OK();
  }
  int inferred = -1;
  int64_t sum = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (inferred >= 0) return c.error("at most one entry of size_splits may be -1");
      inferred = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return c.error("size_splits must be non-negative (or one -1), got ", sizes[i]);
    } else {
      sum += sizes[i];
      if (sum > (int64_t{1} << 48)) return c.error("size_splits are too large");
    }
  }
  if (num == 1 && d >= 0 && sizes[0] != d) {
    // TensorFlow's rule: a single output is the whole input, -1 included (it is not resolved).
    return c.error("with one output, size_splits must be [", d, "] (dimension ", axis, "), got [", sizes[0], "]");
  }
  if (d >= 0) {
    if (inferred >= 0) {
      if (sum > d) {
        return c.error("size_splits add up to ", sum, ", more than dimension ", axis, " of size ", d);
      }
      sizes[static_cast<size_t>(inferred)] = d - sum;
    } else if (sum != d) {
      return c.error("size_splits add up to ", sum, " but dimension ", axis, " has size ", d);
    }
  }
  for (int i = 0; i < c.num_outputs(); ++i) {
    dims[static_cast<size_t>(axis)] = sizes[static_cast<size_t>(i)];
    c.set_output(i, Shape(dims));
  }
  return Status::OK();
}

Status UnpackShape(ShapeContext& c) {
  const int64_t num = c.attr(0).i;
  const Shape& s = c.input_shape(0);
  if (s.unknown_rank()) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape::UnknownRank());
    return Status::OK();
  }
  if (s.rank() == 0) return c.error("cannot unpack a scalar");
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, c.attr(2).i, s.rank(), &axis));
  std::vector<int64_t> dims = s.dims();
  if (dims[static_cast<size_t>(axis)] >= 0 && dims[static_cast<size_t>(axis)] != num) {
    return c.error("num=", num, " does not match dimension ", axis, " of size ", dims[static_cast<size_t>(axis)],
                   " (shape ", s.to_string(), ")");
  }
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape(dims));
  return Status::OK();
}

const array::CustomShape concat_shape("ConcatV2", ConcatShape);

const array::CustomShape pack_shape("Pack", PackShape);

const array::CustomShape split_shape("Split", SplitShape);

const array::CustomShape split_v_shape("SplitV", SplitVShape);

const array::CustomShape unpack_shape("Unpack", UnpackShape);

// ---- reshape_like (the kernels: kernels/cpu/array/reshape_like.cc)

Status ExpandDimsShape(ShapeContext& c) {
  const Shape& ds = c.input_shape(1);
  if (!ds.unknown_rank() && ds.num_elements() >= 0 && ds.num_elements() != 1) {
    return c.error("dim must be a scalar or a one-element vector, got shape ", ds.to_string());
  }
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> dim;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &dim, &known));
  if (s.unknown_rank() || !known) {
    c.set_output(0, array::unknown_dims(s.unknown_rank() ? -1 : s.rank() + 1));
    return Status::OK();
  }
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, dim.at(0), s.rank() + 1, &axis, "dim"));
  std::vector<int64_t> out = s.dims();
  out.insert(out.begin() + axis, 1);
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status SqueezeShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  const std::vector<int64_t>& sq = c.attr(1).list_i;
  if (s.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<bool> drop(static_cast<size_t>(s.rank()), false);
  for (int64_t a : sq) {
    int k;
    OPF_RETURN_IF_ERROR(array::normalize_axis(c, a, s.rank(), &k, "squeeze_dims entry"));
    const int64_t d = s.dim(k);
    if (d >= 0 && d != 1) {
      return c.error("cannot squeeze dimension ", k, " of size ", d, " (shape ", s.to_string(), ")");
    }
    drop[static_cast<size_t>(k)] = true;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < s.rank(); ++i) {
    const int64_t d = s.dim(i);
    if (sq.empty()) {
      if (d == 1) continue;
      if (d < 0) {  // may or may not be squeezed: the rank is unknown
        c.set_output(0, Shape::UnknownRank());
        return Status::OK();
      }
    } else if (drop[static_cast<size_t>(i)]) {
      continue;
    }
    out.push_back(d);
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

const array::CustomShape expand_dims_shape("ExpandDims", ExpandDimsShape);

const array::CustomShape squeeze_shape("Squeeze", SqueezeShape);

// ---- shape_ops (the kernels: kernels/cpu/array/shape_ops.cc)

Status IdentityNShape(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(0, i));
  return Status::OK();
}

const array::CustomShape identity_n_shape("IdentityN", IdentityNShape);

// PlaceholderWithDefault: the output's static shape is the `shape` attr (which may be less
// specific than the input's); the input must be compatible with it.
Status PlaceholderWithDefaultShape(ShapeContext& c) {
  int attr = -1;
  for (size_t i = 0; i < c.op().attrs.size(); ++i)
    if (c.op().attrs[i].name == "shape") attr = static_cast<int>(i);
  const Shape& declared = c.attr(attr).shape;
  const Shape& input = c.input_shape(0);
  bool compatible = declared.unknown_rank() || input.unknown_rank() || declared.rank() == input.rank();
  for (int i = 0; compatible && !declared.unknown_rank() && !input.unknown_rank() && i < declared.rank(); ++i) {
    compatible = declared.dim(i) < 0 || input.dim(i) < 0 || declared.dim(i) == input.dim(i);
  }
  if (!compatible) {
    return c.error("the input's shape ", input.to_string(), " is not compatible with the shape attr ",
                   declared.to_string());
  }
  c.set_output(0, declared);
  return Status::OK();
}

const array::CustomShape placeholder_with_default_shape("PlaceholderWithDefault", PlaceholderWithDefaultShape);

}  // namespace
}  // namespace opforge
