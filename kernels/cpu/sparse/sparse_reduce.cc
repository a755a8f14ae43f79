// Reducing SparseTensor kernels: SparseReduceSum / SparseReduceMax (dense and sparse outputs),
// SparseSoftmax, and the SparseSegment{Sum,Mean,SqrtN} family with their gradients.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/sparse/sparse_util.h"
#include "opforge/ops/sparse/sparse_reduce_max.h"
#include "opforge/ops/sparse/sparse_reduce_max_sparse.h"
#include "opforge/ops/sparse/sparse_reduce_sum.h"
#include "opforge/ops/sparse/sparse_reduce_sum_sparse.h"
#include "opforge/ops/sparse/sparse_segment_mean.h"
#include "opforge/ops/sparse/sparse_segment_mean_grad.h"
#include "opforge/ops/sparse/sparse_segment_mean_with_num_segments.h"
#include "opforge/ops/sparse/sparse_segment_sqrt_n.h"
#include "opforge/ops/sparse/sparse_segment_sqrt_n_grad.h"
#include "opforge/ops/sparse/sparse_segment_sqrt_n_with_num_segments.h"
#include "opforge/ops/sparse/sparse_segment_sum.h"
#include "opforge/ops/sparse/sparse_segment_sum_grad.h"
#include "opforge/ops/sparse/sparse_segment_sum_with_num_segments.h"
#include "opforge/ops/sparse/sparse_softmax.h"

namespace opforge {
namespace {

using cpu::compute_t;

// The reduction of a SparseTensor: per group of values sharing their kept-dim index (a map
// from that row-major position, so any input order works), the reduced value.
template <typename T>
struct Reduction {
  std::vector<int64_t> out_dims;           // the output shape (reduced dims dropped or 1)
  std::vector<int64_t> kept;               // the kept dims, in order
  std::map<int64_t, compute_t<T>> groups;  // kept position -> reduced value
};

template <typename T, bool kMax>
Status reduce(const KernelContext& ctx, const Tensor& ix, const Tensor& vals, const Tensor& shape, const Tensor& axes,
              bool keep_dims, Reduction<T>* r) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(ctx, ix, vals, shape, &v));
  OPF_RETURN_IF_ERROR(sparse::check_bounds(ctx, v));
  std::vector<bool> reduced(static_cast<size_t>(v.rank), false);
  for (int64_t raw : sparse::ints(axes)) {
    const int64_t d = raw < 0 ? raw + v.rank : raw;
    if (d < 0 || d >= v.rank) {
      return ctx.error("Invalid reduction dimension ", raw, ", for input with ", v.rank, " dimensions.");
    }
    if (reduced[static_cast<size_t>(d)]) return ctx.error("Duplicate reduction dimension ", d);
    reduced[static_cast<size_t>(d)] = true;
  }
  for (int d = 0; d < v.rank; ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      r->kept.push_back(d);
      r->out_dims.push_back(v.shape[static_cast<size_t>(d)]);
    } else if (keep_dims) {
      r->out_dims.push_back(1);
    }
  }
  int64_t kept_size = 1;
  for (int64_t d : r->kept) {
    if (__builtin_mul_overflow(kept_size, v.shape[static_cast<size_t>(d)], &kept_size)) {
      return ctx.error("the kept dimensions of ", Shape(v.shape).to_string(), " have too many elements");
    }
  }
  const T* x = vals.data<T>();
  for (int64_t i = 0; i < v.n; ++i) {
    int64_t pos = 0;
    for (int64_t d : r->kept) pos = pos * v.shape[static_cast<size_t>(d)] + v.at(i, static_cast<int>(d));
    const compute_t<T> value = static_cast<compute_t<T>>(x[i]);
    auto [it, fresh] = r->groups.emplace(pos, value);
    if (!fresh) it->second = kMax ? std::max(it->second, value) : it->second + value;
  }
  return Status::OK();
}

template <typename T, bool kMax>
Status dense_reduction(KernelContext& ctx, const Tensor& ix, const Tensor& vals, const Tensor& shape,
                       const Tensor& axes, bool keep_dims) {
  Reduction<T> r;
  OPF_RETURN_IF_ERROR((reduce<T, kMax>(ctx, ix, vals, shape, axes, keep_dims, &r)));
  int64_t total = 1;
  for (int64_t d : r.out_dims) {
    if (__builtin_mul_overflow(total, d, &total)) return ctx.error("the output shape has too many elements");
  }
  Tensor& out = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape(r.out_dims), &out));
  T* o = out.template data<T>();
  std::fill(o, o + total, T(0));
  for (const auto& [pos, value] : r.groups) o[pos] = static_cast<T>(value);
  return Status::OK();
}

