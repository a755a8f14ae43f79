// Attr values: the typed parameters of an op call (transpose_a, keep_dims, T, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opforge/dtype.h"
#include "opforge/shape.h"
#include "opforge/tensor.h"

namespace opforge {

enum class AttrType : int {
  kInt,
  kFloat,
  kBool,
  kString,
  kType,
  kShape,
  kTensor,
  kFunc,
  kListInt,
  kListFloat,
  kListBool,
  kListString,
  kListType,
  kListShape,
  kListTensor,
  kListFunc,
};

const char* attr_type_name(AttrType t);

// One attr value. A plain struct: the field matching the attr's type is the one in use.
struct AttrValue {
  int64_t i = 0;
  float f = 0.0f;
  bool b = false;
  DType type = DType::kInvalid;
  std::string s;
  Shape shape;
  std::vector<int64_t> list_i;
  std::vector<float> list_f;
  std::vector<bool> list_b;
  std::vector<std::string> list_s;
  std::vector<DType> list_type;
  std::vector<Shape> list_shape;
  Tensor tensor;  // for tensor attrs (Const's value)

  static AttrValue Int(int64_t v) {
    AttrValue a;
    a.i = v;
    return a;
  }
  static AttrValue Float(float v) {
    AttrValue a;
    a.f = v;
    return a;
  }
  static AttrValue Bool(bool v) {
    AttrValue a;
    a.b = v;
    return a;
  }
  static AttrValue Type(DType v) {
    AttrValue a;
    a.type = v;
    return a;
  }
  static AttrValue String(std::string v) {
    AttrValue a;
    a.s = std::move(v);
    return a;
  }
  static AttrValue OfShape(Shape v) {
    AttrValue a;
    a.shape = std::move(v);
    return a;
  }
  static AttrValue ListInt(std::vector<int64_t> v) {
    AttrValue a;
    a.list_i = std::move(v);
    return a;
  }
  static AttrValue ListFloat(std::vector<float> v) {
    AttrValue a;
    a.list_f = std::move(v);
    return a;
  }
  static AttrValue ListBool(std::vector<bool> v) {
    AttrValue a;
    a.list_b = std::move(v);
    return a;
  }
  static AttrValue ListString(std::vector<std::string> v) {
    AttrValue a;
    a.list_s = std::move(v);
    return a;
  }
  static AttrValue ListType(std::vector<DType> v) {
    AttrValue a;
    a.list_type = std::move(v);
    return a;
  }
  static AttrValue ListShape(std::vector<Shape> v) {
    AttrValue a;
    a.list_shape = std::move(v);
    return a;
  }

  // Back to the default value, keeping list capacity (the eager path reuses AttrValues).
  void reset() {
    i = 0;
    f = 0.0f;
    b = false;
    type = DType::kInvalid;
    s.clear();
    shape = Shape();
    list_i.clear();
    list_f.clear();
    list_b.clear();
    list_s.clear();
    list_type.clear();
    list_shape.clear();
    tensor = Tensor();
  }

  // Equality for the field selected by type; used for allowed-value checks.
  bool equals(AttrType t, const AttrValue& o) const;
  std::string to_string(AttrType t) const;
};

}  // namespace opforge
