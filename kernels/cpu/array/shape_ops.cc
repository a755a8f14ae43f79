// Ops that only re-label a buffer (Reshape, Identity, IdentityN: outputs share the inputs' memory)
// and ops that create tensors of a given shape (Fill, ZerosLike, OnesLike).
#include <algorithm>
#include <cstring>

#include "opforge/complex.h"
#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/array/fill.h"
#include "opforge/ops/array/guarantee_const.h"
#include "opforge/ops/array/identity.h"
#include "opforge/ops/array/identity_n.h"
#include "opforge/ops/array/ones_like.h"
#include "opforge/ops/array/placeholder_with_default.h"
#include "opforge/ops/array/reshape.h"
#include "opforge/ops/array/zeros_like.h"

namespace opforge {
namespace {

template <typename T>
Status ReshapeCpu(ops::ReshapeArgs& a) {
  a.output = a.tensor.reshaped(a.ctx.output_shape(0));
  return Status::OK();
}

template <typename T>
Status IdentityCpu(ops::IdentityArgs& a) {
  a.output = a.input;
  return Status::OK();
}

template <typename T>
Status GuaranteeConstCpu(ops::GuaranteeConstArgs& a) {
  a.output = a.input;
  return Status::OK();
}

template <typename T>
Status PlaceholderWithDefaultCpu(ops::PlaceholderWithDefaultArgs& a) {
  a.output = a.input;  // a fed value replaces the output before this runs
  return Status::OK();
}

Status IdentityNCpu(ops::IdentityNArgs& a) {
  for (int i = 0; i < a.ctx.num_outputs(); ++i) a.ctx.output(i) = a.ctx.input_list(0)[i];
  return Status::OK();
}

template <typename T>
void fill_with(Tensor& t, T v) {
  T* p = t.data<T>();
  parallel_for(t.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
}

template <typename T>
Status FillCpu(ops::FillArgs& a) {
  // TensorFlow's legacy scalar: a 1-element vector is accepted as a scalar too.
  if (!(a.value.rank() == 0 || (a.value.rank() == 1 && a.value.num_elements() == 1))) {
    return a.ctx.error("value must be a scalar (or a 1-element vector), got shape ", a.value.shape().to_string());
  }
  if (a.dims.rank() != 1) {
    return a.ctx.error("dims must be a vector, got shape ", a.dims.shape().to_string());
  }
  fill_with<T>(a.output, a.value.data<T>()[0]);
  return Status::OK();
}

template <typename T>
Status ZerosLikeCpu(ops::ZerosLikeArgs& a) {
  if (a.y.nbytes()) std::memset(a.y.raw_data(), 0, a.y.nbytes());
  return Status::OK();
}

template <typename T>
Status OnesLikeCpu(ops::OnesLikeArgs& a) {
  fill_with<T>(a.y, static_cast<T>(1));
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(Reshape, CPU, ReshapeCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES,
                                   StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(Identity, CPU, IdentityCpu, OPF_ALL, OPF_QUANTIZED_TYPES, OPF_WIDE_UNSIGNED_TYPES,
                                   StringTag, VariantTag)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(IdentityN, CPU, IdentityNCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(GuaranteeConst, CPU, GuaranteeConstCpu, OPF_ALL, StringTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(PlaceholderWithDefault, CPU, PlaceholderWithDefaultCpu, OPF_ALL, OPF_QUANTIZED_TYPES,
                                   OPF_WIDE_UNSIGNED_TYPES, StringTag)
OPFORGE_REGISTER_KERNEL(Fill, CPU, FillCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(ZerosLike, CPU, ZerosLikeCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(OnesLike, CPU, OnesLikeCpu, OPF_ALL)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_FORWARDING_KERNEL(Reshape, CPU, ReshapeCpu, complex64, complex128)
OPFORGE_REGISTER_FORWARDING_KERNEL(Identity, CPU, IdentityCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(Fill, CPU, FillCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(ZerosLike, CPU, ZerosLikeCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(OnesLike, CPU, OnesLikeCpu, complex64, complex128)

}  // namespace opforge
