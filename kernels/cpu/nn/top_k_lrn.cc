// TopKV2 (the k largest entries along the last dimension) and LRN / LRNGrad (local response
// normalization across the last dimension), as TensorFlow's CPU kernels compute them.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/nn/lrn.h"
#include "opforge/ops/nn/lrn_grad.h"
#include "opforge/ops/nn/top_kv2.h"
#include "opforge/shape_fns.h"
#include "ops/nn.h"

namespace opforge {
namespace {

// ------------------------------------------------------------------------------ TopKV2

using nn_semantics::read_k;

template <typename I>
void write_index(const Tensor& t, int64_t at, int64_t value) {
  t.data<I>()[at] = static_cast<I>(value);
}

template <typename T>
Status TopKV2Cpu(ops::TopKV2Args& a) {
  int64_t k = 0;
  OPF_RETURN_IF_ERROR(read_k("TopKV2", a.k, &k));
  const Shape& in = a.input.shape();
  if (in.rank() < 1) return a.ctx.error("input must be at least 1-D, got shape ", in.to_string());
  if (k < 0) return a.ctx.error("Need k >= 0, got ", k);
  const int64_t n = in.dim(in.rank() - 1);
  if (n < k) return a.ctx.error("input must have at least k columns. Had ", n, ", needed ", k);
  const int64_t max_index = a.index_type == DType::kInt16   ? INT16_MAX
                            : a.index_type == DType::kInt32 ? INT32_MAX
                                                            : INT64_MAX;
  if (n - 1 > max_index) return a.ctx.error("the last dimension (", n, ") does not fit in ", dtype_name(a.index_type));
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.T, Shape(dims), &a.values));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.index_type, Shape(dims), &a.indices));
  const int64_t rows = n == 0 ? 0 : a.input.num_elements() / n;
  const T* src = a.input.data<T>();
  T* values = a.values.data<T>();
  const DType index_type = a.index_type;
  const Tensor& indices = a.indices;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, n)), [&](int64_t b, int64_t e) {
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const T* row = src + r * n;
      std::iota(order.begin(), order.end(), int64_t{0});
      // Larger first; NaN above every number; equal entries by position.
      auto before = [row](int64_t i, int64_t j) {
        const auto x = static_cast<cpu::compute_t<T>>(row[i]), y = static_cast<cpu::compute_t<T>>(row[j]);
        const bool xn = x != x, yn = y != y;
        if (xn || yn) return xn && (!yn || i < j);
        return x > y || (x == y && i < j);
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t at = r * k + i;
        values[at] = row[order[static_cast<size_t>(i)]];
        if (index_type == DType::kInt16)
          write_index<int16_t>(indices, at, order[static_cast<size_t>(i)]);
        else if (index_type == DType::kInt32)
          write_index<int32_t>(indices, at, order[static_cast<size_t>(i)]);
        else
          write_index<int64_t>(indices, at, order[static_cast<size_t>(i)]);
      }
    }
  });
  return Status::OK();
}

// ------------------------------------------------------------------------------ LRN

// The window of position d along a depth of `depth`: [d - radius, d + radius], clipped.
inline void window(int64_t d, int64_t radius, int64_t depth, int64_t* lo, int64_t* hi) {
  radius = std::min(radius, depth);  // (a radius past the depth covers it all: no d + INT64_MAX)
  *lo = std::max<int64_t>(0, d - radius);
  *hi = std::min<int64_t>(depth - 1, d + radius);
}

// N_d = bias + alpha * (sum of x_j^2 over d's window) for every position d of one row.
template <typename T>
void window_norms(const T* row, int64_t depth, int64_t radius, double bias, double alpha, double* norm) {
  for (int64_t d = 0; d < depth; ++d) {
    int64_t lo, hi;
    window(d, radius, depth, &lo, &hi);
    double sqr_sum = 0;
    for (int64_t j = lo; j <= hi; ++j) sqr_sum += static_cast<double>(row[j]) * static_cast<double>(row[j]);
    norm[d] = bias + alpha * sqr_sum;
  }
}

