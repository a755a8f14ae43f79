// Elementwise Equal and NotEqual with NumPy broadcasting, (shape function: runtime/ops/math.cc):
// with incompatible_shape_error=false, shapes that do not broadcast give a scalar (false for
// Equal, true for NotEqual) instead of an error, as in TensorFlow.
#include <string>
#include <type_traits>
#include <vector>

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

// Strings (tf.equal(labels, "Present")): z[i] = (x == y) == kEqual over the broadcast of x and y.
template <bool kEqual, typename Args>
Status string_equality(Args& a) {
  Shape out;
  OPF_RETURN_IF_ERROR(broadcast_shapes(a.x.shape(), a.y.shape(), &out, Args::kOpName));
  const std::vector<std::string>& xs = *a.x.strings();
  const std::vector<std::string>& ys = *a.y.strings();
  // Each operand's element step along each output dim (0 where it is broadcast).
  const int r = out.rank();
  const auto steps = [&](const Shape& s) {
    std::vector<int64_t> st(static_cast<size_t>(r), 0);
    int64_t stride = 1;
    for (int d = s.rank() - 1, o = r - 1; d >= 0; --d, --o) {
      if (s.dim(d) != 1) st[static_cast<size_t>(o)] = stride;
      stride *= s.dim(d);
    }
    return st;
  };
  const std::vector<int64_t> sx = steps(a.x.shape()), sy = steps(a.y.shape());
  bool* z = a.z.template data<bool>();
  std::vector<int64_t> at(static_cast<size_t>(r), 0);
  int64_t ix = 0, iy = 0;
  for (int64_t n = 0; n < out.num_elements(); ++n) {
    z[n] = (xs[static_cast<size_t>(ix)] == ys[static_cast<size_t>(iy)]) == kEqual;
    for (int d = r - 1; d >= 0; --d) {  // next output index, odometer style
      const size_t k = static_cast<size_t>(d);
      ix += sx[k];
      iy += sy[k];
      if (++at[k] < out.dim(d)) break;
      ix -= sx[k] * at[k];
      iy -= sy[k] * at[k];
      at[k] = 0;
    }
  }
  return Status::OK();
}

// compare_kernel<T, F>, or z = `incompatible` (a scalar, see EqualityShape) when the shapes
// do not broadcast and the op was told not to fail.
template <typename T, typename F, typename Args>
Status equality_kernel(Args& a, bool incompatible) {
  Shape unused;
  if (!a.incompatible_shape_error && !broadcast_shapes(a.x.shape(), a.y.shape(), &unused, Args::kOpName).ok()) {
    a.z.template data<bool>()[0] = incompatible;  // the shape function made z a scalar
    return Status::OK();
  }
  if constexpr (std::is_same_v<T, StringTag>) {
    return string_equality<std::is_same_v<F, EqualF>>(a);
  } else {
    return cpu::compare_kernel<T, F>(a);
  }
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

OPFORGE_REGISTER_KERNEL(Equal, CPU, EqualCpu, OPF_ALL, StringTag)
OPFORGE_REGISTER_KERNEL(NotEqual, CPU, NotEqualCpu, OPF_ALL, StringTag)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(Equal, CPU, EqualCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(NotEqual, CPU, NotEqualCpu, complex64, complex128)

}  // namespace opforge
