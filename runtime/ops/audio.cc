// The shape functions of DecodeWav and EncodeWav (the kernels: kernels/cpu/io/wav_ops.cc).
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// [desired_samples, desired_channels], each unknown when -1; sample_rate a scalar.
Status DecodeWavShape(ShapeContext& c) {
  const Shape& in = c.input_shape(0);
  if (!in.unknown_rank() && in.rank() != 0) return c.error("contents must be a scalar, got shape ", in.to_string());
  const int64_t channels = c.attr(0).i, samples = c.attr(1).i;  // desired_channels, desired_samples
  c.set_output(0, Shape({samples >= 0 ? samples : -1, channels >= 0 ? channels : -1}));
  c.set_output(1, Shape());
  return Status::OK();
}

// A scalar string, of audio [samples, channels] and a scalar sample_rate.
Status EncodeWavShape(ShapeContext& c) {
  const Shape& audio = c.input_shape(0);
  const Shape& rate = c.input_shape(1);
  if (!audio.unknown_rank() && audio.rank() != 2) {
    return c.error("audio must be 2-dimensional, got shape ", audio.to_string());
  }
  if (!rate.unknown_rank() && rate.rank() != 0) {
    return c.error("Input sample_rate should be a scalar tensor, got ", rate.to_string());
  }
  c.set_output(0, Shape());
  return Status::OK();
}

[[maybe_unused]] const bool audio_shapes_registered = [] {
  shape_fns::register_custom("DecodeWav", DecodeWavShape);
  shape_fns::register_custom("EncodeWav", EncodeWavShape);
  return true;
}();

}  // namespace
}  // namespace opforge
