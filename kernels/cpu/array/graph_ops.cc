// Ops that graphs are made of: Placeholder, Const, and the shape queries Shape, Size, Rank
// and BroadcastGradientArgs (used by gradients when shapes are only known at run time).
#include <algorithm>

#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/array/broadcast_gradient_args.h"
#include "opforge/ops/array/const.h"
#include "opforge/ops/array/placeholder.h"
#include "opforge/ops/array/rank.h"
#include "opforge/ops/array/shape.h"
#include "opforge/ops/array/size.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

template <typename T>
Status PlaceholderCpu(ops::PlaceholderArgs& a) {
  const std::string node = a.ctx.env() && a.ctx.env()->node_name ? *a.ctx.env()->node_name : "?";
  return a.ctx.error("You must feed a value for placeholder tensor '", node, "' with dtype ", dtype_name(a.dtype),
                     " and shape ", a.shape.to_string());
}

template <typename T>
Status ConstCpu(ops::ConstArgs& a) {
  if (a.value.dtype() != a.dtype) {
    return a.ctx.error("value has dtype ", dtype_name(a.value.dtype()), " but dtype is ", dtype_name(a.dtype));
  }
  a.output = a.value;
  // The node's attr holds this buffer for as long as the graph lives and nothing writes it,
  // so kernels may cache what they derive from it (a convolution's packed filter).
  if (a.output.buffer() && a.output.on_host()) a.output.buffer()->mark_constant();
  return Status::OK();
}

template <typename I>
void write_ints(Tensor& out, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) out.data<I>()[i] = static_cast<I>(v[i]);
}

template <typename T>
Status ShapeCpu(ops::ShapeArgs& a) {
  const auto& dims = a.input.shape().dims();
  if (a.out_type == DType::kInt32)
    write_ints<int32_t>(a.output, dims);
  else
    write_ints<int64_t>(a.output, dims);
  return Status::OK();
}

template <typename T>
Status SizeCpu(ops::SizeArgs& a) {
  if (a.out_type == DType::kInt32) {
    if (a.input.num_elements() > INT32_MAX)
      return a.ctx.error("size ", a.input.num_elements(), " does not fit in int32");
    a.output.data<int32_t>()[0] = static_cast<int32_t>(a.input.num_elements());
  } else {
    a.output.data<int64_t>()[0] = a.input.num_elements();
  }
  return Status::OK();
}

template <typename T>
Status RankCpu(ops::RankArgs& a) {
  a.output.data<int32_t>()[0] = a.input.rank();
  return Status::OK();
}

template <typename T>
Status BroadcastGradientArgsCpu(ops::BroadcastGradientArgsArgs& a) {
  std::vector<int64_t> s0, s1;
  OPF_RETURN_IF_ERROR(read_int_vector(a.s0, &s0));
  OPF_RETURN_IF_ERROR(read_int_vector(a.s1, &s1));
  Shape out;
  OPF_RETURN_IF_ERROR(broadcast_shapes(Shape(s0), Shape(s1), &out, "BroadcastGradientArgs"));
  // TensorFlow's BCast rule, to the letter: identical shapes reduce nothing (even their 1s);
  // otherwise a dimension where both operands are 1 (or missing) is listed for both, and one
  // where only one operand is 1 (or missing) for that operand.
  const int r = out.rank();
  std::vector<int64_t> r0, r1;
  if (s0 != s1) {
    for (int i = 0; i < r; ++i) {
      const int i0 = i - (r - static_cast<int>(s0.size())), i1 = i - (r - static_cast<int>(s1.size()));
      const int64_t d0 = i0 >= 0 ? s0[static_cast<size_t>(i0)] : 1, d1 = i1 >= 0 ? s1[static_cast<size_t>(i1)] : 1;
      if (d0 == 1) r0.push_back(i);
      if (d1 == 1) r1.push_back(i);
    }
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.s0.dtype(), Shape({static_cast<int64_t>(r0.size())}), &a.ctx.output(0)));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.s0.dtype(), Shape({static_cast<int64_t>(r1.size())}), &a.ctx.output(1)));
  write_ints<T>(a.ctx.output(0), r0);
  write_ints<T>(a.ctx.output(1), r1);
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

// Forwarding: an unfed placeholder has no fully known shape to allocate; the kernel reports.
OPFORGE_REGISTER_FORWARDING_KERNEL(Placeholder, CPU, PlaceholderCpu, OPF_ALL, OPF_QUANTIZED_TYPES,
                                   OPF_WIDE_UNSIGNED_TYPES, StringTag, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(Const, CPU, ConstCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES,
                                   StringTag)
OPFORGE_REGISTER_KERNEL(Shape, CPU, ShapeCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES, StringTag)
OPFORGE_REGISTER_KERNEL(Size, CPU, SizeCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES, StringTag)
OPFORGE_REGISTER_KERNEL(Rank, CPU, RankCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES, StringTag)
// Output lengths depend on the values: the kernel allocates them itself.
OPFORGE_REGISTER_FORWARDING_KERNEL(BroadcastGradientArgs, CPU, BroadcastGradientArgsCpu, int32_t, int64_t)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_FORWARDING_KERNEL(Placeholder, CPU, PlaceholderCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Const, CPU, ConstCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Shape, CPU, ShapeCpu, complex64, complex128)

}  // namespace opforge
