// The shape functions of the list ops whose opdefs say shape_fn: "custom" (op semantics:
// registered by the runtime whatever backends are built).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// ---- list_ops (the kernels: kernels/cpu/list/list_ops.cc)

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

}  // namespace
}  // namespace opforge
