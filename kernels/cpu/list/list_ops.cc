// TensorList ops (TensorFlow's list_ops): a variant tensor holding a list of tensors, as
// TF2's while loops lower to in a frozen graph (RNN inputs read with TensorListGetItem,
// outputs collected with TensorListSetItem and TensorListStack).
//
// A list is immutable once a kernel has produced it: SetItem, PushBack and PopBack return a
// new list that shares the element tensors (which are immutable too) with the old one.
#include <cstring>

#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/list/empty_tensor_list.h"
#include "opforge/ops/list/tensor_list_element_shape.h"
#include "opforge/ops/list/tensor_list_from_tensor.h"
#include "opforge/ops/list/tensor_list_get_item.h"
#include "opforge/ops/list/tensor_list_length.h"
#include "opforge/ops/list/tensor_list_pop_back.h"
#include "opforge/ops/list/tensor_list_push_back.h"
#include "opforge/ops/list/tensor_list_reserve.h"
#include "opforge/ops/list/tensor_list_set_item.h"
#include "opforge/ops/list/tensor_list_stack.h"
#include "opforge/ops/list/tensor_list_concat_v2.h"
#include "opforge/ops/list/tensor_list_gather.h"
#include "opforge/ops/list/tensor_list_scatter_into_existing_list.h"
#include "opforge/ops/list/tensor_list_scatter_v2.h"
#include "opforge/ops/list/tensor_list_split.h"
#include "opforge/ops/array/zeros_like.h"
#include "opforge/ops/math/add_n.h"

namespace opforge {
namespace {

// The value a TensorList variant holds.
class ListValue : public Variant {
 public:
  std::string type_name() const override { return "tensorflow::TensorList"; }

