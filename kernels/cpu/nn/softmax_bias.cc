// Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits,
// BiasAdd, BiasAddGrad and L2Loss. Rows are split over the threads; 16-bit floats compute in
// float. Softmaxes subtract the row maximum first, so large logits do not overflow.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"
#include "cpu/nn/nn_util.h"
#include "cpu/vec_math.h"
#include "opforge/ops/nn/bias_add.h"
#include "opforge/ops/nn/bias_add_grad.h"
#include "opforge/ops/nn/l2_loss.h"
#include "opforge/ops/nn/log_softmax.h"
#include "opforge/ops/nn/softmax.h"
#include "opforge/ops/nn/softmax_cross_entropy_with_logits.h"
#include "opforge/ops/nn/sparse_softmax_cross_entropy_with_logits.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

template <typename T>
using C = cpu::compute_t<T>;

// Rows of `cols` elements: grain so that a thread gets at least kGrain elements.
inline int64_t row_grain(int64_t cols) { return std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, cols)); }

// float32 rows: out = exp(in - max(in)) with the vectorized exp (vec_math.h: a few ulp; a
// scalar std::exp per value made a [1120, 1000] sparse cross-entropy 9.9 ms on one thread).
// Returns the max (NaN when the row holds one) and the sum of out.
struct ShiftedExp {
  float max, sum;
};
ShiftedExp exp_shifted_row(const float* in, float* out, int64_t cols) {
  const float m = vec::max_f32(in, cols);
  for (int64_t j = 0; j < cols; ++j) out[j] = in[j] - m;
  vec::exp_f32(out, out, cols);
  typedef float V8 __attribute__((vector_size(32)));
  V8 acc = {};
  int64_t j = 0;
  for (; j + 8 <= cols; j += 8) {
    V8 v;
    std::memcpy(&v, out + j, sizeof(v));
    acc += v;
  }
  float sum = 0.0f;
  for (int k = 0; k < 8; ++k) sum += acc[k];
  for (; j < cols; ++j) sum += out[j];
  return {m, sum};
}

// Writes softmax (log_softmax when `log`) of each row of x into y.
template <typename T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, bool log) {
  parallel_for(rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* in = x + r * cols;
      T* out = y + r * cols;
      if constexpr (std::is_same_v<T, float>) {
        const ShiftedExp e = exp_shifted_row(in, out, cols);
        if (log) {
          const float shift = e.max + std::log(e.sum);
          for (int64_t j = 0; j < cols; ++j) out[j] = in[j] - shift;
        } else {
          for (int64_t j = 0; j < cols; ++j) out[j] /= e.sum;
        }
        continue;
      }
      C<T> m = -std::numeric_limits<C<T>>::infinity();
      for (int64_t j = 0; j < cols; ++j) m = std::max(m, static_cast<C<T>>(in[j]));
      C<T> sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<C<T>>(in[j]) - m);
      if (log) {
        const C<T> lse = std::log(sum);
        for (int64_t j = 0; j < cols; ++j) out[j] = static_cast<T>(static_cast<C<T>>(in[j]) - m - lse);
      } else {
        for (int64_t j = 0; j < cols; ++j) out[j] = static_cast<T>(std::exp(static_cast<C<T>>(in[j]) - m) / sum);
      }
    }
  });
}

template <typename T>
Status SoftmaxCpu(ops::SoftmaxArgs& a) {
  const int64_t cols = a.logits.dim(a.logits.rank() - 1);
  if (cols == 0) return Status::OK();
  softmax_rows<T>(a.logits.data<T>(), a.softmax.data<T>(), a.logits.num_elements() / cols, cols, false);
  return Status::OK();
}

template <typename T>
Status LogSoftmaxCpu(ops::LogSoftmaxArgs& a) {
  const int64_t cols = a.logits.dim(a.logits.rank() - 1);
  if (cols == 0) return Status::OK();
  softmax_rows<T>(a.logits.data<T>(), a.logsoftmax.data<T>(), a.logits.num_elements() / cols, cols, true);
  return Status::OK();
}

