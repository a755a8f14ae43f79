// The shape functions of the math ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "ops/math.h"

namespace opforge {
namespace {

using math_semantics::batch_of;

// ---- batch_mat_mul (the kernels: kernels/cpu/math/batch_mat_mul.cc)

Status BatchMatMulShape(ShapeContext& c) {
  const Shape& x = c.input_shape(0);
  const Shape& y = c.input_shape(1);
  const bool adj_x = c.attr(1).b, adj_y = c.attr(2).b;
  if ((!x.unknown_rank() && x.rank() < 2) || (!y.unknown_rank() && y.rank() < 2)) {
    return c.error("x and y must have rank >= 2, got ", x.to_string(), " and ", y.to_string());
  }
  if (x.unknown_rank() || y.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const int64_t xr = x.dim(x.rank() - 2), xc = x.dim(x.rank() - 1);
  const int64_t yr = y.dim(y.rank() - 2), yc = y.dim(y.rank() - 1);
  const int64_t m = adj_x ? xc : xr, kx = adj_x ? xr : xc;
  const int64_t ky = adj_y ? yc : yr, n = adj_y ? yr : yc;
  if (kx >= 0 && ky >= 0 && kx != ky) {
    return c.error("inner dimensions differ: ", x.to_string(), (adj_x ? " (adjoint)" : ""), " times ", y.to_string(),
                   (adj_y ? " (adjoint)" : ""), ": ", kx, " vs ", ky);
  }
  Shape batch;
  OPF_RETURN_IF_ERROR(broadcast_shapes(batch_of(x), batch_of(y), &batch, c.op().name));
  std::vector<int64_t> dims = batch.dims();
  dims.push_back(m);
  dims.push_back(n);
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

[[maybe_unused]] const bool batch_mat_mul_shape_registered = [] {
  shape_fns::register_custom("BatchMatMulV2", BatchMatMulShape);
  return true;
}();

// The shape function of ArgMax and ArgMin: the input shape without the reduced dimension.
Status ArgShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  const Shape& dim_shape = c.input_shape(1);
  if (!dim_shape.unknown_rank() && dim_shape.rank() != 0) {
    return c.error("'dimension' must be a scalar, got shape ", dim_shape.to_string());
  }
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const Tensor* v = c.input_value(1);
  if (v == nullptr) {  // which dimension goes is unknown: only the rank is known
    if (in.rank() == 0) return c.error("cannot reduce a scalar (rank 0)");
    c.set_output(0, Shape(std::vector<int64_t>(static_cast<size_t>(in.rank() - 1), -1)));
    return Status::OK();
  }
  int axis = 0;
  OPF_RETURN_IF_ERROR(array::scalar_axis(c.op().name, *v, in.rank(), &axis));
  std::vector<int64_t> dims;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != axis) dims.push_back(in.dim(i));
  }
  if (in.dim(axis) == 0 && Shape(dims).fully_defined() && Shape(dims).num_elements() > 0) {
    return c.error("reducing dimension ", axis, " of size 0 in shape ", in.to_string());
  }
  c.set_output(0, Shape(std::move(dims)));
  return Status::OK();
}

// ---- arg_max (the kernels: kernels/cpu/math/arg_max.cc)

[[maybe_unused]] const bool arg_max_shape_registered = [] {
  shape_fns::register_custom("ArgMax", ArgShape);
  return true;
}();

// ---- arg_min (the kernels: kernels/cpu/math/arg_min.cc)

[[maybe_unused]] const bool arg_min_shape_registered = [] {
  shape_fns::register_custom("ArgMin", ArgShape);
  return true;
}();

// ---- binary_equality (the kernels: kernels/cpu/math/binary_equality.cc)

// Broadcast shape, or a scalar when the shapes are incompatible and the op was told not to
// fail (TensorFlow's incompatible_shape_error=false, attr 1).
Status EqualityShape(ShapeContext& c) {
  Shape out;
  Status s = broadcast_shapes(c.input_shape(0), c.input_shape(1), &out, c.op().name);
  if (!s.ok()) {
    if (c.attr(1).b) return s;
    out = Shape();
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

[[maybe_unused]] const bool equality_shapes_registered = [] {
  shape_fns::register_custom("Equal", EqualityShape);
  shape_fns::register_custom("NotEqual", EqualityShape);
  return true;
}();

// ---- select_clip (the kernels: kernels/cpu/math/select_clip.cc)

// Two dims agree when equal or when either is unknown (-1).
bool dims_agree(int64_t a, int64_t b) { return a == b || a < 0 || b < 0; }

bool shapes_agree(const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return true;
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!dims_agree(a.dim(i), b.dim(i))) return false;
  }
  return true;
}

// Select: t and e of one shape; condition scalar, of that shape, or a vector over dim 0.
Status SelectShape(ShapeContext& c) {
  const Shape& cond = c.input_shape(0);
  const Shape& t = c.input_shape(1);
  const Shape& e = c.input_shape(2);
  if (!shapes_agree(t, e)) {
    return c.error("'t' and 'e' must have the same shape, got ", t.to_string(), " and ", e.to_string());
  }
  Shape out = t.unknown_rank() ? e : t;
  if (!out.unknown_rank() && !e.unknown_rank()) {  // fill unknown dims of t from e
    for (int i = 0; i < out.rank(); ++i) {
      if (out.dim(i) < 0) out.mutable_dims()[static_cast<size_t>(i)] = e.dim(i);
    }
  }
  if (!cond.unknown_rank() && !out.unknown_rank() && cond.rank() != 0 && !shapes_agree(cond, out)) {
    const bool row_vector = cond.rank() == 1 && out.rank() >= 1 && dims_agree(cond.dim(0), out.dim(0));
    if (!row_vector) {
      return c.error("'condition' must be a scalar, have the shape of 't' (", out.to_string(),
                     "), or be a vector of its first dimension; got ", cond.to_string());
    }
  }
  // What condition's shape says of the output: all its dims (same rank), or the first (a vector
  // selecting rows); with t and e of unknown rank, a condition of rank >= 2 is their shape.
  if (out.unknown_rank() && !cond.unknown_rank() && cond.rank() >= 2) out = cond;
  if (!out.unknown_rank() && !cond.unknown_rank() && cond.rank() >= 1) {
    const int n = cond.rank() == out.rank() ? out.rank() : (cond.rank() == 1 ? 1 : 0);
    for (int i = 0; i < n; ++i) {
      if (out.dim(i) < 0) out.mutable_dims()[static_cast<size_t>(i)] = cond.dim(i);
    }
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

Status SelectV2Shape(ShapeContext& c) {
  Shape ct, out;
  OPF_RETURN_IF_ERROR(broadcast_shapes(c.input_shape(0), c.input_shape(1), &ct, c.op().name));
  OPF_RETURN_IF_ERROR(broadcast_shapes(ct, c.input_shape(2), &out, c.op().name));
  c.set_output(0, std::move(out));
  return Status::OK();
}

[[maybe_unused]] const bool select_shapes_registered = [] {
  shape_fns::register_custom("Select", SelectShape);
  shape_fns::register_custom("SelectV2", SelectV2Shape);
  return true;
}();

// ---- Betainc (kernels/cpu/math/special_math.cc): a, b and x each have the output's shape or
// are scalars, as TensorFlow; no other broadcasting.
Status BetaincShape(ShapeContext& c) {
  // The merge of the non-scalar inputs of known rank (TensorFlow's rule): an unknown-rank input
  // adds nothing; all scalars give a scalar.
  Shape out = Shape::UnknownRank();
  bool any_unknown = false;
  for (int i = 0; i < 3; ++i) {
    const Shape& s = c.input_shape(i);
    if (s.unknown_rank()) {
      any_unknown = true;
      continue;
    }
    if (s.rank() == 0) continue;
    if (out.unknown_rank()) {
      out = s;
      continue;
    }
    bool same = s.rank() == out.rank();
    for (int d = 0; same && d < s.rank(); ++d) {
      same = s.dim(d) < 0 || out.dim(d) < 0 || s.dim(d) == out.dim(d);
      if (same && out.dim(d) < 0) out.mutable_dims()[static_cast<size_t>(d)] = s.dim(d);
    }
    if (!same) {
      return c.error("a, b and x must have the same shape or be scalars; got ", c.input_shape(0).to_string(), ", ",
                     c.input_shape(1).to_string(), " and ", c.input_shape(2).to_string());
    }
  }
  if (out.unknown_rank() && !any_unknown) out = Shape(std::vector<int64_t>{});
  c.set_output(0, std::move(out));
  return Status::OK();
}

[[maybe_unused]] const bool betainc_shape_registered = [] {
  shape_fns::register_custom("Betainc", BetaincShape);
  return true;
}();

}  // namespace
}  // namespace opforge
