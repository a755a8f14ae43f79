// The band-diagonal matrix ops: MatrixDiagPart, MatrixDiag, MatrixSetDiag (V1, V2 and V3) and
// MatrixBandPart. Each works on a batch of rows x cols matrices, copying elements as bytes
// (Elem<T>: one instantiation per element size), a batch of matrices per thread. The band, its
// alignment and the sizes follow runtime/ops/matrix_band.h, which the shape functions use too;
// the kernels check what they index by again, so no input reaches outside a buffer.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/array/array_util.h"
#include "opforge/complex.h"
#include "opforge/ops/linalg/matrix_band_part.h"
#include "opforge/ops/linalg/matrix_diag.h"
#include "opforge/ops/linalg/matrix_diag_part.h"
#include "opforge/ops/linalg/matrix_diag_part_v2.h"
#include "opforge/ops/linalg/matrix_diag_part_v3.h"
#include "opforge/ops/linalg/matrix_diag_v2.h"
#include "opforge/ops/linalg/matrix_diag_v3.h"
#include "opforge/ops/linalg/matrix_set_diag.h"
#include "opforge/ops/linalg/matrix_set_diag_v2.h"
#include "opforge/ops/linalg/matrix_set_diag_v3.h"
#include "ops/matrix_band.h"

namespace opforge {
namespace {

using array::Elem;
using matrix_band::Band;

// The band from k's value (nullptr: the main diagonal) and an alignment ("": LEFT_LEFT).
Status band_of(const std::string& op, const Tensor* k, const std::string& align, Band* b) {
  if (k != nullptr) {
    if (k->rank() > 1)
      return errors::InvalidArgument(op, ": k must be a scalar or a vector, got shape ", k->shape().to_string());
    std::vector<int64_t> ks;
    OPF_RETURN_IF_ERROR(array::read_ints(*k, &ks));
    OPF_RETURN_IF_ERROR(matrix_band::parse_k(op, ks, b));
  }
  if (!align.empty()) OPF_RETURN_IF_ERROR(matrix_band::parse_align(op, align, b));
  return Status::OK();
}

// Batches of matrices per parallel part: about kGrain elements each.
int64_t grain(int64_t per_batch) { return std::max<int64_t>(1, cpu::kGrain / std::max<int64_t>(1, per_batch)); }

// Diagonals of the matrices `in` (batches x rows x cols) into `out` (batches x count x len).
template <typename E>
void diag_part(const E* in, E* out, int64_t batches, int64_t rows, int64_t cols, const Band& b, int64_t len, E pad) {
  const int64_t per_in = rows * cols, per_out = b.count() * len;
  parallel_for(batches, grain(per_in + per_out), [&](int64_t b0, int64_t b1) {
    for (int64_t n = b0; n < b1; ++n) {
      const E* m = in + n * per_in;
      for (int64_t r = 0; r < b.count(); ++r) {
        const int64_t d = b.hi - r, dl = matrix_band::diag_len(d, rows, cols);
        const int64_t off = matrix_band::offset(b, d, dl, len);
        E* row = out + n * per_out + r * len;
        if (dl == 0) {  // a diagonal the matrix lacks (no pointer into it is formed)
          std::fill(row, row + len, pad);
          continue;
        }
        std::fill(row, row + off, pad);
        const E* src = m + matrix_band::first_row(d) * cols + matrix_band::first_col(d);
        for (int64_t t = 0; t < dl; ++t) row[off + t] = src[t * (cols + 1)];
        std::fill(row + off + dl, row + len, pad);
      }
    }
  });
}

// Matrices (batches x rows x cols) with the diagonals `diag` (batches x count x len) on the band
// and pad elsewhere; with `base`, the entries off the band are base's (MatrixSetDiag).
template <typename E>
void diag_fill(const E* diag, const E* base, E* out, int64_t batches, int64_t rows, int64_t cols, const Band& b,
               int64_t len, E pad) {
  const int64_t per_out = rows * cols, per_diag = b.count() * len;
  parallel_for(batches, grain(per_out + per_diag), [&](int64_t b0, int64_t b1) {
    for (int64_t n = b0; n < b1; ++n) {
      E* m = out + n * per_out;
      if (base == nullptr) {
        std::fill(m, m + per_out, pad);
      } else if (base + n * per_out != m) {
        std::copy(base + n * per_out, base + (n + 1) * per_out, m);
      }
      for (int64_t r = 0; r < b.count(); ++r) {
        const int64_t d = b.hi - r, dl = matrix_band::diag_len(d, rows, cols);
        if (dl == 0) continue;
        const E* src = diag + n * per_diag + r * len + matrix_band::offset(b, d, dl, len);
        E* dst = m + matrix_band::first_row(d) * cols + matrix_band::first_col(d);
        for (int64_t t = 0; t < dl; ++t) dst[t * (cols + 1)] = src[t];
      }
    }
  });
}

// Rows and columns of a batch-of-matrices tensor (rank >= 2, checked by the caller).
int64_t rows_of(const Tensor& t) { return t.dim(t.rank() - 2); }
int64_t cols_of(const Tensor& t) { return t.dim(t.rank() - 1); }
int64_t batches_of(const Tensor& t, int matrix_rank) {
  int64_t n = 1;
  for (int i = 0; i < t.rank() - matrix_rank; ++i) n *= t.dim(i);
  return n;
}

// ---- MatrixDiagPart*

template <typename T>
Status diag_part_kernel(KernelContext& ctx, const Tensor& input, const Tensor* k, const Tensor* padding,
                        const std::string& align, Tensor& out) {
  using E = Elem<T>;
  const std::string& op = ctx.op().name;
  if (input.rank() < 2) return ctx.error("input must be at least 2-dim, got shape ", input.shape().to_string());
  Band b;
  OPF_RETURN_IF_ERROR(band_of(op, k, align, &b));
  const int64_t rows = rows_of(input), cols = cols_of(input);
  OPF_RETURN_IF_ERROR(matrix_band::check_in_matrix(op, b, rows, cols));
  if (out.num_elements() == 0) return Status::OK();  // no loop over a batch of empty matrices
  const int64_t len = matrix_band::max_len(b, rows, cols);
  const int64_t batches = batches_of(input, 2);
  if (out.num_elements() != batches * b.count() * len) {
    return ctx.error("the diagonals have ", batches * b.count() * len, " elements, the output ", out.num_elements());
  }
  const E pad = padding != nullptr ? padding->data<E>()[0] : E{};
  diag_part<E>(input.data<E>(), out.data<E>(), batches, rows, cols, b, len, pad);
  return Status::OK();
}

template <typename T>
Status MatrixDiagPartCpu(ops::MatrixDiagPartArgs& a) {
  return diag_part_kernel<T>(a.ctx, a.input, nullptr, nullptr, "", a.diagonal);
}
template <typename T>
Status MatrixDiagPartV2Cpu(ops::MatrixDiagPartV2Args& a) {
  return diag_part_kernel<T>(a.ctx, a.input, &a.k, &a.padding_value, "", a.diagonal);
}
template <typename T>
Status MatrixDiagPartV3Cpu(ops::MatrixDiagPartV3Args& a) {
  return diag_part_kernel<T>(a.ctx, a.input, &a.k, &a.padding_value, a.align, a.diagonal);
}

// ---- MatrixDiag* (base == nullptr) and MatrixSetDiag* (base: the input)

template <typename T>
Status diag_kernel(KernelContext& ctx, const Tensor* base, const Tensor& diag, const Tensor* k, const Tensor* padding,
                   const std::string& align, Tensor& out) {
  using E = Elem<T>;
  const std::string& op = ctx.op().name;
  Band b;
  OPF_RETURN_IF_ERROR(band_of(op, k, align, &b));
  const bool band = b.lo < b.hi;
  if (diag.rank() < (band ? 2 : 1)) {
    return ctx.error("diagonal must be at least ", band ? 2 : 1, "-dim, got shape ", diag.shape().to_string());
  }
  if (out.rank() < 2) return ctx.error("the output must be at least 2-dim, got shape ", out.shape().to_string());
  if (out.num_elements() == 0) return Status::OK();  // no loop over a batch of empty matrices
  const int64_t rows = rows_of(out), cols = cols_of(out), len = diag.dim(diag.rank() - 1);
  // MatrixDiag may name diagonals outside its matrices (they are empty); MatrixSetDiag may not.
  if (base != nullptr) OPF_RETURN_IF_ERROR(matrix_band::check_in_matrix(op, b, rows, cols));
  const int64_t batches = batches_of(out, 2);
  // Every diagonal must fit its row of the diagonals, and the diagonals' tensor hold them all.
  if (matrix_band::max_len(b, rows, cols) > len || diag.num_elements() != batches * b.count() * len ||
      (band && diag.dim(diag.rank() - 2) != b.count())) {
    return ctx.error("diagonal of shape ", diag.shape().to_string(), " does not hold the diagonals k = (", b.lo, ", ",
                     b.hi, ") of ", batches, " matrices of ", rows, " x ", cols);
  }
  if (base != nullptr && base->num_elements() != out.num_elements()) {
    return ctx.error("input has ", base->num_elements(), " elements, the output ", out.num_elements());
  }
  const E pad = padding != nullptr ? padding->data<E>()[0] : E{};
  diag_fill<E>(diag.data<E>(), base != nullptr ? base->data<E>() : nullptr, out.data<E>(), batches, rows, cols, b, len,
               pad);
  return Status::OK();
}

template <typename T>
Status MatrixDiagCpu(ops::MatrixDiagArgs& a) {
  return diag_kernel<T>(a.ctx, nullptr, a.diagonal, nullptr, nullptr, "", a.output);
}
template <typename T>
Status MatrixDiagV2Cpu(ops::MatrixDiagV2Args& a) {
  return diag_kernel<T>(a.ctx, nullptr, a.diagonal, &a.k, &a.padding_value, "", a.output);
}
template <typename T>
Status MatrixDiagV3Cpu(ops::MatrixDiagV3Args& a) {
  return diag_kernel<T>(a.ctx, nullptr, a.diagonal, &a.k, &a.padding_value, a.align, a.output);
}
template <typename T>
Status MatrixSetDiagCpu(ops::MatrixSetDiagArgs& a) {
  return diag_kernel<T>(a.ctx, &a.input, a.diagonal, nullptr, nullptr, "", a.output);
}
template <typename T>
Status MatrixSetDiagV2Cpu(ops::MatrixSetDiagV2Args& a) {
  return diag_kernel<T>(a.ctx, &a.input, a.diagonal, &a.k, nullptr, "", a.output);
}
template <typename T>
Status MatrixSetDiagV3Cpu(ops::MatrixSetDiagV3Args& a) {
  return diag_kernel<T>(a.ctx, &a.input, a.diagonal, &a.k, nullptr, a.align, a.output);
}

// ---- MatrixBandPart

template <typename T>
Status MatrixBandPartCpu(ops::MatrixBandPartArgs& a) {
  using E = Elem<T>;
  const Tensor& in = a.input;
  if (in.rank() < 2) return a.ctx.error("input must be at least 2-dim, got shape ", in.shape().to_string());
  if (a.num_lower.rank() != 0 || a.num_upper.rank() != 0) return a.ctx.error("num_lower and num_upper must be scalars");
  std::vector<int64_t> lower, upper;
  OPF_RETURN_IF_ERROR(array::read_ints(a.num_lower, &lower));
  OPF_RETURN_IF_ERROR(array::read_ints(a.num_upper, &upper));
  const int64_t rows = rows_of(in), cols = cols_of(in);
  OPF_RETURN_IF_ERROR(matrix_band::check_band_part(a.ctx.op().name, lower[0], upper[0], rows, cols));
  if (in.num_elements() == 0) return Status::OK();
  const int64_t lo = lower[0] < 0 ? rows : lower[0], up = upper[0] < 0 ? cols : upper[0];
  const E* src = in.data<E>();
  E* dst = a.band.data<E>();
  const int64_t batches = batches_of(in, 2);
  parallel_for(batches * rows, grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {  // row i of matrix r / rows keeps columns [i - lo, i + up]
      const int64_t i = r % rows;
      const int64_t j0 = std::clamp<int64_t>(i - lo, 0, cols), j1 = std::clamp<int64_t>(i + up + 1, j0, cols);
      const E* s = src + r * cols;
      E* o = dst + r * cols;
      std::fill(o, o + j0, E{});
      if (s != o) std::copy(s + j0, s + j1, o + j0);
      std::fill(o + j1, o + cols, E{});
    }
  });
  return Status::OK();
}

#define OPF_BAND_TYPES \
  bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double, complex64, complex128

}  // namespace

OPFORGE_REGISTER_KERNEL(MatrixDiagPart, CPU, MatrixDiagPartCpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixDiagPartV2, CPU, MatrixDiagPartV2Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixDiagPartV3, CPU, MatrixDiagPartV3Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixDiag, CPU, MatrixDiagCpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixDiagV2, CPU, MatrixDiagV2Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixDiagV3, CPU, MatrixDiagV3Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixSetDiag, CPU, MatrixSetDiagCpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixSetDiagV2, CPU, MatrixSetDiagV2Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixSetDiagV3, CPU, MatrixSetDiagV3Cpu, OPF_BAND_TYPES)
OPFORGE_REGISTER_KERNEL(MatrixBandPart, CPU, MatrixBandPartCpu, OPF_BAND_TYPES)

}  // namespace opforge
