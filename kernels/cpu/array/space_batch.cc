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

namespace opforge {
namespace {

// The block shape and the [M, 2] paddings (crops), checked against the input's shape.
struct Blocks {
  std::vector<int64_t> block;
  std::vector<int64_t> before, after;
};

template <typename Ctx>
Status parse_blocks(const Ctx& c, const Shape& input, const std::vector<int64_t>& block_values,
                    const Shape& pads_shape, const std::vector<int64_t>& pad_values, const char* pads_name,
                    Blocks* out) {
  const int64_t m = static_cast<int64_t>(block_values.size());
  if (m < 1) return c.error("block_shape must have at least one element");
  if (!pads_shape.unknown_rank() && (pads_shape.rank() != 2 || pads_shape.dim(0) != m || pads_shape.dim(1) != 2)) {
    return c.error(pads_name, " must have shape [", m, ", 2], got ", pads_shape.to_string());
  }
  if (!input.unknown_rank() && input.rank() < m + 1) {
    return c.error("input rank should be >= ", m + 1, " instead of ", input.rank());
  }
  out->block = block_values;
  for (int64_t i = 0; i < m; ++i) {
    if (block_values[static_cast<size_t>(i)] < 1) {
      return c.error("block_shape values must be >= 1, got ", block_values[static_cast<size_t>(i)]);
    }
    const int64_t b = pad_values[static_cast<size_t>(2 * i)], a = pad_values[static_cast<size_t>(2 * i + 1)];
    if (b < 0 || a < 0) return c.error(pads_name, " must be non-negative, got ", b, " and ", a);
    out->before.push_back(b);
    out->after.push_back(a);
  }
  return Status::OK();
}

// The output shape of SpaceToBatchND (to_batch) or BatchToSpaceND; -1 where unknown.
template <typename Ctx>
Status output_shape(const Ctx& c, const Shape& in, const Blocks& k, bool to_batch, Shape* out) {
  if (in.unknown_rank()) {
    *out = Shape::UnknownRank();
    return Status::OK();
  }
  const size_t m = k.block.size();
  int64_t prod = 1;
  for (int64_t b : k.block) prod *= b;
  std::vector<int64_t> dims = in.dims();
  if (to_batch) {
    if (dims[0] >= 0) dims[0] *= prod;
    for (size_t i = 0; i < m; ++i) {
      int64_t& d = dims[i + 1];
      if (d < 0) continue;
      const int64_t padded = d + k.before[i] + k.after[i];
      if (padded % k.block[i] != 0) {
        return c.error("padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i, "]=", k.block[i]);
      }
      d = padded / k.block[i];
    }
  } else {
    if (dims[0] >= 0) {
      if (dims[0] % prod != 0) {
        return c.error("Input batch dimension (", dims[0], ") is not divisible by product of block sizes (", prod, ")");
      }
      dims[0] /= prod;
    }
    for (size_t i = 0; i < m; ++i) {
      int64_t& d = dims[i + 1];
      if (d < 0) continue;
      const int64_t full = d * k.block[i];
      if (k.before[i] + k.after[i] > full) {
        return c.error("crops must be less than or equal to the uncropped size: crop ", k.before[i], "+",
                       k.after[i], " of ", full, " in dimension ", i + 1);
      }
      d = full - k.before[i] - k.after[i];
    }
  }
  *out = Shape(dims);
  return Status::OK();
}

Status SpaceBatchShape(ShapeContext& c, bool to_batch) {
  std::vector<int64_t> block, pads;
  bool block_known, pads_known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &block, &block_known));
  OPF_RETURN_IF_ERROR(array::known_ints(c, 2, &pads, &pads_known));
  const Shape& in = c.input_shape(0);
  if (!block_known || !pads_known) {
    c.set_output(0, in.unknown_rank() ? Shape::UnknownRank() : array::unknown_dims(in.rank()));
    return Status::OK();
  }
  if (pads.size() != 2 * block.size()) {
    return c.error(to_batch ? "paddings" : "crops", " must have shape [", block.size(), ", 2]");
  }
  Blocks k;
  OPF_RETURN_IF_ERROR(parse_blocks(c, in, block, c.input_shape(2), pads, to_batch ? "paddings" : "crops", &k));
  Shape out;
  OPF_RETURN_IF_ERROR(output_shape(c, in, k, to_batch, &out));
  c.set_output(0, out);
  return Status::OK();
}

const array::CustomShape s2b_shape("SpaceToBatchND", [](ShapeContext& c) { return SpaceBatchShape(c, true); });
const array::CustomShape b2s_shape("BatchToSpaceND", [](ShapeContext& c) { return SpaceBatchShape(c, false); });

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
        if (inside) std::memcpy(dst, in_ptr + static_cast<size_t>(space_row) * row_bytes, row_bytes);
        else std::memset(dst, 0, row_bytes);
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
  if (a.block_shape.rank() != 1) return a.ctx.error("block_shape must be 1-D, got shape ", a.block_shape.shape().to_string());
  if (pad_values.size() != 2 * block.size()) {
    return a.ctx.error(to_batch ? "paddings" : "crops", " must have shape [", block.size(), ", 2], got ",
                       pads.shape().to_string());
  }
  Blocks k;
  OPF_RETURN_IF_ERROR(parse_blocks(a.ctx, a.input.shape(), block, pads.shape(), pad_values,
                                   to_batch ? "paddings" : "crops", &k));
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
Status SpaceToBatchNDCpu(ops::SpaceToBatchNDArgs& a) { return space_batch(a, a.paddings, true); }

template <typename T>
Status BatchToSpaceNDCpu(ops::BatchToSpaceNDArgs& a) { return space_batch(a, a.crops, false); }

// One instantiation per element size would do; per dtype keeps the registration uniform.
#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_KERNEL(SpaceToBatchND, CPU, SpaceToBatchNDCpu, OPF_ALL)
OPFORGE_REGISTER_KERNEL(BatchToSpaceND, CPU, BatchToSpaceNDCpu, OPF_ALL)

}  // namespace opforge
