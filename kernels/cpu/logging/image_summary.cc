// ImageSummary: a batch of images as PNG-encoded Summary.Value.image entries. The PNG encoder
// writes zlib "stored" (uncompressed) deflate blocks: every PNG reader decodes them, and the
// runtime needs no zlib.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/logging/proto_wire.h"
#include "cpu/logging/summary_util.h"
#include "opforge/ops/logging/image_summary.h"
#include "proto_fields.h"

namespace opforge {
namespace {

// CRC-32 (ISO-HDLC, polynomial 0xEDB88320), as PNG chunks carry it.
uint32_t png_crc(const std::string& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void put_be32(std::string& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}

void put_chunk(std::string& png, const char* type, const std::string& data) {
  put_be32(png, static_cast<uint32_t>(data.size()));
  std::string body(type, 4);
  body += data;
  png += body;
  put_be32(png, png_crc(body));
}

// An 8-bit PNG of `channels` (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA) from row-major pixels.
std::string encode_png(const uint8_t* pixels, int64_t height, int64_t width, int64_t channels) {
  static const char kColorType[] = {0, 0, 4, 2, 6};
  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  put_be32(ihdr, static_cast<uint32_t>(width));
  put_be32(ihdr, static_cast<uint32_t>(height));
  ihdr += std::string{8, kColorType[channels], 0, 0, 0};  // depth 8; deflate, no filter, no interlace
  put_chunk(png, "IHDR", ihdr);
  // Scanlines, each led by filter type 0 (none).
  std::string raw;
  const int64_t row = width * channels;
  raw.reserve(static_cast<size_t>(height * (row + 1)));
  for (int64_t y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(pixels + y * row), static_cast<size_t>(row));
  }
  // zlib: header, stored deflate blocks of at most 65535 bytes, Adler-32 of the data.
  std::string z("\x78\x01", 2);
  size_t at = 0;
  do {
    const size_t n = std::min<size_t>(65535, raw.size() - at);
    const bool last = at + n == raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<char>(n & 0xFF));
    z.push_back(static_cast<char>(n >> 8));
    z.push_back(static_cast<char>(~n & 0xFF));
    z.push_back(static_cast<char>((~n >> 8) & 0xFF));
    z.append(raw, at, n);
    at += n;
  } while (at < raw.size());
  uint32_t a = 1, b = 0;
  for (unsigned char c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  put_be32(z, (b << 16) | a);
  put_chunk(png, "IDAT", z);
  put_chunk(png, "IEND", "");
  return png;
}

// One image as uint8 pixels: uint8 as is; floats rescaled (TensorFlow's rule) with
// non-finite pixels red.
template <typename T>
void to_uint8(const T* src, int64_t pixels, int64_t channels, std::vector<uint8_t>* out) {
  out->resize(static_cast<size_t>(pixels * channels));
  if constexpr (std::is_same_v<T, uint8_t>) {
    std::copy(src, src + pixels * channels, out->begin());
  } else {
    // TensorFlow's arithmetic, to the pixel: extremes in float, the affine map chosen in float,
    // then applied in T (for half, rounding to half after each operation).
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < pixels * channels; ++i) {
      const float v = static_cast<float>(src[i]);
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    constexpr float kZeroThreshold = 1e-6f;
    float scale_f, offset_f;
    if (lo < 0) {
      const float m = std::max(std::abs(lo), std::abs(hi));
      scale_f = m < kZeroThreshold ? 0.0f : 127.0f / m;
      offset_f = 128.0f;
    } else {
      scale_f = hi < kZeroThreshold ? 0.0f : 255.0f / hi;
      offset_f = 0.0f;
    }
    const T scale = static_cast<T>(scale_f), offset = static_cast<T>(offset_f);
    auto affine = [&](T x) -> double {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        const T product = static_cast<T>(static_cast<float>(x) * static_cast<float>(scale));
        return static_cast<float>(static_cast<T>(static_cast<float>(product) + static_cast<float>(offset)));
      } else {
        return static_cast<double>(x * scale + offset);
      }
    };
    static const uint8_t kBad[4] = {255, 0, 0, 255};
    for (int64_t p = 0; p < pixels; ++p) {
      bool finite = true;
      for (int64_t c = 0; c < channels; ++c)
        finite = finite && std::isfinite(static_cast<float>(src[p * channels + c]));
      for (int64_t c = 0; c < channels; ++c) {
        (*out)[static_cast<size_t>(p * channels + c)] =
            finite ? static_cast<uint8_t>(std::clamp(affine(src[p * channels + c]), 0.0, 255.0)) : kBad[c];
      }
    }
  }
}

template <typename T>
Status ImageSummaryCpu(ops::ImageSummaryArgs& a) {
  const Tensor& t = a.tensor;
  const std::string* tag_ptr;
  OPF_RETURN_IF_ERROR(scalar_string_input(a.ctx, a.tag, "tag", &tag_ptr));
  if (t.rank() != 4 || (t.dim(3) != 1 && t.dim(3) != 3 && t.dim(3) != 4)) {
    return a.ctx.error("Tensor must be 4-D with last dim 1, 3, or 4, not ", t.shape().to_string());
  }
  const int64_t batch = t.dim(0), height = t.dim(1), width = t.dim(2), channels = t.dim(3);
  if (height >= (1 << 29) || width >= (1 << 29) || height * width >= (int64_t{1} << 29)) {
    return a.ctx.error("image too large to encode: ", height, "x", width);
  }
  const std::string& tag = *tag_ptr;
  const int64_t n = std::min<int64_t>(batch, a.max_images);
  std::string summary;
  std::vector<uint8_t> pixels;
  for (int64_t i = 0; i < n; ++i) {
    to_uint8(t.data<T>() + i * height * width * channels, height * width, channels, &pixels);
    std::string image;
    wire::put_key(image, proto_fields::kSummaryImageHeightField, wire::kVarint);
    wire::put_varint(image, static_cast<uint64_t>(height));
    wire::put_key(image, proto_fields::kSummaryImageWidthField, wire::kVarint);
    wire::put_varint(image, static_cast<uint64_t>(width));
    wire::put_key(image, proto_fields::kSummaryImageColorspaceField, wire::kVarint);
    wire::put_varint(image, static_cast<uint64_t>(channels));
    wire::put_bytes(image, proto_fields::kSummaryImageEncodedImageStringField,
                    encode_png(pixels.data(), height, width, channels));
    std::string value;
    wire::put_bytes(value, proto_fields::kSummaryValueTagField,
                    a.max_images > 1 ? tag + "/image/" + std::to_string(i) : tag + "/image");
    wire::put_bytes(value, proto_fields::kSummaryValueImageField, image);
    wire::put_bytes(summary, proto_fields::kSummaryValueField, value);
  }
  return set_scalar_string(a.summary, std::move(summary));
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ImageSummary, CPU, ImageSummaryCpu, uint8_t, float, half, double)

}  // namespace opforge
