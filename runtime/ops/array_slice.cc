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

using array_semantics::Blocks;
using array_semantics::dense_slice;
using array_semantics::DenseSlice;
using array_semantics::Masks;
using array_semantics::output_shape;
using array_semantics::parse_blocks;
using array_semantics::reverse_axes;

// ---- slice_pad (the kernels: kernels/cpu/array/slice_pad.cc)

constexpr int64_t kMaxDim = int64_t{1} << 48;

Status SliceShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> begin, size;
  bool kb, ks;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &begin, &kb));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &size, &ks));
  if (!kb || !ks) {
    int rank = s.rank();
    if (rank < 0) {
      const Shape& bs = c.input_shape(1);
      rank = bs.unknown_rank() ? -1 : static_cast<int>(bs.dim(0));
    }
    if (rank < 0 && ks) rank = static_cast<int>(size.size());
    Shape out = array::unknown_dims(rank);
    // A known size (not -1) is the output's dim whatever begin is; so is a known entry of a
    // partially known size.
    const Shape* ps = ks ? nullptr : c.input_partial_value(2);
    for (int i = 0; i < rank; ++i) {
      int64_t z = -1;
      if (ks && static_cast<size_t>(i) < size.size()) z = size[static_cast<size_t>(i)];
      if (ps != nullptr && i < ps->rank()) z = ps->dim(i);
      if (z >= 0) out.mutable_dims()[static_cast<size_t>(i)] = z;
    }
    c.set_output(0, std::move(out));
    return Status::OK();
  }
  if (begin.size() != size.size()) {
    return c.error("begin and size must have the same length, got ", begin.size(), " and ", size.size());
  }
  if (!s.unknown_rank() && static_cast<int>(begin.size()) != s.rank()) {
    return c.error("begin and size must have one entry per dimension of the input (rank ", s.rank(), "), got ",
                   begin.size());
  }
  std::vector<int64_t> out(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t d = s.unknown_rank() ? -1 : s.dim(static_cast<int>(i));
    const int64_t b = begin[i], z = size[i];
    if (b < 0) return c.error("begin[", i, "] = ", b, " must be non-negative");
    if (z < -1) return c.error("size[", i, "] = ", z, " must be non-negative or -1");
    if (d >= 0 && (b > d || (z >= 0 && z > d - b))) {
      return c.error("slice [", b, ", ", b, " + ", z, ") is out of range for dimension ", i, " of size ", d,
                     " (input shape ", s.to_string(), ")");
    }
    out[i] = z == -1 ? (d < 0 ? -1 : d - b) : z;
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Masks masks_of(ShapeContext& c, int first) {
  return Masks{c.attr(first).i, c.attr(first + 1).i, c.attr(first + 2).i, c.attr(first + 3).i, c.attr(first + 4).i};
}

// Reads begin/end/strides (inputs b, b+1, b+2) if all known.
Status read_bes(ShapeContext& c, int b, std::vector<int64_t>* v0, std::vector<int64_t>* v1, std::vector<int64_t>* v2,
                bool* known) {
  bool k0, k1, k2;
  for (int i = 0; i < 3; ++i) OPF_RETURN_IF_ERROR(array::expect_rank(c, b + i, 1, "a vector"));
  OPF_RETURN_IF_ERROR(array::known_ints(c, b, v0, &k0));
  OPF_RETURN_IF_ERROR(array::known_ints(c, b + 1, v1, &k1));
  OPF_RETURN_IF_ERROR(array::known_ints(c, b + 2, v2, &k2));
  *known = k0 && k1 && k2;
  return Status::OK();
}

// StridedSlice attrs: T(0), Index(1), masks from 2.
Status StridedSliceShape(ShapeContext& c) {
  std::vector<int64_t> b, e, s;
  bool known;
  OPF_RETURN_IF_ERROR(read_bes(c, 1, &b, &e, &s, &known));
  const Shape& in = c.input_shape(0);
  if (!known || in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  DenseSlice d;
  OPF_RETURN_IF_ERROR(dense_slice(c.op().name, in, b, e, s, masks_of(c, 2), &d));
  c.set_output(0, Shape(d.out_dims));
  return Status::OK();
}

// StridedSliceGrad: inputs shape(0), begin(1), end(2), strides(3), dy(4); attrs T, Index, masks.
Status StridedSliceGradShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  std::vector<int64_t> shape;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 0, &shape, &known));
  if (!known) {
    c.set_output(0, shape_fns::partial_shape_input(c, 0));
    return Status::OK();
  }
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxDim) return c.error("shape must have non-negative dims, got ", Shape(shape).to_string());
  }
  std::vector<int64_t> b, e, s;
  bool kb;
  OPF_RETURN_IF_ERROR(read_bes(c, 1, &b, &e, &s, &kb));
  if (kb) {
    DenseSlice d;
    OPF_RETURN_IF_ERROR(dense_slice(c.op().name, Shape(shape), b, e, s, masks_of(c, 2), &d));
    const Shape& dy = c.input_shape(4);
    if (!dy.unknown_rank()) {
      bool ok = dy.rank() == static_cast<int>(d.out_dims.size());
      for (int i = 0; ok && i < dy.rank(); ++i) ok = dy.dim(i) < 0 || dy.dim(i) == d.out_dims[static_cast<size_t>(i)];
      if (!ok) {
        return c.error("dy has shape ", dy.to_string(), " but the slice of ", Shape(shape).to_string(), " has shape ",
                       Shape(d.out_dims).to_string());
      }
    }
  }
  c.set_output(0, Shape(shape));
  return Status::OK();
}

