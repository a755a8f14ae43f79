// FractionalMaxPool / FractionalAvgPool and their gradients (NHWC), as TensorFlow's
// fractional_max_pool_op.cc / fractional_avg_pool_op.cc: the pooling sequences are drawn as in
// its fractional_pool_common.cc (Graham's pseudo-random sequence ceil(alpha * (i + u)), or k and
// k + 1 steps shuffled) from a Philox stream of (seed, seed2) (cpu/random/random_stream.h: per
// graph node in a Session, per op and seeds eagerly). A `deterministic` op reads its stream
// without advancing it, so every run pools the same regions; otherwise each run draws anew. With
// given seeds the sequences are TensorFlow's (each sequence reserves whole Philox outputs, as its
// GuardedPhiloxRandom::ReserveSamples32).
//
// Region i of a sequence s spans rows s[i] .. s[i + 1] - 1, or s[i] .. s[i + 1] when
// `overlapping` (clipped to the input).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/random/philox.h"
#include "cpu/random/random_stream.h"
#include "opforge/ops/nn/fractional_avg_pool.h"
#include "opforge/ops/nn/fractional_avg_pool_grad.h"
#include "opforge/ops/nn/fractional_max_pool.h"
#include "opforge/ops/nn/fractional_max_pool_grad.h"

namespace opforge {
namespace {

// 32-bit words of a Philox stream, counting the 128-bit blocks used.
class Words {
 public:
  explicit Words(rng::Philox g) : g_(g) {}
  uint32_t operator()() {
    if (used_ == 4) {
      buf_ = g_();
      used_ = 0;
      ++blocks_;
    }
    return buf_[used_++];
  }
  uint64_t blocks() const { return blocks_; }

 private:
  rng::Philox g_;
  rng::Philox::Result buf_{};
  int used_ = 4;
  uint64_t blocks_ = 0;
};

// The region sizes of one dimension (each k or k + 1, summing to in), as TensorFlow draws them.
std::vector<int64_t> region_sizes(int64_t in, int64_t out, bool pseudo_random, Words& words) {
  std::vector<int64_t> diff(static_cast<size_t>(out));
  const int64_t k = in / out;
  if (pseudo_random) {
    const double alpha = static_cast<double>(in) / static_cast<double>(out);
    const double u_max1 = static_cast<double>(k + 2) / alpha - 1;
    const double u_max2 = static_cast<double>(in + 1 - k) / alpha - static_cast<double>(out - 1);
    const uint32_t x0 = words(), x1 = words();
    const double u = rng::uint64_to_double(x0, x1) * std::min(u_max1, u_max2);
    std::vector<int64_t> cum(static_cast<size_t>(out + 1));
    cum[0] = 1;
    cum[static_cast<size_t>(out)] = in + 1;
    for (int64_t i = 1; i < out; ++i) cum[static_cast<size_t>(i)] = static_cast<int64_t>(std::ceil(alpha * (i + u)));
    for (int64_t i = 0; i < out; ++i)
      diff[static_cast<size_t>(i)] = cum[static_cast<size_t>(i + 1)] - cum[static_cast<size_t>(i)];
    return diff;
  }
  for (int64_t i = 0; i < out; ++i) diff[static_cast<size_t>(i)] = k + (i < in % out ? 1 : 0);
  for (int64_t i = 0; i + 1 < out; ++i) {  // TensorFlow's RandomShuffle: swap i with one of i .. out - 1
    const int64_t j = i + static_cast<int64_t>(words() % static_cast<uint32_t>(out - i));
    std::swap(diff[static_cast<size_t>(i)], diff[static_cast<size_t>(j)]);
  }
  return diff;
}

void write_sequence(const std::vector<int64_t>& diff, Tensor& seq) {
  int64_t* s = seq.data<int64_t>();
  s[0] = 0;
  for (size_t i = 0; i < diff.size(); ++i) s[i + 1] = s[i] + diff[i];
}

// Draws both sequences into outputs 1 and 2.
Status pooling_sequences(KernelContext& ctx, DType dtype, const Tensor& value, const Tensor& out, bool pseudo_random,
                         bool deterministic, int64_t seed, int64_t seed2) {
  return rng::draw_from_stream(ctx, dtype, seed, seed2, [&](rng::Philox& g) -> uint64_t {
    // Each sequence reserves its own whole Philox outputs, as TensorFlow's ReserveSamples32:
    // two words (pseudo-random) or one per region (shuffled), rounded up to blocks of four.
    uint64_t used = 0;
    for (int d = 1; d <= 2; ++d) {
      const int64_t regions = out.dim(d);
      rng::Philox at = g;
      at.skip(used);
      Words words(at);
      write_sequence(region_sizes(value.dim(d), regions, pseudo_random, words), ctx.output(d));
      used += static_cast<uint64_t>(((pseudo_random ? 2 : regions) + 3) / 4);
    }
    return deterministic ? 0 : used;
  });
}

// The last row (column) region i covers.
inline int64_t region_end(const int64_t* seq, int64_t i, bool overlapping, int64_t size) {
  return std::min(overlapping ? seq[i + 1] : seq[i + 1] - 1, size - 1);
}

// Calls fn(b, out_row, out_col, in_row, in_col) for every input position of every region.
template <typename Fn>
void for_each_region_cell(int64_t batch, const int64_t* rows, int64_t out_rows, const int64_t* cols, int64_t out_cols,
                          int64_t in_rows, int64_t in_cols, bool overlapping, Fn&& fn) {
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < out_rows; ++r) {
      const int64_t r_end = region_end(rows, r, overlapping, in_rows);
      for (int64_t c = 0; c < out_cols; ++c) {
        const int64_t c_end = region_end(cols, c, overlapping, in_cols);
        for (int64_t h = rows[r]; h <= r_end; ++h) {
          for (int64_t w = cols[c]; w <= c_end; ++w) fn(b, r, c, h, w);
        }
      }
    }
  }
}

