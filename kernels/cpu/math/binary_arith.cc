// Elementwise binary arithmetic with NumPy broadcasting: AddV2, Sub, Mul. Signed integer
// arithmetic wraps (two's complement), as NumPy's and TensorFlow's do, instead of being
// undefined behaviour.
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/add_v2.h"
#include "opforge/ops/math/mul.h"
#include "opforge/ops/math/sub.h"

namespace opforge {
namespace {

using cpu::compute_t;

// The type add/sub run in: unsigned for integers (so overflow wraps), float for 16-bit floats.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct Wide {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
struct Wide<T, false> {
  using type = compute_t<T>;
};
template <typename T>
using wide_t = typename Wide<T>::type;

struct AddF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<wide_t<T>>(a) + static_cast<wide_t<T>>(b));
  }
};
struct SubF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<wide_t<T>>(a) - static_cast<wide_t<T>>(b));
  }
};
struct MulF {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Multiply in the unsigned type of at least int width: no promotion to signed int.
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return static_cast<T>(static_cast<compute_t<T>>(a) * static_cast<compute_t<T>>(b));
    }
  }
};

template <typename T>
Status AddV2Cpu(ops::AddV2Args& a) {
  return cpu::binary_kernel<T, AddF>(a);
}
template <typename T>
Status SubCpu(ops::SubArgs& a) {
  return cpu::binary_kernel<T, SubF>(a);
}
template <typename T>
Status MulCpu(ops::MulArgs& a) {
  return cpu::binary_kernel<T, MulF>(a);
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_INPLACE_KERNEL(AddV2, CPU, AddV2Cpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Sub, CPU, SubCpu, inplace_args(0, 1), OPF_NUMERIC)
OPFORGE_REGISTER_INPLACE_KERNEL(Mul, CPU, MulCpu, inplace_args(0, 1), OPF_NUMERIC)

}  // namespace opforge
