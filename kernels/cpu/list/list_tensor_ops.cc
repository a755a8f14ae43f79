// TensorList ops between a list and whole tensors: TensorListStack, TensorListGather,
// TensorListScatterIntoExistingList, TensorListScatterV2, TensorListConcatV2, TensorListSplit.
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/list/list_value.h"
#include "opforge/ops/list/tensor_list_stack.h"
#include "opforge/ops/list/tensor_list_concat_v2.h"
#include "opforge/ops/list/tensor_list_gather.h"
#include "opforge/ops/list/tensor_list_scatter_into_existing_list.h"
#include "opforge/ops/list/tensor_list_scatter_v2.h"
#include "opforge/ops/list/tensor_list_split.h"

namespace opforge {
namespace {

using namespace list;  // NOLINT: the list kernels' own helpers

template <typename T>
Status TensorListStackCpu(ops::TensorListStackArgs& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &list));
  const int64_t n = static_cast<int64_t>(list->elements.size());
  if (a.num_elements != -1 && a.num_elements != n) {
    return a.ctx.error("Operation expected a list with ", a.num_elements, " elements but got a list with ", n,
                       " elements.");
  }
  Shape given, shape;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  OPF_RETURN_IF_ERROR(merge_shapes(a.ctx, list->element_shape, given, &shape));
  for (const Tensor& e : list->elements) {  // the set elements fix the shape
    if (!e.initialized()) continue;
    if (shape.fully_defined() && !(e.shape() == shape)) {
      return a.ctx.error("Incompatible shapes during merge: ", shape.to_string(), " vs. ", e.shape().to_string());
    }
    OPF_RETURN_IF_ERROR(merge_shapes(a.ctx, shape, e.shape(), &shape));
  }
  if (!shape.fully_defined()) {
    return a.ctx.error("Tried to stack elements of an empty list with non-fully-defined element_shape: ",
                       shape.to_string());
  }
  std::vector<int64_t> dims{n};
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(list->element_dtype, Shape(dims), &out));
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * dtype_size(list->element_dtype);
  for (int64_t i = 0; i < n; ++i) {
    copy_element(list->elements[static_cast<size_t>(i)],
                 static_cast<char*>(out.raw_data()) + static_cast<size_t>(i) * bytes, bytes);
  }
  return Status::OK();
}

template <typename T>
Status TensorListGatherCpu(ops::TensorListGatherArgs& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &list));
  std::vector<int64_t> indices;
  OPF_RETURN_IF_ERROR(read_indices(a.ctx, a.indices, static_cast<int64_t>(list->elements.size()), &indices));
  Shape given;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  // Read every element first (unset ones as zeros): they fix the shape of the rows.
  std::vector<Tensor> rows(indices.size());
  Shape shape = given;
  for (size_t r = 0; r < indices.size(); ++r) {
    OPF_RETURN_IF_ERROR(read_element(a.ctx, *list, indices[r], given, &rows[r]));
    if (r > 0 && !(rows[r].shape() == rows[0].shape())) {
      return a.ctx.error("Incompatible shapes during merge: ", rows[0].shape().to_string(), " vs. ",
                         rows[r].shape().to_string());
    }
  }
  if (!rows.empty()) {
    shape = rows[0].shape();
  } else {
    OPF_RETURN_IF_ERROR(merge_shapes(a.ctx, list->element_shape, given, &shape));
    if (!shape.fully_defined()) {
      return a.ctx.error("Tried to gather 0 elements from a list with non-fully-defined element_shape: ",
                         shape.to_string());
    }
  }
  std::vector<int64_t> dims{static_cast<int64_t>(rows.size())};
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(list->element_dtype, Shape(dims), &out));
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * dtype_size(list->element_dtype);
  for (size_t r = 0; r < rows.size(); ++r) copy_element(rows[r], static_cast<char*>(out.raw_data()) + r * bytes, bytes);
  return Status::OK();
}

template <typename T>
Status TensorListScatterIntoExistingListCpu(ops::TensorListScatterIntoExistingListArgs& a) {
  const ListValue* in;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &in));
  std::vector<int64_t> indices;
  OPF_RETURN_IF_ERROR(read_indices(a.ctx, a.indices, -1, &indices));
  auto list = writable_list(a.ctx, a.input_handle, in);
  OPF_RETURN_IF_ERROR(scatter_rows(a.ctx, a.tensor, indices, list.get()));
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListScatterV2Cpu(ops::TensorListScatterV2Args& a) {
  auto list = std::make_shared<ListValue>();
  list->element_dtype = a.tensor.dtype();
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &list->element_shape));
  const int64_t n = a.num_elements.scalar<int32_t>();
  if (n < -1) return a.ctx.error("TensorListScatter expects num_elements >= -1, found: ", n);
  std::vector<int64_t> indices;
  OPF_RETURN_IF_ERROR(read_indices(a.ctx, a.indices, -1, &indices));
  if (n >= 0) {
    for (int64_t i : indices) {
      if (i >= n) return a.ctx.error("TensorListScatter: index ", i, " is not less than num_elements ", n);
    }
    list->elements.resize(static_cast<size_t>(n));
  }
  OPF_RETURN_IF_ERROR(scatter_rows(a.ctx, a.tensor, indices, list.get()));
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