template <typename T, bool kMax>
Status sparse_reduction(KernelContext& ctx, const Tensor& ix, const Tensor& vals, const Tensor& shape,
                        const Tensor& axes, bool keep_dims) {
  Reduction<T> r;
  OPF_RETURN_IF_ERROR((reduce<T, kMax>(ctx, ix, vals, shape, axes, keep_dims, &r)));
  const std::vector<int64_t> in_shape = sparse::ints(shape);
  const int out_rank = static_cast<int>(r.out_dims.size());
  std::vector<int64_t> rows;
  const int64_t n = static_cast<int64_t>(r.groups.size());
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{n}, &ctx.output(1)));
  T* o = ctx.output(1).template data<T>();
  int64_t k = 0;
  for (const auto& [pos, value] : r.groups) {
    // The kept dims' index from the position; reduced dims (kept with keep_dims) are 0.
    std::vector<int64_t> kept_ix(r.kept.size());
    int64_t rest = pos;
    for (size_t q = r.kept.size(); q-- > 0;) {
      const int64_t dim = in_shape[static_cast<size_t>(r.kept[q])];
      kept_ix[q] = rest % dim;
      rest /= dim;
    }
    size_t q = 0;
    for (int d = 0; d < static_cast<int>(in_shape.size()); ++d) {
      if (q < r.kept.size() && r.kept[q] == d) {
        rows.push_back(kept_ix[q++]);
      } else if (keep_dims) {
        rows.push_back(0);
      }
    }
    o[k++] = static_cast<T>(value);
  }
  OPF_RETURN_IF_ERROR(sparse::int64_matrix(rows, n, out_rank, &ctx.output(0)));
  return sparse::int64_vector(r.out_dims, &ctx.output(2));
}

template <typename T>
Status SparseReduceSumCpu(ops::SparseReduceSumArgs& a) {
  return dense_reduction<T, false>(a.ctx, a.input_indices, a.input_values, a.input_shape, a.reduction_axes,
                                   a.keep_dims);
}
template <typename T>
Status SparseReduceMaxCpu(ops::SparseReduceMaxArgs& a) {
  return dense_reduction<T, true>(a.ctx, a.input_indices, a.input_values, a.input_shape, a.reduction_axes, a.keep_dims);
}
template <typename T>
Status SparseReduceSumSparseCpu(ops::SparseReduceSumSparseArgs& a) {
  return sparse_reduction<T, false>(a.ctx, a.input_indices, a.input_values, a.input_shape, a.reduction_axes,
                                    a.keep_dims);
}
template <typename T>
Status SparseReduceMaxSparseCpu(ops::SparseReduceMaxSparseArgs& a) {
  return sparse_reduction<T, true>(a.ctx, a.input_indices, a.input_values, a.input_shape, a.reduction_axes,
                                   a.keep_dims);
}

// Softmax over each group of values sharing all but the last index.
template <typename T>
Status SparseSoftmaxCpu(ops::SparseSoftmaxArgs& a) {
  sparse::View v;
  OPF_RETURN_IF_ERROR(sparse::view(a.ctx, a.sp_indices, a.sp_values, a.sp_shape, &v));
  if (v.rank < 2) return a.ctx.error("sp_shape should have rank >= 2, got ", Shape(v.shape).to_string());
  OPF_RETURN_IF_ERROR(sparse::check_bounds(a.ctx, v));
  std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
  for (int64_t i = 0; i < v.n; ++i)
    groups[std::vector<int64_t>(v.ix + i * v.rank, v.ix + (i + 1) * v.rank - 1)].push_back(i);
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape{v.n}, &out));
  const T* x = a.sp_values.template data<T>();
  T* o = out.template data<T>();
  for (const auto& [key, members] : groups) {
    double top = -INFINITY;
    for (int64_t i : members) top = std::max(top, static_cast<double>(x[i]));
    double sum = 0;
    for (int64_t i : members) sum += std::exp(static_cast<double>(x[i]) - top);
    for (int64_t i : members) o[i] = static_cast<T>(std::exp(static_cast<double>(x[i]) - top) / sum);
  }
  return Status::OK();
}

// ---- SparseSegment{Sum,Mean,SqrtN}[WithNumSegments] and their gradients

enum class Combine { kSum, kMean, kSqrtN };

