// TensorSummaryV2 (a tensor as a TensorProto in a Summary, for plugins such as text) and
// AudioSummaryV2 (clips as 16-bit PCM WAV files).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/logging/proto_wire.h"
#include "cpu/logging/summary_util.h"
#include "cpu/parsing/tensor_proto.h"
#include "opforge/ops/logging/audio_summary_v2.h"
#include "opforge/ops/logging/tensor_summary_v2.h"
#include "proto_fields.h"

namespace opforge {
namespace {

using namespace proto_fields;  // the k...Field numbers, from the .proto files

template <typename T>  // any dtype: the tensor is serialized as it is
Status TensorSummaryV2Cpu(ops::TensorSummaryV2Args& a) {
  const std::string* tag;
  const std::string* metadata;
  OPF_RETURN_IF_ERROR(scalar_string_input(a.ctx, a.tag, "tag", &tag));
  OPF_RETURN_IF_ERROR(
      scalar_string_input(a.ctx, a.serialized_summary_metadata, "serialized_summary_metadata", &metadata));
  std::string value;
  wire::put_bytes(value, kSummaryValueTagField, *tag);
  wire::put_bytes(
      value, kSummaryValueTensorField,
      tensor_proto::encode(a.tensor, a.tensor.dtype() == DType::kString ? tensor_proto::Strings::kStringVal
                                                                        : tensor_proto::Strings::kTensorContent));
  wire::put_bytes(value, kSummaryValueMetadataField, *metadata);  // already a serialized SummaryMetadata
  std::string summary;
  wire::put_bytes(summary, kSummaryValueField, value);
  return set_scalar_string(a.summary, std::move(summary));
}

void put_le(std::string& out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// A 16-bit PCM WAV file of `frames` x `channels` samples in [-1, 1] (clipped), each scaled
// by 32768, rounded and saturated to int16, as TensorFlow's wav encoder does.
std::string encode_wav(const float* samples, int64_t frames, int64_t channels, uint32_t rate) {
  const uint32_t data_bytes = static_cast<uint32_t>(frames * channels * 2);
  std::string wav = "RIFF";
  put_le(wav, 36 + data_bytes, 4);
  wav += "WAVEfmt ";
  put_le(wav, 16, 4);
  put_le(wav, 1, 2);  // PCM
  put_le(wav, static_cast<uint32_t>(channels), 2);
  put_le(wav, rate, 4);
  put_le(wav, rate * static_cast<uint32_t>(channels) * 2, 4);  // bytes per second
  put_le(wav, static_cast<uint32_t>(channels) * 2, 2);         // bytes per frame
  put_le(wav, 16, 2);
  wav += "data";
  put_le(wav, data_bytes, 4);
  for (int64_t i = 0; i < frames * channels; ++i) {
    const float v = std::isnan(samples[i]) ? 0.0f : std::clamp(samples[i], -1.0f, 1.0f);
    const float scaled = std::clamp(std::round(v * 32768.0f), -32768.0f, 32767.0f);
    put_le(wav, static_cast<uint16_t>(static_cast<int16_t>(scaled)), 2);
  }
  return wav;
}

Status AudioSummaryV2Cpu(ops::AudioSummaryV2Args& a) {
  const std::string* tag;
  OPF_RETURN_IF_ERROR(scalar_string_input(a.ctx, a.tag, "tag", &tag));
  if (a.sample_rate.num_elements() != 1 || a.sample_rate.rank() != 0) {
    return a.ctx.error("sample_rate must be rank-0 or contain a single value");
  }
  const float rate = a.sample_rate.data<float>()[0];
  if (!(rate > 0) || rate > 4.0e9f) return a.ctx.error("sample_rate must be positive, got ", rate);
  const Tensor& t = a.tensor;
  if (t.rank() != 2 && t.rank() != 3) {
    return a.ctx.error("Tensor must be 3-D or 2-D, got: ", t.shape().to_string());
  }
  const int64_t batch = t.dim(0), frames = t.dim(1), channels = t.rank() == 3 ? t.dim(2) : 1;
  if (frames * channels * 2 > int64_t{0xFFFFFFFF} - 36 || channels > 0xFFFF) {
    return a.ctx.error("audio clip too large for a WAV file: ", frames, " frames of ", channels, " channels");
  }
  std::string summary;
  for (int64_t i = 0; i < std::min<int64_t>(batch, a.max_outputs); ++i) {
    std::string audio;
    wire::put_float(audio, kSummaryAudioSampleRateField, rate);
    wire::put_key(audio, kSummaryAudioNumChannelsField, wire::kVarint);
    wire::put_varint(audio, static_cast<uint64_t>(channels));
    wire::put_key(audio, kSummaryAudioLengthFramesField, wire::kVarint);
    wire::put_varint(audio, static_cast<uint64_t>(frames));
    wire::put_bytes(audio, kSummaryAudioEncodedAudioStringField,
                    encode_wav(t.data<float>() + i * frames * channels, frames, channels, static_cast<uint32_t>(rate)));
    wire::put_bytes(audio, kSummaryAudioContentTypeField, "audio/wav");
    std::string value;
    wire::put_bytes(value, kSummaryValueTagField,
                    a.max_outputs > 1 ? *tag + "/audio/" + std::to_string(i) : *tag + "/audio");
    wire::put_bytes(value, kSummaryValueAudioField, audio);
    wire::put_bytes(summary, kSummaryValueField, value);
  }
  return set_scalar_string(a.summary, std::move(summary));
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(TensorSummaryV2, CPU, TensorSummaryV2Cpu, bool, uint8_t, int8_t, int16_t, int32_t,
                                   int64_t, bfloat16, half, float, double, StringTag)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(AudioSummaryV2, CPU, AudioSummaryV2Cpu)

}  // namespace opforge
