// Helpers the summary kernels share: their scalar string inputs and output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "opforge/kernel.h"

namespace opforge {

// The value of a scalar string input; an error naming `what` otherwise.
inline Status scalar_string_input(const KernelContext& ctx, const Tensor& t, const char* what,
                                  const std::string** out) {
  if (t.rank() != 0) return ctx.error(what, " must be a scalar, got shape ", t.shape().to_string());
  *out = &(*t.strings())[0];
  return Status::OK();
}

// Sets `out` to a scalar string tensor holding `bytes` (a serialized Summary).
inline Status set_scalar_string(Tensor& out, std::string bytes) {
  std::vector<std::string> values;
  values.push_back(std::move(bytes));
  return Tensor::FromStrings(Shape({}), std::move(values), &out);
}

}  // namespace opforge
