// Elementwise Equal and NotEqual with NumPy broadcasting, (shape function: runtime/ops/math.cc):
// with incompatible_shape_error=false, shapes that do not broadcast give a scalar (false for
// Equal, true for NotEqual) instead of an error, as in TensorFlow.
#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "cpu/math/binary_functors.h"
#include "opforge/ops/math/equal.h"
#include "opforge/ops/math/not_equal.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using cpu::compute_t;

struct EqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) == static_cast<compute_t<T>>(b);
  }
};
struct NotEqualF {
  template <typename T>
  bool operator()(T a, T b) const {
    return static_cast<compute_t<T>>(a) != static_cast<compute_t<T>>(b);
  }
};

// compare_kernel<T, F>, or z = `incompatible` (a scalar, see EqualityShape) when the shapes
// do not broadcast and the op was told not to fail.
template <typename T, typename F, typename Args>
Status equality_kernel(Args& a, bool incompatible) {
  Shape unused;
  if (!a.incompatible_shape_error && !broadcast_shapes(a.x.shape(), a.y.shape(), &unused, Args::kOpName).ok()) {
    a.z.template data<bool>()[0] = incompatible;  // the shape function made z a scalar
    return Status::OK();
  }
  return cpu::compare_kernel<T, F>(a);
}

template <typename T>
Status EqualCpu(ops::EqualArgs& a) {
  return equality_kernel<T, EqualF>(a, false);
}
template <typename T>
Status NotEqualCpu(ops::NotEqualArgs& a) {
  return equality_kernel<T, NotEqualF>(a, true);
}

#define OPF_ALL bool, bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Equal, CPU, EqualCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(NotEqual, CPU, NotEqualCpu, OPF_ALL)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(Equal, CPU, EqualCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(NotEqual, CPU, NotEqualCpu, complex64, complex128)

}  // namespace opforge
