// Ops that copy a strided box of elements: Slice, StridedSlice (and its gradient), ReverseV2,
// Pad, PadV2, Tile and BroadcastTo. Each computes, per dimension, a start, a stride (possibly
// zero or negative) and a count, and hands them to array::strided_copy.
#include <limits>

#include "cpu/array/array_util.h"
#include "opforge/ops/array/broadcast_to.h"
#include "opforge/ops/array/pad.h"
#include "opforge/ops/array/pad_v2.h"
#include "opforge/ops/array/reverse_v2.h"
#include "opforge/ops/array/slice.h"
#include "opforge/ops/array/strided_slice.h"
#include "opforge/ops/array/strided_slice_grad.h"
#include "opforge/ops/array/tile.h"

namespace opforge {
namespace {

using array::Elem;
using array::strided_copy;
using array::strides_of;

constexpr int64_t kMaxDim = int64_t{1} << 48;

// ------------------------------------------------------------------------------ Slice

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
    c.set_output(0, array::unknown_dims(rank));
    return Status::OK();
  }
  if (begin.size() != size.size()) {
    return c.error("begin and size must have the same length, got ", begin.size(), " and ", size.size());
  }
  if (!s.unknown_rank() && static_cast<int>(begin.size()) != s.rank()) {
    return c.error("begin and size must have one entry per dimension of the input (rank ", s.rank(),
                   "), got ", begin.size());
  }
  std::vector<int64_t> out(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t d = s.unknown_rank() ? -1 : s.dim(static_cast<int>(i));
    const int64_t b = begin[i], z = size[i];
    if (b < 0) return c.error("begin[", i, "] = ", b, " must be non-negative");
    if (z < -1) return c.error("size[", i, "] = ", z, " must be non-negative or -1");
    if (d >= 0 && (b > d || (z >= 0 && z > d - b))) {
      return c.error("slice [", b, ", ", b, " + ", z, ") is out of range for dimension ", i,
                     " of size ", d, " (input shape ", s.to_string(), ")");
    }
    out[i] = z == -1 ? (d < 0 ? -1 : d - b) : z;
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

template <typename T>
Status SliceCpu(ops::SliceArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> begin;
  OPF_RETURN_IF_ERROR(array::read_ints(a.begin, &begin));
  const auto in_strides = strides_of(a.input.shape().dims());
  const auto& od = a.output.shape().dims();
  int64_t base = 0;
  for (size_t i = 0; i < begin.size(); ++i) base += begin[i] * in_strides[i];
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), od,
                  in_strides, strides_of(od), base, 0);
  return Status::OK();
}

// ------------------------------------------------------------------------------ StridedSlice

struct Masks {
  int64_t begin, end, ellipsis, new_axis, shrink;
};

// The dense form of a strided slice of `in`: per input dim a start, stride and count, and the
// output shape (new axes added, shrunk axes dropped). Dims of `in` may be unknown (-1): their
// counts are -1 then (and shrinks are not bounds-checked).
struct DenseSlice {
  std::vector<int64_t> start, stride, count, out_dims;
};