  DType element_dtype = DType::kInvalid;
  Shape element_shape = Shape::UnknownRank();  // what every element is compatible with
  int64_t max_num_elements = -1;               // -1: no limit
  std::vector<Tensor> elements;                // an uninitialized tensor: not set yet
};

// An element_shape tensor: the scalar -1 is an unknown rank, else a vector with -1 for
// unknown dims.
Status parse_element_shape(const KernelContext& ctx, const Tensor& t, Shape* out) {
  std::vector<int64_t> dims;
  OPF_RETURN_IF_ERROR(read_int_vector(t, &dims));
  if (t.rank() == 0) {
    if (dims[0] != -1) return ctx.error("a scalar element_shape must be -1 (unknown rank), got ", dims[0]);
    *out = Shape::UnknownRank();
    return Status::OK();
  }
  if (t.rank() != 1) return ctx.error("element_shape must be a scalar or a vector, got shape ", t.shape().to_string());
  for (int64_t d : dims) {
    if (d < -1) return ctx.error("element_shape has an invalid dimension ", d);
  }
  *out = Shape(dims);
  return Status::OK();
}

// The most specific shape that is both a and b; an error when they conflict.
Status merge_shapes(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out) {
  if (a.unknown_rank()) {
    *out = b;
    return Status::OK();
  }
  if (b.unknown_rank()) {
    *out = a;
    return Status::OK();
  }
  if (a.rank() != b.rank()) return ctx.error("incompatible shapes ", a.to_string(), " and ", b.to_string());
  std::vector<int64_t> dims = a.dims();
  for (int i = 0; i < a.rank(); ++i) {
    if (dims[i] < 0) dims[i] = b.dim(i);
    else if (b.dim(i) >= 0 && b.dim(i) != dims[i]) {
      return ctx.error("incompatible shapes ", a.to_string(), " and ", b.to_string());
    }
  }
  *out = Shape(dims);
  return Status::OK();
}

Status input_list(const KernelContext& ctx, const Tensor& handle, DType element_dtype, const ListValue** out) {
  const auto* list = dynamic_cast<const ListValue*>(handle.variant().get());
  if (list == nullptr) return ctx.error("input_handle is not a TensorList");
  if (element_dtype != DType::kInvalid && list->element_dtype != element_dtype) {
    return ctx.error("Invalid data types; op elements ", dtype_name(element_dtype), " but list elements ",
                     dtype_name(list->element_dtype));
  }
  *out = list;
  return Status::OK();
}

// The list a kernel may change and output: the input's own value when the graph executor
// holds the input alone and reads it no more (nobody else can see the change: a loop's
// stack grows in place instead of being copied per push), else a copy (sharing the element
// tensors, which are immutable).
std::shared_ptr<ListValue> writable_list(const KernelContext& ctx, const Tensor& handle, const ListValue* in) {
  const ExecEnv* env = ctx.env();
  const bool alone = env != nullptr && !env->forwardable_inputs.empty() && env->forwardable_inputs[0] &&
                     handle.variant().use_count() == 1;
  if (alone) return std::const_pointer_cast<ListValue>(std::static_pointer_cast<const ListValue>(handle.variant()));
  return std::make_shared<ListValue>(*in);
}

void set_list_output(KernelContext& ctx, int i, std::shared_ptr<ListValue> list) {
  ctx.output(i) = Tensor::FromVariant(std::move(list));
}

Status zeros(DType dtype, const Shape& shape, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  if (out->nbytes() > 0) std::memset(out->raw_data(), 0, out->nbytes());
  return Status::OK();
}

// The value of element i: the tensor set there, or zeros of a fully known element shape
// (the list's merged with the one the op was given).
Status read_element(const KernelContext& ctx, const ListValue& list, int64_t i, const Shape& given, Tensor* out) {
  const Tensor& t = list.elements[static_cast<size_t>(i)];
  if (t.initialized()) {
    *out = t;
    return Status::OK();
  }
  Shape shape;
  OPF_RETURN_IF_ERROR(merge_shapes(ctx, list.element_shape, given, &shape));
  if (!shape.fully_defined()) {
    return ctx.error("Trying to read an uninitialized tensor but element_shape is not fully defined: ",
                     shape.to_string(), " (element ", i, ")");
  }
  return zeros(list.element_dtype, shape, out);
}

Status check_item(const KernelContext& ctx, const ListValue& list, const Tensor& item) {
  if (!list.element_shape.is_compatible_with(item.shape())) {
    return ctx.error("Tried to set a tensor with incompatible shape at a list index. Item element shape: ",
                     item.shape().to_string(), " list shape: ", list.element_shape.to_string());
  }
  return Status::OK();
}

// The shape of t without its first dimension.
Shape row_shape(const Tensor& t) {
  return Shape(std::vector<int64_t>(t.shape().dims().begin() + 1, t.shape().dims().end()));
}

// Rows [start, start + count) of t as a new tensor of shape [count] + rest (rest alone when
// `squeeze`, for one row).
Status copy_rows(const Tensor& t, int64_t start, int64_t count, bool squeeze, Tensor* out) {
  std::vector<int64_t> dims = row_shape(t).dims();
  if (!squeeze) dims.insert(dims.begin(), count);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(t.dtype(), Shape(dims), out));
  const size_t row = static_cast<size_t>(row_shape(t).num_elements()) * dtype_size(t.dtype());
  if (row * static_cast<size_t>(count) > 0) {
    std::memcpy(out->raw_data(), static_cast<const char*>(t.raw_data()) + static_cast<size_t>(start) * row,
                row * static_cast<size_t>(count));
  }
  return Status::OK();
}

// Element i's value into rows of `dst` (bytes), zeros when it was never set.
void copy_element(const Tensor& e, char* dst, size_t bytes) {
  if (bytes == 0) return;
  if (e.initialized()) std::memcpy(dst, e.raw_data(), bytes);
  else std::memset(dst, 0, bytes);
}

// A vector of int32 indices, each checked against [0, limit) (limit < 0: no upper bound).
Status read_indices(const KernelContext& ctx, const Tensor& t, int64_t limit, std::vector<int64_t>* out) {
  if (t.rank() != 1) return ctx.error("indices must be a vector, got shape ", t.shape().to_string());
  OPF_RETURN_IF_ERROR(read_int_vector(t, out));
  for (int64_t i : *out) {
    if (i < 0 || (limit >= 0 && i >= limit)) {
      if (limit < 0) return ctx.error("Indices must be non-negative, got ", i);
      return ctx.error("Trying to read element ", i, " in a list with ", limit, " elements.");
    }
  }
  return Status::OK();
}

// Row i of `tensor` becomes element indices[i] of `list` (grown to hold every index).
Status scatter_rows(const KernelContext& ctx, const Tensor& tensor, const std::vector<int64_t>& indices,
                    ListValue* list) {
  if (tensor.rank() < 1) return ctx.error("tensor must be at least a vector, got shape ", tensor.shape().to_string());
  if (tensor.dim(0) != static_cast<int64_t>(indices.size())) {
    return ctx.error("Expected len(indices) == tensor.shape[0], but saw: ", indices.size(), " vs. ", tensor.dim(0));
  }
  const Shape element = row_shape(tensor);
  if (!list->element_shape.is_compatible_with(element)) {
    return ctx.error("Tried to scatter elements of shape ", element.to_string(), " into a list with element shape ",
                     list->element_shape.to_string());
  }
  for (size_t r = 0; r < indices.size(); ++r) {
    const auto i = static_cast<size_t>(indices[r]);
    if (i >= list->elements.size()) list->elements.resize(i + 1);
    OPF_RETURN_IF_ERROR(copy_rows(tensor, static_cast<int64_t>(r), 1, true, &list->elements[i]));
  }
  return Status::OK();
}

// ---- shape functions (graph construction): handles are scalars

Status known_element_shape(const ShapeContext& c, int arg, Shape* out) {
  const Tensor* v = c.input_value(arg);
  *out = Shape::UnknownRank();
  if (v == nullptr) return Status::OK();
  std::vector<int64_t> dims;
  OPF_RETURN_IF_ERROR(read_int_vector(*v, &dims));
  if (v->rank() == 1) *out = Shape(dims);
  return Status::OK();
}

Status HandleShape(ShapeContext& c) {
  c.set_output(0, Shape({}));
  return Status::OK();
}

Status GetItemShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(known_element_shape(c, 2, &s));
  c.set_output(0, s);
  return Status::OK();
}

