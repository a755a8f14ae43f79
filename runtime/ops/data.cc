// Shape functions of the iterator ops whose outputs follow the element spec attrs.
#include "ops/shape_util.h"
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

// IteratorGetNext: one output per component, shaped as output_shapes says.
Status GetNextShape(ShapeContext& c) {
  const int shapes = c.op().attr_index("output_shapes");
  const std::vector<Shape>& s = c.attr(shapes).list_shape;
  if (static_cast<int>(s.size()) != c.num_outputs()) {
    return c.error("output_shapes has ", s.size(), " entries for ", c.num_outputs(), " components");
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, s[static_cast<size_t>(i)]);
  return Status::OK();
}

const array::CustomShape get_next_shape("IteratorGetNext", GetNextShape);

}  // namespace
}  // namespace opforge
