// Semantics of the band-diagonal matrix ops (MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*,
// MatrixBandPart), shared by their shape functions (runtime/ops/matrix_band.cc) and their
// kernels (kernels/cpu/linalg/matrix_band.cc): the band k = (lo, hi) of diagonals, the length of
// each diagonal, where a diagonal shorter than the longest sits in its row (the alignment), and
// the size of the matrices MatrixDiag infers. Diagonal d holds the entries (i, j) with j - i = d;
// a band's rows run from d = hi (row 0) down to d = lo.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "opforge/status.h"

namespace opforge {
namespace matrix_band {

struct Band {
  int64_t lo = 0, hi = 0;
  // Where a short diagonal sits in its row: at the left (padding after it) or the right.
  bool left_super = true, left_sub = true;
  int64_t count() const { return hi - lo + 1; }
};

// The number of entries of diagonal d of a rows x cols matrix.
inline int64_t diag_len(int64_t d, int64_t rows, int64_t cols) {
  return std::max<int64_t>(0, std::min(rows + std::min<int64_t>(d, 0), cols - std::max<int64_t>(d, 0)));
}

// The longest diagonal of the band: the length of a row of the diagonals' tensor.
inline int64_t max_len(const Band& b, int64_t rows, int64_t cols) {
  return std::max<int64_t>(0, std::min(rows + std::min<int64_t>(b.hi, 0), cols - std::max<int64_t>(b.lo, 0)));
}

// Where diagonal d (of length len) starts in its row of max_len entries.
inline int64_t offset(const Band& b, int64_t d, int64_t len, int64_t max_len) {
  const bool left = d >= 0 ? b.left_super : b.left_sub;
  return left ? 0 : max_len - len;
}

// The first entry (row i0, column j0) of diagonal d.
inline int64_t first_row(int64_t d) { return d >= 0 ? 0 : -d; }
inline int64_t first_col(int64_t d) { return d >= 0 ? d : 0; }

// k: a scalar or a pair (lo, hi) with lo <= hi.
inline Status parse_k(const std::string& op, const std::vector<int64_t>& k, Band* b) {
  if (k.empty() || k.size() > 2) {
    return errors::InvalidArgument(op, ": k must be a scalar or a vector with at most 2 elements, got ", k.size(),
                                   " elements");
  }
  b->lo = k.front();
  b->hi = k.back();
  if (b->lo > b->hi) {
    return errors::InvalidArgument(op, ": lower diagonal index must not be larger than upper diagonal index: ", b->lo,
                                   " > ", b->hi);
  }
  return Status::OK();
}

// align: "LEFT_RIGHT" (the V3 default's mirror), "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT": the
// first word places superdiagonals, the second subdiagonals.
inline Status parse_align(const std::string& op, const std::string& align, Band* b) {
  if (align != "LEFT_RIGHT" && align != "RIGHT_LEFT" && align != "LEFT_LEFT" && align != "RIGHT_RIGHT") {
    return errors::InvalidArgument(op, ": align must be one of LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT, RIGHT_RIGHT, got '",
                                   align, "'");
  }
  b->left_super = align.compare(0, 5, "LEFT_") == 0;
  b->left_sub = align.compare(align.size() - 5, 5, "_LEFT") == 0;
  return Status::OK();
}

// Reading or writing diagonals of rows x cols matrices: each index of the band must name a
// diagonal of the matrix (or be 0), as TensorFlow requires.
inline Status check_in_matrix(const std::string& op, const Band& b, int64_t rows, int64_t cols) {
  for (int64_t d : {b.lo, b.hi}) {
    if (d != 0 && !(-rows < d && d < cols)) {
      return errors::InvalidArgument(op, ": diagonal index ", d, " is out of bounds for matrices of ", rows, " x ",
                                     cols, " (expected (", -rows, ", ", cols, "))");
    }
  }
  return Status::OK();
}

// MatrixDiag's matrix size from the diagonals' row length and num_rows / num_cols (-1: the
// smallest that holds the band, square when both are -1).
inline Status infer_size(const std::string& op, const Band& b, int64_t max_len, int64_t num_rows, int64_t num_cols,
                         int64_t* rows, int64_t* cols) {
  const int64_t min_rows = max_len - std::min<int64_t>(b.hi, 0);
  const int64_t min_cols = max_len + std::max<int64_t>(b.lo, 0);
  if (num_rows < -1 || num_cols < -1) {
    return errors::InvalidArgument(op, ": num_rows and num_cols must be -1 or non-negative, got ", num_rows, " and ",
                                   num_cols);
  }
  if (num_rows == -1 && num_cols == -1) {
    num_rows = num_cols = std::max(min_rows, min_cols);
  } else if (num_rows == -1) {
    num_rows = min_rows;
  } else if (num_cols == -1) {
    num_cols = min_cols;
  }
  if ((num_rows != min_rows && num_cols != min_cols) || num_rows < min_rows || num_cols < min_cols) {
    return errors::InvalidArgument(op, ": the number of rows or columns (", num_rows, " x ", num_cols,
                                   ") is not consistent with the diagonals k = (", b.lo, ", ", b.hi, ") of length ",
                                   max_len);
  }
  *rows = num_rows;
  *cols = num_cols;
  return Status::OK();
}

// MatrixBandPart: num_lower at most the rows, num_upper at most the columns (negative: all).
inline Status check_band_part(const std::string& op, int64_t num_lower, int64_t num_upper, int64_t rows, int64_t cols) {
  if (rows >= 0 && num_lower > rows) {
    return errors::InvalidArgument(op, ": num_lower must be negative or less or equal to number of rows (", rows,
                                   ") got: ", num_lower);
  }
  if (cols >= 0 && num_upper > cols) {
    return errors::InvalidArgument(op, ": num_upper must be negative or less or equal to number of columns (", cols,
                                   ") got: ", num_upper);
  }
  return Status::OK();
}

}  // namespace matrix_band
}  // namespace opforge
