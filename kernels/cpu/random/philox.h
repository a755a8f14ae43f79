// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
// counter-based generator TensorFlow's random ops use, with TensorFlow's seeding and its
// conversions from 32-bit words to floats (uniform: the mantissa bits; normal: Box-Muller).
//
// A stream is a 64-bit key and a 128-bit counter; each call returns four 32-bit words for the
// current counter and advances it by one. Skipping ahead is an addition, so disjoint parts of
// an output can be generated in parallel and still equal the sequential result.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace opforge {
namespace rng {

class Philox {
 public:
  using Result = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  Philox() = default;
  // TensorFlow's PhiloxRandom(seed_lo, seed_hi): the key from seed, the counter's high half
  // from seed2.
  Philox(uint64_t seed, uint64_t seed2) {
    key_ = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    counter_ = {0, 0, static_cast<uint32_t>(seed2), static_cast<uint32_t>(seed2 >> 32)};
  }
  Philox(Result counter, Key key) : counter_(counter), key_(key) {}

  // Advances the counter by n (128-bit addition).
  void skip(uint64_t n) {
    const uint32_t lo = static_cast<uint32_t>(n);
    uint32_t hi = static_cast<uint32_t>(n >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

  Result operator()() {
    Result c = counter_;
    Key k = key_;
    for (int r = 0; r < 10; ++r) {
      c = round(c, k);
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    skip(1);
    return c;
  }

 private:
  static Result round(const Result& c, const Key& k) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }

  Result counter_{};
  Key key_{};
};

// Draws 32-bit words one at a time from a Philox stream (TensorFlow's SingleSampleAdapter).
class SingleSample {
 public:
  explicit SingleSample(Philox g) : g_(g) {}
  uint32_t operator()() {
    if (used_ == 4) {
      buf_ = g_();
      used_ = 0;
    }
    return buf_[used_++];
  }

 private:
  Philox g_;
  Philox::Result buf_{};
  int used_ = 4;
};

// TensorFlow's key derivation for the stateless ops: the two seed words are scrambled
// through one Philox call so that every bit of both matters.
inline Philox stateless_philox(uint64_t seed0, uint64_t seed1) {
  Philox::Result counter = {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
                            static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
  Philox::Key key = {0x3ec8f720u, 0x02461e29u};
  const Philox::Result mix = Philox(counter, key)();
  return Philox({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// [0, 1) from the low 23 bits (float), 52 bits of two words (double).
inline float uint32_to_float(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

inline double uint64_to_double(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (uint64_t{x0 & 0xfffffu} << 32) | x1;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

// Two standard normals from two (float) or four (double) words.
inline void box_muller_float(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  // 2 pi * u in double, rounded once, as TensorFlow's BoxMullerFloat (2.0f * M_PI is a double).
  const float v1 = static_cast<float>(2.0 * M_PI * static_cast<double>(uint32_to_float(x1)));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}

inline void box_muller_double(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0, double* d1) {
  double u1 = uint64_to_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * M_PI * uint64_to_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

}  // namespace rng
}  // namespace opforge
