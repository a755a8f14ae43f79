// AddN and ZerosLike of TensorLists (what the gradients of list ops sum and start from).
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/list/list_value.h"
#include "opforge/ops/array/zeros_like.h"
#include "opforge/ops/math/add_n.h"

namespace opforge {
namespace {

using namespace list;  // NOLINT: the list kernels' own helpers

// AddN of lists (the gradients of one list, summed): element-wise; an element set in only one
// list is taken as it is. The lists must have the same length.
template <typename E>
void add_into(Tensor* acc, const Tensor& x) {
  E* d = acc->data<E>();
  const E* s = x.data<E>();
  for (int64_t i = 0; i < acc->num_elements(); ++i)
    d[i] = static_cast<E>(static_cast<float>(d[i]) + static_cast<float>(s[i]));
}

template <>
void add_into<double>(Tensor* acc, const Tensor& x) {
  double* d = acc->data<double>();
  const double* s = x.data<double>();
  for (int64_t i = 0; i < acc->num_elements(); ++i) d[i] += s[i];
}

Status add_elements(const KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor* out) {
  if (!(a.shape() == b.shape())) {
    return ctx.error("Trying to add two tensors with incompatible element shapes. One is ", a.shape().to_string(),
                     " and the other is ", b.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.dtype(), a.shape(), out));
  if (a.nbytes() > 0) std::memcpy(out->raw_data(), a.raw_data(), a.nbytes());
  switch (a.dtype()) {
    case DType::kFloat:
      add_into<float>(out, b);
      break;
    case DType::kDouble:
      add_into<double>(out, b);
      break;
    case DType::kHalf:
      add_into<half>(out, b);
      break;
    case DType::kBFloat16:
      add_into<bfloat16>(out, b);
      break;
    default:
      return ctx.error("cannot add list elements of type ", dtype_name(a.dtype()));
  }
  return Status::OK();
}

template <typename T>
Status ListAddNCpu(ops::AddNArgs& a) {
  const TensorList in = a.inputs;
  const ListValue* first;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, in[0], DType::kInvalid, &first));
  auto sum = std::make_shared<ListValue>(*first);
  for (int k = 1; k < in.size; ++k) {
    const ListValue* x;
    OPF_RETURN_IF_ERROR(input_list(a.ctx, in[k], first->element_dtype, &x));
    if (x->elements.size() != sum->elements.size()) {
      return a.ctx.error("Trying to add two lists of tensors with different lengths. One is ", sum->elements.size(),
                         " and the other is ", x->elements.size());
    }
    Shape merged;
    OPF_RETURN_IF_ERROR(merge_shapes(a.ctx, sum->element_shape, x->element_shape, &merged));
    sum->element_shape = merged;
    for (size_t i = 0; i < x->elements.size(); ++i) {
      const Tensor& e = x->elements[i];
      if (!e.initialized()) continue;
      Tensor& acc = sum->elements[i];
      if (!acc.initialized()) {
        acc = e;
        continue;
      }
      Tensor added;
      OPF_RETURN_IF_ERROR(add_elements(a.ctx, acc, e, &added));
      acc = std::move(added);
    }
  }
  set_list_output(a.ctx, 0, std::move(sum));
  return Status::OK();
}

template <typename T>
Status ListZerosLikeCpu(ops::ZerosLikeArgs& a) {
  const ListValue* in;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.x, DType::kInvalid, &in));
  auto list = std::make_shared<ListValue>(*in);
  for (Tensor& e : list->elements) {
    if (!e.initialized()) continue;
    Tensor z;
    OPF_RETURN_IF_ERROR(zeros(e.dtype(), e.shape(), &z));
    e = std::move(z);
  }
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(AddN, CPU, ListAddNCpu, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(ZerosLike, CPU, ListZerosLikeCpu, VariantTag)

}  // namespace opforge
