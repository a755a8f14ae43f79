// The shape functions of the band-diagonal matrix ops (opdefs/linalg/matrix_*; semantics in
// matrix_band.h, kernels in kernels/cpu/linalg/matrix_band.cc). Each comes in TensorFlow's
// three versions: V1 (the main diagonal), V2 (a band k, diagonals aligned LEFT_LEFT) and V3 (an
// `align` attr). k, num_rows and num_cols are inputs: where their values are unknown when the
// graph is built, so is the output's shape (its rank too where it depends on k).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/matrix_band.h"
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

using matrix_band::Band;

constexpr int64_t kUnknown = Shape::kUnknownDim;
constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();  // an input value not yet known

// The band of the op: k's value (input k_arg; V1 ops, k_arg < 0, have the main diagonal) and
// the alignment (V3's attr; V1 and V2 read LEFT_LEFT). known: whether k's value is known.
Status band_of(ShapeContext& c, int k_arg, Band* b, bool* known) {
  *known = true;
  if (k_arg >= 0) {
    const Shape& ks = c.input_shape(k_arg);
    if (!ks.unknown_rank() && ks.rank() > 1)
      return c.error("k must be a scalar or a vector, got shape ", ks.to_string());
    std::vector<int64_t> k;
    OPF_RETURN_IF_ERROR(array::known_ints(c, k_arg, &k, known));
    if (*known) OPF_RETURN_IF_ERROR(matrix_band::parse_k(c.op().name, k, b));
  }
  const std::string& align = nn::attr(c, "align").s;
  if (!align.empty()) OPF_RETURN_IF_ERROR(matrix_band::parse_align(c.op().name, align, b));
  return Status::OK();
}

Status min_rank(ShapeContext& c, int arg, int want) {
  const Shape& s = c.input_shape(arg);
  if (!s.unknown_rank() && s.rank() < want) {
    return c.error(c.op().inputs[static_cast<size_t>(arg)].name, " must be at least ", want, "-dim, got shape ",
                   s.to_string());
  }
  return Status::OK();
}

// A scalar int input's value, kNoValue where not known.
Status scalar_value(ShapeContext& c, int arg, int64_t* v) {
  OPF_RETURN_IF_ERROR(array::expect_rank(c, arg, 0, "a scalar"));
  std::vector<int64_t> vals;
  bool known = false;
  OPF_RETURN_IF_ERROR(array::known_ints(c, arg, &vals, &known));
  *v = known ? vals.at(0) : kNoValue;
  return Status::OK();
}

std::vector<int64_t> leading(const Shape& s, int drop) { return {s.dims().begin(), s.dims().end() - drop}; }

// ---- MatrixDiagPart*: [..., M, N] -> [..., max_len] or [..., k1 - k0 + 1, max_len]

