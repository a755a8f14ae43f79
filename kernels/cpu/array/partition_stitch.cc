// DynamicPartition, DynamicStitch and ParallelDynamicStitch: data-dependent output shapes, so the
// kernels allocate their outputs themselves. Rows are moved as bytes (one body for every
// fixed-size dtype) or as strings; every partition and index is checked before any output exists.
#include <cstring>
#include <string>
#include <vector>

#include "opforge/ops/array/dynamic_partition.h"
#include "opforge/ops/array/dynamic_stitch.h"
#include "opforge/ops/array/parallel_dynamic_stitch.h"

namespace opforge {
namespace {

// Whether `prefix` is a leading part of `full` (the dims of a data tensor).
bool is_prefix(const Shape& prefix, const Shape& full) {
  if (prefix.rank() > full.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d)
    if (prefix.dim(d) != full.dim(d)) return false;
  return true;
}

// The rows of `data` (slices of `row` elements) in `order`, as a new tensor of `shape`.
Status take_rows(const Tensor& data, const std::vector<int64_t>& order, int64_t row, Shape shape, Tensor* out) {
  if (data.dtype() == DType::kString) {
    const std::vector<std::string>& s = *data.strings();
    std::vector<std::string> v;
    v.reserve(order.size() * static_cast<size_t>(row));
    for (int64_t j : order)
      for (int64_t k = 0; k < row; ++k) v.push_back(s[static_cast<size_t>(j * row + k)]);
    return Tensor::FromStrings(std::move(shape), std::move(v), out);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(data.dtype(), std::move(shape), out));
  const size_t bytes = static_cast<size_t>(row) * dtype_size(data.dtype());
  const char* src = static_cast<const char*>(data.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  for (size_t i = 0; i < order.size() && bytes; ++i) std::memcpy(dst + i * bytes, src + order[i] * bytes, bytes);
  return Status::OK();
}

template <typename T>
Status DynamicPartitionCpu(ops::DynamicPartitionArgs& a) {
  const Shape& ps = a.partitions.shape();
  if (!is_prefix(ps, a.data.shape())) {
    return a.ctx.error("data.shape must start with partitions.shape, got data.shape = ", a.data.shape().to_string(),
                       ", partitions.shape = ", ps.to_string());
  }
  const int32_t* p = a.partitions.data<int32_t>();
  const int64_t n = a.partitions.num_elements();
  std::vector<std::vector<int64_t>> rows(static_cast<size_t>(a.num_partitions));
  for (int64_t j = 0; j < n; ++j) {
    if (p[j] < 0 || p[j] >= a.num_partitions) {
      return a.ctx.error("partitions[", j, "] = ", p[j], " is not in [0, ", a.num_partitions, ")");
    }
    rows[static_cast<size_t>(p[j])].push_back(j);
  }
  std::vector<int64_t> inner(a.data.shape().dims().begin() + ps.rank(), a.data.shape().dims().end());
  int64_t row = 1;
  for (int64_t d : inner) row *= d;
  for (int i = 0; i < a.num_partitions; ++i) {
    std::vector<int64_t> dims{static_cast<int64_t>(rows[static_cast<size_t>(i)].size())};
    dims.insert(dims.end(), inner.begin(), inner.end());
    OPF_RETURN_IF_ERROR(take_rows(a.data, rows[static_cast<size_t>(i)], row, Shape(dims), &a.ctx.output(i)));
  }
  return Status::OK();
}

// merged[indices[m][i]] = data[m][i], later pieces winning; the rest zero (empty strings).
Status stitch(KernelContext& ctx, const TensorList& indices, const TensorList& data, Tensor* merged) {
  const Tensor& d0 = data[0];
  const int r0 = indices[0].rank();
  if (!is_prefix(indices[0].shape(), d0.shape())) {
    return ctx.error("data[0].shape must start with indices[0].shape, got ", d0.shape().to_string(), " and ",
                     indices[0].shape().to_string());
  }
  const std::vector<int64_t> inner(d0.shape().dims().begin() + r0, d0.shape().dims().end());
  int64_t row = 1, rows = 0;
  for (int64_t d : inner) row *= d;
  for (int m = 0; m < indices.size; ++m) {
    const Shape& is = indices[m].shape();
    std::vector<int64_t> want = is.dims();
    want.insert(want.end(), inner.begin(), inner.end());
    if (data[m].shape().dims() != want) {
      return ctx.error("data[", m, "].shape must be indices[", m, "].shape + ", Shape(inner).to_string(), " = ",
                       Shape(want).to_string(), ", got ", data[m].shape().to_string());
    }
    const int32_t* ix = indices[m].data<int32_t>();
    for (int64_t i = 0; i < indices[m].num_elements(); ++i) {
      if (ix[i] < 0) return ctx.error("indices[", m, "][", i, "] = ", ix[i], " is negative");
      rows = std::max<int64_t>(rows, static_cast<int64_t>(ix[i]) + 1);
    }
  }
  std::vector<int64_t> dims{rows};
  dims.insert(dims.end(), inner.begin(), inner.end());
  if (d0.dtype() == DType::kString) {
    std::vector<std::string> out(static_cast<size_t>(rows * row));
    for (int m = 0; m < indices.size; ++m) {
      const int32_t* ix = indices[m].data<int32_t>();
      const std::vector<std::string>& s = *data[m].strings();
      for (int64_t i = 0; i < indices[m].num_elements(); ++i)
        for (int64_t k = 0; k < row; ++k)
          out[static_cast<size_t>(ix[i] * row + k)] = s[static_cast<size_t>(i * row + k)];
    }
    return Tensor::FromStrings(Shape(dims), std::move(out), merged);
  }
  OPF_RETURN_IF_ERROR(Tensor::Allocate(d0.dtype(), Shape(dims), merged));
  if (merged->nbytes()) std::memset(merged->raw_data(), 0, merged->nbytes());
  const size_t bytes = static_cast<size_t>(row) * dtype_size(d0.dtype());
  char* dst = static_cast<char*>(merged->raw_data());
  for (int m = 0; m < indices.size && bytes; ++m) {
    const int32_t* ix = indices[m].data<int32_t>();
    const char* src = static_cast<const char*>(data[m].raw_data());
    for (int64_t i = 0; i < indices[m].num_elements(); ++i) {
      std::memcpy(dst + static_cast<size_t>(ix[i]) * bytes, src + static_cast<size_t>(i) * bytes, bytes);
    }
  }
  return Status::OK();
}

template <typename T>
Status DynamicStitchCpu(ops::DynamicStitchArgs& a) {
  return stitch(a.ctx, a.indices, a.data, &a.merged);
}

template <typename T>
Status ParallelDynamicStitchCpu(ops::ParallelDynamicStitchArgs& a) {
  return stitch(a.ctx, a.indices, a.data, &a.merged);
}

// One instantiation per dtype only dispatches: the bodies above are dtype-free.
#define OPF_ALL_STR bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, StringTag

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(DynamicPartition, CPU, DynamicPartitionCpu, OPF_ALL_STR)
OPFORGE_REGISTER_FORWARDING_KERNEL(DynamicStitch, CPU, DynamicStitchCpu, OPF_ALL_STR)
OPFORGE_REGISTER_FORWARDING_KERNEL(ParallelDynamicStitch, CPU, ParallelDynamicStitchCpu, OPF_ALL_STR)

}  // namespace opforge
