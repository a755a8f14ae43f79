// DecodeJpeg, DecodeAndCropJpeg, EncodeJpeg and ExtractJpegShape over libjpeg(-turbo) (found
// by CMake; OPFORGE_HAVE_JPEG), with TensorFlow's settings: the fast integer IDCT unless
// dct_method says INTEGER_ACCURATE, fancy upsampling as asked, decoding at 1/ratio scale.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/image/codec_util.h"
#include "opforge/ops/image/decode_and_crop_jpeg.h"
#include "opforge/ops/image/encode_jpeg.h"
#include "opforge/ops/image/encode_jpeg_variable_quality.h"
#include "opforge/ops/image/extract_jpeg_shape.h"
#include "opforge/ops/image/decode_jpeg.h"

#ifdef OPFORGE_HAVE_JPEG
#include <jpeglib.h>
#endif

namespace opforge {
namespace image {

#ifdef OPFORGE_HAVE_JPEG
namespace {

// libjpeg reports errors through error_exit; it longjmps back with the message kept. Corrupt
// data below an error (a truncated file) arrives as warnings, counted.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {0};
  int warnings = 0;
};

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegError*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

void on_message(j_common_ptr c, int level) {
  if (level < 0) ++reinterpret_cast<JpegError*>(c->err)->warnings;
}

// Reads the header: the decoder set up, or false (message in err) on bad data.
bool read_header(jpeg_decompress_struct* d, JpegError* err, const std::string& bytes) {
  d->err = jpeg_std_error(&err->mgr);
  err->mgr.error_exit = on_error;
  err->mgr.emit_message = on_message;
  jpeg_create_decompress(d);
  jpeg_mem_src(d, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(d, TRUE);
  return true;
}

}  // namespace

Status decode_jpeg(const std::string& op, const std::string& bytes, int64_t channels, int64_t ratio, bool fancy,
                   bool try_recover_truncated, float acceptable_fraction, const std::string& dct_method, Pixels* out) {
  if (channels != 0 && channels != 1 && channels != 3) {
    return errors::InvalidArgument(op, ": channels must be 0, 1 or 3 for a JPEG, got ", channels);
  }
  if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8) {
    return errors::InvalidArgument(op, ": ratio must be 1, 2, 4, or 8, got ", ratio);
  }
  if (!dct_method.empty() && dct_method != "INTEGER_FAST" && dct_method != "INTEGER_ACCURATE") {
    return errors::InvalidArgument(op, ": dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}, got '",
                                   dct_method, "'");
  }
  if (bytes.empty()) return errors::InvalidArgument(op, ": Invalid JPEG data, size 0");
  jpeg_decompress_struct d;
  JpegError err;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&d);
    return errors::InvalidArgument(op, ": Invalid JPEG data or crop window, data size ", bytes.size(), ": ",
                                   err.message);
  }
  read_header(&d, &err, bytes);
  if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&d);
    return errors::Unimplemented(op, ": CMYK JPEG images are not supported");
  }
  const int64_t ch = channels != 0 ? channels : (d.num_components == 1 ? 1 : 3);
  d.out_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
  d.scale_num = 1;
  d.scale_denom = static_cast<unsigned int>(ratio);
  d.do_fancy_upsampling = fancy ? TRUE : FALSE;
  d.dct_method = dct_method == "INTEGER_ACCURATE" ? JDCT_ISLOW : JDCT_IFAST;
  jpeg_start_decompress(&d);
  const int64_t h = d.output_height, w = d.output_width;
  if (h * w * ch >= (int64_t{1} << 31)) {
    jpeg_destroy_decompress(&d);
    return errors::InvalidArgument(op, ": JPEG image too large: ", h, "x", w, "x", ch);
  }
  if (d.output_components != ch) {
    jpeg_destroy_decompress(&d);
    return errors::Internal(op, ": libjpeg gave ", d.output_components, " channels, not ", ch);
  }
  out->height = h;
  out->width = w;
  out->channels = ch;
  out->data.assign(static_cast<size_t>(h * w * ch), 0);
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = out->data.data() + static_cast<int64_t>(d.output_scanline) * w * ch;
    if (jpeg_read_scanlines(&d, &row, 1) != 1) break;
  }
  const int64_t lines = d.output_scanline;
  if (err.warnings > 0 && !try_recover_truncated) {  // truncated or corrupt data
    jpeg_destroy_decompress(&d);
    return errors::InvalidArgument(op, ": Invalid JPEG data or crop window, data size ", bytes.size(),
                                   " (corrupt or truncated)");
  }
  if (lines < h && static_cast<float>(lines) < acceptable_fraction * static_cast<float>(h)) {
    jpeg_destroy_decompress(&d);
    return errors::InvalidArgument(op, ": only ", lines, " of ", h, " lines decoded");
  }
  if (lines == h)
    jpeg_finish_decompress(&d);
  else
    jpeg_abort_decompress(&d);
  jpeg_destroy_decompress(&d);
  return Status::OK();
}