Status DiagPartShape(ShapeContext& c, int k_arg) {
  if (k_arg >= 0) OPF_RETURN_IF_ERROR(array::expect_rank(c, 2, 0, "a scalar"));  // padding_value
  Band b;
  bool known = false;
  OPF_RETURN_IF_ERROR(band_of(c, k_arg, &b, &known));
  OPF_RETURN_IF_ERROR(min_rank(c, 0, 2));
  const Shape& s = c.input_shape(0);
  if (!known || s.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  int64_t len = kUnknown;
  if (rows >= 0 && cols >= 0) {
    OPF_RETURN_IF_ERROR(matrix_band::check_in_matrix(c.op().name, b, rows, cols));
    len = matrix_band::max_len(b, rows, cols);
  }
  std::vector<int64_t> out = leading(s, 2);
  if (b.lo < b.hi) out.push_back(b.count());
  out.push_back(len);
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

// ---- MatrixDiag*: diagonals [..., max_len] (a band: [..., k1 - k0 + 1, max_len]) -> [..., rows, cols]

Status DiagShape(ShapeContext& c, int k_arg) {
  int64_t num_rows = -1, num_cols = -1;
  if (k_arg >= 0) {
    OPF_RETURN_IF_ERROR(scalar_value(c, 2, &num_rows));
    OPF_RETURN_IF_ERROR(scalar_value(c, 3, &num_cols));
    OPF_RETURN_IF_ERROR(array::expect_rank(c, 4, 0, "a scalar"));  // padding_value
  }
  Band b;
  bool known = false;
  OPF_RETURN_IF_ERROR(band_of(c, k_arg, &b, &known));
  OPF_RETURN_IF_ERROR(min_rank(c, 0, 1));
  const Shape& d = c.input_shape(0);
  if (!known || d.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  const bool band = b.lo < b.hi;
  OPF_RETURN_IF_ERROR(min_rank(c, 0, band ? 2 : 1));
  if (band && d.dim(d.rank() - 2) >= 0 && d.dim(d.rank() - 2) != b.count()) {
    return c.error("the diagonals k = (", b.lo, ", ", b.hi, ") need ", b.count(), " rows of diagonals, got shape ",
                   d.to_string());
  }
  const int64_t len = d.dim(d.rank() - 1);
  int64_t rows = num_rows >= 0 ? num_rows : kUnknown, cols = num_cols >= 0 ? num_cols : kUnknown;
  if (len >= 0 && num_rows != kNoValue && num_cols != kNoValue) {
    OPF_RETURN_IF_ERROR(matrix_band::infer_size(c.op().name, b, len, num_rows, num_cols, &rows, &cols));
  }
  std::vector<int64_t> out = leading(d, band ? 2 : 1);
  out.push_back(rows);
  out.push_back(cols);
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

// ---- MatrixSetDiag*: input [..., M, N], diagonals as MatrixDiagPart* gives them -> input's shape

Status SetDiagShape(ShapeContext& c, int k_arg) {
  Band b;
  bool known = false;
  OPF_RETURN_IF_ERROR(band_of(c, k_arg, &b, &known));
  OPF_RETURN_IF_ERROR(min_rank(c, 0, 2));
  OPF_RETURN_IF_ERROR(min_rank(c, 1, 1));
  const Shape& s = c.input_shape(0);
  const Shape& d = c.input_shape(1);
  c.set_output(0, s);
  if (known && s.unknown_rank() && !d.unknown_rank()) {  // the rank and batch dims from the diagonals
    const bool band = b.lo < b.hi;
    if (d.rank() < (band ? 2 : 1)) {
      return c.error("diagonal must be at least ", band ? 2 : 1, "-dim, got shape ", d.to_string());
    }
    std::vector<int64_t> out = leading(d, band ? 2 : 1);
    out.push_back(kUnknown);
    out.push_back(kUnknown);
    c.set_output(0, Shape(std::move(out)));
    return Status::OK();
  }
  if (!known || s.unknown_rank() || d.unknown_rank()) return Status::OK();
  const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  std::vector<int64_t> want = leading(s, 2);
  if (b.lo < b.hi) want.push_back(b.count());
  int64_t len = kUnknown;
  if (rows >= 0 && cols >= 0) {
    OPF_RETURN_IF_ERROR(matrix_band::check_in_matrix(c.op().name, b, rows, cols));
    len = matrix_band::max_len(b, rows, cols);
  }
  want.push_back(len);
  bool fits = static_cast<int>(want.size()) == d.rank();
  for (int i = 0; fits && i < d.rank(); ++i) {
    const int64_t w = want[static_cast<size_t>(i)], g = d.dim(i);
    fits = w < 0 || g < 0 || w == g;
  }
  if (!fits) {
    return c.error("the diagonals of input of shape ", s.to_string(), " with k = (", b.lo, ", ", b.hi, ") have shape ",
                   Shape(want).to_string(), ", got diagonal of shape ", d.to_string());
  }
  return Status::OK();
}

// ---- MatrixBandPart: input's shape

Status BandPartShape(ShapeContext& c) {
  OPF_RETURN_IF_ERROR(min_rank(c, 0, 2));
  int64_t lower = kNoValue, upper = kNoValue;
  OPF_RETURN_IF_ERROR(scalar_value(c, 1, &lower));
  OPF_RETURN_IF_ERROR(scalar_value(c, 2, &upper));
  const Shape& s = c.input_shape(0);
  if (!s.unknown_rank()) {
    const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
    OPF_RETURN_IF_ERROR(matrix_band::check_band_part(c.op().name, lower, upper, rows, cols));
  }
  c.set_output(0, s);
  return Status::OK();
}

[[maybe_unused]] const bool matrix_band_shapes_registered = [] {
  shape_fns::register_custom("MatrixDiagPart", [](ShapeContext& c) { return DiagPartShape(c, -1); });
  shape_fns::register_custom("MatrixDiagPartV2", [](ShapeContext& c) { return DiagPartShape(c, 1); });
  shape_fns::register_custom("MatrixDiagPartV3", [](ShapeContext& c) { return DiagPartShape(c, 1); });
  shape_fns::register_custom("MatrixDiag", [](ShapeContext& c) { return DiagShape(c, -1); });
  shape_fns::register_custom("MatrixDiagV2", [](ShapeContext& c) { return DiagShape(c, 1); });
  shape_fns::register_custom("MatrixDiagV3", [](ShapeContext& c) { return DiagShape(c, 1); });
  shape_fns::register_custom("MatrixSetDiag", [](ShapeContext& c) { return SetDiagShape(c, -1); });
  shape_fns::register_custom("MatrixSetDiagV2", [](ShapeContext& c) { return SetDiagShape(c, 2); });
  shape_fns::register_custom("MatrixSetDiagV3", [](ShapeContext& c) { return SetDiagShape(c, 2); });
  shape_fns::register_custom("MatrixBandPart", BandPartShape);
  return true;
}();

}  // namespace
}  // namespace opforge