template <typename T>
Status TensorListConcatV2Cpu(ops::TensorListConcatV2Args& a) {
  const ListValue* list;
  OPF_RETURN_IF_ERROR(input_list(a.ctx, a.input_handle, a.element_dtype, &list));
  Shape given, shape;
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &given));
  OPF_RETURN_IF_ERROR(merge_shapes(a.ctx, list->element_shape, given, &shape));
  if (!shape.unknown_rank() && shape.rank() == 0) {
    return a.ctx.error("Concat requires elements to be at least vectors, found scalars instead.");
  }
  std::vector<int64_t> leading;
  OPF_RETURN_IF_ERROR(read_int_vector(a.leading_dims, &leading));
  const size_t n = list->elements.size();
  // The rows after the first dimension: from the set elements, else the element shape.
  std::vector<int64_t> rest;
  bool rest_known = false;
  if (!shape.unknown_rank() &&
      Shape(std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end())).fully_defined()) {
    rest.assign(shape.dims().begin() + 1, shape.dims().end());
    rest_known = true;
  }
  for (const Tensor& e : list->elements) {
    if (!e.initialized()) continue;
    if (e.rank() == 0) return a.ctx.error("Concat saw a scalar shape at an element: elements must be at least vectors");
    const std::vector<int64_t> r(e.shape().dims().begin() + 1, e.shape().dims().end());
    if (!rest_known) {
      rest = r;
      rest_known = true;
    } else if (r != rest) {
      return a.ctx.error("Incompatible shapes during merge: ", Shape(rest).to_string(), " vs. ", Shape(r).to_string(),
                         " (all elements but their first dimension must agree)");
    }
    if (!shape.unknown_rank()) {  // the first dimension may differ from element to element
      std::vector<int64_t> d = shape.dims();
      d[0] = -1;
      if (!Shape(d).is_compatible_with(e.shape())) {
        return a.ctx.error("Tried to concat an element of shape ", e.shape().to_string(),
                           " in a list with element shape ", shape.to_string());
      }
    }
  }
  if (!rest_known) {
    return a.ctx.error(
        "All except the first dimension must be fully defined when concatenating an empty tensor "
        "list or one with unset elements. element_shape: ",
        shape.to_string());
  }
  std::vector<int64_t> lengths(n);
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& e = list->elements[i];
    if (e.initialized()) {
      lengths[i] = e.dim(0);
    } else if (!shape.unknown_rank() && shape.dim(0) >= 0) {
      lengths[i] = shape.dim(0);
    } else if (i < leading.size() && leading[i] >= 0) {
      lengths[i] = leading[i];
    } else {
      return a.ctx.error("Element ", i,
                         " was never set: its first dimension must come from the element shape or "
                         "from leading_dims");
    }
    total += lengths[i];
  }
  std::vector<int64_t> dims{total};
  dims.insert(dims.end(), rest.begin(), rest.end());
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(list->element_dtype, Shape(dims), &out));
  const size_t row = static_cast<size_t>(Shape(rest).num_elements()) * dtype_size(list->element_dtype);
  char* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < n; ++i) {
    copy_element(list->elements[i], dst, row * static_cast<size_t>(lengths[i]));
    dst += row * static_cast<size_t>(lengths[i]);
  }
  Tensor& len = a.ctx.output(1);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({static_cast<int64_t>(n)}), &len));
  std::copy(lengths.begin(), lengths.end(), len.data<int64_t>());
  return Status::OK();
}

template <typename T>
Status TensorListSplitCpu(ops::TensorListSplitArgs& a) {
  const Tensor& t = a.tensor;
  if (t.rank() < 1) return a.ctx.error("Tensor must be at least a vector, but saw shape: ", t.shape().to_string());
  auto list = std::make_shared<ListValue>();
  list->element_dtype = t.dtype();
  OPF_RETURN_IF_ERROR(parse_element_shape(a.ctx, a.element_shape, &list->element_shape));
  std::vector<int64_t> row_dims = t.shape().dims();
  row_dims[0] = -1;
  if (!list->element_shape.is_compatible_with(Shape(row_dims))) {
    return a.ctx.error("tensor shape ", t.shape().to_string(), " is not compatible with element_shape ",
                       list->element_shape.to_string());
  }
  if (a.lengths.rank() != 1)
    return a.ctx.error("Expected lengths to be a vector, received shape: ", a.lengths.shape().to_string());
  std::vector<int64_t> lengths;
  OPF_RETURN_IF_ERROR(read_int_vector(a.lengths, &lengths));
  int64_t start = 0;
  list->elements.resize(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) return a.ctx.error("Invalid value in lengths: ", lengths[i]);
    if (start + lengths[i] > t.dim(0)) {
      return a.ctx.error("Attempting to slice [", start, ", ", start + lengths[i], "] from tensor with length ",
                         t.dim(0));
    }
    OPF_RETURN_IF_ERROR(copy_rows(t, start, lengths[i], false, &list->elements[i]));
    start += lengths[i];
  }
  if (start != t.dim(0)) {
    return a.ctx.error("Unused values in tensor. Length of tensor: ", t.dim(0), " Values used: ", start);
  }
  set_list_output(a.ctx, 0, std::move(list));
  return Status::OK();
}

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListStack, CPU, TensorListStackCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListGather, CPU, TensorListGatherCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListScatterIntoExistingList, CPU, TensorListScatterIntoExistingListCpu,
                                   OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListScatterV2, CPU, TensorListScatterV2Cpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListConcatV2, CPU, TensorListConcatV2Cpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListSplit, CPU, TensorListSplitCpu, OPF_ALL)

}  // namespace opforge
