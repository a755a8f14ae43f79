// Complex element types: TensorFlow's complex64 (DataType 8) and complex128 (18).
#pragma once

#include <complex>

#include "opforge/dtype.h"

namespace opforge {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

inline constexpr DType kComplex64 = static_cast<DType>(8);
inline constexpr DType kComplex128 = static_cast<DType>(18);

inline bool dtype_is_complex(DType dt) { return dt == kComplex64 || dt == kComplex128; }

template <>
struct DTypeOf<complex64> {
  static constexpr DType value = kComplex64;
};
template <>
struct DTypeOf<complex128> {
  static constexpr DType value = kComplex128;
};

// Calls fn(T{}) with T complex64 or complex128; returns false for any other dtype. (visit_dtype
// visits the real dtypes only, so a visitor written for real numbers never compiles for
// std::complex.)
template <typename F>
bool visit_complex_dtype(DType dt, F&& fn) {
  switch (dt) {
    case kComplex64:
      fn(complex64{});
      return true;
    case kComplex128:
      fn(complex128{});
      return true;
    default:
      return false;
  }
}

}  // namespace opforge