Status ReverseShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> axes;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &axes, &known));
  if (known && !s.unknown_rank()) {
    std::vector<bool> rev;
    OPF_RETURN_IF_ERROR(reverse_axes(c.op().name, axes, s.rank(), &rev));
  }
  c.set_output(0, s);
  return Status::OK();
}

Status PadShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 2, "a matrix of shape [rank(input), 2]"));
  if (c.op().inputs.size() > 2) OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));
  const Shape& s = c.input_shape(0);
  const Shape& ps = c.input_shape(1);
  if (!ps.unknown_rank()) {
    if (ps.dim(1) >= 0 && ps.dim(1) != 2) {
      return c.error("paddings must have shape [rank(input), 2], got ", ps.to_string());
    }
    if (!s.unknown_rank() && ps.dim(0) >= 0 && ps.dim(0) != s.rank()) {
      return c.error("paddings must have shape [rank(input), 2] = [", s.rank(), ", 2], got ", ps.to_string());
    }
  }
  std::vector<int64_t> p;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &p, &known));
  if (!known) {
    int rank = s.rank();
    if (rank < 0 && !ps.unknown_rank()) rank = static_cast<int>(ps.dim(0));
    c.set_output(0, array::unknown_dims(rank));
    return Status::OK();
  }
  const int rank = static_cast<int>(p.size() / 2);
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int64_t before = p[2 * i], after = p[2 * i + 1];
    if (before < 0 || after < 0) {
      return c.error("paddings must be non-negative, got [", before, ", ", after, "] for dimension ", i);
    }
    if (before > kMaxDim || after > kMaxDim) return c.error("paddings are too large");
    const int64_t d = s.unknown_rank() ? -1 : s.dim(i);
    out[static_cast<size_t>(i)] = d < 0 ? -1 : d + before + after;
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status TileShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> m;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &m, &known));
  if (!known) {  // a multiple of 1 (partially known multiples) keeps the input's dim
    const Shape* p = c.input_partial_value(1);
    if (p == nullptr || s.unknown_rank() || p->rank() != s.rank()) {
      c.set_output(0, array::unknown_dims(s.unknown_rank() ? -1 : s.rank()));
      return Status::OK();
    }
    std::vector<int64_t> out(static_cast<size_t>(s.rank()), -1);
    for (int i = 0; i < s.rank(); ++i) {
      if (p->dim(i) == 0 || s.dim(i) == 0) {
        out[static_cast<size_t>(i)] = 0;
      } else if (p->dim(i) >= 0 && s.dim(i) >= 0 && p->dim(i) <= kMaxDim / std::max<int64_t>(1, s.dim(i))) {
        out[static_cast<size_t>(i)] = s.dim(i) * p->dim(i);
      }
    }
    c.set_output(0, Shape(std::move(out)));
    return Status::OK();
  }
  if (!s.unknown_rank() && static_cast<int>(m.size()) != s.rank()) {
    return c.error("multiples must have one entry per dimension of the input (rank ", s.rank(), "), got ", m.size());
  }
  std::vector<int64_t> out(m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] < 0) return c.error("multiples must be non-negative, got ", m[i], " for dimension ", i);
    const int64_t d = s.unknown_rank() ? -1 : s.dim(static_cast<int>(i));
    if (d > 0 && m[i] > kMaxDim / d) return c.error("the tiled shape is too large");
    out[i] = d < 0 ? (m[i] == 0 ? 0 : -1) : d * m[i];
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status BroadcastToShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> target;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &target, &known));
  if (!known) {
    // The target's partial value; where the input's own dim (aligned from the right) is known
    // and not 1, the output's dim is that dim (TensorFlow's rule).
    Shape out = shape_fns::partial_shape_input(c, 1);
    if (!out.unknown_rank() && !s.unknown_rank() && s.rank() <= out.rank()) {
      for (int i = 0; i < s.rank(); ++i) {
        int64_t& d = out.mutable_dims()[static_cast<size_t>(out.rank() - s.rank() + i)];
        if (d < 0 && s.dim(i) > 1) d = s.dim(i);
      }
    }
    c.set_output(0, std::move(out));
    return Status::OK();
  }
  for (int64_t d : target) {
    if (d < 0 || d > kMaxDim) return c.error("shape must have non-negative dims, got ", Shape(target).to_string());
  }
  if (!s.unknown_rank()) {
    const int r = static_cast<int>(target.size());
    bool ok = s.rank() <= r;
    for (int i = 0; ok && i < s.rank(); ++i) {
      const int64_t d = s.dim(i), t = target[static_cast<size_t>(r - s.rank() + i)];
      ok = d < 0 || d == 1 || d == t;
    }
    if (!ok) {
      return c.error("cannot broadcast a tensor of shape ", s.to_string(), " to shape ", Shape(target).to_string());
    }
  }
  c.set_output(0, Shape(std::move(target)));
  return Status::OK();
}

