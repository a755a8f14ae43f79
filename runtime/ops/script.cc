// The shape functions of the Python-callback ops (kernels/cpu/script/py_func.cc): what a Python
// function returns is unknown until it runs, as in TensorFlow (callers set_shape the outputs).
#include "opforge/op.h"
#include "opforge/shape_fns.h"

namespace opforge {
namespace {

Status PyFuncShape(ShapeContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, Shape::UnknownRank());
  return Status::OK();
}

[[maybe_unused]] const bool script_shapes_registered = [] {
  shape_fns::register_custom("PyFunc", PyFuncShape);
  shape_fns::register_custom("PyFuncStateless", PyFuncShape);
  shape_fns::register_custom("EagerPyFunc", PyFuncShape);
  return true;
}();

}  // namespace
}  // namespace opforge
