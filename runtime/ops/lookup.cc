// Shape functions of the lookup-table ops whose outputs follow their inputs.
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// LookupTableFindV2: keys.shape + the value shape, which default_value has (for a table
// that finds anything: a per-key default_value has the whole output's shape, and then the
// value shape is unknown).
Status FindShape(ShapeContext& c) {
  const Shape& keys = c.input_shape(1);
  const Shape& dflt = c.input_shape(2);
  if (keys.unknown_rank() || dflt.unknown_rank()) {
    c.set_output(0, Shape::UnknownRank());
    return Status::OK();
  }
  if (dflt.rank() == 0) {
    c.set_output(0, keys);
    return Status::OK();
  }
  if (dflt.rank() >= keys.rank()) {  // could be a per-key default: then it is the output's shape
    bool prefix = true;
    for (int i = 0; i < keys.rank(); ++i) {
      prefix = prefix && (keys.dim(i) < 0 || dflt.dim(i) < 0 || keys.dim(i) == dflt.dim(i));
    }
    if (prefix) {
      c.set_output(0, Shape::UnknownRank());
      return Status::OK();
    }
  }
  std::vector<int64_t> dims = keys.dims();
  dims.insert(dims.end(), dflt.dims().begin(), dflt.dims().end());
  c.set_output(0, Shape(dims));
  return Status::OK();
}

// LookupTableExportV2: keys a vector; values a vector of values of unknown shape.
Status ExportShape(ShapeContext& c) {
  c.set_output(0, Shape({-1}));
  c.set_output(1, Shape::UnknownRank());
  return Status::OK();
}

const array::CustomShape find_shape("LookupTableFindV2", FindShape);
const array::CustomShape export_shape("LookupTableExportV2", ExportShape);

}  // namespace
}  // namespace opforge