Status PopBackShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(known_element_shape(c, 1, &s));
  c.set_output(0, Shape({}));
  c.set_output(1, s);
  return Status::OK();
}

Status StackShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(known_element_shape(c, 1, &s));
  if (s.unknown_rank()) {
    c.set_output(0, s);
    return Status::OK();
  }
  std::vector<int64_t> dims{c.attr(1).i};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  c.set_output(0, Shape(dims));
  return Status::OK();
}

Status ElementShapeShape(ShapeContext& c) {
  c.set_output(0, Shape({-1}));
  return Status::OK();
}

Status GatherShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(known_element_shape(c, 2, &s));
  if (s.unknown_rank()) {
    c.set_output(0, s);
    return Status::OK();
  }
  const Shape& idx = c.input_shape(1);
  std::vector<int64_t> dims{idx.unknown_rank() || idx.rank() != 1 ? -1 : idx.dim(0)};
  dims.insert(dims.end(), s.dims().begin(), s.dims().end());
  c.set_output(0, Shape(dims));
  return Status::OK();
}

Status ConcatShape(ShapeContext& c) {
  Shape s;
  OPF_RETURN_IF_ERROR(known_element_shape(c, 1, &s));
  if (!s.unknown_rank() && s.rank() >= 1) {
    std::vector<int64_t> dims = s.dims();
    dims[0] = -1;
    c.set_output(0, Shape(dims));
  } else {
    c.set_output(0, Shape::UnknownRank());
  }
  c.set_output(1, Shape({-1}));
  return Status::OK();
}