// loss[b] = -sum_c labels[b,c] * log_softmax(features)[b,c]; backprop = softmax - labels.
// features and labels broadcast against each other (dims of 1).
template <typename T>
Status SoftmaxCrossEntropyWithLogitsCpu(ops::SoftmaxCrossEntropyWithLogitsArgs& a) {
  const Tensor& f = a.features;
  const Tensor& l = a.labels;
  const int64_t rows = a.backprop.dim(0), cols = a.backprop.dim(1);
  if (rows == 0 || cols == 0) {
    std::fill(a.loss.data<T>(), a.loss.data<T>() + rows, T(0));
    return Status::OK();
  }
  const int64_t frs = f.dim(0) == 1 ? 0 : f.dim(1), fcs = f.dim(1) == 1 ? 0 : 1;
  const int64_t lrs = l.dim(0) == 1 ? 0 : l.dim(1), lcs = l.dim(1) == 1 ? 0 : 1;
  const T* fp = f.data<T>();
  const T* lp = l.data<T>();
  T* loss = a.loss.data<T>();
  T* bp = a.backprop.data<T>();
  parallel_for(rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* in = fp + r * frs;
      const T* lab = lp + r * lrs;
      if constexpr (std::is_same_v<T, float>) {
        if (fcs == 1) {  // a row of logits: the vectorized exp, as the sparse form
          float* out = bp + r * cols;
          const ShiftedExp e = exp_shifted_row(in, out, cols);
          const float lse = std::log(e.sum);
          float total = 0.0f;
          for (int64_t j = 0; j < cols; ++j) {
            const float y = lab[j * lcs];
            if (y != 0.0f) total -= y * (in[j] - e.max - lse);
            out[j] = out[j] / e.sum - y;  // as the sparse form: one-hot labels give its bits
          }
          loss[r] = total;
          continue;
        }
      }
      C<T> m = -std::numeric_limits<C<T>>::infinity();
      for (int64_t j = 0; j < cols; ++j) m = std::max(m, static_cast<C<T>>(in[j * fcs]));
      C<T> sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<C<T>>(in[j * fcs]) - m);
      const C<T> lse = std::log(sum);
      C<T> total = 0;
      for (int64_t j = 0; j < cols; ++j) {
        const C<T> z = static_cast<C<T>>(in[j * fcs]) - m;
        const C<T> y = static_cast<C<T>>(lab[j * lcs]);
        if (y != 0) total -= y * (z - lse);
        bp[r * cols + j] = static_cast<T>(std::exp(z - lse) - y);
      }
      loss[r] = static_cast<T>(total);
    }
  });
  return Status::OK();
}

template <typename T, typename L>
Status SparseXent(ops::SparseSoftmaxCrossEntropyWithLogitsArgs& a) {
  const int64_t rows = a.features.dim(0), cols = a.features.dim(1);
  const L* labels = a.labels.data<L>();
  for (int64_t r = 0; r < rows; ++r) {
    if (labels[r] < 0 || static_cast<int64_t>(labels[r]) >= cols) {
      return a.ctx.error("Received a label value of ", static_cast<int64_t>(labels[r]),
                         " which is outside the valid range of [0, ", cols, ") (row ", r, ")");
    }
  }
  const T* fp = a.features.data<T>();
  T* loss = a.loss.data<T>();
  T* bp = a.backprop.data<T>();
  parallel_for(rows, row_grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* in = fp + r * cols;
      const int64_t label = static_cast<int64_t>(labels[r]);
      if constexpr (std::is_same_v<T, float>) {
        float* out = bp + r * cols;
        const ShiftedExp e = exp_shifted_row(in, out, cols);
        for (int64_t j = 0; j < cols; ++j) out[j] /= e.sum;
        out[label] -= 1.0f;
        loss[r] = std::log(e.sum) - (in[label] - e.max);
        continue;
      }
      C<T> m = -std::numeric_limits<C<T>>::infinity();
      for (int64_t j = 0; j < cols; ++j) m = std::max(m, static_cast<C<T>>(in[j]));
      C<T> sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<C<T>>(in[j]) - m);
      const C<T> lse = std::log(sum);
      for (int64_t j = 0; j < cols; ++j) {
        const C<T> p = std::exp(static_cast<C<T>>(in[j]) - m - lse);
        bp[r * cols + j] = static_cast<T>(j == label ? p - C<T>(1) : p);
      }
      loss[r] = static_cast<T>(lse - (static_cast<C<T>>(in[label]) - m));
    }
  });
  return Status::OK();
}

