// Permuting a tensor's dimensions on the GPU (Transpose, and reductions over axes that are
// not adjacent). Works on element sizes, not dtypes: four kernel instantiations cover all.
#pragma once

#include <vector>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace gpu {

// out[...] = in permuted by perm (out dim k is in dim perm[k]); out is allocated by the caller.
Status transpose_on_device(int device, const Tensor& in, const std::vector<int64_t>& perm, Tensor& out);

}  // namespace gpu
}  // namespace opforge