Status dense_slice(const std::string& op, const Shape& in, const std::vector<int64_t>& b,
                   const std::vector<int64_t>& e, const std::vector<int64_t>& st, const Masks& m,
                   DenseSlice* out) {
  auto err = [&](auto... args) { return errors::InvalidArgument(op, ": ", args...); };
  const size_t n = b.size();
  if (e.size() != n || st.size() != n) {
    return err("begin, end and strides must have the same length, got ", b.size(), ", ", e.size(),
               " and ", st.size());
  }
  if (n > 64) return err("at most 64 slice specs are supported, got ", n);
  auto bit = [](int64_t mask, size_t i) { return ((static_cast<uint64_t>(mask) >> i) & 1) != 0; };
  const int rank = in.rank();
  int consuming = 0;
  int ellipses = 0;
  for (size_t i = 0; i < n; ++i) {
    if (bit(m.ellipsis, i)) ++ellipses;
    else if (!bit(m.new_axis, i)) ++consuming;
  }
  if (ellipses > 1) return err("multiple ellipses in slice spec are not allowed");
  if (consuming > rank) {
    return err("too many indices: the slice has ", consuming, " indexing specs for a tensor of rank ", rank);
  }
  DenseSlice& d = *out;
  d = DenseSlice();
  int dim = 0;
  auto full = [&](int k) {
    const int64_t D = in.dim(k);
    d.start.push_back(0);
    d.stride.push_back(1);
    d.count.push_back(D);
    d.out_dims.push_back(D);
  };
  for (size_t i = 0; i <= n; ++i) {
    if (i == n) {  // an implicit ellipsis at the end covers the remaining dims
      if (ellipses == 0) while (dim < rank) full(dim++);
      break;
    }
    if (bit(m.ellipsis, i)) {
      const int cover = rank - consuming;
      for (int k = 0; k < cover; ++k) full(dim++);
      continue;
    }
    if (bit(m.new_axis, i)) {
      d.out_dims.push_back(1);
      continue;
    }
    const int64_t D = in.dim(dim);
    const int64_t s = st[i];
    if (s == 0) return err("strides[", i, "] must be non-zero");
    if (bit(m.shrink, i)) {
      if (s < 0) return err("only stride 1 allowed on non-range indexing (strides[", i, "] = ", s, ")");
      int64_t x = b[i];
      if (D >= 0) {
        if (x < 0) x += D;
        if (x < 0 || x >= D) {
          return err("slice index ", b[i], " of dimension ", dim, " out of bounds (size ", D, ")");
        }
      }
      d.start.push_back(x);
      d.stride.push_back(1);
      d.count.push_back(1);
      ++dim;
      continue;
    }
    if (D < 0) {
      d.start.push_back(0);
      d.stride.push_back(s);
      d.count.push_back(-1);
      d.out_dims.push_back(-1);
      ++dim;
      continue;
    }
    // Python's slice semantics: negative values count from the end; out-of-range values clamp.
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? D : D - 1;
    auto canon = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (s > 0) == is_end ? hi : lo;
      if (x < 0) x = x < std::numeric_limits<int64_t>::min() + D ? lo : x + D;
      return std::min(std::max(x, lo), hi);
    };
    const int64_t bb = canon(b[i], bit(m.begin, i), false);
    const int64_t ee = canon(e[i], bit(m.end, i), true);
    // ceil(span / |s|), without overflowing span + |s| - 1 or -INT64_MIN
    const uint64_t as = s > 0 ? static_cast<uint64_t>(s) : static_cast<uint64_t>(-(s + 1)) + 1;
    const int64_t span = s > 0 ? ee - bb : bb - ee;
    const int64_t cnt = span > 0 ? static_cast<int64_t>((static_cast<uint64_t>(span) - 1) / as + 1) : 0;
    d.start.push_back(cnt > 0 ? bb : 0);
    d.stride.push_back(s);
    d.count.push_back(cnt);
    d.out_dims.push_back(cnt);
    ++dim;
  }
  return Status::OK();
}

Masks masks_of(ShapeContext& c, int first) {
  return Masks{c.attr(first).i, c.attr(first + 1).i, c.attr(first + 2).i, c.attr(first + 3).i,
               c.attr(first + 4).i};
}

// Reads begin/end/strides (inputs b, b+1, b+2) if all known.
Status read_bes(ShapeContext& c, int b, std::vector<int64_t>* v0, std::vector<int64_t>* v1,
                std::vector<int64_t>* v2, bool* known) {
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

template <typename T>
Status StridedSliceCpu(ops::StridedSliceArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> b, e, s;
  OPF_RETURN_IF_ERROR(array::read_ints(a.begin, &b));
  OPF_RETURN_IF_ERROR(array::read_ints(a.end, &e));
  OPF_RETURN_IF_ERROR(array::read_ints(a.strides, &s));
  DenseSlice d;
  OPF_RETURN_IF_ERROR(dense_slice(a.ctx.op().name, a.input.shape(), b, e, s,
                                  Masks{a.begin_mask, a.end_mask, a.ellipsis_mask, a.new_axis_mask,
                                        a.shrink_axis_mask}, &d));
  const auto in_strides = strides_of(a.input.shape().dims());
  std::vector<int64_t> src(d.count.size());
  int64_t base = 0;
  for (size_t i = 0; i < d.count.size(); ++i) {
    src[i] = d.stride[i] * in_strides[i];
    base += d.start[i] * in_strides[i];
  }
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), d.count,
                  src, strides_of(d.count), base, 0);
  return Status::OK();
}

