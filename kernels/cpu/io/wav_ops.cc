// DecodeWav and EncodeWav: 16-bit PCM WAV files, as TensorFlow's wav_io reads and writes them
// (RIFF chunks; samples scaled by 2^15; other chunks skipped when reading).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "opforge/kernel.h"
#include "opforge/ops/io/decode_wav.h"
#include "opforge/ops/io/encode_wav.h"

namespace opforge {
namespace {

uint32_t read_u32(const std::string& s, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(s[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 3])) << 24;
}
uint16_t read_u16(const std::string& s, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[at]) | static_cast<uint8_t>(s[at + 1]) << 8);
}
void put_u32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u16(std::string* s, uint16_t v) {
  s->push_back(static_cast<char>(v & 0xFF));
  s->push_back(static_cast<char>(v >> 8));
}

constexpr uint16_t kPcm = 1, kExtensible = 0xFFFE;

Status DecodeWavCpu(ops::DecodeWavArgs& a) {
  if (a.contents.rank() != 0) return a.ctx.error("contents must be scalar, got shape ", a.contents.shape().to_string());
  if (a.desired_channels < -1 || a.desired_channels == 0) {
    return a.ctx.error("desired_channels must be -1 or positive, got ", a.desired_channels);
  }
  if (a.desired_samples < -1) return a.ctx.error("desired_samples must be -1 or >= 0, got ", a.desired_samples);
  const std::string& wav = (*a.contents.strings())[0];
  if (wav.size() < 12 || wav.compare(0, 4, "RIFF") != 0 || wav.compare(8, 4, "WAVE") != 0) {
    return a.ctx.error("Header mismatch: not a RIFF WAVE file (", wav.size(), " bytes)");
  }
  size_t at = 12;
  bool have_format = false;
  uint16_t channels = 0;
  uint32_t rate = 0;
  const std::string* data = nullptr;
  std::string samples;
  while (at + 8 <= wav.size()) {
    const std::string id = wav.substr(at, 4);
    const uint32_t size = read_u32(wav, at + 4);
    at += 8;
    if (size > wav.size() - at) return a.ctx.error("Chunk '", id, "' of ", size, " bytes is past the end of the file");
    if (id == "fmt ") {
      if (size < 16) return a.ctx.error("Bad fmt chunk size ", size);
      const uint16_t format = read_u16(wav, at);
      if (format != kPcm && format != kExtensible) {
        return a.ctx.error("Bad audio format ", format, ": only uncompressed PCM is supported");
      }
      channels = read_u16(wav, at + 2);
      rate = read_u32(wav, at + 4);
      const uint16_t bits = read_u16(wav, at + 14);
      if (bits != 16) return a.ctx.error("Can only read 16-bit WAV files, but received ", bits);
      if (channels == 0) return a.ctx.error("Bad number of channels: 0");
      have_format = true;
    } else if (id == "data") {
      if (!have_format) return a.ctx.error("The data chunk comes before the fmt chunk");
      samples = wav.substr(at, size);
      data = &samples;
      break;
    }
    at += size + (size & 1);  // chunks are padded to even sizes
  }
  if (data == nullptr) return a.ctx.error("No data chunk found in the WAV file");
  if (rate > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
    return a.ctx.error("Sample rate ", rate, " is too large");
  }
  const int64_t file_channels = channels;
  const int64_t file_samples = static_cast<int64_t>(samples.size() / 2) / file_channels;
  const int64_t out_channels = a.desired_channels == -1 ? file_channels : a.desired_channels;
  const int64_t out_samples = a.desired_samples == -1 ? file_samples : a.desired_samples;
  Tensor audio, sample_rate;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat, Shape({out_samples, out_channels}), &audio));
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape(), &sample_rate));
  float* out = audio.data<float>();
  for (int64_t s = 0; s < out_samples; ++s) {
    for (int64_t c = 0; c < out_channels; ++c) {
      float v = 0.0f;
      if (s < file_samples) {
        const int64_t source = std::min(c, file_channels - 1);
        const auto raw = static_cast<int16_t>(read_u16(samples, static_cast<size_t>(2 * (s * file_channels + source))));
        v = static_cast<float>(raw) * (1.0f / 32768.0f);
      }
      out[s * out_channels + c] = v;
    }
  }
  sample_rate.data<int32_t>()[0] = static_cast<int32_t>(rate);
  a.ctx.output(0) = std::move(audio);
  a.ctx.output(1) = std::move(sample_rate);
  return Status::OK();
}

Status EncodeWavCpu(ops::EncodeWavArgs& a) {
  if (a.audio.rank() != 2) return a.ctx.error("audio must be 2-dimensional, got shape ", a.audio.shape().to_string());
  if (a.sample_rate.rank() != 0) {
    return a.ctx.error("Input sample_rate should be a scalar tensor, got ", a.sample_rate.shape().to_string());
  }
  const int32_t rate = a.sample_rate.data<int32_t>()[0];
  if (rate <= 0) return a.ctx.error("sample_rate must be positive, got ", rate);
  const int64_t samples = a.audio.dim(0), channels = a.audio.dim(1);
  if (channels <= 0 || channels > std::numeric_limits<uint16_t>::max()) {
    return a.ctx.error("channel count must be in [1, 65535], got ", channels);
  }
  const uint64_t data_bytes = static_cast<uint64_t>(samples) * static_cast<uint64_t>(channels) * 2;
  if (data_bytes + 36 > std::numeric_limits<uint32_t>::max() ||
      static_cast<uint64_t>(rate) * static_cast<uint64_t>(channels) * 2 > std::numeric_limits<uint32_t>::max()) {
    return a.ctx.error("audio of ", samples, " samples of ", channels, " channels is too large for a WAV file");
  }
  std::string wav;
  wav.reserve(44 + data_bytes);
  wav += "RIFF";
  put_u32(&wav, static_cast<uint32_t>(36 + data_bytes));
  wav += "WAVEfmt ";
  put_u32(&wav, 16);
  put_u16(&wav, kPcm);
  put_u16(&wav, static_cast<uint16_t>(channels));
  put_u32(&wav, static_cast<uint32_t>(rate));
  put_u32(&wav, static_cast<uint32_t>(rate * channels * 2));
  put_u16(&wav, static_cast<uint16_t>(channels * 2));
  put_u16(&wav, 16);
  wav += "data";
  put_u32(&wav, static_cast<uint32_t>(data_bytes));
  const float* in = a.audio.data<float>();
  for (int64_t i = 0; i < samples * channels; ++i) {
    const float scaled = std::round(in[i] * 32768.0f);
    const float clipped = std::min(32767.0f, std::max(-32768.0f, std::isnan(scaled) ? 0.0f : scaled));
    put_u16(&wav, static_cast<uint16_t>(static_cast<int16_t>(clipped)));
  }
  return Tensor::FromStrings(Shape(), {std::move(wav)}, &a.ctx.output(0));
}

}  // namespace

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeWav, CPU, DecodeWavCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(EncodeWav, CPU, EncodeWavCpu)

}  // namespace opforge
