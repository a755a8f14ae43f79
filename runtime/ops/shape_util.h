// Helpers of the shape functions (runtime/ops/*.cc), which kernels use too where they read the
// same arguments: integer inputs known at graph construction, ranks, axes, attrs by name, and
// the registration of a custom shape function.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace array {

// Reads an integer tensor of any integer dtype (int8 ... int64, uint8) as int64 values, in
// row-major order. InvalidArgument for a non-integer dtype.
inline Status read_ints(const Tensor& t, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(t.num_elements()));
  bool ok = false;
  visit_dtype(t.dtype(), [&](auto v) {
    using V = decltype(v);
    if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
      const V* p = t.data<V>();
      for (int64_t i = 0; i < t.num_elements(); ++i) (*out)[static_cast<size_t>(i)] = static_cast<int64_t>(p[i]);
      ok = true;
    }
  });
  if (!ok) return errors::InvalidArgument("expected an integer tensor, got ", dtype_name(t.dtype()));
  return Status::OK();
}

// Reads a scalar axis and normalizes it against `rank`.
inline Status scalar_axis(const std::string& op, const Tensor& t, int rank, int* axis) {
  if (t.rank() != 0) {
    return errors::InvalidArgument(op, ": the axis must be a scalar, got shape ", t.shape().to_string());
  }
  std::vector<int64_t> raw;
  if (t.dtype() == DType::kInt16) {  // ArgMax's Tidx allows int16
    raw.push_back(t.data<int16_t>()[0]);
  } else {
    OPF_RETURN_IF_ERROR(read_int_vector(t, &raw));
  }
  if (raw[0] < -rank || raw[0] >= rank) {
    return errors::InvalidArgument(op, ": axis ", raw[0], " is out of range for a tensor of rank ", rank,
                                   " (expected [", -rank, ", ", rank, "))");
  }
  *axis = static_cast<int>(raw[0] < 0 ? raw[0] + rank : raw[0]);
  return Status::OK();
}

// ---- shape-function helpers

// The integer values of input `arg` when known (always when executing), else false.
inline Status known_ints(ShapeContext& c, int arg, std::vector<int64_t>* out, bool* known) {
  const Tensor* v = c.input_value(arg);
  *known = v != nullptr;
  if (v == nullptr) return Status::OK();
  Status s = read_ints(*v, out);
  if (!s.ok()) return c.error(c.op().inputs[static_cast<size_t>(arg)].name, ": ", s.message());
  return Status::OK();
}

// A shape of the given rank with every dim unknown (rank < 0: unknown rank).
inline Shape unknown_dims(int rank) {
  return rank < 0 ? Shape::UnknownRank() : Shape(std::vector<int64_t>(static_cast<size_t>(rank), -1));
}

// InvalidArgument unless input `arg` has rank `want` (or an unknown rank).
inline Status expect_rank(ShapeContext& c, int arg, int want, const char* what) {
  const Shape& s = c.input_shape(arg);
  if (!s.unknown_rank() && s.rank() != want) {
    return c.error(c.op().inputs[static_cast<size_t>(arg)].name, " must be ", what, ", got shape ", s.to_string());
  }
  return Status::OK();
}

// Normalizes one axis against rank (negative counts from the end).
inline Status normalize_axis(ShapeContext& c, int64_t axis, int rank, int* out, const char* what = "axis") {
  if (axis < -rank || axis >= rank) {
    return c.error(what, " ", axis, " is out of range for a tensor of rank ", rank, " (expected [", -rank, ", ", rank,
                   "))");
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

// Registers a custom shape function at load time.
struct CustomShape {
  CustomShape(const char* op, ShapeFn fn) { shape_fns::register_custom(op, std::move(fn)); }
};

}  // namespace array

namespace nn {

// The attr called `name` of the op a shape function runs for (every nn opdef declares it).
inline const AttrValue& attr(const ShapeContext& c, const char* name) {
  const auto& attrs = c.op().attrs;
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (attrs[i].name == name) return c.attr(static_cast<int>(i));
  }
  static const AttrValue kNone;
  return kNone;
}

}  // namespace nn
}  // namespace opforge
