// The shape functions of the linear-algebra ops (opdefs/linalg/; kernels in kernels/cpu/linalg/).
// Every op works on batches of matrices: the last two dims are the matrix, the leading dims a
// batch. Partially known shapes propagate as in TensorFlow: a square matrix's two dims merge
// (a known one fills an unknown one), so [?, 3, ?] is known to hold 3 x 3 matrices.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using nn::attr;

constexpr int64_t kUnknown = Shape::kUnknownDim;

// A batch of matrices: the batch dims and the matrix's rows and columns (kUnknown where
// unknown). `known` is false for an unknown rank (then nothing else is set).
struct Matrices {
  bool known = false;
  std::vector<int64_t> batch;
  int64_t rows = kUnknown, cols = kUnknown;
};

Status matrices_of(ShapeContext& c, int arg, Matrices* m) {
  const Shape& s = c.input_shape(arg);
  if (s.unknown_rank()) return Status::OK();
  const char* name = c.op().inputs[static_cast<size_t>(arg)].name.c_str();
  if (s.rank() < 2) return c.error(name, " must have rank >= 2 (a batch of matrices), got shape ", s.to_string());
  m->known = true;
  m->batch.assign(s.dims().begin(), s.dims().end() - 2);
  m->rows = s.dim(s.rank() - 2);
  m->cols = s.dim(s.rank() - 1);
  return Status::OK();
}

// Merges two dims that must be equal: a known one wins over an unknown one.
Status merge_dim(ShapeContext& c, int64_t a, int64_t b, int64_t* out, const char* what) {
  if (a >= 0 && b >= 0 && a != b) return c.error(what, ": dimensions must be equal, but are ", a, " and ", b);
  *out = a >= 0 ? a : b;
  return Status::OK();
}

// A batch of square matrices: rows and columns merged into `n`.
Status square_of(ShapeContext& c, int arg, Matrices* m, int64_t* n) {
  OPF_RETURN_IF_ERROR(matrices_of(c, arg, m));
  if (!m->known) return Status::OK();
  const Shape& s = c.input_shape(arg);
  if (m->rows >= 0 && m->cols >= 0 && m->rows != m->cols) {
    return c.error(c.op().inputs[static_cast<size_t>(arg)].name, " must be a batch of square matrices, got shape ",
                   s.to_string());
  }
  *n = m->rows >= 0 ? m->rows : m->cols;
  return Status::OK();
}

Shape with(std::vector<int64_t> batch, std::initializer_list<int64_t> tail) {
  batch.insert(batch.end(), tail.begin(), tail.end());
  return Shape(std::move(batch));
}

int64_t min_dim(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return (a >= 0 && b >= 0) ? std::min(a, b) : kUnknown;
}

// ---- MatrixInverse, Cholesky: [..., M, M] -> [..., M, M]

Status SquareShape(ShapeContext& c) {
  Matrices m;
  int64_t n = kUnknown;
  OPF_RETURN_IF_ERROR(square_of(c, 0, &m, &n));
  c.set_output(0, m.known ? with(m.batch, {n, n}) : Shape::UnknownRank());
  return Status::OK();
}

// ---- MatrixDeterminant, LogMatrixDeterminant: [..., M, M] -> [...] (each output)

Status DeterminantShape(ShapeContext& c) {
  Matrices m;
  int64_t n = kUnknown;
  OPF_RETURN_IF_ERROR(square_of(c, 0, &m, &n));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, m.known ? Shape(m.batch) : Shape::UnknownRank());
  return Status::OK();
}

// ---- SelfAdjointEigV2: e [..., M], v [..., M, M] (or [0] without compute_v)

Status EigShape(ShapeContext& c) {
  Matrices m;
  int64_t n = kUnknown;
  OPF_RETURN_IF_ERROR(square_of(c, 0, &m, &n));
  c.set_output(0, m.known ? with(m.batch, {n}) : Shape::UnknownRank());
  if (!attr(c, "compute_v").b) {
    c.set_output(1, Shape({0}));
  } else {
    c.set_output(1, m.known ? with(m.batch, {n, n}) : Shape::UnknownRank());
  }
  return Status::OK();
}

// ---- MatrixSolve (equal batch dims) and MatrixTriangularSolve (broadcast batch dims):
// matrix [..., M, M], rhs [..., M, K] -> [..., M, K]

