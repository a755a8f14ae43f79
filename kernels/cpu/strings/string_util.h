// Helpers shared by the string kernels: reading a string tensor, writing one, and NumPy
// broadcasting of element indices.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/alloc_guard.h"
#include "opforge/kernel.h"
#include "opforge/shape_fns.h"
#include "opforge/tensor.h"

namespace opforge {
namespace strings {

using cpu::guarded;  // cpu/alloc_guard.h

inline const std::vector<std::string>& values(const Tensor& t) { return *t.strings(); }

// The byte strings of one element of a string tensor, quoted as TensorFlow quotes them in
// messages (b'...').
inline std::string quoted(const std::string& s) { return "b'" + s + "'"; }

// The flat index into a tensor of shape `in` (broadcast to `out`, aligned at the end) of
// output element `flat`.
class BroadcastIndex {
 public:
  BroadcastIndex(const Shape& in, const Shape& out) : out_(out.dims()) {
    const int r = out.rank(), off = out.rank() - in.rank();
    stride_.assign(static_cast<size_t>(r), 0);
    int64_t s = 1;
    for (int d = r - 1; d >= off; --d) {
      const int64_t n = in.dim(d - off);
      stride_[static_cast<size_t>(d)] = n == 1 ? 0 : s;
      s *= n;
    }
  }
  int64_t operator()(int64_t flat) const {
    int64_t at = 0;
    for (int d = static_cast<int>(out_.size()) - 1; d >= 0; --d) {
      const int64_t n = out_[static_cast<size_t>(d)];
      if (n == 0) return 0;
      at += (flat % n) * stride_[static_cast<size_t>(d)];
      flat /= n;
    }
    return at;
  }

 private:
  std::vector<int64_t> out_, stride_;
};

// A scalar int64 or int32 tensor's value.
inline int64_t int_scalar(const Tensor& t) {
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

// Whether byte c starts a UTF-8 character (is not a continuation byte).
inline bool utf8_start(unsigned char c) { return (c & 0xC0) != 0x80; }

inline bool ascii_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace strings
}  // namespace opforge
