// The remapper's second file (remapper_batch_norm.cc).
#pragma once

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {

// Relu over [Mul(x, c1) -> Add(., c2)] or over an inference FusedBatchNormV3 (its other outputs
// unused) -> _FusedBatchNormEx(activation_mode="Relu") in Relu's place. Whether it rewrote.
bool fuse_batch_norm_relu(GraphView& v, int relu);

}  // namespace optimizer
}  // namespace opforge
