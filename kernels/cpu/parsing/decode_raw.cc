// DecodeRaw: the bytes of each string reinterpreted as a vector of numbers.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "opforge/ops/parsing/decode_raw.h"

namespace opforge {
namespace {

template <typename T>
Status DecodeRawCpu(ops::DecodeRawArgs& a) {
  const std::vector<std::string>& in = *a.bytes.strings();
  constexpr size_t kSize = sizeof(T);
  const size_t width = in.empty() ? 0 : in[0].size();
  for (size_t k = 0; k < in.size(); ++k) {
    if (in[k].size() != width) {
      return a.ctx.error("DecodeRaw requires input strings to all be the same size, but element ", k, " has size ",
                         in[k].size(), " != ", width);
    }
  }
  if (width % kSize != 0) {
    return a.ctx.error("Input to DecodeRaw has length ", width, " that is not a multiple of ", kSize, ", the size of ",
                       dtype_name(DTypeOf<T>::value));
  }
  const int64_t per = static_cast<int64_t>(width / kSize);
  std::vector<int64_t> dims = a.bytes.shape().dims();
  dims.push_back(per);
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape(dims), &out));
  char* dst = reinterpret_cast<char*>(out.data<T>());
  // The runtime's hosts are little-endian: big-endian data has each value's bytes reversed.
  const bool swap = !a.little_endian && kSize > 1;
  for (size_t k = 0; k < in.size(); ++k) {
    char* row = dst + k * width;
    std::memcpy(row, in[k].data(), width);
    if (swap) {
      for (size_t v = 0; v < width; v += kSize) std::reverse(row + v, row + v + kSize);
    }
  }
  if constexpr (std::is_same_v<T, bool>) {
    // A bool holds 0 or 1: any non-zero byte is true.
    unsigned char* b = reinterpret_cast<unsigned char*>(dst);
    for (size_t k = 0; k < in.size() * width; ++k) b[k] = b[k] != 0;
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(DecodeRaw, CPU, DecodeRawCpu, half, bfloat16, float, double, int32_t, uint8_t,
                                   int16_t, int8_t, int64_t, bool)

}  // namespace opforge
