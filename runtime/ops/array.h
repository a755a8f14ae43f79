// Semantics of the array ops that both their shape functions (runtime/ops/) and their kernels
// use: argument parsing and output geometry, defined once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/tensor.h"

namespace opforge {
namespace array_semantics {

// Resolved dims of a gather: params [B, O, A, I], indices [B, N], output [B, O, N, I].
struct GatherDims {
  int axis = 0, batch_dims = 0;
};

// Whether an element counts as true (Where); 16-bit floats compare in float.
template <typename T>
bool nonzero(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v;
  else if constexpr (std::is_arithmetic_v<T>)
    return v != T(0);
  else
    return static_cast<float>(v) != 0.0f;
}

struct Masks {
  int64_t begin, end, ellipsis, new_axis, shrink;
};

// The dense form of a strided slice of `in`: per input dim a start, stride and count, and the
// output shape (new axes added, shrunk axes dropped). Dims of `in` may be unknown (-1): their
// counts are -1 then (and shrinks are not bounds-checked).
struct DenseSlice {
  std::vector<int64_t> start, stride, count, out_dims;
};

inline Status dense_slice(const std::string& op, const Shape& in, const std::vector<int64_t>& b,
                          const std::vector<int64_t>& e, const std::vector<int64_t>& st, const Masks& m,
                          DenseSlice* out) {
  auto err = [&](auto... args) { return errors::InvalidArgument(op, ": ", args...); };
  const size_t n = b.size();
  if (e.size() != n || st.size() != n) {
    return err("begin, end and strides must have the same length, got ", b.size(), ", ", e.size(), " and ", st.size());
  }
  if (n > 64) return err("at most 64 slice specs are supported, got ", n);
  auto bit = [](int64_t mask, size_t i) { return ((static_cast<uint64_t>(mask) >> i) & 1) != 0; };
  const int rank = in.rank();
  int consuming = 0;
  int ellipses = 0;
  for (size_t i = 0; i < n; ++i) {
    if (bit(m.ellipsis, i))
      ++ellipses;
    else if (!bit(m.new_axis, i))
      ++consuming;
  }
  if (ellipses > 1) return err("multiple ellipses in slice spec are not allowed");
  if (consuming > rank) {
    return err("too many indices: the slice has ", consuming, " indexing specs for a tensor of rank ", rank);
  }
  DenseSlice& d = *out;
  d = DenseSlice();
  int dim = 0;
  auto full = [&](int k) {
    const int64_t D = in.dim(k);
    d.start.push_back(0);
    d.stride.push_back(1);
    d.count.push_back(D);
    d.out_dims.push_back(D);
  };
  for (size_t i = 0; i <= n; ++i) {
    if (i == n) {  // an implicit ellipsis at the end covers the remaining dims
      if (ellipses == 0)
        while (dim < rank) full(dim++);
      break;
    }
    if (bit(m.ellipsis, i)) {
      const int cover = rank - consuming;
      for (int k = 0; k < cover; ++k) full(dim++);
      continue;
    }
    if (bit(m.new_axis, i)) {
      d.out_dims.push_back(1);
      continue;
    }
    const int64_t D = in.dim(dim);
    const int64_t s = st[i];
    if (s == 0) return err("strides[", i, "] must be non-zero");
    if (bit(m.shrink, i)) {
      if (s < 0) return err("only stride 1 allowed on non-range indexing (strides[", i, "] = ", s, ")");
      int64_t x = b[i];
      if (D >= 0) {
        if (x < 0) x += D;
        if (x < 0 || x >= D) {
          return err("slice index ", b[i], " of dimension ", dim, " out of bounds (size ", D, ")");
        }
      }
      d.start.push_back(x);
      d.stride.push_back(1);
      d.count.push_back(1);
      ++dim;
      continue;
    }
    if (D < 0) {
      d.start.push_back(0);
      d.stride.push_back(s);
      d.count.push_back(-1);
      d.out_dims.push_back(-1);
      ++dim;
      continue;
    }
    // Python's slice semantics: negative values count from the end; out-of-range values clamp.
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? D : D - 1;
    auto canon = [&](int64_t x, bool masked, bool is_end) {
      if (masked) return (s > 0) == is_end ? hi : lo;
      if (x < 0) x = x < std::numeric_limits<int64_t>::min() + D ? lo : x + D;
      return std::min(std::max(x, lo), hi);
    };
    const int64_t bb = canon(b[i], bit(m.begin, i), false);
    const int64_t ee = canon(e[i], bit(m.end, i), true);
    // ceil(span / |s|), without overflowing span + |s| - 1 or -INT64_MIN
    const uint64_t as = s > 0 ? static_cast<uint64_t>(s) : static_cast<uint64_t>(-(s + 1)) + 1;
    const int64_t span = s > 0 ? ee - bb : bb - ee;
    const int64_t cnt = span > 0 ? static_cast<int64_t>((static_cast<uint64_t>(span) - 1) / as + 1) : 0;
    d.start.push_back(cnt > 0 ? bb : 0);
    d.stride.push_back(s);
    d.count.push_back(cnt);
    d.out_dims.push_back(cnt);
    ++dim;
  }
  return Status::OK();
}

inline Status reverse_axes(const std::string& op, const std::vector<int64_t>& axes, int rank, std::vector<bool>* rev) {
  rev->assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument(op, ": axis ", a, " is out of range for a tensor of rank ", rank, " (expected [",
                                     -rank, ", ", rank, "))");
    }
    const size_t k = static_cast<size_t>(a < 0 ? a + rank : a);
    if ((*rev)[k]) return errors::InvalidArgument(op, ": axis ", k, " is specified more than once");
    (*rev)[k] = true;
  }
  return Status::OK();
}

