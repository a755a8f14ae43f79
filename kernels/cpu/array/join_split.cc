// Joining and splitting along one dimension: ConcatV2, Pack, Split, SplitV, Unpack.
//
// Every one of them is a set of row copies once the tensors are viewed as
// [outer, dim(axis) * inner]: piece i covers a band of columns of the joined tensor.
#include <cstring>
#include <numeric>

#include "opforge/complex.h"
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
void band_copy(const E* src, E* dst, int64_t outer, int64_t width, int64_t total, int64_t col, bool into_band) {
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

// ------------------------------------------------------------------------------ ConcatV2

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

template <typename T>
Status SplitCpu(ops::SplitArgs& a) {
  int axis = static_cast<int>(a.split_dim.scalar<int32_t>());
  if (axis < 0) axis += a.value.rank();
  split_into<T>(a.ctx, a.value, axis, false);
  return Status::OK();
}

template <typename T>
Status SplitVCpu(ops::SplitVArgs& a) {
  int axis = static_cast<int>(a.split_dim.scalar<int32_t>());
  if (axis < 0) axis += a.value.rank();
  split_into<T>(a.ctx, a.value, axis, false);
  return Status::OK();
}

template <typename T>
Status UnpackCpu(ops::UnpackArgs& a) {
  const int axis = static_cast<int>(a.axis < 0 ? a.axis + a.value.rank() : a.axis);
  split_into<T>(a.ctx, a.value, axis, true);
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(ConcatV2, CPU, ConcatV2Cpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES)
OPFORGE_REGISTER_KERNEL(Pack, CPU, PackCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Split, CPU, SplitCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(SplitV, CPU, SplitVCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(Unpack, CPU, UnpackCpu, OPF_ALL)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(ConcatV2, CPU, ConcatV2Cpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Pack, CPU, PackCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Unpack, CPU, UnpackCpu, complex64, complex128)

}  // namespace opforge
