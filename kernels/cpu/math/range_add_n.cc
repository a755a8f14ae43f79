// Range (a sequence from start to limit by delta) and AddN (sum of N tensors).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "cpu/nn/nn_util.h"
#include "opforge/ops/math/add_n.h"
#include "opforge/ops/math/range.h"

namespace opforge {
namespace {

// Element i is start + i * delta as TensorFlow computes it: integers exactly (64-bit unsigned
// arithmetic, which wraps only where the true value is out of range, and every element lies
// between start and limit); floats in the element type, float16/bfloat16 rounded back after
// each operation. The element count comes from the shape function (shape_fns.cc: range).
template <typename T>
Status RangeCpu(ops::RangeArgs& a) {
  T* out = a.output.data<T>();
  const int64_t n = a.output.num_elements();
  if constexpr (std::is_integral_v<T>) {
    const uint64_t start = static_cast<uint64_t>(static_cast<int64_t>(a.start.data<T>()[0]));
    const uint64_t delta = static_cast<uint64_t>(static_cast<int64_t>(a.delta.data<T>()[0]));
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<T>(static_cast<int64_t>(start + static_cast<uint64_t>(i) * delta));
    }
  } else {
    using C = cpu::compute_t<T>;
    const C start = static_cast<C>(a.start.data<T>()[0]), delta = static_cast<C>(a.delta.data<T>()[0]);
    for (int64_t i = 0; i < n; ++i) {
      const C step = static_cast<C>(static_cast<T>(static_cast<C>(static_cast<T>(static_cast<C>(i))) * delta));
      out[i] = static_cast<T>(start + step);
    }
  }
  return Status::OK();
}

template <typename T>
Status AddNCpu(ops::AddNArgs& a) {
  // Integers add in their unsigned type (wrapping, never undefined); floats in compute_t.
  using C =
      std::conditional_t<std::is_integral_v<T>, std::make_unsigned_t<std::conditional_t<std::is_integral_v<T>, T, int>>,
                         cpu::compute_t<T>>;
  T* out = a.sum.data<T>();
  const TensorList in = a.inputs;
  std::vector<const T*> src(static_cast<size_t>(in.size));
  for (int k = 0; k < in.size; ++k) src[static_cast<size_t>(k)] = in[k].data<T>();
  if constexpr (std::is_same_v<T, float>) {  // input by input in vector registers (nn::tap_sum)
    parallel_for(a.sum.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) {
      std::vector<const float*> part(src.size());
      for (size_t k = 0; k < src.size(); ++k) part[k] = src[k] + b;
      nn::tap_sum(out + b, part.data(), nullptr, static_cast<int>(part.size()), e - b, 1.0f);
    });
    return Status::OK();
  }
  // Blocks of values summed input by input in a small accumulator (the loops vectorize; the
  // order of the additions per element is still input 0, 1, 2, ...).
  constexpr int64_t kBlock = 512;
  parallel_for(a.sum.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) {
    C acc[kBlock];
    for (int64_t i0 = b; i0 < e; i0 += kBlock) {
      const int64_t m = std::min(kBlock, e - i0);
      const T* p0 = src[0] + i0;
      for (int64_t i = 0; i < m; ++i) acc[i] = static_cast<C>(p0[i]);
      for (size_t k = 1; k < src.size(); ++k) {
        const T* pk = src[k] + i0;
        for (int64_t i = 0; i < m; ++i) acc[i] = static_cast<C>(acc[i] + static_cast<C>(pk[i]));
      }
      for (int64_t i = 0; i < m; ++i) out[i0 + i] = static_cast<T>(acc[i]);
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Range, CPU, RangeCpu, bfloat16, half, float, double, int8_t, int16_t, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(AddN, CPU, AddNCpu, bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(AddN, CPU, AddNCpu, complex64, complex128)

}  // namespace opforge
