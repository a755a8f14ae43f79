// Shared pieces of the array kernels (slicing, joining, gathering, padding, tiling): reading
// small index tensors, strided copies between buffers (the shape-function helpers they share:
// runtime/ops/shape_util.h).
//
// Almost every array op moves elements without looking at them, so kernels work on a byte-size
// element type (Elem<T>): one instantiation per size serves every dtype of that size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_util.h"
#include "opforge/kernel.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "ops/shape_util.h"  // read_ints and the shape-function helpers

namespace opforge {
namespace array {

// A 16-byte element (complex128) moved as a unit.
struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T>
using Elem =
    std::conditional_t<sizeof(T) == 1, uint8_t,
                       std::conditional_t<sizeof(T) == 2, uint16_t,
                                          std::conditional_t<sizeof(T) == 4, uint32_t,
                                                             std::conditional_t<sizeof(T) == 8, uint64_t, Bytes16>>>>;

// Element offsets of a row-major shape.
inline std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size());
  int64_t st = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    s[static_cast<size_t>(i)] = st;
    st *= dims[static_cast<size_t>(i)];
  }
  return s;
}

// A copy of prod(dims) elements: element i (multi-index over dims) goes from
// src[src_base + sum(i_d * src_strides_d)] to dst[dst_base + sum(i_d * dst_strides_d)].
// Strides may be zero (broadcast, tile) or negative (reverse). Dims of size 1 are dropped and
// adjacent dims that stay contiguous in both buffers merged, so slices of whole rows become
// memcpy. Large copies run over the thread pool (by destination rows: no two rows overlap
// unless dst strides are zero, which callers never pass).
template <typename E>
void strided_copy(const E* src, E* dst, std::vector<int64_t> dims, std::vector<int64_t> ss, std::vector<int64_t> ds,
                  int64_t src_base = 0, int64_t dst_base = 0) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n == 0) return;
  std::vector<int64_t> D, S, T;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!D.empty() && S.back() == ss[i] * dims[i] && T.back() == ds[i] * dims[i]) {
      D.back() *= dims[i];
      S.back() = ss[i];
      T.back() = ds[i];
    } else {
      D.push_back(dims[i]);
      S.push_back(ss[i]);
      T.push_back(ds[i]);
    }
  }
  if (D.empty()) {
    dst[dst_base] = src[src_base];
    return;
  }
  const int r = static_cast<int>(D.size());
  const int64_t inner = D[r - 1], is = S[r - 1], id = T[r - 1];
  const int64_t rows = n / inner;
  constexpr bool kBytes = std::is_trivially_copyable_v<E>;  // else (std::string) element by element
  if (kBytes && r == 2 && S[0] == 0 && T[0] == inner && is == 1 && id == 1) {
    // One contiguous run repeated back to back (a bias or a mean's gradient broadcast over the
    // leading dims, a row tiled): each thread writes one copy and doubles it with memcpy,
    // rather than one copy call per (short) row.
    const E* s = src + src_base;
    E* d = dst + dst_base;
    parallel_for(rows, std::max<int64_t>(1, cpu::kGrain / inner), [&](int64_t b, int64_t e) {
      E* base = d + b * inner;
      std::memcpy(base, s, static_cast<size_t>(inner) * sizeof(E));
      for (int64_t done = 1; done < e - b;) {
        const int64_t m = std::min(done, e - b - done);
        std::memcpy(base + done * inner, base, static_cast<size_t>(m * inner) * sizeof(E));
        done += m;
      }
    });
    return;
  }
  // Work items are pieces of rows: whole rows normally, but when there are fewer rows than
  // threads (a copy that merged into one long row, e.g. a full reverse) each row is cut into
  // kGrain-sized pieces so every thread gets a share.
  const int64_t pieces = rows < num_threads() && inner >= 2 * cpu::kGrain ? (inner + cpu::kGrain - 1) / cpu::kGrain : 1;
  const int64_t piece = (inner + pieces - 1) / pieces;  // == inner when pieces == 1
  parallel_for(rows * pieces, std::max<int64_t>(1, cpu::kGrain / piece), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(static_cast<size_t>(r), 0);
    int64_t rem = b / pieces;
    for (int i = r - 2; i >= 0; --i) {
      idx[i] = rem % D[i];
      rem /= D[i];
    }
    for (int64_t item = b; item < e; ++item) {
      int64_t so = src_base, dof = dst_base;
      for (int i = 0; i < r - 1; ++i) {
        so += idx[i] * S[i];
        dof += idx[i] * T[i];
      }
      const int64_t j0 = (item % pieces) * piece, len = std::min(inner, j0 + piece) - j0;
      const E* s = src + so + j0 * is;
      E* d = dst + dof + j0 * id;
      if (kBytes && is == 1 && id == 1) {
        std::memcpy(d, s, static_cast<size_t>(len) * sizeof(E));
      } else if (is == -1 && id == 1) {  // a reversed row (ReverseV2 on the last axis): vectorizes
        for (int64_t j = 0; j < len; ++j) d[j] = s[-j];
      } else if (is == 0) {
        const E v = s[0];
        for (int64_t j = 0; j < len; ++j) d[j * id] = v;
      } else {
        for (int64_t j = 0; j < len; ++j) d[j * id] = s[j * is];
      }
      if ((item + 1) % pieces != 0) continue;  // the next piece of the same row
      for (int i = r - 2; i >= 0; --i) {
        if (++idx[i] < D[i]) break;
        idx[i] = 0;
      }
    }
  });
}

// Fills n elements with v (over the thread pool for large n).
template <typename T>
void fill_n_parallel(T* p, int64_t n, T v) {
  parallel_for(n, cpu::kGrain, [&](int64_t b, int64_t e) { std::fill(p + b, p + e, v); });
}

}  // namespace array
}  // namespace opforge
