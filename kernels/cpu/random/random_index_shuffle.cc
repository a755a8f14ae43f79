// RandomIndexShuffle: TensorFlow's bijective index permutation (its random_index_shuffle.cc),
// value for value. A Simon block cipher (Beaulieu et al., "The SIMON and SPECK Families of
// Lightweight Block Ciphers", 2013) on 2W-bit blocks, W = half the smallest even width >= 16
// that holds ceil(log2(max_index)) bits, keyed by the seed's three words (truncated to W bits)
// and TensorFlow's key schedule, is applied to the index until the result is <= max_index
// (cycle walking: Black and Rogaway, "Ciphers with Arbitrary Finite Domains", 2002).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "opforge/ops/random/random_index_shuffle.h"

namespace opforge {
namespace {

class Simon {
 public:
  Simon(int w, const std::array<uint32_t, 3>& key, int rounds) : w_(w), mask_((uint64_t{1} << w) - 1) {
    uint64_t z = 0x7369f885192c0ef5ULL & mask_;
    const uint64_t c = 0xfffffffcULL & mask_;
    keys_ = {key[0] & mask_, key[1] & mask_, key[2] & mask_};
    for (int i = 3; i < rounds; ++i) {
      const uint64_t prev = keys_[static_cast<size_t>(i - 1)];
      keys_.push_back(c ^ (z & 1) ^ keys_[static_cast<size_t>(i - 3)] ^ rotr(prev, 3) ^ rotr(prev, 4));
      z >>= 1;
    }
  }

  uint64_t encrypt(uint64_t value) const {
    uint64_t left = (value >> w_) & mask_, right = value & mask_;
    for (size_t i = 0; i + 1 < keys_.size(); i += 2) {  // two Feistel rounds per step
      left ^= f(right) ^ keys_[i];
      right ^= f(left) ^ keys_[i + 1];
    }
    return (left << w_) | right;
  }

 private:
  uint64_t rotl(uint64_t x, int r) const { return ((x << r) | (x >> (w_ - r))) & mask_; }
  uint64_t rotr(uint64_t x, int r) const { return ((x >> r) | (x << (w_ - r))) & mask_; }
  uint64_t f(uint64_t x) const { return (rotl(x, 1) & rotl(x, 8)) ^ rotl(x, 2); }

  int w_;
  uint64_t mask_;
  std::vector<uint64_t> keys_;
};

uint64_t index_shuffle(uint64_t index, const std::array<uint32_t, 3>& key, uint64_t max_index, int rounds) {
  if (max_index == 0) return 0;
  int block = static_cast<int>(std::ceil(std::log2(static_cast<double>(max_index))));
  block = std::max(block + block % 2, 16);
  const Simon cipher(std::min(block, 64) / 2, key, rounds);
  uint64_t v = index;
  do {
    v = cipher.encrypt(v);
  } while (v > max_index);
  return v;
}

template <typename T>
Status RandomIndexShuffleCpu(ops::RandomIndexShuffleArgs& a) {
  const Tensor &index = a.index, &seed = a.seed, &max_index = a.max_index;
  if (a.rounds < 4 || a.rounds % 2 != 0) {
    return a.ctx.error("rounds must be even and at least 4, got ", a.rounds);
  }
  const int64_t n = std::max({index.num_elements(), max_index.num_elements(), seed.num_elements() / 3});
  if (index.rank() > 1 || (index.rank() == 1 && index.dim(0) != n)) {
    return a.ctx.error("index must be a scalar or a vector of ", n, " elements, got shape ", index.shape().to_string());
  }
  if (!((seed.rank() == 1 && seed.dim(0) == 3) || (seed.rank() == 2 && seed.dim(0) == n && seed.dim(1) == 3))) {
    return a.ctx.error("Seed must be a vector of size [3] or a matrix of size [", n, ", 3] but got ",
                       seed.shape().to_string());
  }
  if (max_index.rank() > 1 || (max_index.rank() == 1 && max_index.dim(0) != n)) {
    return a.ctx.error("max_index must be a scalar or a vector of ", n, " elements, got shape ",
                       max_index.shape().to_string());
  }
  const T* in = index.data<T>();
  const T* top = max_index.data<T>();
  T* out = a.output.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = seed.rank() == 1 ? 0 : i;
    std::array<uint32_t, 3> key;
    for (int k = 0; k < 3; ++k) {
      key[static_cast<size_t>(k)] = seed.dtype() == DType::kInt32
                                        ? static_cast<uint32_t>(seed.data<int32_t>()[3 * row + k])
                                        : static_cast<uint32_t>(seed.data<int64_t>()[3 * row + k]);
    }
    const T idx = in[index.rank() ? i : 0], hi = top[max_index.rank() ? i : 0];
    if (hi < 0 || idx < 0 || idx > hi) {  // outside, cycle walking might never come back (TensorFlow hangs)
      return a.ctx.error("index ", idx, " must be within [0, max_index = ", hi, "] (element ", i, ")");
    }
    out[i] = static_cast<T>(
        index_shuffle(static_cast<uint64_t>(idx), key, static_cast<uint64_t>(hi), static_cast<int>(a.rounds)));
  }
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(RandomIndexShuffle, CPU, RandomIndexShuffleCpu, int32_t, int64_t)

}  // namespace opforge