template <typename T>
Status segment_reduce(KernelContext& ctx, Combine how, const Tensor& data, const Tensor& indices,
                      const Tensor& segment_ids, const Tensor* num_segments) {
  if (data.rank() < 1) return ctx.error("data must be at least 1-D, got shape ", data.shape().to_string());
  if (indices.rank() != 1) return ctx.error("indices should be a vector, got shape ", indices.shape().to_string());
  if (segment_ids.rank() != 1)
    return ctx.error("segment_ids should be a vector, got shape ", segment_ids.shape().to_string());
  if (indices.dim(0) != segment_ids.dim(0)) {
    return ctx.error("segment_ids and indices should have same size.");
  }
  const std::vector<int64_t> ix = sparse::ints(indices), seg = sparse::ints(segment_ids);
  const int64_t n = static_cast<int64_t>(ix.size()), rows = data.dim(0);
  int64_t inner = 1;
  for (int d = 1; d < data.rank(); ++d) inner *= data.dim(d);
  for (int64_t i = 0; i < n; ++i) {
    if (seg[static_cast<size_t>(i)] < 0) return ctx.error("segment ids must be >= 0");
    if (i > 0 && seg[static_cast<size_t>(i)] < seg[static_cast<size_t>(i - 1)]) {
      return ctx.error("segment ids are not increasing");
    }
    if (ix[static_cast<size_t>(i)] < 0 || ix[static_cast<size_t>(i)] >= rows) {
      return ctx.error("Bad: indices[", i, "] == ", ix[static_cast<size_t>(i)], " out of range [0, ", rows, ")");
    }
  }
  if (n > 0 && seg.back() == INT64_MAX) return ctx.error("segment id ", seg.back(), " is too large");
  int64_t out_rows = n == 0 ? 0 : seg.back() + 1;
  if (num_segments != nullptr) {
    if (num_segments->num_elements() != 1) return ctx.error("num_segments should be a scalar");
    out_rows = sparse::ints(*num_segments)[0];
    if (out_rows < 0) return ctx.error("num_segments must be non-negative, got ", out_rows);
    if (n > 0 && seg.back() >= out_rows) {
      return ctx.error("segment ids must be < num_segments: the last is ", seg.back(), ", num_segments ", out_rows);
    }
  }
  std::vector<int64_t> dims = data.shape().dims();
  dims[0] = out_rows;
  Tensor& out = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape(dims), &out));
  std::vector<compute_t<T>> acc(static_cast<size_t>(out_rows * inner), compute_t<T>(0));
  std::vector<int64_t> count(static_cast<size_t>(out_rows), 0);
  const T* x = data.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = seg[static_cast<size_t>(i)], r = ix[static_cast<size_t>(i)];
    ++count[static_cast<size_t>(s)];
    for (int64_t j = 0; j < inner; ++j)
      acc[static_cast<size_t>(s * inner + j)] += static_cast<compute_t<T>>(x[r * inner + j]);
  }
  T* o = out.template data<T>();
  for (int64_t s = 0; s < out_rows; ++s) {
    const int64_t c = count[static_cast<size_t>(s)];
    for (int64_t j = 0; j < inner; ++j) {
      compute_t<T> value = acc[static_cast<size_t>(s * inner + j)];
      if (c > 0 && how == Combine::kMean) value = value / static_cast<compute_t<T>>(c);
      if (c > 0 && how == Combine::kSqrtN) value = value / static_cast<compute_t<T>>(std::sqrt(static_cast<double>(c)));
      o[s * inner + j] = static_cast<T>(value);
    }
  }
  return Status::OK();
}

