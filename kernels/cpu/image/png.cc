// DecodePng and EncodePng over libpng (found by CMake; OPFORGE_HAVE_PNG). The decoder follows
// TensorFlow's transforms: palette and low-bit gray expanded, 16-bit samples stripped to 8,
// transparency as alpha where alpha is wanted, gray <-> RGB as the channels ask.
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/image/codec_util.h"
#include "opforge/ops/image/decode_png.h"
#include "opforge/ops/image/encode_png.h"

#ifdef OPFORGE_HAVE_PNG
#include <png.h>
#endif

namespace opforge {
namespace image {

#ifdef OPFORGE_HAVE_PNG
namespace {

// libpng reports errors through longjmp; the message is kept for the Status.
struct PngState {
  std::jmp_buf jump;
  char message[256] = {0};
  const uint8_t* data = nullptr;
  size_t size = 0, pos = 0;
  std::string* out = nullptr;
  // Kept here, in memory the error path can see after longjmp (a local changed after setjmp
  // would be indeterminate there).
  std::vector<png_bytep> rows;
};

void on_error(png_structp png, png_const_charp msg) {
  auto* st = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(st->message, sizeof(st->message), "%s", msg);
  std::longjmp(st->jump, 1);
}

void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* st = static_cast<PngState*>(png_get_io_ptr(png));
  if (st->size - st->pos < n) png_error(png, "the PNG data is truncated");
  std::memcpy(dst, st->data + st->pos, n);
  st->pos += n;
}

void write_bytes(png_structp png, png_bytep src, png_size_t n) {
  static_cast<PngState*>(png_get_io_ptr(png))->out->append(reinterpret_cast<const char*>(src), n);
}

void flush_nothing(png_structp) {}

}  // namespace

Status decode_png(const std::string& op, const std::string& bytes, int64_t channels, Pixels* out) {
  if (!is_png(bytes)) return errors::InvalidArgument(op, ": Invalid PNG data, size ", bytes.size());
  PngState st;
  st.data = reinterpret_cast<const uint8_t*>(bytes.data());
  st.size = bytes.size();
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st, on_error, on_warning);
  if (png == nullptr) return errors::ResourceExhausted(op, ": libpng could not allocate a reader");
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(st.jump)) {
    png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    return errors::InvalidArgument(op, ": Invalid PNG data, size ", bytes.size(), ": ", st.message);
  }
  png_set_read_fn(png, &st, read_bytes);
  png_set_user_limits(png, 1u << 24, 1u << 24);  // as TensorFlow: dims below 2^24
  png_read_info(png, info);
  png_uint_32 w = 0, h = 0;
  int depth = 0, colour = 0;
  png_get_IHDR(png, info, &w, &h, &depth, &colour, nullptr, nullptr, nullptr);
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  const bool has_alpha = (colour & PNG_COLOR_MASK_ALPHA) != 0;
  int ch = static_cast<int>(channels);
  if (ch == 0) ch = colour == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3) : png_get_channels(png, info);
  if ((ch & 1) == 0) {  // alpha wanted
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(png);
      } else {
        // TensorFlow's filler: the file's largest sample value, (1 << bit_depth) - 1, so a
        // 4-bit palette image gets alpha 15 (kept: decoding as TensorFlow does).
        png_set_add_alpha(png, static_cast<png_uint_32>((1 << depth) - 1) & 0xFFFF, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(png);
  }
  if (depth > 8) png_set_strip_16(png);
  png_set_packing(png);
  png_set_interlace_handling(png);
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool is_gray = (colour & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (ch < 3) {
    if (!is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
  if (static_cast<int>(png_get_channels(png, info)) != ch || png_get_bit_depth(png, info) != 8) {
    png_destroy_read_struct(&png, &info, nullptr);
    return errors::Internal(op, ": libpng gave ", png_get_channels(png, info), " channels, not ", ch);
  }
  if (static_cast<uint64_t>(h) * w * static_cast<uint64_t>(ch) >= (uint64_t{1} << 31)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return errors::InvalidArgument(op, ": PNG image too large: ", h, "x", w, "x", ch);
  }
  out->height = h;
  out->width = w;
  out->channels = ch;
  out->data.resize(static_cast<size_t>(h) * w * static_cast<size_t>(ch));
  st.rows.resize(h);
  for (png_uint_32 y = 0; y < h; ++y) {
    st.rows[y] = out->data.data() + static_cast<size_t>(y) * w * static_cast<size_t>(ch);
  }
  png_read_image(png, st.rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return Status::OK();
}

namespace {

Status encode_png(const std::string& op, const uint8_t* pixels, int64_t h, int64_t w, int64_t ch, int level,
                  std::string* out) {
  PngState st;
  st.out = out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st, on_error, on_warning);
  if (png == nullptr) return errors::ResourceExhausted(op, ": libpng could not allocate a writer");
  png_infop info = png_create_info_struct(png);
  st.rows.resize(static_cast<size_t>(h));
  if (info == nullptr || setjmp(st.jump)) {
    png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
    return errors::InvalidArgument(op, ": PNG encoding failed: ", st.message);
  }
  static const int kColour[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(png, &st, write_bytes, flush_nothing);
  if (level != -1) png_set_compression_level(png, level);
  png_set_IHDR(png, info, static_cast<png_uint_32>(w), static_cast<png_uint_32>(h), 8, kColour[ch], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int64_t y = 0; y < h; ++y) st.rows[static_cast<size_t>(y)] = const_cast<png_bytep>(pixels + y * w * ch);
  png_write_image(png, st.rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return Status::OK();
}

}  // namespace

#else  // no libpng

Status decode_png(const std::string& op, const std::string&, int64_t, Pixels*) {
  return errors::Unimplemented(op, ": opforge was built without libpng (install libpng-dev and rebuild)");
}

#endif

namespace {

template <typename T>
Status DecodePngCpu(ops::DecodePngArgs& a) {
  const std::string* bytes = nullptr;
  OPF_RETURN_IF_ERROR(scalar_contents(a.ctx, a.contents, &bytes));
  if (a.channels != 0 && a.channels != 1 && a.channels != 3 && a.channels != 4) {
    return a.ctx.error("channels must be 0, 1, 3 or 4, got ", a.channels);
  }
  Pixels px;
  OPF_RETURN_IF_ERROR(decode_png("DecodePng", *bytes, a.channels, &px));
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kUInt8, Shape({px.height, px.width, px.channels}), &out));
  std::memcpy(out.data<uint8_t>(), px.data.data(), px.data.size());
  return Status::OK();
}

template <typename T>
Status EncodePngCpu(ops::EncodePngArgs& a) {
  const Tensor& im = a.image;
  if (im.rank() != 3) return a.ctx.error("image must be 3-dimensional, got shape ", im.shape().to_string());
  const int64_t h = im.dim(0), w = im.dim(1), ch = im.dim(2);
  if (ch < 1 || ch > 4) return a.ctx.error("image must have 1, 2, 3, or 4 channels, got ", ch);
  if (h >= (int64_t{1} << 31) || w >= (int64_t{1} << 31) || h * w * ch >= (int64_t{1} << 31)) {
    return a.ctx.error("image too large to encode: ", im.shape().to_string());
  }
  if (a.compression < -1 || a.compression > 9)
    return a.ctx.error("compression must be in [-1, 9], got ", a.compression);
#ifdef OPFORGE_HAVE_PNG
  std::string png;
  OPF_RETURN_IF_ERROR(encode_png("EncodePng", im.data<uint8_t>(), h, w, ch, static_cast<int>(a.compression), &png));
  std::vector<std::string> v;
  v.push_back(std::move(png));
  return Tensor::FromStrings(Shape({}), std::move(v), &a.ctx.output(0));
#else
  return errors::Unimplemented("EncodePng: opforge was built without libpng (install libpng-dev and rebuild)");
#endif
}

}  // namespace
}  // namespace image

OPFORGE_REGISTER_FORWARDING_KERNEL(DecodePng, CPU, image::DecodePngCpu, uint8_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(EncodePng, CPU, image::EncodePngCpu, uint8_t)

}  // namespace opforge
