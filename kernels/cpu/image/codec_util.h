// What the PNG and JPEG kernels share: an 8-bit image in memory, and the contents input
// (a scalar string).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opforge/kernel.h"

namespace opforge {
namespace image {

struct Pixels {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> data;  // row-major [height, width, channels]
};

inline Status scalar_contents(const KernelContext& ctx, const Tensor& contents, const std::string** out) {
  if (contents.rank() != 0) {
    return ctx.error("contents must be scalar, got shape ", contents.shape().to_string());
  }
  *out = &(*contents.strings())[0];
  return Status::OK();
}

// PNG (png.cc) and JPEG (jpeg.cc), each an UnimplementedError naming the library where opforge
// was built without it. `op` names the op in errors.
Status decode_png(const std::string& op, const std::string& bytes, int64_t channels, Pixels* out);
Status decode_jpeg(const std::string& op, const std::string& bytes, int64_t channels, int64_t ratio, bool fancy,
                   bool try_recover_truncated, float acceptable_fraction, const std::string& dct_method, Pixels* out);
inline bool is_png(const std::string& b) { return b.size() >= 8 && b.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0; }
inline bool is_jpeg(const std::string& b) { return b.size() >= 3 && b.compare(0, 3, "\xff\xd8\xff") == 0; }

}  // namespace image
}  // namespace opforge
