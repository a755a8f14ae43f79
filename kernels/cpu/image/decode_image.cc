// DecodeImage: the format told by the first bytes, PNG or JPEG decoded (png.cc, jpeg.cc);
// a float dtype scales the 8-bit values to [0, 1] as TensorFlow does.
#include <string>

#include "cpu/image/codec_util.h"
#include "opforge/ops/image/decode_image.h"

namespace opforge {
namespace image {
namespace {

template <typename T>
Status DecodeImageCpu(ops::DecodeImageArgs& a) {
  const std::string* bytes = nullptr;
  OPF_RETURN_IF_ERROR(scalar_contents(a.ctx, a.contents, &bytes));
  if (a.channels != 0 && a.channels != 1 && a.channels != 3 && a.channels != 4) {
    return a.ctx.error("channels must be 0, 1, 3 or 4, got ", a.channels);
  }
  Pixels px;
  const std::string& b = *bytes;
  if (is_png(b)) {
    OPF_RETURN_IF_ERROR(decode_png("DecodeImage", b, a.channels, &px));
  } else if (is_jpeg(b)) {
    if (a.channels == 4) return a.ctx.error("JPEG does not support 4 channels; channels must be 0, 1 or 3");
    OPF_RETURN_IF_ERROR(decode_jpeg("DecodeImage", b, a.channels, 1, true, false, 1.0f, "", &px));
  } else if (b.compare(0, 3, "GIF") == 0 || b.compare(0, 2, "BM") == 0) {
    return errors::Unimplemented("DecodeImage: ", b.compare(0, 3, "GIF") == 0 ? "GIF" : "BMP",
                                 " images are not supported by opforge (PNG and JPEG are)");
  } else {
    return a.ctx.error("Unknown image file format. One of JPEG, PNG, GIF, BMP required.");
  }
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape({px.height, px.width, px.channels}), &out));
  T* o = out.data<T>();
  for (size_t i = 0; i < px.data.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      o[i] = static_cast<float>(px.data[i]) * (1.0f / 255.0f);
    } else {
      o[i] = px.data[i];
    }
  }
  return Status::OK();
}

}  // namespace
}  // namespace image

OPFORGE_REGISTER_FORWARDING_KERNEL(DecodeImage, CPU, image::DecodeImageCpu, uint8_t, float)

}  // namespace opforge
