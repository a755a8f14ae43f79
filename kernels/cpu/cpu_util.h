// Shared building blocks for CPU kernels: compute types, elementwise maps with NumPy
// broadcasting, and dimension collapsing. Every loop runs through parallel_for.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opforge/dtype.h"
#include "opforge/parallel.h"
#include "opforge/tensor.h"

// A function over contiguous rows marked with this is also built for AVX2 with FMA (x86-64-v3:
// a plain "avx2" clone would multiply and add separately) and the build to run
// is picked at load time (GCC/Clang target_clones on x86-64; SSE2 otherwise). Not under ASan
// or TSan, whose instrumentation and ifunc resolvers do not mix well (TSan crashes at load).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define OPF_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define OPF_SIMD_CLONES
#endif

namespace opforge {
namespace cpu {

// Arithmetic type for T: 16-bit floats compute in float.
template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<half> {
  using type = float;
};
template <>
struct Compute<bfloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename Compute<T>::type;

template <typename T>
constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// TensorFlow's quantized types and the wider unsigned integers, for the kernels that only move
// data (Identity, Const, Reshape, ConcatV2 ...), registered for them where TensorFlow does.
#define OPF_QUANTIZED_TYPES \
  ::opforge::qint8, ::opforge::quint8, ::opforge::qint16, ::opforge::quint16, ::opforge::qint32
#define OPF_WIDE_UNSIGNED_TYPES uint16_t, uint32_t, uint64_t

// Elements per thread below which a loop is not worth splitting.
constexpr int64_t kGrain = 32768;

// y[i] = f(x[i]).
template <typename In, typename Out, typename F>
void map_unary(const Tensor& x, Tensor& y, F f) {
  const In* in = x.data<In>();
  Out* out = y.data<Out>();
  parallel_for(x.num_elements(), kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = f(in[i]);
  });
}

// Output dims collapsed so that each dim is either broadcast in an input or not, with the
// element strides of x and y in each (0 where broadcast).
struct BroadcastPlan {
  std::vector<int64_t> dims, sx, sy;
};

inline BroadcastPlan plan_broadcast(const Shape& xs, const Shape& ys, const Shape& out) {
  const int r = out.rank();
  std::vector<int64_t> d, bx, by;  // per output dim: size, x broadcast?, y broadcast?
  for (int i = 0; i < r; ++i) {
    int64_t n = out.dim(i);
    if (n == 1) continue;
    int ix = i - (r - xs.rank()), iy = i - (r - ys.rank());
    int64_t dx = ix >= 0 ? xs.dim(ix) : 1, dy = iy >= 0 ? ys.dim(iy) : 1;
    bool bxi = dx == 1, byi = dy == 1;
    if (!d.empty() && bx.back() == bxi && by.back() == byi) {
      d.back() *= n;
    } else {
      d.push_back(n);
      bx.push_back(bxi);
      by.push_back(byi);
    }
  }
  BroadcastPlan p;
  p.dims = d;
  p.sx.assign(d.size(), 0);
  p.sy.assign(d.size(), 0);
  int64_t stx = 1, sty = 1;
  for (int i = static_cast<int>(d.size()) - 1; i >= 0; --i) {
    if (!bx[i]) {
      p.sx[i] = stx;
      stx *= d[i];
    }
    if (!by[i]) {
      p.sy[i] = sty;
      sty *= d[i];
    }
  }
  return p;
}

// z = f(x, y) with NumPy broadcasting; z already has the broadcast shape.
template <typename In, typename Out, typename F>
void map_binary(const Tensor& x, const Tensor& y, Tensor& z, F f) {
  const In* a = x.data<In>();
  const In* b = y.data<In>();
  Out* out = z.data<Out>();
  const int64_t n = z.num_elements();
  if (n == 0) return;
  if (x.num_elements() == n && y.num_elements() == n) {
    parallel_for(n, kGrain, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], b[i]);
    });
    return;
  }
  if (y.num_elements() == 1 && x.num_elements() == n) {
    const In bv = b[0];
    parallel_for(n, kGrain, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(a[i], bv);
    });
    return;
  }
  if (x.num_elements() == 1 && y.num_elements() == n) {
    const In av = a[0];
    parallel_for(n, kGrain, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) out[i] = f(av, b[i]);
    });
    return;
  }
  BroadcastPlan p = plan_broadcast(x.shape(), y.shape(), z.shape());
  const int r = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[r - 1];
  const int64_t ix = p.sx[r - 1], iy = p.sy[r - 1];
  const int64_t rows = n / inner;
  parallel_for(rows, std::max<int64_t>(1, kGrain / inner), [&](int64_t s, int64_t e) {
    std::vector<int64_t> idx(static_cast<size_t>(r), 0);
    int64_t rem = s;  // decompose the starting row into an index over the outer dims
    for (int i = r - 2; i >= 0; --i) {
      idx[i] = rem % p.dims[i];
      rem /= p.dims[i];
    }
    for (int64_t row = s; row < e; ++row) {
      int64_t ox = 0, oy = 0;
      for (int i = 0; i < r - 1; ++i) {
        ox += idx[i] * p.sx[i];
        oy += idx[i] * p.sy[i];
      }
      Out* o = out + row * inner;
      const In* pa = a + ox;
      const In* pb = b + oy;
      if (ix == 1 && iy == 1) {
        for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j], pb[j]);
      } else if (ix == 1) {
        const In bv = pb[0];
        for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j], bv);
      } else if (iy == 1) {
        const In av = pa[0];
        for (int64_t j = 0; j < inner; ++j) o[j] = f(av, pb[j]);
      } else {
        for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j * ix], pb[j * iy]);
      }
      for (int i = r - 2; i >= 0; --i) {
        if (++idx[i] < p.dims[i]) break;
        idx[i] = 0;
      }
    }
  });
}

// Two's-complement wrapping negation (no UB for the minimum value).
template <typename T>
T wrap_neg(T v) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(0) - static_cast<U>(v));
  } else {
    return static_cast<T>(-static_cast<compute_t<T>>(v));
  }
}

// Whether a variable's value may be updated in place (Apply*, Scatter*): the runtime allocated
// its host buffer and nothing else holds it (no fetched result, no reader still running: readers
// take their reference under the variable's lock, held by the caller; no other variable sharing
// it; not a constant's). Otherwise the new value goes to a fresh buffer.
inline bool writable_in_place(const Tensor& value) {
  const std::shared_ptr<Buffer>& buf = value.buffer();
  return buf && buf.use_count() == 1 && buf->owns_memory() && !buf->is_constant() && value.on_host();
}

}  // namespace cpu
}  // namespace opforge
