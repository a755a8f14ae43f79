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
  kQInt8 = 11,  // quantized types: stored as their integer, distinct dtypes (QuantizedInt below)
  kQUInt8 = 12,
  kQInt32 = 13,
  kBFloat16 = 14,
  kQInt16 = 15,
  kQUInt16 = 16,
  kUInt16 = 17,
  kHalf = 19,
  kResource = 20,  // a scalar handle to a resource a Session owns (an iterator): see ResourceHandle
  kVariant = 21,   // a scalar holding a C++ object (a TensorList): see Tensor::FromVariant
  kUInt32 = 22,
  kUInt64 = 23,
};

// Byte size of one element; 0 for a dtype the runtime cannot hold.
size_t dtype_size(DType dt);
// "float32", "int64", ... (NumPy spelling); "dtype(N)" for others.
std::string dtype_name(DType dt);
// True for the dtypes a Tensor can hold.
bool dtype_supported(DType dt);
bool dtype_is_floating(DType dt);
bool dtype_is_integer(DType dt);
// True for TensorFlow's quantized types (qint8, quint8, qint16, quint16, qint32).
bool dtype_is_quantized(DType dt);

// TensorFlow's quantized integer types: the bits of an integer of type I, but a dtype of their
// own (D), so that a kernel is registered for them by name and no arithmetic applies to them
// by accident (TensorFlow's Eigen::QInt8 ...). Kernels read `.value`.
template <typename I, DType D>
struct QuantizedInt {
  using value_type = I;
  I value;
  QuantizedInt() = default;
  constexpr explicit QuantizedInt(I v) : value(v) {}
  friend constexpr bool operator==(QuantizedInt a, QuantizedInt b) { return a.value == b.value; }
  friend constexpr bool operator!=(QuantizedInt a, QuantizedInt b) { return a.value != b.value; }
};
using qint8 = QuantizedInt<int8_t, DType::kQInt8>;
using quint8 = QuantizedInt<uint8_t, DType::kQUInt8>;
using qint16 = QuantizedInt<int16_t, DType::kQInt16>;
using quint16 = QuantizedInt<uint16_t, DType::kQUInt16>;
using qint32 = QuantizedInt<int32_t, DType::kQInt32>;

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
OPF_DTYPE_OF(qint8, kQInt8)
OPF_DTYPE_OF(quint8, kQUInt8)
OPF_DTYPE_OF(qint32, kQInt32)
OPF_DTYPE_OF(bfloat16, kBFloat16)
OPF_DTYPE_OF(qint16, kQInt16)
OPF_DTYPE_OF(quint16, kQUInt16)
OPF_DTYPE_OF(uint16_t, kUInt16)
OPF_DTYPE_OF(half, kHalf)
OPF_DTYPE_OF(uint32_t, kUInt32)
OPF_DTYPE_OF(uint64_t, kUInt64)
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

// Calls fn(T{}) with T the C++ type of dt; returns false if dt is not a runtime dtype or is a
// quantized one (those hold no plain numbers: see QuantizedInt).
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
    case DType::kUInt16:
      fn(uint16_t{});
      return true;
    case DType::kUInt32:
      fn(uint32_t{});
      return true;
    case DType::kUInt64:
      fn(uint64_t{});
      return true;
    default:
      return false;
  }
}

}  // namespace opforge
