// The bitwise ops (TensorFlow's bitwise_ops): BitwiseAnd/Or/Xor, LeftShift and RightShift with
// NumPy broadcasting; Invert and PopulationCount elementwise. Shift amounts are clamped to
// [0, bits - 1] as TensorFlow's CPU kernel does, so no shift is undefined behaviour.
#include <bitset>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/bitwise_and.h"
#include "opforge/ops/math/bitwise_or.h"
#include "opforge/ops/math/bitwise_xor.h"
#include "opforge/ops/math/invert.h"
#include "opforge/ops/math/left_shift.h"
#include "opforge/ops/math/population_count.h"
#include "opforge/ops/math/right_shift.h"

namespace opforge {
namespace {

template <typename T>
T clamp_shift(T y) {
  constexpr T kMax = static_cast<T>(sizeof(T) * 8 - 1);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return 0;
  }
  return y > kMax ? kMax : y;
}

struct AndF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct OrF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct XorF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};
struct LeftShiftF {
  template <typename T>
  T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << clamp_shift(b)));
  }
};
struct RightShiftF {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a >> clamp_shift(b));
  }
};

template <typename T>
Status BitwiseAndCpu(ops::BitwiseAndArgs& a) {
  return cpu::binary_kernel<T, AndF>(a);
}
template <typename T>
Status BitwiseOrCpu(ops::BitwiseOrArgs& a) {
  return cpu::binary_kernel<T, OrF>(a);
}
template <typename T>
Status BitwiseXorCpu(ops::BitwiseXorArgs& a) {
  return cpu::binary_kernel<T, XorF>(a);
}
template <typename T>
Status LeftShiftCpu(ops::LeftShiftArgs& a) {
  return cpu::binary_kernel<T, LeftShiftF>(a);
}
template <typename T>
Status RightShiftCpu(ops::RightShiftArgs& a) {
  return cpu::binary_kernel<T, RightShiftF>(a);
}

template <typename T>
Status InvertCpu(ops::InvertArgs& a) {
  cpu::map_unary<T, T>(a.x, a.y, [](T v) { return static_cast<T>(~v); });
  return Status::OK();
}

template <typename T>
Status PopulationCountCpu(ops::PopulationCountArgs& a) {
  cpu::map_unary<T, uint8_t>(a.x, a.y, [](T v) {
    return static_cast<uint8_t>(std::bitset<sizeof(T) * 8>(static_cast<std::make_unsigned_t<T>>(v)).count());
  });
  return Status::OK();
}

#define OPF_INTS int8_t, int16_t, int32_t, int64_t, uint8_t

}  // namespace

OPFORGE_REGISTER_KERNEL(BitwiseAnd, CPU, BitwiseAndCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(BitwiseOr, CPU, BitwiseOrCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(BitwiseXor, CPU, BitwiseXorCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(LeftShift, CPU, LeftShiftCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(RightShift, CPU, RightShiftCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(Invert, CPU, InvertCpu, OPF_INTS)
OPFORGE_REGISTER_KERNEL(PopulationCount, CPU, PopulationCountCpu, OPF_INTS)

}  // namespace opforge