const array::CustomShape slice_shape("Slice", SliceShape);

const array::CustomShape strided_slice_shape("StridedSlice", StridedSliceShape);

const array::CustomShape strided_slice_grad_shape("StridedSliceGrad", StridedSliceGradShape);

const array::CustomShape reverse_shape("ReverseV2", ReverseShape);

const array::CustomShape pad_shape("Pad", PadShape);

const array::CustomShape pad_v2_shape("PadV2", PadShape);

const array::CustomShape tile_shape("Tile", TileShape);

const array::CustomShape broadcast_to_shape("BroadcastTo", BroadcastToShape);

// ---- space_batch (the kernels: kernels/cpu/array/space_batch.cc)

Status SpaceBatchShape(ShapeContext& c, bool to_batch) {
  std::vector<int64_t> block, pads;
  bool block_known, pads_known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &block, &block_known));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &pads, &pads_known));
  const Shape& in = c.input_shape(0);
  if (!block_known || !pads_known) {
    // The M block dims (block_shape's length) are unknown, and the batch; the dims after them
    // pass through.
    Shape out = in.unknown_rank() ? Shape::UnknownRank() : array::unknown_dims(in.rank());
    const Shape& bs = c.input_shape(1);
    if (!in.unknown_rank() && !bs.unknown_rank() && bs.rank() == 1 && bs.dim(0) >= 0 && bs.dim(0) < in.rank()) {
      for (int i = 1 + static_cast<int>(bs.dim(0)); i < in.rank(); ++i)
        out.mutable_dims()[static_cast<size_t>(i)] = in.dim(i);
    }
    c.set_output(0, std::move(out));
    return Status::OK();
  }
  if (pads.size() != 2 * block.size()) {
    return c.error(to_batch ? "paddings" : "crops", " must have shape [", block.size(), ", 2]");
  }
  Blocks k;
  OPF_RETURN_IF_ERROR(parse_blocks(c, in, block, c.input_shape(2), pads, to_batch ? "paddings" : "crops", &k));
  Shape out;
  OPF_RETURN_IF_ERROR(output_shape(c, in, k, to_batch, &out));
  c.set_output(0, out);
  return Status::OK();
}

const array::CustomShape s2b_shape("SpaceToBatchND", [](ShapeContext& c) { return SpaceBatchShape(c, true); });

const array::CustomShape b2s_shape("BatchToSpaceND", [](ShapeContext& c) { return SpaceBatchShape(c, false); });

}  // namespace
}  // namespace opforge
