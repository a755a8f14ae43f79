// Eager execution: run one op now on concrete tensors.
#pragma once

#include <vector>

#include "opforge/attr.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace opforge {

// Inputs are grouped per input argument (a list argument holds several tensors). `attrs`
// holds one value per attr of the op, in opdef order; entries for inferred attrs are filled
// in here, missing ones (has[i] == false) take their defaults.
struct EagerCall {
  const OpSpec* op = nullptr;
  std::vector<std::vector<Tensor>> inputs;
  std::vector<AttrValue> attrs;
  std::vector<bool> has_attr;
};

// Validates the call (dtypes, attrs, shapes), allocates the outputs and runs the kernel.
Status execute(EagerCall& call, std::vector<Tensor>* outputs);

}  // namespace opforge
