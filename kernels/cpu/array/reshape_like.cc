// Ops whose output shares the input's buffer under a new shape: ExpandDims, Squeeze,
// StopGradient (the identity; autodiff treats it as a wall).
#include "common/relabel.h"
#include "cpu/array/array_util.h"
#include "opforge/ops/array/expand_dims.h"
#include "opforge/ops/array/squeeze.h"
#include "opforge/ops/array/stop_gradient.h"

namespace opforge {
namespace {

Status ExpandDimsShape(ShapeContext& c) {
  const Shape& ds = c.input_shape(1);
  if (!ds.unknown_rank() && ds.num_elements() >= 0 && ds.num_elements() != 1) {
    return c.error("dim must be a scalar or a one-element vector, got shape ", ds.to_string());
  }
  const Shape& s = c.input_shape(0);
  std::vector<int64_t> dim;
  bool known;
  OPF_RETURN_IF_ERROR(array::known_ints(c, 1, &dim, &known));
  if (s.unknown_rank() || !known) {
    c.set_output(0, array::unknown_dims(s.unknown_rank() ? -1 : s.rank() + 1));
    return Status::OK();
  }
  int axis;
  OPF_RETURN_IF_ERROR(array::normalize_axis(c, dim.at(0), s.rank() + 1, &axis, "dim"));
  std::vector<int64_t> out = s.dims();
  out.insert(out.begin() + axis, 1);
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

Status SqueezeShape(ShapeContext& c) {
  const Shape& s = c.input_shape(0);
  const std::vector<int64_t>& sq = c.attr(1).list_i;
  if (s.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  std::vector<bool> drop(static_cast<size_t>(s.rank()), false);
  for (int64_t a : sq) {
    int k;
    OPF_RETURN_IF_ERROR(array::normalize_axis(c, a, s.rank(), &k, "squeeze_dims entry"));
    const int64_t d = s.dim(k);
    if (d >= 0 && d != 1) {
      return c.error("cannot squeeze dimension ", k, " of size ", d, " (shape ", s.to_string(), ")");
    }
    drop[static_cast<size_t>(k)] = true;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < s.rank(); ++i) {
    const int64_t d = s.dim(i);
    if (sq.empty()) {
      if (d == 1) continue;
      if (d < 0) {  // may or may not be squeezed: the rank is unknown
        c.set_output(0, Shape::UnknownRank());
        return Status::OK();
      }
    } else if (drop[static_cast<size_t>(i)]) {
      continue;
    }
    out.push_back(d);
  }
  c.set_output(0, Shape(std::move(out)));
  return Status::OK();
}

template <typename T>
Status StopGradientCpu(ops::StopGradientArgs& a) {
  a.output = a.input;
  return Status::OK();
}

const array::CustomShape expand_dims_shape("ExpandDims", ExpandDimsShape);
const array::CustomShape squeeze_shape("Squeeze", SqueezeShape);

#define OPF_ALL bool, uint8_t, int8_t, int16_t, int32_t, int64_t, bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ExpandDims, CPU, kernels::RelabelInput, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(Squeeze, CPU, kernels::RelabelInput, OPF_ALL)
OPFORGE_REGISTER_FORWARDING_KERNEL(StopGradient, CPU, StopGradientCpu, OPF_ALL)

}  // namespace opforge