template <typename T>
Status SparseSoftmaxCrossEntropyWithLogitsCpu(ops::SparseSoftmaxCrossEntropyWithLogitsArgs& a) {
  if (a.labels.dtype() == DType::kInt32) return SparseXent<T, int32_t>(a);
  return SparseXent<T, int64_t>(a);
}

// Wrapping addition for integers (no signed-overflow UB), plain addition otherwise.
template <typename T>
T add(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
  } else {
    return static_cast<T>(static_cast<C<T>>(x) + static_cast<C<T>>(y));
  }
}

using nn_semantics::channel_dim;

template <typename T>
Status BiasAddCpu(ops::BiasAddArgs& a) {
  const Tensor& v = a.value;
  const int cd = channel_dim(a.data_format, v.rank());
  const int64_t c = v.dim(cd);
  int64_t inner = 1;
  for (int i = cd + 1; i < v.rank(); ++i) inner *= v.dim(i);
  const int64_t n = v.num_elements();
  if (n == 0) return Status::OK();
  const T* x = v.data<T>();
  const T* b = a.bias.data<T>();
  T* y = a.output.data<T>();
  if (inner == 1) {  // channels last: each row of c values gets the whole bias (vectorizes)
    parallel_for(n / c, row_grain(c), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * c;
        T* yr = y + r * c;
        for (int64_t j = 0; j < c; ++j) yr[j] = add(xr[j], b[j]);
      }
    });
    return Status::OK();
  }
  parallel_for(n / inner, row_grain(inner), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T bv = b[r % c];
      for (int64_t i = 0; i < inner; ++i) y[r * inner + i] = add(x[r * inner + i], bv);
    }
  });
  return Status::OK();
}

// Sums out_backprop over every dim but the channel one, per thread, then combines. Floating
// types accumulate in double, integers in their own type (wrapping as TensorFlow's do).
// Channel-last data is rows of c values added element-wise (vectorizes); channel-first data is
// runs of `inner` values of one channel.
template <typename T>
Status BiasAddGradCpu(ops::BiasAddGradArgs& a) {
  const Tensor& g = a.out_backprop;
  const int cd = channel_dim(a.data_format, g.rank());
  const int64_t c = g.dim(cd);
  int64_t inner = 1;
  for (int i = cd + 1; i < g.rank(); ++i) inner *= g.dim(i);
  using A = std::conditional_t<std::is_integral_v<T>, T, double>;
  std::vector<A> total(static_cast<size_t>(c), A(0));
  const T* x = g.data<T>();
  // rows of `inner`, channel = r % c; none when any dim is 0 (the sums are then all 0)
  const int64_t rows = g.num_elements() == 0 ? 0 : g.num_elements() / inner;
  nn::OrderedPartials<std::vector<A>> partials;
  if (inner == 1) {
    parallel_for(rows / std::max<int64_t>(1, c), row_grain(c), [&](int64_t r0, int64_t r1) {
      std::vector<A> part(static_cast<size_t>(c), A(0));
      A* s = part.data();
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = x + r * c;
        for (int64_t j = 0; j < c; ++j) s[j] = add<A>(s[j], static_cast<A>(static_cast<C<T>>(row[j])));
      }
      partials.add(r0, std::move(part));
    });
  } else {
    parallel_for(rows, row_grain(inner), [&](int64_t r0, int64_t r1) {
      std::vector<A> part(static_cast<size_t>(c), A(0));
      for (int64_t r = r0; r < r1; ++r) {
        A s = 0;
        for (int64_t i = 0; i < inner; ++i) s = add<A>(s, static_cast<A>(static_cast<C<T>>(x[r * inner + i])));
        part[static_cast<size_t>(r % c)] = add<A>(part[static_cast<size_t>(r % c)], s);
      }
      partials.add(r0, std::move(part));
    });
  }
  partials.merge_in_order([&](const std::vector<A>& part) {
    for (int64_t j = 0; j < c; ++j)
      total[static_cast<size_t>(j)] = add<A>(total[static_cast<size_t>(j)], part[static_cast<size_t>(j)]);
  });
  T* out = a.output.data<T>();
  for (int64_t j = 0; j < c; ++j) out[j] = static_cast<T>(static_cast<C<T>>(total[static_cast<size_t>(j)]));
  return Status::OK();
}