template <typename T, typename Args>
Status fractional_pool(Args& a, bool max) {
  const Tensor& x = a.value;
  Tensor& y = a.output;
  OPF_RETURN_IF_ERROR(
      pooling_sequences(a.ctx, DTypeOf<T>::value, x, y, a.pseudo_random, a.deterministic, a.seed, a.seed2));
  const int64_t B = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3), R = y.dim(1), Q = y.dim(2);
  const T* in = x.data<T>();
  T* out = y.data<T>();
  std::fill(out, out + y.num_elements(), max ? std::numeric_limits<T>::lowest() : T(0));
  std::vector<int64_t> count(static_cast<size_t>(B * R * Q), 0);
  for_each_region_cell(B, a.row_pooling_sequence.template data<int64_t>(), R,
                       a.col_pooling_sequence.template data<int64_t>(), Q, H, W, a.overlapping,
                       [&](int64_t b, int64_t r, int64_t c, int64_t h, int64_t w) {
                         const int64_t o = (b * R + r) * Q + c;
                         const T* src = in + ((b * H + h) * W + w) * C;
                         T* dst = out + o * C;
                         for (int64_t d = 0; d < C; ++d) dst[d] = max ? std::max(dst[d], src[d]) : T(dst[d] + src[d]);
                         ++count[static_cast<size_t>(o)];
                       });
  if (!max) {
    for (int64_t o = 0; o < B * R * Q; ++o) {
      const T n = static_cast<T>(count[static_cast<size_t>(o)]);
      for (int64_t d = 0; d < C; ++d) out[o * C + d] /= n;  // integers: the truncated quotient, as TensorFlow's
    }
  }
  return Status::OK();
}

template <typename T>
Status FractionalMaxPoolCpu(ops::FractionalMaxPoolArgs& a) {
  return fractional_pool<T>(a, true);
}

template <typename T>
Status FractionalAvgPoolCpu(ops::FractionalAvgPoolArgs& a) {
  return fractional_pool<T>(a, false);
}

// A pooling sequence that can index an input dimension of `size` with `regions` regions.
Status check_sequence(KernelContext& ctx, const Tensor& seq, const char* name, int64_t regions, int64_t size) {
  if (seq.rank() != 1 || seq.dim(0) != regions + 1) {
    return ctx.error(name, " must be a vector of ", regions + 1, " elements (one more than out_backprop's ",
                     name[0] == 'r' ? "rows" : "columns", "), got shape ", seq.shape().to_string());
  }
  const int64_t* s = seq.data<int64_t>();
  for (int64_t i = 0; i < regions; ++i) {
    if (s[i] < 0 || s[i] >= s[i + 1] || s[i] >= size || s[i + 1] > size) {
      return ctx.error(name, " must increase from 0 to at most ", size, " (the input's size), got ", s[i], " then ",
                       s[i + 1], " at ", i);
    }
  }
  return Status::OK();
}

