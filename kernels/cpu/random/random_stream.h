// The stream state of the stateful random ops (random_ops.cc, random_gamma_poisson.cc): per
// (op, dtype, seed, seed2) when run eagerly, per graph node within a Session (in the session's
// resource manager). seed = seed2 = 0 picks a non-deterministic stream.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>

#include "cpu/random/philox.h"
#include "opforge/kernel.h"
#include "src/random_state.h"

namespace opforge {
namespace rng {

struct Stream {
  uint64_t seed = 0, seed2 = 0, used = 0;  // used: 128-bit blocks handed out so far
};

inline std::mutex eager_mu;
inline std::map<std::tuple<std::string, int, int64_t, int64_t>, Stream>& eager_streams() {
  static auto* m = new std::map<std::tuple<std::string, int, int64_t, int64_t>, Stream>();
  return *m;
}

inline void init_stream(Stream* s, int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) {
    std::random_device rd;
    s->seed = (uint64_t{rd()} << 32) ^ rd();
    s->seed2 = (uint64_t{rd()} << 32) ^ rd();
  } else {
    s->seed = static_cast<uint64_t>(seed);
    s->seed2 = static_cast<uint64_t>(seed2);
  }
}

// Runs draw(g) on a generator at this op's stream position and advances the stream by the
// number of Philox outputs draw returns having used. The stream is held (locked) meanwhile,
// so a sampler that cannot know in advance how many words it needs stays deterministic.
template <typename Draw>
Status draw_from_stream(KernelContext& ctx, DType dtype, int64_t seed, int64_t seed2, Draw&& draw) {
  Stream s;
  if (ExecEnv* env = ctx.env(); env && env->resources && env->node_name) {
    Variable* v = nullptr;
    OPF_RETURN_IF_ERROR(
        env->resources->lookup_or_create("_opforge_random_stream/" + *env->node_name, DType::kInt64, Shape({3}), &v));
    std::lock_guard<std::mutex> lock(v->mu);
    if (v->initialized) {
      const int64_t* p = v->value.data<int64_t>();
      s = Stream{static_cast<uint64_t>(p[0]), static_cast<uint64_t>(p[1]), static_cast<uint64_t>(p[2])};
    } else {
      init_stream(&s, seed, seed2);
    }
    Philox g(s.seed, s.seed2);
    g.skip(s.used);
    const uint64_t blocks = draw(g);
    Tensor next;
    OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt64, Shape({3}), &next));
    int64_t* q = next.data<int64_t>();
    q[0] = static_cast<int64_t>(s.seed);
    q[1] = static_cast<int64_t>(s.seed2);
    q[2] = static_cast<int64_t>(s.used + blocks);
    v->value = next;  // values are immutable: install a new tensor
    v->initialized = true;
  } else {
    std::lock_guard<std::mutex> lock(eager_mu);
    auto key = std::make_tuple(ctx.op().name, static_cast<int>(dtype), seed, seed2);
    auto it = eager_streams().find(key);
    if (it == eager_streams().end()) {
      it = eager_streams().emplace(key, Stream()).first;
      init_stream(&it->second, seed, seed2);
    }
    Philox g(it->second.seed, it->second.seed2);
    g.skip(it->second.used);
    it->second.used += draw(g);
  }
  return Status::OK();
}

// Reserves `blocks` Philox outputs of this op's stream and returns a generator at the start
// of the reservation.
inline Status reserve(KernelContext& ctx, DType dtype, int64_t seed, int64_t seed2, uint64_t blocks, Philox* out) {
  return draw_from_stream(ctx, dtype, seed, seed2, [&](Philox& g) {
    *out = g;
    return blocks;
  });
}

}  // namespace rng
}  // namespace opforge