// The block shape and the [M, 2] paddings (crops), checked against the input's shape.
struct Blocks {
  std::vector<int64_t> block;
  std::vector<int64_t> before, after;
};

template <typename Ctx>
Status parse_blocks(const Ctx& c, const Shape& input, const std::vector<int64_t>& block_values, const Shape& pads_shape,
                    const std::vector<int64_t>& pad_values, const char* pads_name, Blocks* out) {
  const int64_t m = static_cast<int64_t>(block_values.size());
  if (m < 1) return c.error("block_shape must have at least one element");
  if (!pads_shape.unknown_rank() && (pads_shape.rank() != 2 || pads_shape.dim(0) != m || pads_shape.dim(1) != 2)) {
    return c.error(pads_name, " must have shape [", m, ", 2], got ", pads_shape.to_string());
  }
  if (!input.unknown_rank() && input.rank() < m + 1) {
    return c.error("input rank should be >= ", m + 1, " instead of ", input.rank());
  }
  out->block = block_values;
  for (int64_t i = 0; i < m; ++i) {
    if (block_values[static_cast<size_t>(i)] < 1) {
      return c.error("block_shape values must be >= 1, got ", block_values[static_cast<size_t>(i)]);
    }
    const int64_t b = pad_values[static_cast<size_t>(2 * i)], a = pad_values[static_cast<size_t>(2 * i + 1)];
    if (b < 0 || a < 0) return c.error(pads_name, " must be non-negative, got ", b, " and ", a);
    out->before.push_back(b);
    out->after.push_back(a);
  }
  return Status::OK();
}

// The output shape of SpaceToBatchND (to_batch) or BatchToSpaceND; -1 where unknown.
template <typename Ctx>
Status output_shape(const Ctx& c, const Shape& in, const Blocks& k, bool to_batch, Shape* out) {
  if (in.unknown_rank()) {
    *out = Shape::UnknownRank();
    return Status::OK();
  }
  const size_t m = k.block.size();
  int64_t prod = 1;
  for (int64_t b : k.block) prod *= b;
  std::vector<int64_t> dims = in.dims();
  if (to_batch) {
    if (dims[0] >= 0) dims[0] *= prod;
    for (size_t i = 0; i < m; ++i) {
      int64_t& d = dims[i + 1];
      if (d < 0) continue;
      const int64_t padded = d + k.before[i] + k.after[i];
      if (padded % k.block[i] != 0) {
        return c.error("padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i, "]=", k.block[i]);
      }
      d = padded / k.block[i];
    }
  } else {
    if (dims[0] >= 0) {
      if (dims[0] % prod != 0) {
        return c.error("Input batch dimension (", dims[0], ") is not divisible by product of block sizes (", prod, ")");
      }
      dims[0] /= prod;
    }
    for (size_t i = 0; i < m; ++i) {
      int64_t& d = dims[i + 1];
      if (d < 0) continue;
      const int64_t full = d * k.block[i];
      if (k.before[i] + k.after[i] > full) {
        return c.error("crops must be less than or equal to the uncropped size: crop ", k.before[i], "+", k.after[i],
                       " of ", full, " in dimension ", i + 1);
      }
      d = full - k.before[i] - k.after[i];
    }
  }
  *out = Shape(dims);
  return Status::OK();
}

}  // namespace array_semantics
}  // namespace opforge