Status jpeg_shape(const std::string& op, const std::string& bytes, int64_t dims[3]) {
  if (bytes.empty()) return errors::InvalidArgument(op, ": Invalid JPEG data, size 0");
  jpeg_decompress_struct d;
  JpegError err;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&d);
    return errors::InvalidArgument(op, ": Invalid JPEG data, size ", bytes.size(), ": ", err.message);
  }
  read_header(&d, &err, bytes);
  dims[0] = d.image_height;
  dims[1] = d.image_width;
  dims[2] = d.num_components;
  jpeg_destroy_decompress(&d);
  return Status::OK();
}

struct JpegOptions {
  int quality;
  bool progressive, optimize, chroma_downsampling;
  int density_unit, x_density, y_density;
  std::string xmp;
};

Status encode_jpeg(const std::string& op, const uint8_t* pixels, int64_t h, int64_t w, int64_t ch, const JpegOptions& o,
                   std::string* out) {
  jpeg_compress_struct c;
  JpegError err;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  c.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = on_error;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(buffer);
    return errors::InvalidArgument(op, ": JPEG encoding failed: ", err.message);
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &buffer, &size);
  c.image_width = static_cast<JDIMENSION>(w);
  c.image_height = static_cast<JDIMENSION>(h);
  c.input_components = static_cast<int>(ch);
  c.in_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(&c);
  c.optimize_coding = o.optimize ? TRUE : FALSE;
  if (!o.chroma_downsampling && ch == 3) {  // 4:4:4
    c.comp_info[0].h_samp_factor = 1;
    c.comp_info[0].v_samp_factor = 1;
  }
  c.write_JFIF_header = TRUE;
  c.density_unit = static_cast<UINT8>(o.density_unit);
  c.X_density = static_cast<UINT16>(o.x_density);
  c.Y_density = static_cast<UINT16>(o.y_density);
  jpeg_start_compress(&c, TRUE);
  if (!o.xmp.empty()) {
    static const char kXmpId[] = "http://ns.adobe.com/xap/1.0/";
    std::string marker(kXmpId, sizeof(kXmpId));  // with its terminating NUL
    marker += o.xmp;
    if (marker.size() > 65533) {
      jpeg_destroy_compress(&c);
      std::free(buffer);
      return errors::InvalidArgument(op, ": xmp_metadata is too long for a JPEG marker (", o.xmp.size(), " bytes)");
    }
    jpeg_write_marker(&c, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(marker.data()),
                      static_cast<unsigned int>(marker.size()));
  }
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + static_cast<int64_t>(c.next_scanline) * w * ch);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  out->assign(reinterpret_cast<const char*>(buffer), size);
  jpeg_destroy_compress(&c);
  std::free(buffer);
  return Status::OK();
}

#else  // no libjpeg

namespace {
constexpr const char* kNoJpeg = ": opforge was built without libjpeg (install libjpeg-dev and rebuild)";
}  // namespace

