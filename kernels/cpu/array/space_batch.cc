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

// Copies rows of `row_bytes`: the batch-side tensor has shape [batch * prod(block), s_1..s_M,
// rest], the space-side one [batch, p_1..p_M, rest] with p_i = s_i * block_i - before_i -
// after_i. For every batch-side row it finds the space-side row (or none: padding), and
// copies in the direction asked.
void move_blocks(const Tensor& space, const Tensor& batch, const Blocks& k, bool to_batch, Tensor& out) {
  const size_t m = k.block.size();
  const Tensor& src = to_batch ? space : batch;
  const int64_t row_elems = [&] {
    int64_t r = 1;
    for (int d = static_cast<int>(m) + 1; d < src.rank(); ++d) r *= src.dim(d);
    return r;
  }();
  const size_t row_bytes = static_cast<size_t>(row_elems) * dtype_size(src.dtype());
  const Tensor& bt = to_batch ? out : batch;
  const Tensor& sp = to_batch ? space : out;
  const int64_t space_batch = sp.dim(0);
  int64_t rows = bt.dim(0);
  for (size_t i = 0; i < m; ++i) rows *= bt.dim(static_cast<int>(i) + 1);
  const char* in_ptr = static_cast<const char*>(src.raw_data());
  char* out_ptr = static_cast<char*>(out.raw_data());
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, row_elems)), [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> pos(m);
    for (int64_t r = r0; r < r1; ++r) {
      // r = ((ob * s_1 + o_1) * s_2 + o_2) ... over the batch side's leading dims
      int64_t rem = r;
      for (size_t i = m; i-- > 0;) {
        pos[i] = rem % bt.dim(static_cast<int>(i) + 1);
        rem /= bt.dim(static_cast<int>(i) + 1);
      }
      const int64_t ob = rem;
      int64_t block_index = ob / space_batch;
      const int64_t b = ob % space_batch;
      int64_t space_row = b;
      bool inside = true;
      std::vector<int64_t> offs(m);
      for (size_t i = m; i-- > 0;) {
        offs[i] = block_index % k.block[i];
        block_index /= k.block[i];
      }
      for (size_t i = 0; i < m; ++i) {
        const int64_t p = pos[i] * k.block[i] + offs[i] - k.before[i];
        const int64_t extent = sp.dim(static_cast<int>(i) + 1);
        if (p < 0 || p >= extent) inside = false;
        space_row = space_row * extent + (inside ? p : 0);
      }
      if (to_batch) {
        char* dst = out_ptr + static_cast<size_t>(r) * row_bytes;
        if (inside)
          std::memcpy(dst, in_ptr + static_cast<size_t>(space_row) * row_bytes, row_bytes);
        else
          std::memset(dst, 0, row_bytes);
      } else if (inside) {
        std::memcpy(out_ptr + static_cast<size_t>(space_row) * row_bytes, in_ptr + static_cast<size_t>(r) * row_bytes,
                    row_bytes);
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
    move_blocks(a.input, a.output, k, true, a.output);
  } else {
    move_blocks(a.output, a.input, k, false, a.output);
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