Status check_lrn(const KernelContext& ctx, const Tensor& input, int64_t radius) {
  if (input.rank() != 4) return ctx.error("input must be 4-dimensional, got shape ", input.shape().to_string());
  if (radius < 0) return ctx.error("depth_radius must be non-negative, got ", radius);
  return Status::OK();
}

template <typename T>
Status LRNCpu(ops::LRNArgs& a) {
  OPF_RETURN_IF_ERROR(check_lrn(a.ctx, a.input, a.depth_radius));
  const int64_t depth = a.input.dim(3);
  const int64_t rows = depth == 0 ? 0 : a.input.num_elements() / depth;
  const T* x = a.input.data<T>();
  T* out = a.output.data<T>();
  const double bias = a.bias, alpha = a.alpha, beta = a.beta;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, depth)), [&](int64_t b, int64_t e) {
    std::vector<double> norm(static_cast<size_t>(depth));
    for (int64_t r = b; r < e; ++r) {
      const T* row = x + r * depth;
      window_norms(row, depth, a.depth_radius, bias, alpha, norm.data());
      for (int64_t d = 0; d < depth; ++d) {
        out[r * depth + d] =
            static_cast<T>(static_cast<double>(row[d]) * std::pow(norm[static_cast<size_t>(d)], -beta));
      }
    }
  });
  return Status::OK();
}

// d out_d / d x_i = [i == d] N_d^-beta - 2 alpha beta x_d x_i N_d^(-beta-1), for i in d's window,
// where N_d = bias + alpha * sqr_sum_d.
template <typename T>
Status LRNGradCpu(ops::LRNGradArgs& a) {
  OPF_RETURN_IF_ERROR(check_lrn(a.ctx, a.input_image, a.depth_radius));
  if (a.input_grads.shape() != a.input_image.shape() || a.output_image.shape() != a.input_image.shape()) {
    return a.ctx.error("input_grads, input_image and output_image must have one shape, got ",
                       a.input_grads.shape().to_string(), ", ", a.input_image.shape().to_string(), " and ",
                       a.output_image.shape().to_string());
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.T, a.input_image.shape(), &a.output));
  const int64_t depth = a.input_image.dim(3);
  const int64_t rows = depth == 0 ? 0 : a.input_image.num_elements() / depth;
  const T* g = a.input_grads.data<T>();
  const T* x = a.input_image.data<T>();
  T* out = a.output.data<T>();
  const double bias = a.bias, alpha = a.alpha, beta = a.beta;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, depth)), [&](int64_t b, int64_t e) {
    std::vector<double> norm(static_cast<size_t>(depth)), acc(static_cast<size_t>(depth));
    for (int64_t r = b; r < e; ++r) {
      const T* xr = x + r * depth;
      const T* gr = g + r * depth;
      window_norms(xr, depth, a.depth_radius, bias, alpha, norm.data());
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t d = 0; d < depth; ++d) {
        const double n_d = norm[static_cast<size_t>(d)];
        const double shared =
            -2.0 * alpha * beta * static_cast<double>(gr[d]) * static_cast<double>(xr[d]) * std::pow(n_d, -beta - 1.0);
        int64_t lo, hi;
        window(d, a.depth_radius, depth, &lo, &hi);
        for (int64_t i = lo; i <= hi; ++i) acc[static_cast<size_t>(i)] += shared * static_cast<double>(xr[i]);
        acc[static_cast<size_t>(d)] += static_cast<double>(gr[d]) * std::pow(n_d, -beta);
      }
      for (int64_t d = 0; d < depth; ++d) out[r * depth + d] = static_cast<T>(acc[static_cast<size_t>(d)]);
    }
  });
  return Status::OK();
}

}  // namespace

// TopKV2 and LRNGrad allocate their outputs (TopKV2's shape depends on k's value).
OPFORGE_REGISTER_FORWARDING_KERNEL(TopKV2, CPU, TopKV2Cpu, float, double, int32_t, uint8_t, int16_t, int8_t, int64_t,
                                   bfloat16, half)
OPFORGE_REGISTER_KERNEL(LRN, CPU, LRNCpu, half, bfloat16, float, double)
OPFORGE_REGISTER_FORWARDING_KERNEL(LRNGrad, CPU, LRNGradCpu, half, bfloat16, float, double)

}  // namespace opforge
