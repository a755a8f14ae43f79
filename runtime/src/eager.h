// Eager execution: run one op now on concrete tensors.
#pragma once

#include <vector>

#include "opforge/attr.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace opforge {

// `inputs` holds the tensors of all input arguments in order; `ranges[a]` is argument a's
// [begin, end) in it (a list argument spans several). `attrs` holds one value per attr of the
// op, in opdef order; inferred attrs are filled in by execute(), missing ones
// (has_attr[i] == false) take their defaults.
struct EagerCall {
  const OpSpec* op = nullptr;
  std::vector<const Tensor*> inputs;  // borrowed from the caller
  std::vector<std::pair<int, int>> ranges;
  std::vector<AttrValue> attrs;
  std::vector<bool> has_attr;
};

// Validates the call (dtypes, attrs, shapes), allocates the outputs and runs the kernel.
Status execute(EagerCall& call, std::vector<Tensor>* outputs);

}  // namespace opforge
