// Transpose: a strided copy. Dtype only matters through its byte size, so one instantiation
// per size serves all ten dtypes (the registration still lists each dtype). Input dims that stay adjacent and in order
// under the permutation are merged first, which turns many permutations into a 2-D transpose.
#include <cstring>
#include <vector>

#include "opforge/complex.h"
#include "cpu/cpu_util.h"
#include "opforge/ops/array/transpose.h"

namespace opforge {
namespace {

template <typename E>
void permute(const E* in, E* out, const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
             int64_t n) {
  const int r = static_cast<int>(out_dims.size());
  const int64_t inner = out_dims[r - 1], istride = in_strides[r - 1];
  const int64_t rows = n / inner;
  parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / inner), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(static_cast<size_t>(r), 0);
    int64_t rem = b;
    for (int i = r - 2; i >= 0; --i) {
      idx[i] = rem % out_dims[i];
      rem /= out_dims[i];
    }
    for (int64_t row = b; row < e; ++row) {
      int64_t off = 0;
      for (int i = 0; i < r - 1; ++i) off += idx[i] * in_strides[i];
      E* o = out + row * inner;
      const E* src = in + off;
      for (int64_t j = 0; j < inner; ++j) o[j] = src[j * istride];
      for (int i = r - 2; i >= 0; --i) {
        if (++idx[i] < out_dims[i]) break;
        idx[i] = 0;
      }
    }
  });
}

template <typename T>
Status TransposeCpu(ops::TransposeArgs& a) {
  std::vector<int64_t> perm;
  OPF_RETURN_IF_ERROR(read_int_vector(a.perm, &perm));
  const Shape& s = a.x.shape();
  for (int64_t& p : perm) {
    if (p < 0) p += s.rank();  // as the shape function: counted from the end (TensorFlow)
  }
  const int64_t n = a.x.num_elements();
  if (n == 0) return Status::OK();
  // Merge runs perm[i+1] == perm[i] + 1 (and drop size-1 dims).
  std::vector<int64_t> in_strides_full(static_cast<size_t>(s.rank()));
  int64_t st = 1;
  for (int i = s.rank() - 1; i >= 0; --i) {
    in_strides_full[i] = st;
    st *= s.dim(i);
  }
  std::vector<int64_t> dims, strides;
  int prev = -2;
  for (int64_t p : perm) {
    int64_t d = s.dim(static_cast<int>(p));
    if (d == 1) continue;
    if (!dims.empty() && p == prev + 1 && in_strides_full[prev] == d * in_strides_full[p]) {
      dims.back() *= d;
      strides.back() = in_strides_full[p];
    } else {
      dims.push_back(d);
      strides.push_back(in_strides_full[p]);
    }
    prev = static_cast<int>(p);
  }
  if (dims.empty() || (dims.size() == 1 && strides[0] == 1)) {
    std::memcpy(a.y.raw_data(), a.x.raw_data(), a.x.nbytes());
    return Status::OK();
  }
  using E = std::conditional_t<sizeof(T) == 1, uint8_t,
                               std::conditional_t<sizeof(T) == 2, uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, uint32_t,
                                                                     std::conditional_t<sizeof(T) == 8, uint64_t, T>>>>;
  permute<E>(static_cast<const E*>(a.x.raw_data()), static_cast<E*>(a.y.raw_data()), dims, strides, n);
  return Status::OK();
}

}  // namespace

OPFORGE_REGISTER_KERNEL(Transpose, CPU, TransposeCpu, bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half,
                        float, double)

// complex64 / complex128 (opforge/complex.h)
OPFORGE_REGISTER_KERNEL(Transpose, CPU, TransposeCpu, complex64, complex128)

}  // namespace opforge
