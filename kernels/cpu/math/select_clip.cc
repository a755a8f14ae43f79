// Select (TensorFlow 1 rules: scalar, same-shape or row-vector condition), SelectV2 (NumPy
// broadcasting of condition, t and e) and ClipByValue (shape functions: runtime/ops/math.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/math/clip_by_value.h"
#include "opforge/ops/math/select.h"
#include "opforge/ops/math/select_v2.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using cpu::compute_t;

template <typename T>
Status SelectCpu(ops::SelectArgs& a) {
  const bool* cond = a.condition.data<bool>();
  const T* t = a.t.template data<T>();
  const T* e = a.e.template data<T>();
  T* out = a.output.template data<T>();
  const int64_t n = a.output.num_elements();
  if (n == 0) return Status::OK();
  if (a.condition.rank() == 0) {
    std::memcpy(out, cond[0] ? t : e, static_cast<size_t>(n) * sizeof(T));
    return Status::OK();
  }
  if (a.condition.num_elements() == n && a.condition.shape() == a.t.shape()) {
    parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) out[i] = cond[i] ? t[i] : e[i];
    });
    return Status::OK();
  }
  // A vector condition selects whole rows (dim 0) of t or e.
  if (a.condition.rank() != 1 || a.t.rank() < 1 || a.condition.dim(0) != a.t.dim(0) || a.t.shape() != a.e.shape()) {
    return a.ctx.error("'condition' ", a.condition.shape().to_string(), " does not fit 't' ", a.t.shape().to_string(),
                       " and 'e' ", a.e.shape().to_string());
  }
  const int64_t rows = a.t.dim(0), inner = n / std::max<int64_t>(1, rows);
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, inner)), [&](int64_t b, int64_t end) {
    for (int64_t r = b; r < end; ++r) {
      std::memcpy(out + r * inner, (cond[r] ? t : e) + r * inner, static_cast<size_t>(inner) * sizeof(T));
    }
  });
  return Status::OK();
}

// Element strides of `s` aligned to an output of rank r (0 on broadcast dims).
std::vector<int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  const int r = out.rank();
  std::vector<int64_t> st(static_cast<size_t>(r), 0);
  int64_t acc = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    const int o = i + (r - s.rank());
    if (s.dim(i) != 1) st[static_cast<size_t>(o)] = acc;
    acc *= s.dim(i);
  }
  return st;
}

template <typename T>
Status SelectV2Cpu(ops::SelectV2Args& a) {
  const bool* cond = a.condition.data<bool>();
  const T* t = a.t.template data<T>();
  const T* e = a.e.template data<T>();
  T* out = a.output.template data<T>();
  const int64_t n = a.output.num_elements();
  if (n == 0) return Status::OK();
  const int64_t nc = a.condition.num_elements(), nt = a.t.num_elements(), ne = a.e.num_elements();
  if (nc == n && nt == n && ne == n) {
    parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) out[i] = cond[i] ? t[i] : e[i];
    });
    return Status::OK();
  }
  if (nc == n && nt == 1 && ne == 1) {
    const T tv = t[0], ev = e[0];
    parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) out[i] = cond[i] ? tv : ev;
    });
    return Status::OK();
  }
  const Shape& os = a.output.shape();
  const int r = os.rank();
  if (r == 0) {
    out[0] = cond[0] ? t[0] : e[0];
    return Status::OK();
  }
  const std::vector<int64_t> sc = broadcast_strides(a.condition.shape(), os);
  const std::vector<int64_t> st = broadcast_strides(a.t.shape(), os);
  const std::vector<int64_t> se = broadcast_strides(a.e.shape(), os);
  const int64_t inner = os.dim(r - 1);
  const int64_t ic = sc[r - 1], it = st[r - 1], ie = se[r - 1];
  const int64_t rows = n / inner;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / inner), [&](int64_t b, int64_t end) {
    for (int64_t row = b; row < end; ++row) {
      int64_t rem = row, oc = 0, ot = 0, oe = 0;
      for (int i = r - 2; i >= 0; --i) {
        const int64_t k = rem % os.dim(i);
        rem /= os.dim(i);
        oc += k * sc[static_cast<size_t>(i)];
        ot += k * st[static_cast<size_t>(i)];
        oe += k * se[static_cast<size_t>(i)];
      }
      T* o = out + row * inner;
      for (int64_t j = 0; j < inner; ++j) o[j] = cond[oc + j * ic] ? t[ot + j * it] : e[oe + j * ie];
    }
  });
  return Status::OK();
}

// NaN-propagating max then min, as np.minimum(np.maximum(t, lo), hi).
template <typename T>
T clip(T v, T lo, T hi) {
  using C = compute_t<T>;
  C x = static_cast<C>(v), l = static_cast<C>(lo), h = static_cast<C>(hi);
  if constexpr (cpu::is_float_v<T>) {
    if (std::isnan(x) || std::isnan(l) || std::isnan(h)) return static_cast<T>(x + l + h);
  }
  C m = x < l ? l : x;
  return static_cast<T>(m > h ? h : m);
}

template <typename T>
Status ClipByValueCpu(ops::ClipByValueArgs& a) {
  const int64_t n = a.t.num_elements();
  for (const Tensor* c : {&a.clip_value_min, &a.clip_value_max}) {
    if (c->rank() != 0 && c->shape() != a.t.shape()) {
      return a.ctx.error("clip_value_min and clip_value_max must be scalars or have the shape of t (",
                         a.t.shape().to_string(), "), got ", a.clip_value_min.shape().to_string(), " and ",
                         a.clip_value_max.shape().to_string());
    }
  }
  const T* t = a.t.template data<T>();
  const T* lo = a.clip_value_min.template data<T>();
  const T* hi = a.clip_value_max.template data<T>();
  T* out = a.output.template data<T>();
  const int64_t sl = a.clip_value_min.rank() == 0 ? 0 : 1, sh = a.clip_value_max.rank() == 0 ? 0 : 1;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_integral_v<T>) {
    if (sl == 0 && sh == 0 && !(lo[0] != lo[0]) && !(hi[0] != hi[0])) {
      // Scalar bounds that are not NaN: (l > v ? l : v) keeps a NaN v and is exactly the
      // SIMD max instruction, so this loop vectorizes.
      const T l = lo[0], h = hi[0];
      parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const T m = l > t[i] ? l : t[i];
          out[i] = h < m ? h : m;
        }
      });
      return Status::OK();
    }
  }
  if (sl == 0 && sh == 0) {
    const T l = lo[0], h = hi[0];
    parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = clip(t[i], l, h);
    });
  } else {
    parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = clip(t[i], lo[i * sl], hi[i * sh]);
    });
  }
  return Status::OK();
}

#define OPF_NUMERIC bfloat16, half, float, double, uint8_t, int8_t, int16_t, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(Select, CPU, SelectCpu, bool, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(SelectV2, CPU, SelectV2Cpu, bool, OPF_NUMERIC)
OPFORGE_REGISTER_KERNEL(ClipByValue, CPU, ClipByValueCpu, OPF_NUMERIC)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(Select, CPU, SelectCpu, complex64, complex128)
OPFORGE_REGISTER_KERNEL(SelectV2, CPU, SelectV2Cpu, complex64, complex128)

}  // namespace opforge
