// Ops that copy a strided box of elements: Slice, StridedSlice (and its gradient), ReverseV2,
// Pad, PadV2, Tile and BroadcastTo. Each computes, per dimension, a start, a stride (possibly
// zero or negative) and a count, and hands them to array::strided_copy.
#include <limits>

#include "opforge/complex.h"
#include "cpu/array/array_util.h"
#include "opforge/ops/array/broadcast_to.h"
#include "opforge/ops/array/pad.h"
#include "opforge/ops/array/pad_v2.h"
#include "opforge/ops/array/reverse_v2.h"
#include "opforge/ops/array/slice.h"
#include "opforge/ops/array/strided_slice.h"
#include "opforge/ops/array/strided_slice_grad.h"
#include "opforge/ops/array/tile.h"
#include "ops/array.h"

namespace opforge {
namespace {

using array::Elem;
using array::strided_copy;
using array::strides_of;

// ------------------------------------------------------------------------------ Slice

template <typename T>
Status SliceCpu(ops::SliceArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> begin;
  OPF_RETURN_IF_ERROR(array::read_ints(a.begin, &begin));
  const auto in_strides = strides_of(a.input.shape().dims());
  const auto& od = a.output.shape().dims();
  int64_t base = 0;
  for (size_t i = 0; i < begin.size(); ++i) base += begin[i] * in_strides[i];
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), od, in_strides,
                  strides_of(od), base, 0);
  return Status::OK();
}

// ------------------------------------------------------------------------------ StridedSlice

using array_semantics::Masks;

using array_semantics::DenseSlice;

using array_semantics::dense_slice;

template <typename T>
Status StridedSliceCpu(ops::StridedSliceArgs& a) {
  using E = Elem<T>;
  std::vector<int64_t> b, e, s;
  OPF_RETURN_IF_ERROR(array::read_ints(a.begin, &b));
  OPF_RETURN_IF_ERROR(array::read_ints(a.end, &e));
  OPF_RETURN_IF_ERROR(array::read_ints(a.strides, &s));
  DenseSlice d;
  OPF_RETURN_IF_ERROR(dense_slice(a.ctx.op().name, a.input.shape(), b, e, s,
                                  Masks{a.begin_mask, a.end_mask, a.ellipsis_mask, a.new_axis_mask, a.shrink_axis_mask},
                                  &d));
  const auto in_strides = strides_of(a.input.shape().dims());
  std::vector<int64_t> src(d.count.size());
  int64_t base = 0;
  for (size_t i = 0; i < d.count.size(); ++i) {
    src[i] = d.stride[i] * in_strides[i];
    base += d.start[i] * in_strides[i];
  }
  strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), d.count, src,
                  strides_of(d.count), base, 0);
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
                                  Masks{a.begin_mask, a.end_mask, a.ellipsis_mask, a.new_axis_mask, a.shrink_axis_mask},
                                  &d));
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

using array_semantics::reverse_axes;

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
  strided_copy<E>(static_cast<const E*>(a.tensor.raw_data()), static_cast<E*>(a.output.raw_data()), dims, src, st, base,
                  0);
  return Status::OK();
}

// ------------------------------------------------------------------------------ Pad, PadV2

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
  strided_copy<E>(static_cast<const E*>(input.raw_data()), static_cast<E*>(output.raw_data()), input.shape().dims(),
                  strides_of(input.shape().dims()), ost, 0, base);
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

template <typename T>
Status TileCpu(ops::TileArgs& a) {
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
  if constexpr (std::is_same_v<T, StringTag>) {  // TF1 classification signatures tile class names
    const Shape& shape = a.ctx.output_shape(0);
    std::vector<std::string> out(static_cast<size_t>(shape.num_elements()));
    if (!out.empty())
      strided_copy<std::string>(a.input.strings()->data(), out.data(), view, src, strides_of(view), 0, 0);
    return Tensor::FromStrings(shape, std::move(out), &a.output);
  } else {
    using E = Elem<T>;
    strided_copy<E>(static_cast<const E*>(a.input.raw_data()), static_cast<E*>(a.output.raw_data()), view, src,
                    strides_of(view), 0, 0);
    return Status::OK();
  }
}

// ------------------------------------------------------------------------------ BroadcastTo

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

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(Slice, CPU, SliceCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(StridedSlice, CPU, StridedSliceCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(StridedSliceGrad, CPU, StridedSliceGradCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(ReverseV2, CPU, ReverseV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Pad, CPU, PadCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(PadV2, CPU, PadV2Cpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Tile, CPU, TileCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Tile, CPU, TileCpu, StringTag)
OPFORGE_REGISTER_KERNEL(BroadcastTo, CPU, BroadcastToCpu, OPF_ALL)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(Slice, CPU, SliceCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(StridedSlice, CPU, StridedSliceCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Pad, CPU, PadCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Tile, CPU, TileCpu, complex64, complex128)

}  // namespace opforge