Status decode_jpeg(const std::string& op, const std::string&, int64_t, int64_t, bool, bool, float, const std::string&,
                   Pixels*) {
  return errors::Unimplemented(op, kNoJpeg);
}

#endif

namespace {

Status to_tensor(const Pixels& px, Tensor* out) {
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kUInt8, Shape({px.height, px.width, px.channels}), out));
  std::memcpy(out->data<uint8_t>(), px.data.data(), px.data.size());
  return Status::OK();
}

Status DecodeJpegCpu(ops::DecodeJpegArgs& a) {
  const std::string* bytes = nullptr;
  OPF_RETURN_IF_ERROR(scalar_contents(a.ctx, a.contents, &bytes));
  Pixels px;
  OPF_RETURN_IF_ERROR(decode_jpeg("DecodeJpeg", *bytes, a.channels, a.ratio, a.fancy_upscaling, a.try_recover_truncated,
                                  a.acceptable_fraction, a.dct_method, &px));
  return to_tensor(px, &a.ctx.output(0));
}

Status DecodeAndCropJpegCpu(ops::DecodeAndCropJpegArgs& a) {
  const std::string* bytes = nullptr;
  OPF_RETURN_IF_ERROR(scalar_contents(a.ctx, a.contents, &bytes));
  if (a.crop_window.rank() != 1 || a.crop_window.num_elements() != 4) {
    return a.ctx.error("crop_window must be 1-D with 4 elements [y, x, height, width], got shape ",
                       a.crop_window.shape().to_string());
  }
  Pixels px;
  OPF_RETURN_IF_ERROR(decode_jpeg("DecodeAndCropJpeg", *bytes, a.channels, a.ratio, a.fancy_upscaling,
                                  a.try_recover_truncated, a.acceptable_fraction, a.dct_method, &px));
  const int32_t* wdw = a.crop_window.data<int32_t>();
  const int64_t y = wdw[0], x = wdw[1], h = wdw[2], w = wdw[3];
  if (y < 0 || x < 0 || h <= 0 || w <= 0 || y + h > px.height || x + w > px.width) {
    return a.ctx.error("Invalid JPEG data or crop window: window [", y, ", ", x, ", ", h, ", ", w,
                       "] is not inside the ", px.height, "x", px.width, " image");
  }
  Pixels crop;
  crop.height = h;
  crop.width = w;
  crop.channels = px.channels;
  crop.data.resize(static_cast<size_t>(h * w * px.channels));
  for (int64_t r = 0; r < h; ++r) {
    std::memcpy(crop.data.data() + r * w * px.channels, px.data.data() + ((y + r) * px.width + x) * px.channels,
                static_cast<size_t>(w * px.channels));
  }
  return to_tensor(crop, &a.ctx.output(0));
}

Status check_encodable(const KernelContext& ctx, const Tensor& im) {
  if (im.rank() != 3) return ctx.error("image must be 3-dimensional, got shape ", im.shape().to_string());
  if (im.dim(0) <= 0 || im.dim(1) <= 0 || im.dim(0) >= 65536 || im.dim(1) >= 65536) {
    return ctx.error("image dimensions must be in [1, 65535] for a JPEG, got ", im.dim(0), "x", im.dim(1));
  }
  return Status::OK();
}

