// The value a TensorList variant holds, and what the list kernels share (private to
// kernels/cpu/list/).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "opforge/kernel.h"
#include "opforge/tensor.h"

namespace opforge {
namespace list {

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
Status parse_element_shape(const KernelContext& ctx, const Tensor& t, Shape* out);

// The most specific shape that is both a and b; an error when they conflict.
Status merge_shapes(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out);

// The list in a TensorList handle, checked to hold element_dtype (kInvalid: any).
Status input_list(const KernelContext& ctx, const Tensor& handle, DType element_dtype, const ListValue** out);

// The list a kernel may change and output: the input's own value when the graph executor
// holds the input alone and reads it no more (nobody else can see the change: a loop's
// stack grows in place instead of being copied per push), else a copy (sharing the element
// tensors, which are immutable).
std::shared_ptr<ListValue> writable_list(const KernelContext& ctx, const Tensor& handle, const ListValue* in);

// Output i becomes a TensorList handle holding `list`.
void set_list_output(KernelContext& ctx, int i, std::shared_ptr<ListValue> list);

// A tensor of zeros.
Status zeros(DType dtype, const Shape& shape, Tensor* out);

// The value of element i: the tensor set there, or zeros of a fully known element shape
// (the list's merged with the one the op was given).
Status read_element(const KernelContext& ctx, const ListValue& list, int64_t i, const Shape& given, Tensor* out);

// An error unless item's shape is compatible with the list's element shape.
Status check_item(const KernelContext& ctx, const ListValue& list, const Tensor& item);

// The shape of t without its first dimension.
Shape row_shape(const Tensor& t);

// Rows [start, start + count) of t as a new tensor of shape [count] + rest (rest alone when
// `squeeze`, for one row).
Status copy_rows(const Tensor& t, int64_t start, int64_t count, bool squeeze, Tensor* out);

// Element i's value into rows of `dst` (bytes), zeros when it was never set.
void copy_element(const Tensor& e, char* dst, size_t bytes);

// A vector of int32 indices, each checked against [0, limit) (limit < 0: no upper bound).
Status read_indices(const KernelContext& ctx, const Tensor& t, int64_t limit, std::vector<int64_t>* out);

// Row i of `tensor` becomes element indices[i] of `list` (grown to hold every index).
Status scatter_rows(const KernelContext& ctx, const Tensor& tensor, const std::vector<int64_t>& indices,
                    ListValue* list);

}  // namespace list
}  // namespace opforge
