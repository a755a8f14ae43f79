// SobolSample: points of the Sobol sequence from Joe and Kuo's direction numbers (the table in
// sobol_joe_kuo.inc, written by tools/make_sobol_table.py), as TensorFlow's kernel gives them:
// output row r is point r + skip + 1 in Gray-code order (Antonov and Saleev), whose coordinate j
// is the XOR of the direction numbers v_jk = m_jk / 2^(k+1) of the set bits k of the Gray code
// (Joe and Kuo, "Notes on generating Sobol sequences", 2008).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/ops/math/sobol_sample.h"

namespace opforge {
namespace {

#include "cpu/random/sobol_joe_kuo.inc"

constexpr int kBits = 31;  // points are multiples of 2^-31 below 1: int32 ranks, as TensorFlow's

// Where each dimension's row (polynomial, then m_1 .. m_s) starts in kSobolTable; dimension 0 has none.
const std::vector<size_t>& row_offsets() {
  static const std::vector<size_t> offsets = [] {
    std::vector<size_t> o(kSobolTableDims, 0);
    size_t at = 0;
    for (int j = 1; j < kSobolTableDims; ++j) {
      o[static_cast<size_t>(j)] = at;
      int s = 0;
      for (uint32_t p = kSobolTable[at]; p > 1; p >>= 1) ++s;  // the polynomial's degree
      at += 1 + static_cast<size_t>(s);
    }
    return o;
  }();
  return offsets;
}

// The direction numbers of dimension j, scaled to kBits bits: v[k] = m_k << (kBits - 1 - k).
void directions(int j, uint32_t* v) {
  uint32_t m[kBits];
  if (j == 0) {
    for (int k = 0; k < kBits; ++k) m[k] = 1;
  } else {
    const uint32_t* row = kSobolTable + row_offsets()[static_cast<size_t>(j)];
    const uint32_t poly = row[0];
    int s = 0;
    for (uint32_t p = poly; p > 1; p >>= 1) ++s;
    for (int k = 0; k < kBits; ++k) {
      if (k < s) {
        m[k] = row[1 + k];
        continue;
      }
      uint32_t x = m[k - s] ^ (m[k - s] << s);
      for (int i = 1; i < s; ++i) {
        if ((poly >> (s - i)) & 1u) x ^= m[k - i] << i;
      }
      m[k] = x;
    }
  }
  for (int k = 0; k < kBits; ++k) v[k] = m[k] << (kBits - 1 - k);
}

template <typename T>
Status SobolSampleCpu(ops::SobolSampleArgs& a) {
  const int64_t dim = a.dim.data<int32_t>()[0], n = a.num_results.data<int32_t>()[0], skip = a.skip.data<int32_t>()[0];
  if (dim < 1 || dim > kSobolTableDims || n < 1 || skip < 0 || n >= INT32_MAX - skip) {
    return a.ctx.error("dim must be in [1, ", kSobolTableDims,
                       "], num_results at least one and skip non-negative, got ", dim, ", ", n, ", ", skip);
  }
  std::vector<uint32_t> v(static_cast<size_t>(dim * kBits));
  for (int64_t j = 0; j < dim; ++j) directions(static_cast<int>(j), v.data() + j * kBits);
  T* out = a.samples.data<T>();
  const T scale = T(1) / T(uint64_t{1} << kBits);
  parallel_for(n, std::max<int64_t>(1, 4096 / dim), [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> x(static_cast<size_t>(dim), 0);
    const uint64_t first = static_cast<uint64_t>(begin + skip + 1), gray = first ^ (first >> 1);
    for (int k = 0; k < kBits; ++k) {
      if ((gray >> k) & 1u) {
        for (int64_t j = 0; j < dim; ++j) x[static_cast<size_t>(j)] ^= v[static_cast<size_t>(j * kBits + k)];
      }
    }
    for (int64_t r = begin; r < end; ++r) {
      if (r > begin) {  // the Gray code of the next point differs in the lowest zero bit of the last index
        uint64_t i = static_cast<uint64_t>(r + skip);
        int k = 0;
        while (i & 1u) {
          i >>= 1;
          ++k;
        }
        for (int64_t j = 0; j < dim; ++j) x[static_cast<size_t>(j)] ^= v[static_cast<size_t>(j * kBits + k)];
      }
      for (int64_t j = 0; j < dim; ++j) out[r * dim + j] = static_cast<T>(x[static_cast<size_t>(j)]) * scale;
    }
  });
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(SobolSample, CPU, SobolSampleCpu, float, double)

}  // namespace opforge