Status EncodeJpegVariableQualityCpu(ops::EncodeJpegVariableQualityArgs& a) {
  const Tensor& im = a.images;
  OPF_RETURN_IF_ERROR(check_encodable(a.ctx, im));
  if (im.dim(2) != 1 && im.dim(2) != 3) return a.ctx.error("image must have 1 or 3 channels, got ", im.dim(2));
  if (a.quality.rank() != 0) return a.ctx.error("quality must be a scalar, got shape ", a.quality.shape().to_string());
  const int32_t quality = a.quality.data<int32_t>()[0];
  if (quality < 0 || quality > 100) return a.ctx.error("quality must be in [0,100], got ", quality);
#ifdef OPFORGE_HAVE_JPEG
  std::string jpeg;
  OPF_RETURN_IF_ERROR(encode_jpeg("EncodeJpegVariableQuality", im.data<uint8_t>(), im.dim(0), im.dim(1), im.dim(2),
                                  JpegOptions{quality, false, false, true, 1, 300, 300, ""}, &jpeg));
  std::vector<std::string> v;
  v.push_back(std::move(jpeg));
  return Tensor::FromStrings(Shape({}), std::move(v), &a.ctx.output(0));
#else
  return errors::Unimplemented("EncodeJpegVariableQuality", kNoJpeg);
#endif
}

Status EncodeJpegCpu(ops::EncodeJpegArgs& a) {
  const Tensor& im = a.image;
  if (im.rank() != 3) return a.ctx.error("image must be 3-dimensional, got shape ", im.shape().to_string());
  const int64_t h = im.dim(0), w = im.dim(1), ch = im.dim(2);
  if (a.format.empty() ? (ch != 1 && ch != 3) : (a.format == "grayscale" ? ch != 1 : ch != 3)) {
    return a.ctx.error("image must have ", a.format.empty() ? "1 or 3" : (a.format == "grayscale" ? "1" : "3"),
                       " channels for format '", a.format, "', got ", ch);
  }
  if (h <= 0 || w <= 0 || h >= 65536 || w >= 65536) {
    return a.ctx.error("image dimensions must be in [1, 65535] for a JPEG, got ", h, "x", w);
  }
  if (a.quality < 0 || a.quality > 100) return a.ctx.error("quality must be in [0,100], got ", a.quality);
  if (a.x_density < 0 || a.x_density > 65535 || a.y_density < 0 || a.y_density > 65535) {
    return a.ctx.error("x_density and y_density must be in [0, 65535]");
  }
#ifdef OPFORGE_HAVE_JPEG
  JpegOptions o{static_cast<int>(a.quality),
                a.progressive,
                a.optimize_size,
                a.chroma_downsampling,
                a.density_unit == "in" ? 1 : 2,
                static_cast<int>(a.x_density),
                static_cast<int>(a.y_density),
                a.xmp_metadata};
  std::string jpeg;
  OPF_RETURN_IF_ERROR(encode_jpeg("EncodeJpeg", im.data<uint8_t>(), h, w, ch, o, &jpeg));
  std::vector<std::string> v;
  v.push_back(std::move(jpeg));
  return Tensor::FromStrings(Shape({}), std::move(v), &a.ctx.output(0));
#else
  return errors::Unimplemented("EncodeJpeg", kNoJpeg);
#endif
}

template <typename T>
Status ExtractJpegShapeCpu(ops::ExtractJpegShapeArgs& a) {
  const std::string* bytes = nullptr;
  OPF_RETURN_IF_ERROR(scalar_contents(a.ctx, a.contents, &bytes));
#ifdef OPFORGE_HAVE_JPEG
  int64_t dims[3];
  OPF_RETURN_IF_ERROR(jpeg_shape("ExtractJpegShape", *bytes, dims));
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape({3}), &out));
  for (int k = 0; k < 3; ++k) out.data<T>()[k] = static_cast<T>(dims[k]);
  return Status::OK();
#else
  return errors::Unimplemented("ExtractJpegShape", kNoJpeg);
#endif
}

}  // namespace
}  // namespace image

OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeJpeg, CPU, image::DecodeJpegCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(DecodeAndCropJpeg, CPU, image::DecodeAndCropJpegCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(EncodeJpeg, CPU, image::EncodeJpegCpu)
OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(EncodeJpegVariableQuality, CPU, image::EncodeJpegVariableQualityCpu)
OPFORGE_REGISTER_FORWARDING_KERNEL(ExtractJpegShape, CPU, image::ExtractJpegShapeCpu, int32_t, int64_t)

}  // namespace opforge
