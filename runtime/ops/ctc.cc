// The shape functions of the CTC ops (kernels/cpu/nn/ctc.cc).
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status need_rank(const ShapeContext& c, int input, const char* what, int rank) {
  const Shape& s = c.input_shape(input);
  if (!s.unknown_rank() && s.rank() != rank) {
    return errors::InvalidArgument(c.op().name, ": ", what, " must be rank ", rank, ", got shape ", s.to_string());
  }
  return Status::OK();
}

int64_t dim_or_unknown(const Shape& s, int i) { return s.unknown_rank() ? -1 : s.dim(i); }

Status CTCLossShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(need_rank(c, 0, "inputs", 3));
  OPF_RETURN_IF_ERROR(need_rank(c, 1, "labels_indices", 2));
  OPF_RETURN_IF_ERROR(need_rank(c, 2, "labels_values", 1));
  OPF_RETURN_IF_ERROR(need_rank(c, 3, "sequence_length", 1));
  const Shape& in = c.input_shape(0);
  int64_t batch = dim_or_unknown(in, 1);
  const int64_t seq_batch = dim_or_unknown(c.input_shape(3), 0);
  if (batch >= 0 && seq_batch >= 0 && batch != seq_batch) {
    return c.error("inputs has batch size ", batch, " but sequence_length has ", seq_batch);
  }
  if (batch < 0) batch = seq_batch;
  c.set_output(0, Shape({batch}));
  c.set_output(1, in.unknown_rank() ? Shape({-1, batch, -1}) : Shape({in.dim(0), batch, in.dim(2)}));
  return Status::OK();
}

Status CTCGreedyDecoderShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(need_rank(c, 0, "inputs", 3));
  OPF_RETURN_IF_ERROR(need_rank(c, 1, "sequence_length", 1));
  int64_t batch = dim_or_unknown(c.input_shape(0), 1);
  const int64_t seq_batch = dim_or_unknown(c.input_shape(1), 0);
  if (batch >= 0 && seq_batch >= 0 && batch != seq_batch) {
    return c.error("inputs has batch size ", batch, " but sequence_length has ", seq_batch);
  }
  if (batch < 0) batch = seq_batch;
  c.set_output(0, Shape({-1, 2}));
  c.set_output(1, Shape({-1}));
  c.set_output(2, Shape({2}));
  c.set_output(3, Shape({batch, 1}));
  return Status::OK();
}

// CTCBeamSearchDecoder: top_paths sparse paths ([?, 2], [?], [2] each) and [batch, top_paths].
Status CTCBeamSearchDecoderShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(need_rank(c, 0, "inputs", 3));
  OPF_RETURN_IF_ERROR(need_rank(c, 1, "sequence_length", 1));
  int64_t batch = dim_or_unknown(c.input_shape(0), 1);
  const int64_t seq_batch = dim_or_unknown(c.input_shape(1), 0);
  if (batch >= 0 && seq_batch >= 0 && batch != seq_batch) {
    return c.error("inputs has batch size ", batch, " but sequence_length has ", seq_batch);
  }
  if (batch < 0) batch = seq_batch;
  const int paths = (c.num_outputs() - 1) / 3;
  for (int p = 0; p < paths; ++p) {
    c.set_output(p, Shape({-1, 2}));
    c.set_output(paths + p, Shape({-1}));
    c.set_output(2 * paths + p, Shape({2}));
  }
  c.set_output(3 * paths, Shape({batch, paths}));
  return Status::OK();
}

[[maybe_unused]] const bool ctc_shapes_registered = [] {
  shape_fns::register_custom("CTCLoss", CTCLossShape);
  shape_fns::register_custom("CTCGreedyDecoder", CTCGreedyDecoderShape);
  shape_fns::register_custom("CTCBeamSearchDecoder", CTCBeamSearchDecoderShape);
  return true;
}();

}  // namespace
}  // namespace opforge