// StridedSliceGrad: inputs shape(0), begin(1), end(2), strides(3), dy(4); attrs T, Index, masks.
Status StridedSliceGradShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 0, 1, "a vector"));
  std::vector<int64_t> shape;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 0, &shape, &known));
  if (!known) {
    const Shape& ss = c.input_shape(0);
    c.set_output(0, array::unknown_dims(ss.unknown_rank() ? -1 : static_cast<int>(ss.dim(0))));
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
        return c.error("dy has shape ", dy.to_string(), " but the slice of ", Shape(shape).to_string(),
                       " has shape ", Shape(d.out_dims).to_string());
      }
    }
  }
  c.set_output(0, Shape(shape));
  return Status::OK();
}

template <typename T>
Status StridedSliceGradCpu(ops::StridedSliceGradArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> b, e, s;
  OPF_RETURN_IF_ERROR(array::read_ints(a.begin, &b));
  OPF_RETURN_IF_ERROR(array::read_ints(a.end, &e));
  OPF_RETURN_IF_ERROR(array::read_ints(a.strides, &s));
  DenseSlice d;
  OPF_RETURN_IF_ERROR(dense_slice(a.ctx.op().name, a.output.shape(), b, e, s,
                                  Masks{a.begin_mask, a.end_mask, a.ellipsis_mask, a.new_axis_mask,
                                        a.shrink_axis_mask}, &d));
  if (a.output.nbytes()) std::memset(a.output.raw_data(), 0, a.output.nbytes());
  const auto out_strides = strides_of(a.output.shape().dims());
  std::vector<int64_t> dst(d.count.size());
  int64_t base = 0;
  for (size_t i = 0; i < d.count.size(); ++i) {
    dst[i] = d.stride[i] * out_strides[i];
    base += d.start[i] * out_strides[i];
  }
  strided_copy<E>(static_cast<const E*>(a.dy.raw_data()), static_cast<E*>(a.output.raw_data()), d.count,
                  strides_of(d.count), dst, 0, base);
  return Status::OK();
}

// ------------------------------------------------------------------------------ ReverseV2

Status reverse_axes(const std::string& op, const std::vector<int64_t>& axes, int rank,
                    std::vector<bool>* rev) {
  rev->assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument(op, ": axis ", a, " is out of range for a tensor of rank ", rank,
                                     " (expected [", -rank, ", ", rank, "))");
    }
    const size_t k = static_cast<size_t>(a < 0 ? a + rank : a);
    if ((*rev)[k]) return errors::InvalidArgument(op, ": axis ", k, " is specified more than once");
    (*rev)[k] = true;
  }
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

template <typename T>
Status ReverseV2Cpu(ops::ReverseV2Args& a) {
  using E = Elem<T>;
  std::vector<int64_t> axes;
  OPF_RETURN_IF_ERROR(array::read_ints(a.axis, &axes));
  std::vector<bool> rev;
  OPF_RETURN_IF_ERROR(reverse_axes(a.ctx.op().name, axes, a.tensor.rank(), &rev));
  const auto& dims = a.tensor.shape().dims();
  auto st = strides_of(dims);
  std::vector<int64_t> src = st;
  int64_t base = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (rev[i] && dims[i] > 0) {
      base += (dims[i] - 1) * st[i];
      src[i] = -st[i];
    }
  }
  strided_copy<E>(static_cast<const E*>(a.tensor.raw_data()), static_cast<E*>(a.output.raw_data()), dims, src,
                  st, base, 0);
  return Status::OK();
}

// ------------------------------------------------------------------------------ Pad, PadV2

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

