// SpaceToBatchND and BatchToSpaceND: moving blocks of the spatial dimensions into the batch
// dimension and back (Keras' dilated convolutions). Pure data movement: every output row of
// the trailing (non-spatial) dimensions is copied from one input row or zero-filled, so the
// kernels are byte copies shared by every dtype.
#include <cstring>
#include <vector>

#include "cpu/array/array_util.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/array/batch_to_space_nd.h"
#include "opforge/ops/array/space_to_batch_nd.h"
#include "opforge/parallel.h"
#include "ops/array.h"

namespace opforge {
namespace {

using array_semantics::Blocks;

using array_semantics::parse_blocks;

using array_semantics::output_shape;

// SpaceToBatchND, a gather of rows of `row_bytes`: the batch-side tensor (the output) has shape
// [batch * prod(block), s_1..s_M, rest], the space-side one [batch, p_1..p_M, rest] with
// p_i = s_i * block_i - before_i - after_i. Each batch-side run of s_M rows (one position in the leading dims) maps to
// every block_M-th space-side row of one line, or to padding (zeros); every output row is written once, in order, and
// the runs are split among the threads.
void space_to_batch_rows(const Tensor& space, const Blocks& k, Tensor& out) {
  const size_t m = k.block.size();
  const int64_t row_elems = [&] {
    int64_t r = 1;
    for (int d = static_cast<int>(m) + 1; d < space.rank(); ++d) r *= space.dim(d);
    return r;
  }();
  const size_t row_bytes = static_cast<size_t>(row_elems) * dtype_size(space.dtype());
  const Tensor& bt = out;
  const Tensor& sp = space;
  const int64_t space_batch = sp.dim(0);
  const int64_t last = bt.dim(static_cast<int>(m));  // s_M: the rows of one run
  int64_t runs = bt.dim(0);
  for (size_t i = 0; i + 1 < m; ++i) runs *= bt.dim(static_cast<int>(i) + 1);
  const int64_t extent_last = sp.dim(static_cast<int>(m));
  const int64_t block_last = k.block[m - 1], before_last = k.before[m - 1];
  const char* in_ptr = static_cast<const char*>(space.raw_data());
  char* out_ptr = static_cast<char*>(out.raw_data());
  const int64_t grain = std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, row_elems * last));
  parallel_for(runs, grain, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> pos(m), offs(m);
    for (int64_t run = r0; run < r1; ++run) {
      // run = ((ob * s_1 + o_1) * s_2 + o_2) ... over the batch side's leading dims but s_M
      int64_t rem = run;
      for (size_t i = m - 1; i-- > 0;) {
        pos[i] = rem % bt.dim(static_cast<int>(i) + 1);
        rem /= bt.dim(static_cast<int>(i) + 1);
      }
      const int64_t ob = rem;
      int64_t block_index = ob / space_batch;
      for (size_t i = m; i-- > 0;) {
        offs[i] = block_index % k.block[i];
        block_index /= k.block[i];
      }
      int64_t line = ob % space_batch;  // the space-side line (all dims but p_M), if inside
      bool inside = true;
      for (size_t i = 0; i + 1 < m; ++i) {
        const int64_t p = pos[i] * k.block[i] + offs[i] - k.before[i];
        const int64_t extent = sp.dim(static_cast<int>(i) + 1);
        inside = inside && p >= 0 && p < extent;
        line = line * extent + (inside ? p : 0);
      }
      const int64_t first = run * last;  // the run's first batch-side row
      for (int64_t o = 0; o < last; ++o) {
        const int64_t p = o * block_last + offs[m - 1] - before_last;
        const bool in = inside && p >= 0 && p < extent_last;
        const size_t space_row = static_cast<size_t>(line * extent_last + (in ? p : 0));
        const size_t batch_row = static_cast<size_t>(first + o);
        char* dst = out_ptr + batch_row * row_bytes;
        if (in)
          std::memcpy(dst, in_ptr + space_row * row_bytes, row_bytes);
        else
          std::memset(dst, 0, row_bytes);
      }
    }
  });
}

