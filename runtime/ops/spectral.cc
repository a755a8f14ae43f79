// The shape functions of the FFT family (FFT/IFFT/RFFT/IRFFT in 1, 2, 3 and n dimensions; the
// kernels: kernels/cpu/spectral/fft_ops.cc). They also validate: rank too low, an fft_length or
// axes of the wrong shape, negative lengths, axes out of range or repeated.
#include <algorithm>
#include <vector>

#include "opforge/op.h"
#include "opforge/shape_fns.h"
#include "ops/shape_util.h"

namespace opforge {
namespace {

enum class Kind { kComplex, kReal, kInverseReal };

// Reads a known int vector input `arg` of `want` entries (want < 0: any length); *known is false
// when its value is not known (graph construction).
Status read_vector(ShapeContext& c, int arg, const char* what, int want, std::vector<int64_t>* out, bool* known) {
  const Shape& s = c.input_shape(arg);
  if (!s.unknown_rank() && s.rank() != 1) return c.error(what, " must be a vector, got shape ", s.to_string());
  if (want >= 0 && !s.unknown_rank() && s.dim(0) >= 0 && s.dim(0) != want) {
    return c.error(what, " must have ", want, " elements, got shape ", s.to_string());
  }
  OPF_RETURN_IF_ERROR(array::known_ints(c, arg, out, known));
  if (*known && want >= 0 && static_cast<int>(out->size()) != want) {
    return c.error(what, " must have ", want, " elements, got ", out->size());
  }
  return Status::OK();
}

// The output shape: the input's with each transformed axis set to its FFT length (the last
// axis of a forward real transform to length / 2 + 1). axes are normalized; lengths may be
// empty (not known: those dims are unknown).
Shape transformed(const Shape& in, const std::vector<int>& axes, const std::vector<int64_t>& lengths, Kind kind) {
  Shape out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t n = lengths.empty() ? -1 : lengths[i];
    if (kind == Kind::kReal && i + 1 == axes.size() && n >= 0) n = n / 2 + 1;
    out.mutable_dims()[static_cast<size_t>(axes[i])] = n;
  }
  return out;
}

Status check_lengths(ShapeContext& c, const std::vector<int64_t>& lengths) {
  for (int64_t n : lengths)
    if (n < 0) return c.error("fft_length must be non-negative, got ", n);
  return Status::OK();
}

// FFT, IFFT, FFT2D ... IRFFT3D: the inner-most `rank` dims.
Status FixedRankShape(ShapeContext& c, int rank, Kind kind) {
  const Shape& in = c.input_shape(0);
  if (!in.unknown_rank() && in.rank() < rank) {
    return c.error("input must have rank of at least ", rank, ", got shape ", in.to_string());
  }
  std::vector<int64_t> lengths;
  bool known = false;
  if (kind != Kind::kComplex) {
    OPF_RETURN_IF_ERROR(read_vector(c, 1, "fft_length", rank, &lengths, &known));
    OPF_RETURN_IF_ERROR(check_lengths(c, lengths));
  }
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (kind == Kind::kComplex) {
    c.set_output(0, in);
    return Status::OK();
  }
  std::vector<int> axes;
  for (int i = rank; i > 0; --i) axes.push_back(in.rank() - i);
  c.set_output(0, transformed(in, axes, known ? lengths : std::vector<int64_t>{}, kind));
  return Status::OK();
}

// FFTND, IFFTND, RFFTND, IRFFTND: the dims listed in `axes`.
Status AxesShape(ShapeContext& c, Kind kind) {
  const Shape& in = c.input_shape(0);
  std::vector<int64_t> lengths, raw_axes;
  bool lengths_known = false, axes_known = false;
  OPF_RETURN_IF_ERROR(read_vector(c, 1, "fft_length", -1, &lengths, &lengths_known));
  OPF_RETURN_IF_ERROR(check_lengths(c, lengths));
  OPF_RETURN_IF_ERROR(read_vector(c, 2, "axes", -1, &raw_axes, &axes_known));
  if (lengths_known && axes_known && lengths.size() != raw_axes.size()) {
    return c.error("fft_length and axes must have the same number of elements, got ", lengths.size(), " and ",
                   raw_axes.size());
  }
  if (axes_known && (kind != Kind::kComplex) && raw_axes.empty()) return c.error("axes must not be empty");
  if (in.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (!axes_known) {
    c.set_output(0, array::unknown_dims(in.rank()));
    return Status::OK();
  }
  if (static_cast<int>(raw_axes.size()) > in.rank()) {
    return c.error("input must have rank of at least ", raw_axes.size(), ", got shape ", in.to_string());
  }
  std::vector<int> axes;
  for (int64_t a : raw_axes) {
    int ax = 0;
    OPF_RETURN_IF_ERROR(array::normalize_axis(c, a, in.rank(), &ax, "axis"));
    if (std::find(axes.begin(), axes.end(), ax) != axes.end())
      return c.error("axes must not repeat, got ", a, " twice");
    axes.push_back(ax);
  }
  c.set_output(0, transformed(in, axes, lengths_known ? lengths : std::vector<int64_t>{}, kind));
  return Status::OK();
}

[[maybe_unused]] const bool spectral_shapes_registered = [] {
  const char* suffix[] = {"", "2D", "3D"};
  for (int r = 1; r <= 3; ++r) {
    const std::string s = suffix[r - 1];
    shape_fns::register_custom("FFT" + s, [r](ShapeContext& c) { return FixedRankShape(c, r, Kind::kComplex); });
    shape_fns::register_custom("IFFT" + s, [r](ShapeContext& c) { return FixedRankShape(c, r, Kind::kComplex); });
    shape_fns::register_custom("RFFT" + s, [r](ShapeContext& c) { return FixedRankShape(c, r, Kind::kReal); });
    shape_fns::register_custom("IRFFT" + s, [r](ShapeContext& c) { return FixedRankShape(c, r, Kind::kInverseReal); });
  }
  shape_fns::register_custom("FFTND", [](ShapeContext& c) { return AxesShape(c, Kind::kComplex); });
  shape_fns::register_custom("IFFTND", [](ShapeContext& c) { return AxesShape(c, Kind::kComplex); });
  shape_fns::register_custom("RFFTND", [](ShapeContext& c) { return AxesShape(c, Kind::kReal); });
  shape_fns::register_custom("IRFFTND", [](ShapeContext& c) { return AxesShape(c, Kind::kInverseReal); });
  return true;
}();

}  // namespace
}  // namespace opforge
