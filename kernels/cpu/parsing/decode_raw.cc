// DecodeRaw and DecodePaddedRaw: the bytes of each string reinterpreted as a vector of numbers.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "opforge/ops/parsing/decode_padded_raw.h"
#include "opforge/ops/parsing/decode_raw.h"

namespace opforge {
namespace {

// Copies the first `width` bytes of each string (zero-filled past its end) and swaps the bytes
// of each value when the data is big-endian.
template <typename T>
void copy_rows(const std::vector<std::string>& in, size_t width, bool little_endian, char* dst) {
  constexpr size_t kSize = sizeof(T);
  for (size_t k = 0; k < in.size(); ++k) {
    char* row = dst + k * width;
    const size_t n = std::min(width, in[k].size());
    std::memcpy(row, in[k].data(), n);
    std::memset(row + n, 0, width - n);
    if (!little_endian && kSize > 1) {
      for (size_t v = 0; v < width; v += kSize) std::reverse(row + v, row + v + kSize);
    }
  }
}

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
  copy_rows<T>(in, width, a.little_endian, dst);
  if constexpr (std::is_same_v<T, bool>) {
    // A bool holds 0 or 1: any non-zero byte is true.
    unsigned char* b = reinterpret_cast<unsigned char*>(dst);
    for (size_t k = 0; k < in.size() * width; ++k) b[k] = b[k] != 0;
  }
  return Status::OK();
}

template <typename T>
Status DecodePaddedRawCpu(ops::DecodePaddedRawArgs& a) {
  if (a.fixed_length.num_elements() != 1) {
    return a.ctx.error("fixed_length must be a scalar, got shape ", a.fixed_length.shape().to_string());
  }
  const int64_t fixed = a.fixed_length.data<int32_t>()[0];
  if (fixed <= 0) return a.ctx.error("fixed_length (", fixed, ") must be greater than zero.");
  if (fixed % static_cast<int64_t>(sizeof(T)) != 0) {
    return a.ctx.error("fixed_length (", fixed, ") must be a multiple of the size of out_type (", sizeof(T), ")");
  }
  std::vector<int64_t> dims = a.input_bytes.shape().dims();
  dims.push_back(fixed / static_cast<int64_t>(sizeof(T)));
  Tensor& out = a.ctx.output(0);
  OPF_RETURN_IF_ERROR(Tensor::Allocate(DTypeOf<T>::value, Shape(dims), &out));
  copy_rows<T>(*a.input_bytes.strings(), static_cast<size_t>(fixed), a.little_endian,
               reinterpret_cast<char*>(out.data<T>()));
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(DecodePaddedRaw, CPU, DecodePaddedRawCpu, half, bfloat16, float, double, int32_t,
                                   uint8_t, int16_t, int8_t, int64_t)
OPFORGE_REGISTER_FORWARDING_KERNEL(DecodeRaw, CPU, DecodeRawCpu, half, bfloat16, float, double, int32_t, uint8_t,
                                   int16_t, int8_t, int64_t, bool)

}  // namespace opforge
