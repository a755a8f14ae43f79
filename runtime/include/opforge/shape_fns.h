// The shape-function catalogue (codegen/shape_fns.py lists the same names). Parameters are
// indices: input arguments for shapes and values, attrs for attr parameters.
#pragma once

#include <string>
#include <vector>

#include "opforge/op.h"

namespace opforge {

// NumPy broadcasting of two shapes (unknown dims allowed). InvalidArgument if incompatible.
Status broadcast_shapes(const Shape& a, const Shape& b, Shape* out, const std::string& op);

namespace shape_fns {

// The shape a shape-valued input (a dims vector: Reshape's shape, Fill's dims, a backprop's
// input_sizes) gives where its value is not known: its partially known value
// (ShapeContext::input_partial_value), else its static length of unknown dims, else an
// unknown rank.
Shape partial_shape_input(const ShapeContext& c, int arg);

Status unchanged(ShapeContext& c, int x);
Status broadcast(ShapeContext& c, int x, int y);
Status matmul(ShapeContext& c, int a, int b, int transpose_a, int transpose_b);
Status reduce(ShapeContext& c, int input, int axis, int keep_dims);
Status scalar(ShapeContext& c);
Status from_attr(ShapeContext& c, int shape);
Status reshape(ShapeContext& c, int tensor, int shape);
Status transpose(ShapeContext& c, int x, int perm);
Status fill(ShapeContext& c, int dims);
Status tensor_attr(ShapeContext& c, int value);
Status shape_vector(ShapeContext& c, int input);
Status range(ShapeContext& c, int start, int limit, int delta);
Status vector(ShapeContext& c);
Status none(ShapeContext& c);

// Hand-written shape functions for ops whose opdef says shape_fn: "custom".
void register_custom(const std::string& op, ShapeFn fn);
ShapeFn find_custom(const std::string& op);
// The ops with a custom shape function, sorted (tests check every "custom" opdef has one).
std::vector<std::string> custom_names();
// Runs the custom shape function registered for op; Unimplemented if there is none.
Status call_custom(const std::string& op, ShapeContext& c);

// Normalizes axis values against a rank (negative counts from the end); OutOfRange-style
// InvalidArgument naming the op if outside [-rank, rank).
Status normalize_axes(const std::string& op, const std::vector<int64_t>& axes, int rank, std::vector<int>* out);

}  // namespace shape_fns
}  // namespace opforge