// BatchToSpaceND as a gather: every output (space-side) row is written once, in order, from
// the batch-side row it comes from (the crops leave none without one). A run is one output
// line: the rows along p_M at one position of the other dims.
void batch_to_space_rows(const Tensor& batch, const Blocks& k, Tensor& out) {
  const size_t m = k.block.size();
  int64_t row_elems = 1;
  for (int d = static_cast<int>(m) + 1; d < batch.rank(); ++d) row_elems *= batch.dim(d);
  const size_t row_bytes = static_cast<size_t>(row_elems) * dtype_size(batch.dtype());
  const int64_t space_batch = out.dim(0), extent_last = out.dim(static_cast<int>(m));
  int64_t runs = space_batch;
  for (size_t i = 0; i + 1 < m; ++i) runs *= out.dim(static_cast<int>(i) + 1);
  const char* in_ptr = static_cast<const char*>(batch.raw_data());
  char* out_ptr = static_cast<char*>(out.raw_data());
  const int64_t grain = std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, row_elems * extent_last));
  parallel_for(runs, grain, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> src(m), offs(m);
    for (int64_t run = r0; run < r1; ++run) {
      int64_t rem = run;  // run = ((b * p_1 + q_1) ...) over the output's leading dims but p_M
      for (size_t i = m - 1; i-- > 0;) {
        const int64_t q = rem % out.dim(static_cast<int>(i) + 1) + k.before[i];
        rem /= out.dim(static_cast<int>(i) + 1);
        src[i] = q / k.block[i];
        offs[i] = q % k.block[i];
      }
      const int64_t b = rem;
      char* dst = out_ptr + static_cast<size_t>(run * extent_last) * row_bytes;
      for (int64_t p = 0; p < extent_last; ++p, dst += row_bytes) {
        const int64_t q = p + k.before[m - 1];
        src[m - 1] = q / k.block[m - 1];
        offs[m - 1] = q % k.block[m - 1];
        int64_t block_index = 0;
        for (size_t i = 0; i < m; ++i) block_index = block_index * k.block[i] + offs[i];
        int64_t row = block_index * space_batch + b;  // the batch-side batch index, then its dims
        for (size_t i = 0; i < m; ++i) row = row * batch.dim(static_cast<int>(i) + 1) + src[i];
        std::memcpy(dst, in_ptr + static_cast<size_t>(row) * row_bytes, row_bytes);
      }
    }
  });
}

template <typename Args>
Status space_batch(Args& a, const Tensor& pads, bool to_batch) {
  std::vector<int64_t> block, pad_values;
  OPF_RETURN_IF_ERROR(read_int_vector(a.block_shape, &block));
  OPF_RETURN_IF_ERROR(read_int_vector(pads.reshaped(Shape({pads.num_elements()})), &pad_values));
  if (a.block_shape.rank() != 1)
    return a.ctx.error("block_shape must be 1-D, got shape ", a.block_shape.shape().to_string());
  if (pad_values.size() != 2 * block.size()) {
    return a.ctx.error(to_batch ? "paddings" : "crops", " must have shape [", block.size(), ", 2], got ",
                       pads.shape().to_string());
  }
  Blocks k;
  OPF_RETURN_IF_ERROR(
      parse_blocks(a.ctx, a.input.shape(), block, pads.shape(), pad_values, to_batch ? "paddings" : "crops", &k));
  Shape shape;
  OPF_RETURN_IF_ERROR(output_shape(a.ctx, a.input.shape(), k, to_batch, &shape));
  if (!(shape == a.output.shape())) return errors::Internal(a.ctx.op().name, ": output shape mismatch");
  if (a.output.num_elements() == 0) return Status::OK();
  if (to_batch) {
    space_to_batch_rows(a.input, k, a.output);
  } else {
    batch_to_space_rows(a.input, k, a.output);
  }
  return Status::OK();
}

template <typename T>
Status SpaceToBatchNDCpu(ops::SpaceToBatchNDArgs& a) {
  return space_batch(a, a.paddings, true);
}

template <typename T>
Status BatchToSpaceNDCpu(ops::BatchToSpaceNDArgs& a) {
  return space_batch(a, a.crops, false);
}

// One instantiation per element size would do; per dtype keeps the registration uniform.
#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(SpaceToBatchND, CPU, SpaceToBatchNDCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(BatchToSpaceND, CPU, BatchToSpaceNDCpu, OPF_ALL)

}  // namespace opforge
