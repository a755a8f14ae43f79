// TensorList ops (TensorFlow's list_ops): a variant tensor holding a list of tensors, as
// TF2's while loops lower to in a frozen graph (RNN inputs read with TensorListGetItem,
// outputs collected with TensorListSetItem and TensorListStack).
//
// A list is immutable once a kernel has produced it: SetItem, PushBack and PopBack return a
// new list that shares the element tensors (which are immutable too) with the old one.
//
// list_value.h holds the list value and what the kernels share; list_ops.cc the element ops
// (reserve, get/set, push/pop, length, element shape), list_tensor_ops.cc the ops between
// lists and whole tensors (stack, gather, scatter, concat, split), list_math.cc AddN and
// ZerosLike of lists (their gradients).
#include <cstring>

#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "cpu/list/list_value.h"
#include "opforge/ops/list/empty_tensor_list.h"
#include "opforge/ops/list/tensor_list_element_shape.h"
#include "opforge/ops/list/tensor_list_from_tensor.h"
#include "opforge/ops/list/tensor_list_get_item.h"
#include "opforge/ops/list/tensor_list_length.h"
#include "opforge/ops/list/tensor_list_pop_back.h"
#include "opforge/ops/list/tensor_list_push_back.h"
#include "opforge/ops/list/tensor_list_reserve.h"
#include "opforge/ops/list/tensor_list_set_item.h"

namespace opforge {
namespace {

using namespace list;  // NOLINT: the list kernels' own helpers

// The shape functions of these ops are op semantics: runtime/ops/list.cc.

// ---- kernels. The element dtype selects none of the work (elements are moved or copied as
// bytes): the kernels are registered for every dtype without per-type code.

template <typename T>
Status TensorListReserveCpu(ops::TensorListReserveArgs& a) {
  auto list = std::make_shared<ListValue>();
  list->element_dtype = a.element_dtype;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &list->element_shape));
  const int64_t n = a.num_elements.scalar<int32_t>();
  if (n < 0) return a.ctx.error("The num_elements to reserve must be a non negative number, but got ", n);
  list->elements.resize(static_cast<size_t>(n));
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status EmptyTensorListCpu(ops::EmptyTensorListArgs& a) {
  auto list = std::make_shared<ListValue>();
  list->element_dtype = a.element_dtype;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &list->element_shape));
  list->max_num_elements = a.max_num_elements.scalar<int32_t>();
  if (list->max_num_elements < -1) {
    return a.ctx.error("max_num_elements must be -1 (no limit) or non-negative, got ", list->max_num_elements);
  }
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListFromTensorCpu(ops::TensorListFromTensorArgs& a) {
  const Tensor& t = a.tensor;
  if (t.rank() < 1) return a.ctx.error("tensor must be at least a vector, got shape ", t.shape().to_string());
  auto list = std::make_shared<ListValue>();
  list->element_dtype = a.element_dtype;
  Shape given;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  const Shape element(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
  if (!given.is_compatible_with(element)) {
    return a.ctx.error("Specified a list with shape ", given.to_string(), " from a tensor with shape ",
                       t.shape().to_string());
  }
  list->element_shape = given;
  const int64_t n = t.dim(0);
  list->elements.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    OPF_RETURN_IF_ERROR(copy_rows(t, i, 1, true, &list->elements[static_cast<size_t>(i)]));
  }
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListGetItemCpu(ops::TensorListGetItemArgs& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &list));
  const int64_t i = a.index.scalar<int32_t>();
  const int64_t n = static_cast<int64_t>(list->elements.size());
  if (i < 0 || i >= n) return a.ctx.error("Trying to access element ", i, " in a list with ", n, " elements.");
  Shape given;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  return read_element(a.ctx, *list, i, given, &a.ctx.output(0));
}

template <typename T>
Status TensorListSetItemCpu(ops::TensorListSetItemArgs& a) {
  const ListValue* in;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &in));
  const int64_t i = a.index.scalar<int32_t>();
  const int64_t n = static_cast<int64_t>(in->elements.size());
  if (i < 0 || (i >= n && !a.resize_if_index_out_of_bounds)) {
    return a.ctx.error("Trying to modify element ", i, " in a list with ", n, " elements.");
  }
  OPF_RETURN_IF_ERROR(check_item(a.ctx, *in, a.item));
  auto list = writable_list(a.ctx, a.input_handle, in);
  if (i >= n) list->elements.resize(static_cast<size_t>(i) + 1);
  list->elements[static_cast<size_t>(i)] = a.item;
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListPushBackCpu(ops::TensorListPushBackArgs& a) {
  const ListValue* in;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &in));
  OPF_RETURN_IF_ERROR(check_item(a.ctx, *in, a.tensor));
  if (in->max_num_elements >= 0 && static_cast<int64_t>(in->elements.size()) >= in->max_num_elements) {
    return a.ctx.error("Tried to push item into a full list, list size: ", in->elements.size(),
                       ", max_num_elements: ", in->max_num_elements);
  }
  auto list = writable_list(a.ctx, a.input_handle, in);
  list->elements.push_back(a.tensor);
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListPopBackCpu(ops::TensorListPopBackArgs& a) {
  const ListValue* in;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &in));
  if (in->elements.empty()) return a.ctx.error("Trying to pop from an empty list.");
  Shape given;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  OPF_RETURN_IF_ERROR(read_element(a.ctx, *in, static_cast<int64_t>(in->elements.size()) - 1, given, &a.ctx.output(1)));
  auto list = writable_list(a.ctx, a.input_handle, in);
  list->elements.pop_back();
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

Status TensorListLengthCpu(ops::TensorListLengthArgs& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, DType::kInvalid, &list));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({}), &a.ctx.output(0)));
  a.ctx.output(0).data<int32_t>()[0] = static_cast<int32_t>(list->elements.size());
  return Status::OK();
}

template <typename T>
Status TensorListElementShapeCpu(ops::TensorListElementShapeArgs& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, DType::kInvalid, &list));
  const Shape& s = list->element_shape;
  Tensor& out = a.ctx.output(0);
  const Shape out_shape = s.unknown_rank() ? Shape({}) : Shape({static_cast<int64_t>(s.rank())});
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.shape_type, out_shape, &out));
  const std::vector<int64_t> dims = s.unknown_rank() ? std::vector<int64_t>{-1} : s.dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (a.shape_type == DType::kInt32)
      out.data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
    else
      out.data<int64_t>()[i] = dims[i];
  }
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

// Outputs are sized by the lists' contents: the kernels allocate them. Lists of lists (variant
// elements: the stacks a loop nested in a loop keeps per outer iteration) are read and written
// by index and by push/pop, which move element tensors without touching their bytes.
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListReserve, CPU, TensorListReserveCpu, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(EmptyTensorList, CPU, EmptyTensorListCpu, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListFromTensor, CPU, TensorListFromTensorCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListGetItem, CPU, TensorListGetItemCpu, OPF_ALL, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListSetItem, CPU, TensorListSetItemCpu, OPF_ALL, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListPushBack, CPU, TensorListPushBackCpu, OPF_ALL, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListPopBack, CPU, TensorListPopBackCpu, OPF_ALL, VariantTag)
OPFORGE_REGISTER_UNTYPED_KERNEL(TensorListLength, CPU, TensorListLengthCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListElementShape, CPU, TensorListElementShapeCpu, int32_t, int64_t)

}  // namespace opforge
