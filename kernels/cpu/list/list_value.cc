// What the list kernels share: reading and checking lists, element shapes, indices and rows.
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/list/list_value.h"

namespace opforge {
namespace list {

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
    if (dims[i] < 0)
      dims[i] = b.dim(i);
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

// The value of element i: the tensor set there, or zeros of a fully known element shape: the
// list's merged with the one the op was given and, as TensorFlow's list kernels do, with the
// first element that was set (a TF1 dynamic_rnn stacks all time steps of an array written only
// up to the longest sequence; TensorFlow reads the rest as zeros).
Status read_element(const KernelContext& ctx, const ListValue& list, int64_t i, const Shape& given, Tensor* out) {
  const Tensor& t = list.elements[static_cast<size_t>(i)];
  if (t.initialized()) {
    *out = t;
    return Status::OK();
  }
  Shape shape;
  OPF_RETURN_IF_ERROR(merge_shapes(ctx, list.element_shape, given, &shape));
  if (!shape.fully_defined()) {
    for (const Tensor& e : list.elements) {
      if (!e.initialized()) continue;
      Shape merged;
      if (merge_shapes(ctx, shape, e.shape(), &merged).ok()) shape = merged;
      break;
    }
  }
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
  if (e.initialized())
    std::memcpy(dst, e.raw_data(), bytes);
  else
    std::memset(dst, 0, bytes);
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

}  // namespace list
}  // namespace opforge
