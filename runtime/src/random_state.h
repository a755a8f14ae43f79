// Stream state of the stateful random ops (kernels/cpu/random/random_ops.cc).
#pragma once

namespace opforge {
namespace rng {

// Forgets every eager random stream: the next stateful random op with a given (op, dtype,
// seed, seed2) starts its stream from the beginning again (of.random.set_seed calls this, as
// TensorFlow's set_seed resets its cached kernels). Graph streams live in each Session.
void reset_eager_streams();

}  // namespace rng
}  // namespace opforge