const array::CustomShape reserve_shape("TensorListReserve", HandleShape);
const array::CustomShape empty_shape("EmptyTensorList", HandleShape);
const array::CustomShape from_tensor_shape("TensorListFromTensor", HandleShape);
const array::CustomShape set_item_shape("TensorListSetItem", HandleShape);
const array::CustomShape push_back_shape("TensorListPushBack", HandleShape);
const array::CustomShape get_item_shape("TensorListGetItem", GetItemShape);
const array::CustomShape pop_back_shape("TensorListPopBack", PopBackShape);
const array::CustomShape stack_shape("TensorListStack", StackShape);
const array::CustomShape element_shape_shape("TensorListElementShape", ElementShapeShape);
const array::CustomShape gather_shape("TensorListGather", GatherShape);
const array::CustomShape scatter_existing_shape("TensorListScatterIntoExistingList", HandleShape);
const array::CustomShape scatter_v2_shape("TensorListScatterV2", HandleShape);
const array::CustomShape concat_shape("TensorListConcatV2", ConcatShape);
const array::CustomShape split_shape("TensorListSplit", HandleShape);

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
    copy_element(list->elements[static_cast<size_t>(i)], static_cast<char*>(out.raw_data()) + static_cast<size_t>(i) * bytes,
                 bytes);
  }
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
    if (a.shape_type == DType::kInt32) out.data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
    else out.data<int64_t>()[i] = dims[i];
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
  if (!shape.unknown_rank() && Shape(std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end())).fully_defined()) {
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
      return a.ctx.error("Incompatible shapes during merge: ", Shape(rest).to_string(), " vs. ",
                         Shape(r).to_string(), " (all elements but their first dimension must agree)");
    }
    if (!shape.unknown_rank()) {  // the first dimension may differ from element to element
      std::vector<int64_t> d = shape.dims();
      d[0] = -1;
      if (!Shape(d).is_compatible_with(e.shape())) {
        return a.ctx.error("Tried to concat an element of shape ", e.shape().to_string(), " in a list with element shape ",
                           shape.to_string());
      }
    }
  }
  if (!rest_known) {
    return a.ctx.error("All except the first dimension must be fully defined when concatenating an empty tensor "
                       "list or one with unset elements. element_shape: ", shape.to_string());
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
      return a.ctx.error("Element ", i, " was never set: its first dimension must come from the element shape or "
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
  if (a.lengths.rank() != 1) return a.ctx.error("Expected lengths to be a vector, received shape: ", a.lengths.shape().to_string());
  std::vector<int64_t> lengths;
  OPF_RETURN_IF_ERROR(read_int_vector(a.lengths, &lengths));
  int64_t start = 0;
  list->elements.resize(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) return a.ctx.error("Invalid value in lengths: ", lengths[i]);
    if (start + lengths[i] > t.dim(0)) {
      return a.ctx.error("Attempting to slice [", start, ", ", start + lengths[i], "] from tensor with length ", t.dim(0));
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

// AddN of lists (the gradients of one list, summed): element-wise; an element set in only one
// list is taken as it is. The lists must have the same length.
template <typename E>
void add_into(Tensor* acc, const Tensor& x) {
  E* d = acc->data<E>();
  const E* s = x.data<E>();
  for (int64_t i = 0; i < acc->num_elements(); ++i) d[i] = static_cast<E>(static_cast<float>(d[i]) + static_cast<float>(s[i]));
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
    case DType::kFloat: add_into<float>(out, b); break;
    case DType::kDouble: add_into<double>(out, b); break;
    case DType::kHalf: add_into<half>(out, b); break;
    case DType::kBFloat16: add_into<bfloat16>(out, b); break;
    default: return ctx.error("cannot add list elements of type ", dtype_name(a.dtype()));
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
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListStack, CPU, TensorListStackCpu, OPF_ALL)
OPFORGE_REGISTER_UNTYPED_KERNEL(TensorListLength, CPU, TensorListLengthCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListElementShape, CPU, TensorListElementShapeCpu, int32_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListGather, CPU, TensorListGatherCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListScatterIntoExistingList, CPU, TensorListScatterIntoExistingListCpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListScatterV2, CPU, TensorListScatterV2Cpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListConcatV2, CPU, TensorListConcatV2Cpu, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(TensorListSplit, CPU, TensorListSplitCpu, OPF_ALL)
// AddN of TensorLists (its other dtypes are in kernels/cpu/math/range_add_n.cc).
OPFORGE_REGISTER_FORWARDING_KERNEL(AddN, CPU, ListAddNCpu, VariantTag)
OPFORGE_REGISTER_FORWARDING_KERNEL(ZerosLike, CPU, ListZerosLikeCpu, VariantTag)

}  // namespace opforge