// sum of x[b, e)^2 in double, eight lanes (one chain of dependent adds took 4 cycles a value:
// clip_by_global_norm's L2Losses over an LSTM's 0.5M weights, 3.4 ms on one thread).
OPF_SIMD_CLONES
double sum_squares_f32(const float* x, int64_t b, int64_t e) {
  typedef float F4 __attribute__((vector_size(16)));
  typedef double D4 __attribute__((vector_size(32)));
  D4 a0 = {}, a1 = {};
  int64_t i = b;
  for (; i + 8 <= e; i += 8) {
    F4 u, v;
    std::memcpy(&u, x + i, sizeof(u));
    std::memcpy(&v, x + i + 4, sizeof(v));
    const D4 du = __builtin_convertvector(u, D4), dv = __builtin_convertvector(v, D4);
    a0 += du * du;
    a1 += dv * dv;
  }
  const D4 a = a0 + a1;
  double s = (a[0] + a[1]) + (a[2] + a[3]);
  for (; i < e; ++i) s += static_cast<double>(x[i]) * x[i];
  return s;
}

// sum(t^2) / 2, accumulated in double for float inputs.
template <typename T>
Status L2LossCpu(ops::L2LossArgs& a) {
  using A = double;
  const T* x = a.t.data<T>();
  A total = 0;
  nn::OrderedPartials<A> partials;
  parallel_for(a.t.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) {
    A s = 0;
    if constexpr (std::is_same_v<T, float>) {
      s = sum_squares_f32(x, b, e);
    } else {
      for (int64_t i = b; i < e; ++i) {
        const A v = static_cast<A>(static_cast<C<T>>(x[i]));
        s += v * v;
      }
    }
    partials.add(b, s);
  });
  partials.merge_in_order([&](A s) { total += s; });
  a.output.data<T>()[0] = static_cast<T>(static_cast<C<T>>(total / 2));
  return Status::OK();
}

// The shape functions of these ops are op semantics: runtime/ops/nn.cc.

}  // namespace

OPFORGE_REGISTER_KERNEL(Softmax, CPU, SoftmaxCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(LogSoftmax, CPU, LogSoftmaxCpu, bfloat16, half, float, double)
OPFORGE_REGISTER_KERNEL(SoftmaxCrossEntropyWithLogits, CPU, SoftmaxCrossEntropyWithLogitsCpu, bfloat16, half, float,
                        double)
OPFORGE_REGISTER_KERNEL(SparseSoftmaxCrossEntropyWithLogits, CPU, SparseSoftmaxCrossEntropyWithLogitsCpu, bfloat16,
                        half, float, double)
OPFORGE_REGISTER_INPLACE_KERNEL(BiasAdd, CPU, BiasAddCpu, inplace_args(0), bfloat16, half, float, double, uint8_t,
                                int8_t, int16_t, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(BiasAddGrad, CPU, BiasAddGradCpu, bfloat16, half, float, double, uint8_t, int8_t, int16_t,
                        int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(L2Loss, CPU, L2LossCpu, bfloat16, half, float, double)

}  // namespace opforge
