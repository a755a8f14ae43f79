// Kernels whose allocations are sized by input values (a row count, a number of segments): a
// failed allocation becomes a ResourceExhausted error naming the op instead of an exception
// escaping the kernel. Shared by the SparseTensor and string kernels.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include "opforge/status.h"

namespace opforge {
namespace cpu {

template <typename F>
Status guarded(const char* op, F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return errors::ResourceExhausted(op, ": not enough memory for the output");
  } catch (const std::length_error&) {
    return errors::ResourceExhausted(op, ": the output is too large");
  }
}

// Whether `count` elements of `size` bytes can be had, asked before building an input-sized
// scratch or output: malloc says no (under a memory limit, or AddressSanitizer's allocation cap)
// where operator new would throw, or under AddressSanitizer abort the process.
inline Status check_allocation(const char* op, int64_t count, size_t size) {
  size_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow(static_cast<size_t>(count), size, &bytes)) {
    return errors::ResourceExhausted(op, ": the output is too large");
  }
  void* p = std::malloc(bytes);
  if (p == nullptr && bytes != 0) return errors::ResourceExhausted(op, ": not enough memory for the output");
  std::free(p);
  return Status::OK();
}

}  // namespace cpu
}  // namespace opforge
