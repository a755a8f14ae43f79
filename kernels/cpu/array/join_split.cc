// Joining and splitting along one dimension: ConcatV2, Pack, Split, SplitV, Unpack.
//
// Every one of them is a set of row copies once the tensors are viewed as
// [outer, dim(axis) * inner]: piece i covers a band of columns of the joined tensor.
#include <cstring>
#include <numeric>

#include "cpu/array/array_util.h"
#include "opforge/ops/array/concat_v2.h"
#include "opforge/ops/array/pack.h"
#include "opforge/ops/array/split.h"
#include "opforge/ops/array/split_v.h"
#include "opforge/ops/array/unpack.h"

namespace opforge {
namespace {

using array::Elem;
using array::strided_copy;

// Copies piece <-> a column band [col, col + width) of a [outer, total] matrix.
template <typename E>
void band_copy(const E* src, E* dst, int64_t outer, int64_t width, int64_t total, int64_t col,
               bool into_band) {
  if (into_band) {
    strided_copy<E>(src, dst, {outer, width}, {width, 1}, {total, 1}, 0, col);
  } else {
    strided_copy<E>(src, dst, {outer, width}, {total, 1}, {width, 1}, col, 0);
  }
}

int64_t prod(const std::vector<int64_t>& d, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e; ++i) p *= d[i];
  return p;
}

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
      return c.error(what, " must have matching dimensions", skip >= 0 ? " except along the axis" : "",
                     ", got shapes ", s->to_string(), " and ", o.to_string());
    }
    if (a < 0) s->mutable_dims()[static_cast<size_t>(d)] = b;
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ ConcatV2

Status ConcatShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, 1, 0, "a scalar"));
  const int n = c.num_inputs(0);
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    const Shape& s = c.input_shape(0, i);
    if (s.unknown_rank()) continue;
    if (rank >= 0 && s.rank() != rank) {
      return c.error("all inputs must have the same rank, got shapes ",
                     c.input_shape(0, 0).to_string(), " and ", s.to_string());
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

template <typename T>
Status ConcatV2Cpu(ops::ConcatV2Args& a) {
  using E = Elem<T>;
  const Shape& os = a.output.shape();
  int axis;
  {
    std::vector<int64_t> v;
    OPF_RETURN_IF_ERROR(array::read_ints(a.axis, &v));
    axis = static_cast<int>(v[0] < 0 ? v[0] + os.rank() : v[0]);
  }
  const int64_t outer = prod(os.dims(), 0, static_cast<size_t>(axis));
  const int64_t total = prod(os.dims(), static_cast<size_t>(axis), os.dims().size());
  E* out = static_cast<E*>(a.output.raw_data());
  if (outer >= 4 * num_threads() && total > 0) {
    // Many rows (a channel concat of NHWC images): each output row is written whole, piece
    // after piece, in one pass over the output; piece by piece, every output row's cache lines
    // were written once per input, after the earlier pieces' passes had evicted them.
    std::vector<const E*> src;
    std::vector<int64_t> width;
    for (int i = 0; i < a.values.size; ++i) {
      const Tensor& t = a.values[i];
      const int64_t w = prod(t.shape().dims(), static_cast<size_t>(axis), t.shape().dims().size());
      if (w == 0) continue;
      src.push_back(static_cast<const E*>(t.raw_data()));
      width.push_back(w);
    }
    parallel_for(outer, std::max<int64_t>(1, cpu::kGrain / total), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        E* o = out + r * total;
        for (size_t i = 0; i < src.size(); ++i) {
          std::memcpy(o, src[i] + r * width[i], static_cast<size_t>(width[i]) * sizeof(E));
          o += width[i];
        }
      }
    });
    return Status::OK();
  }
  int64_t col = 0;
  for (int i = 0; i < a.values.size; ++i) {
    const Tensor& t = a.values[i];
    const int64_t width = prod(t.shape().dims(), static_cast<size_t>(axis), t.shape().dims().size());
    if (outer > 0 && width > 0) {
      band_copy<E>(static_cast<const E*>(t.raw_data()), out, outer, width, total, col, true);
    }
    col += width;
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ Pack

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

template <typename T>
Status PackCpu(ops::PackArgs& a) {
  using E = Elem<T>;
  const Shape& os = a.output.shape();
  const int axis = static_cast<int>(a.axis < 0 ? a.axis + os.rank() : a.axis);
  const int64_t outer = prod(os.dims(), 0, static_cast<size_t>(axis));
  const int64_t width = prod(os.dims(), static_cast<size_t>(axis) + 1, os.dims().size());
  const int64_t total = width * a.values.size;
  E* out = static_cast<E*>(a.output.raw_data());
  if (outer == 0 || width == 0) return Status::OK();
  for (int i = 0; i < a.values.size; ++i) {
    band_copy<E>(static_cast<const E*>(a.values[i].raw_data()), out, outer, width, total, i * width, true);
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------ Split, SplitV, Unpack

// Splits `value` along `axis` into the kernel's outputs (already allocated with their shapes).
template <typename T>
void split_into(KernelContext& ctx, const Tensor& value, int axis, bool drop_axis) {
  using E = Elem<T>;
  const auto& dims = value.shape().dims();
  const int64_t outer = prod(dims, 0, static_cast<size_t>(axis));
  const int64_t total = prod(dims, static_cast<size_t>(axis), dims.size());
  const int64_t inner = prod(dims, static_cast<size_t>(axis) + 1, dims.size());
  const E* in = static_cast<const E*>(value.raw_data());
  int64_t col = 0;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    Tensor& o = ctx.output(i);
    const int64_t width = drop_axis ? inner : o.shape().dim(axis) * inner;
    if (outer > 0 && width > 0) band_copy<E>(in, static_cast<E*>(o.raw_data()), outer, width, total, col, false);
    col += width;
  }
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

template <typename T>
Status SplitCpu(ops::SplitArgs& a) {
  int axis = static_cast<int>(a.split_dim.scalar<int32_t>());
  if (axis < 0) axis += a.value.rank();
  split_into<T>(a.ctx, a.value, axis, false);
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
    return c.error("with one output, size_splits must be [", d, "] (dimension ", axis,
                   "), got [", sizes[0], "]");
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

template <typename T>
Status SplitVCpu(ops::SplitVArgs& a) {
  int axis = static_cast<int>(a.split_dim.scalar<int32_t>());
  if (axis < 0) axis += a.value.rank();
  split_into<T>(a.ctx, a.value, axis, false);
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
    return c.error("num=", num, " does not match dimension ", axis, " of size ",
                   dims[static_cast<size_t>(axis)], " (shape ", s.to_string(), ")");
  }
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape(dims));
  return Status::OK();
}

template <typename T>
Status UnpackCpu(ops::UnpackArgs& a) {
  const int axis = static_cast<int>(a.axis < 0 ? a.axis + a.value.rank() : a.axis);
  split_into<T>(a.ctx, a.value, axis, true);
  return Status::OK();
}

const array::CustomShape concat_shape("ConcatV2", ConcatShape);
const array::CustomShape pack_shape("Pack", PackShape);
const array::CustomShape split_shape("Split", SplitShape);
const array::CustomShape split_v_shape("SplitV", SplitVShape);
const array::CustomShape unpack_shape("Unpack", UnpackShape);

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(ConcatV2, CPU, ConcatV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Pack, CPU, PackCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Split, CPU, SplitCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(SplitV, CPU, SplitVCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Unpack, CPU, UnpackCpu, OPF_ALL)

}  // namespace opforge