Status SolveShape(ShapeContext& c, bool broadcast_batch) {
  Matrices a, b;
  int64_t n = kUnknown;
  OPF_RETURN_IF_ERROR(square_of(c, 0, &a, &n));
  OPF_RETURN_IF_ERROR(matrices_of(c, 1, &b));
  if (!a.known || !b.known) {
    // Equal batch dims: the output has rhs's shape, or matrix's batch and rows.
    Shape out = Shape::UnknownRank();
    if (!broadcast_batch && b.known) out = with(b.batch, {b.rows, b.cols});
    if (!broadcast_batch && a.known) out = with(a.batch, {n, kUnknown});
    c.set_output(0, std::move(out));
    return Status::OK();
  }
  int64_t rows = kUnknown;
  OPF_RETURN_IF_ERROR(merge_dim(c, n, b.rows, &rows, "the rows of matrix and rhs"));
  std::vector<int64_t> batch;
  if (broadcast_batch) {
    Shape out;
    OPF_RETURN_IF_ERROR(broadcast_shapes(Shape(a.batch), Shape(b.batch), &out, c.op().name));
    batch = out.dims();
  } else {
    if (a.batch.size() != b.batch.size()) {
      return c.error("matrix and rhs must have the same batch dimensions, got shapes ", c.input_shape(0).to_string(),
                     " and ", c.input_shape(1).to_string());
    }
    batch.resize(a.batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      OPF_RETURN_IF_ERROR(merge_dim(c, a.batch[i], b.batch[i], &batch[i], "the batch dimensions of matrix and rhs"));
    }
  }
  c.set_output(0, with(batch, {rows, b.cols}));
  return Status::OK();
}

// ---- Qr: q [..., M, P] and r [..., P, N], or [..., M, M] and [..., M, N] with full_matrices

Status QrShape(ShapeContext& c) {
  Matrices m;
  OPF_RETURN_IF_ERROR(matrices_of(c, 0, &m));
  if (!m.known) {
    c.set_output(0, Shape::UnknownRank());
    c.set_output(1, Shape::UnknownRank());
    return Status::OK();
  }
  const int64_t p = min_dim(m.rows, m.cols);
  const bool full = attr(c, "full_matrices").b;
  c.set_output(0, with(m.batch, {m.rows, full ? m.rows : p}));
  c.set_output(1, with(m.batch, {full ? m.rows : p, m.cols}));
  return Status::OK();
}

// ---- Svd: s [..., P]; u [..., M, P] and v [..., N, P], or [..., M, M] and [..., N, N] with
// full_matrices; u and v [0] without compute_uv

Status SvdShape(ShapeContext& c) {
  Matrices m;
  OPF_RETURN_IF_ERROR(matrices_of(c, 0, &m));
  const bool uv = attr(c, "compute_uv").b, full = attr(c, "full_matrices").b;
  const int64_t p = min_dim(m.rows, m.cols);
  c.set_output(0, m.known ? with(m.batch, {p}) : Shape::UnknownRank());
  if (!uv) {
    c.set_output(1, Shape({0}));
    c.set_output(2, Shape({0}));
  } else if (!m.known) {
    c.set_output(1, Shape::UnknownRank());
    c.set_output(2, Shape::UnknownRank());
  } else {
    c.set_output(1, with(m.batch, {m.rows, full ? m.rows : p}));
    c.set_output(2, with(m.batch, {m.cols, full ? m.cols : p}));
  }
  return Status::OK();
}

[[maybe_unused]] const bool linalg_shapes_registered = [] {
  shape_fns::register_custom("MatrixInverse", SquareShape);
  shape_fns::register_custom("Cholesky", SquareShape);
  shape_fns::register_custom("MatrixSquareRoot", SquareShape);
  shape_fns::register_custom("MatrixDeterminant", DeterminantShape);
  shape_fns::register_custom("LogMatrixDeterminant", DeterminantShape);
  shape_fns::register_custom("SelfAdjointEigV2", EigShape);
  shape_fns::register_custom("MatrixSolve", [](ShapeContext& c) { return SolveShape(c, false); });
  shape_fns::register_custom("MatrixTriangularSolve", [](ShapeContext& c) { return SolveShape(c, true); });
  shape_fns::register_custom("Qr", QrShape);
  shape_fns::register_custom("Svd", SvdShape);
  return true;
}();

// ---- Lu: [..., M, M] -> lu [..., M, M], p [..., M]
Status LuShape(ShapeContext& c) {
  Matrices m;
  int64_t n = kUnknown;
  OPF_RETURN_IF_ERROR(square_of(c, 0, &m, &n));
  c.set_output(0, m.known ? with(m.batch, {n, n}) : Shape::UnknownRank());
  c.set_output(1, m.known ? with(m.batch, {n}) : Shape::UnknownRank());
  return Status::OK();
}

[[maybe_unused]] const bool lu_shape_registered = [] {
  shape_fns::register_custom("Lu", LuShape);
  return true;
}();

}  // namespace
}  // namespace opforge