template <typename T>
Status segment_grad(KernelContext& ctx, Combine how, const Tensor& grad, const Tensor& indices,
                    const Tensor& segment_ids, const Tensor& output_dim0) {
  if (grad.rank() < 1) return ctx.error("grad must be at least 1-D, got shape ", grad.shape().to_string());
  if (indices.rank() != 1 || segment_ids.rank() != 1 || indices.dim(0) != segment_ids.dim(0)) {
    return ctx.error("indices and segment_ids should be vectors of one size, got ", indices.shape().to_string(),
                     " and ", segment_ids.shape().to_string());
  }
  if (output_dim0.num_elements() != 1) return ctx.error("output_dim0 should be a scalar");
  const int64_t rows = sparse::ints(output_dim0)[0];
  if (rows < 0) return ctx.error("output_dim0 must be non-negative, got ", rows);
  const std::vector<int64_t> ix = sparse::ints(indices), seg = sparse::ints(segment_ids);
  const int64_t segs = grad.dim(0);
  int64_t inner = 1;
  for (int d = 1; d < grad.rank(); ++d) inner *= grad.dim(d);
  std::map<int64_t, int64_t> count;  // per segment id used (grad's rows may be many more)
  for (size_t i = 0; i < seg.size(); ++i) {
    if (seg[i] < 0 || seg[i] >= segs) return ctx.error("Segment id ", seg[i], " out of range [0, ", segs, ")");
    if (ix[i] < 0 || ix[i] >= rows) return ctx.error("Index ", ix[i], " out of range [0, ", rows, ")");
    ++count[seg[i]];
  }
  std::vector<int64_t> dims = grad.shape().dims();
  dims[0] = rows;
  Tensor& out = ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape(dims), &out));
  std::vector<compute_t<T>> acc(static_cast<size_t>(rows * inner), compute_t<T>(0));
  const T* g = grad.data<T>();
  for (size_t i = 0; i < seg.size(); ++i) {
    const double c = static_cast<double>(count[seg[i]]);
    const double scale = how == Combine::kMean ? 1.0 / c : how == Combine::kSqrtN ? 1.0 / std::sqrt(c) : 1.0;
    for (int64_t j = 0; j < inner; ++j) {
      acc[static_cast<size_t>(ix[i] * inner + j)] +=
          static_cast<compute_t<T>>(static_cast<double>(g[seg[i] * inner + j]) * scale);
    }
  }
  T* o = out.template data<T>();
  for (size_t k = 0; k < acc.size(); ++k) o[k] = static_cast<T>(acc[k]);
  return Status::OK();
}

#define OPF_SEGMENT_KERNELS(KIND, HOW)                                                                                \
  template <typename T>                                                                                               \
  Status SparseSegment##KIND##Cpu(ops::SparseSegment##KIND##Args& a) {                                                \
    return sparse::guarded("SparseSegment" #KIND,                                                                     \
                           [&] { return segment_reduce<T>(a.ctx, HOW, a.data, a.indices, a.segment_ids, nullptr); }); \
  }                                                                                                                   \
  template <typename T>                                                                                               \
  Status SparseSegment##KIND##WithNumSegmentsCpu(ops::SparseSegment##KIND##WithNumSegmentsArgs& a) {                  \
    return sparse::guarded("SparseSegment" #KIND "WithNumSegments", [&] {                                             \
      return segment_reduce<T>(a.ctx, HOW, a.data, a.indices, a.segment_ids, &a.num_segments);                        \
    });                                                                                                               \
  }                                                                                                                   \
  template <typename T>                                                                                               \
  Status SparseSegment##KIND##GradCpu(ops::SparseSegment##KIND##GradArgs& a) {                                        \
    return sparse::guarded("SparseSegment" #KIND "Grad", [&] {                                                        \
      return segment_grad<T>(a.ctx, HOW, a.grad, a.indices, a.segment_ids, a.output_dim0);                            \
    });                                                                                                               \
  }
OPF_SEGMENT_KERNELS(Sum, Combine::kSum)
OPF_SEGMENT_KERNELS(Mean, Combine::kMean)
OPF_SEGMENT_KERNELS(SqrtN, Combine::kSqrtN)
#undef OPF_SEGMENT_KERNELS

}  // namespace

#define OPF_SPARSE_NUM bfloat16, half, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t
#define OPF_SPARSE_FLOAT bfloat16, half, float, double
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseReduceSum, CPU, SparseReduceSumCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseReduceMax, CPU, SparseReduceMaxCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseReduceSumSparse, CPU, SparseReduceSumSparseCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseReduceMaxSparse, CPU, SparseReduceMaxSparseCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSoftmax, CPU, SparseSoftmaxCpu, half, float, double)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSum, CPU, SparseSegmentSumCpu, OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSumWithNumSegments, CPU, SparseSegmentSumWithNumSegmentsCpu,
                                   OPF_SPARSE_NUM)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentMean, CPU, SparseSegmentMeanCpu, OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentMeanWithNumSegments, CPU, SparseSegmentMeanWithNumSegmentsCpu,
                                   OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSqrtN, CPU, SparseSegmentSqrtNCpu, OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSqrtNWithNumSegments, CPU, SparseSegmentSqrtNWithNumSegmentsCpu,
                                   OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSumGrad, CPU, SparseSegmentSumGradCpu, OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentMeanGrad, CPU, SparseSegmentMeanGradCpu, OPF_SPARSE_FLOAT)
OPFORGE_REGISTER_FORWARDING_KERNEL(SparseSegmentSqrtNGrad, CPU, SparseSegmentSqrtNGradCpu, OPF_SPARSE_FLOAT)
#undef OPF_SPARSE_NUM
#undef OPF_SPARSE_FLOAT

}  // namespace opforge
