// Data types. Enum values are TensorFlow's DataType numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "opforge/half.h"

namespace opforge {

enum class DType : int32_t {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,  // byte strings of any length: see Tensor::FromStrings
  kInt64 = 9,
  kBool = 10,
  kBFloat16 = 14,
  kHalf = 19,
  kResource = 20,  // a scalar handle to a resource a Session owns (an iterator): see ResourceHandle
  kVariant = 21,   // a scalar holding a C++ object (a TensorList): see Tensor::FromVariant
};

// Byte size of one element; 0 for a dtype the runtime cannot hold.
size_t dtype_size(DType dt);
// "float32", "int64", ... (NumPy spelling); "dtype(N)" for others.
std::string dtype_name(DType dt);
// True for the dtypes a Tensor can hold.
bool dtype_supported(DType dt);
bool dtype_is_floating(DType dt);
bool dtype_is_integer(DType dt);

template <typename T>
struct DTypeOf;
#define OPF_DTYPE_OF(T, V)                   \
  template <>                                \
  struct DTypeOf<T> {                        \
    static constexpr DType value = DType::V; \
  };
OPF_DTYPE_OF(float, kFloat)
OPF_DTYPE_OF(double, kDouble)
OPF_DTYPE_OF(int32_t, kInt32)
OPF_DTYPE_OF(uint8_t, kUInt8)
OPF_DTYPE_OF(int16_t, kInt16)
OPF_DTYPE_OF(int8_t, kInt8)
OPF_DTYPE_OF(int64_t, kInt64)
OPF_DTYPE_OF(bool, kBool)
OPF_DTYPE_OF(bfloat16, kBFloat16)
OPF_DTYPE_OF(half, kHalf)
// Kernels registered for this tag handle variant tensors (they only pass them along).
struct VariantTag {};
OPF_DTYPE_OF(VariantTag, kVariant)
// Kernels registered for this tag handle resource handles (they only pass them along).
struct ResourceTag {};
OPF_DTYPE_OF(ResourceTag, kResource)
// Kernels registered for this tag handle string tensors (Const, Identity, Placeholder, control
// flow: they pass the tensor along; a kernel that reads strings uses Tensor::strings()).
struct StringTag {};
OPF_DTYPE_OF(StringTag, kString)
#undef OPF_DTYPE_OF

// Calls fn(T{}) with T the C++ type of dt; returns false if dt is not a runtime dtype.
template <typename F>
bool visit_dtype(DType dt, F&& fn) {
  switch (dt) {
    case DType::kFloat:
      fn(float{});
      return true;
    case DType::kDouble:
      fn(double{});
      return true;
    case DType::kInt32:
      fn(int32_t{});
      return true;
    case DType::kUInt8:
      fn(uint8_t{});
      return true;
    case DType::kInt16:
      fn(int16_t{});
      return true;
    case DType::kInt8:
      fn(int8_t{});
      return true;
    case DType::kInt64:
      fn(int64_t{});
      return true;
    case DType::kBool:
      fn(bool{});
      return true;
    case DType::kBFloat16:
      fn(bfloat16{});
      return true;
    case DType::kHalf:
      fn(half{});
      return true;
    default:
      return false;
  }
}

}  // namespace opforge