template <typename T>
Status pad(const Tensor& input, const Tensor& paddings, T value, Tensor& output) {
  using E = Elem<T>;
  std::vector<int64_t> p;
  OPF_RETURN_IF_ERROR(array::read_ints(paddings, &p));
  const int64_t n = output.num_elements();
  if (input.num_elements() == n) {  // no padding at all
    if (n) std::memcpy(output.raw_data(), input.raw_data(), output.nbytes());
    return Status::OK();
  }
  const auto& od = output.shape().dims();
  const auto& id = input.shape().dims();
  const auto ost = strides_of(od);
  const E fill = [&] {
    E e;
    std::memcpy(&e, &value, sizeof(E));
    return e;
  }();
  // Fill only the border: for each dim k, the slabs before and after the interior along k,
  // within the interior of the dims before k and spanning the dims after it.
  const std::vector<int64_t> zero(od.size(), 0);
  for (size_t k = 0; k < od.size(); ++k) {
    for (int side = 0; side < 2; ++side) {
      std::vector<int64_t> box(od.size());
      int64_t base = 0;
      for (size_t j = 0; j < od.size(); ++j) {
        if (j < k) {
          box[j] = id[j];
          base += p[2 * j] * ost[j];
        } else if (j > k) {
          box[j] = od[j];
        } else {
          box[j] = side == 0 ? p[2 * j] : p[2 * j + 1];
          if (side == 1) base += (p[2 * j] + id[j]) * ost[j];
        }
      }
      strided_copy<E>(&fill, static_cast<E*>(output.raw_data()), box, zero, ost, 0, base);
    }
  }
  int64_t base = 0;
  for (size_t i = 0; i < ost.size(); ++i) base += p[2 * i] * ost[i];
  strided_copy<E>(static_cast<const E*>(input.raw_data()), static_cast<E*>(output.raw_data()),
                  input.shape().dims(), strides_of(input.shape().dims()), ost, 0, base);
  return Status::OK();
}

template <typename T>
Status PadCpu(ops::PadArgs& a) {
  return pad<T>(a.input, a.paddings, T(0), a.output);
}

template <typename T>
Status PadV2Cpu(ops::PadV2Args& a) {
  return pad<T>(a.input, a.paddings, a.constant_values.template data<T>()[0], a.output);
}

// ------------------------------------------------------------------------------ Tile

Status TileShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> m;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &m, &known));
  if (!known) {
    c.set_output(0, array::unknown_dims(s.rank()));
    return Status::OK();
  }
  if (!s.unknown_rank() && static_cast<int>(m.size()) != s.rank()) {
    return c.error("multiples must have one entry per dimension of the input (rank ", s.rank(), "), got ",
                   m.size());
  }
  std::vector<int64_t> out(m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i] < 0) return c.error("multiples must be non-negative, got ", m[i], " for dimension ", i);
    const int64_t d = s.unknown_rank() ? -1 : s.dim(static_cast<int>(i));
    if (d > 0 && m[i] > kMaxDim / d) return c.error("the tiled shape is too large");
    out[i] = d < 0 ? -1 : d * m[i];
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

template <typename T>
Status TileCpu(ops::TileArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> m;
  OPF_RETURN_IF_ERROR(array::read_ints(a.multiples, &m));
  const auto& dims = a.input.shape().dims();
  const auto ist = strides_of(dims);
  std::vector<int64_t> view, src;  // output viewed as [m0, d0, m1, d1, ...]
  for (size_t i = 0; i < dims.size(); ++i) {
    view.push_back(m[i]);
    src.push_back(0);
    view.push_back(dims[i]);
    src.push_back(ist[i]);
  }
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), view, src,
                  strides_of(view), 0, 0);
  return Status::OK();
}

// ------------------------------------------------------------------------------ BroadcastTo

Status BroadcastToShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 1, "a vector"));
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> target;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &target, &known));
  if (!known) {
    const Shape& ts = c.input_shape(1);
    c.set_output(0, array::unknown_dims(ts.unknown_rank() ? -1 : static_cast<int>(ts.dim(0))));
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
      return c.error("cannot broadcast a tensor of shape ", s.to_string(), " to shape ",
                     Shape(target).to_string());
    }
  }
  c.set_output(0, Shape(std::move(target)));
  return Status::OK();
}

template <typename T>
Status BroadcastToCpu(ops::BroadcastToArgs& a) {
  using E = Elem<T>;
  const auto& od = a.output.shape().dims();
  const auto& id = a.input.shape().dims();
  const auto ist = strides_of(id);
  std::vector<int64_t> src(od.size(), 0);
  const size_t lead = od.size() - id.size();
  for (size_t i = 0; i < id.size(); ++i) src[lead + i] = id[i] == 1 ? 0 : ist[i];
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), od, src,
                  strides_of(od), 0, 0);
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

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(Slice, CPU, SliceCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(StridedSlice, CPU, StridedSliceCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(StridedSliceGrad, CPU, StridedSliceGradCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(ReverseV2, CPU, ReverseV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Pad, CPU, PadCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(PadV2, CPU, PadV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Tile, CPU, TileCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(BroadcastTo, CPU, BroadcastToCpu, OPF_ALL)

}  // namespace opforge