Status check_backprop(KernelContext& ctx, const std::vector<int64_t>& in, const Tensor& grad, const Tensor& rows,
                      const Tensor& cols) {
  if (grad.rank() != 4 || grad.dim(0) != in[0] || grad.dim(3) != in[3]) {
    return ctx.error("out_backprop must be 4-dimensional with the input's batch and channels (", in[0], ", ", in[3],
                     "), got shape ", grad.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(check_sequence(ctx, rows, "row_pooling_sequence", grad.dim(1), in[1]));
  return check_sequence(ctx, cols, "col_pooling_sequence", grad.dim(2), in[2]);
}

template <typename T>
Status FractionalMaxPoolGradCpu(ops::FractionalMaxPoolGradArgs& a) {
  const Tensor& x = a.orig_input;
  const std::vector<int64_t> in = x.shape().dims();
  OPF_RETURN_IF_ERROR(check_backprop(a.ctx, in, a.out_backprop, a.row_pooling_sequence, a.col_pooling_sequence));
  if (a.orig_output.shape() != a.out_backprop.shape()) {
    return a.ctx.error("orig_output and out_backprop must have the same shape, got ", a.orig_output.shape().to_string(),
                       " and ", a.out_backprop.shape().to_string());
  }
  const int64_t B = in[0], H = in[1], W = in[2], C = in[3];
  const int64_t R = a.out_backprop.dim(1), Q = a.out_backprop.dim(2);
  // The first maximum of each region and channel (rows, then columns), as TensorFlow's.
  std::vector<T> best(static_cast<size_t>(B * R * Q * C), std::numeric_limits<T>::lowest());
  std::vector<int64_t> at(best.size(), -1);
  const T* src = x.data<T>();
  for_each_region_cell(B, a.row_pooling_sequence.data<int64_t>(), R, a.col_pooling_sequence.data<int64_t>(), Q, H, W,
                       a.overlapping, [&](int64_t b, int64_t r, int64_t c, int64_t h, int64_t w) {
                         const int64_t o = ((b * R + r) * Q + c) * C, i = ((b * H + h) * W + w) * C;
                         for (int64_t d = 0; d < C; ++d) {
                           const size_t k = static_cast<size_t>(o + d);
                           if (at[k] < 0 || best[k] < src[i + d]) {
                             best[k] = src[i + d];
                             at[k] = i + d;
                           }
                         }
                       });
  T* out = a.output.data<T>();
  std::fill(out, out + a.output.num_elements(), T(0));
  const T* g = a.out_backprop.data<T>();
  for (size_t k = 0; k < at.size(); ++k) {
    if (at[k] >= 0) out[at[k]] += g[k];
  }
  return Status::OK();
}

template <typename T>
Status FractionalAvgPoolGradCpu(ops::FractionalAvgPoolGradArgs& a) {
  const std::vector<int64_t> in = a.output.shape().dims();  // orig_input_tensor_shape (the shape function read it)
  OPF_RETURN_IF_ERROR(check_backprop(a.ctx, in, a.out_backprop, a.row_pooling_sequence, a.col_pooling_sequence));
  const int64_t B = in[0], H = in[1], W = in[2], C = in[3];
  const int64_t R = a.out_backprop.dim(1), Q = a.out_backprop.dim(2);
  const int64_t* rows = a.row_pooling_sequence.data<int64_t>();
  const int64_t* cols = a.col_pooling_sequence.data<int64_t>();
  std::vector<double> acc(static_cast<size_t>(a.output.num_elements()), 0.0);
  const T* g = a.out_backprop.data<T>();
  for_each_region_cell(B, rows, R, cols, Q, H, W, a.overlapping,
                       [&](int64_t b, int64_t r, int64_t c, int64_t h, int64_t w) {
                         const double n = static_cast<double>((region_end(rows, r, a.overlapping, H) - rows[r] + 1) *
                                                              (region_end(cols, c, a.overlapping, W) - cols[c] + 1));
                         const T* go = g + ((b * R + r) * Q + c) * C;
                         double* dst = acc.data() + ((b * H + h) * W + w) * C;
                         for (int64_t d = 0; d < C; ++d) dst[d] += static_cast<double>(go[d]) / n;
                       });
  T* out = a.output.data<T>();
  for (size_t k = 0; k < acc.size(); ++k) out[k] = static_cast<T>(acc[k]);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(FractionalMaxPool, CPU, FractionalMaxPoolCpu, float, double, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(FractionalAvgPool, CPU, FractionalAvgPoolCpu, float, double, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(FractionalMaxPoolGrad, CPU, FractionalMaxPoolGradCpu, float, double, int32_t, int64_t)
OPFORGE_REGISTER_KERNEL(FractionalAvgPoolGrad, CPU, FractionalAvgPoolGradCpu, float, double, int32_t, int64_t)

}  // namespace opforge
