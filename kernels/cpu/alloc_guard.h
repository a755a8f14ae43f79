// Kernels whose allocations are sized by input values (a row count, a number of segments): a
// failed allocation becomes a ResourceExhausted error naming the op instead of an exception
// escaping the kernel. Shared by the SparseTensor and string kernels.
#pragma once

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

}  // namespace cpu
}  // namespace opforge
