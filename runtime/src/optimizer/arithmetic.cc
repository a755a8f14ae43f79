// Arithmetic simplification (RewriterConfig `arithmetic_optimization`).
//
// Removes operations that return one of their inputs unchanged: x * 1, 1 * x, x + 0, 0 + x,
// x - 0, x / 1, Neg(Neg(x)), Reciprocal(Reciprocal(x)), LogicalNot(LogicalNot(x)), a Transpose by
// the identity permutation... only where
// the constant cannot change the result's shape or dtype (a scalar, or a constant whose
// broadcast against x's known shape is x's shape), since a broadcasting constant would. A
// preserved node keeps its name as an Identity of the input; a node that is the source of a
// control edge stays.
#include <map>
#include <set>

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {
namespace {

// op -> {input position of the constant: neutral value}
const std::map<std::string, std::map<int, double>> kNeutral = {
    {"Mul", {{0, 1.0}, {1, 1.0}}}, {"Add", {{0, 0.0}, {1, 0.0}}}, {"AddV2", {{0, 0.0}, {1, 0.0}}},
    {"Sub", {{1, 0.0}}},           {"RealDiv", {{1, 1.0}}},       {"Div", {{1, 1.0}}}};
const std::set<std::string> kInvolutions = {"Neg", "Reciprocal", "LogicalNot"};

bool all_equal(const Tensor& c, double neutral) {
  if (!(is_real(c.dtype()) || dtype_is_integer(c.dtype()))) return false;  // NumPy kinds f, i, u
  std::vector<double> values;
  if (!to_doubles(c, &values)) return false;
  for (double x : values)
    if (x != neutral) return false;
  return true;
}

// Whether broadcasting x (of known shape) against a constant of shape c gives x's shape.
bool shape_safe(const GraphView& v, Input x, const Tensor& c) {
  if (c.rank() == 0) return true;
  const Shape* shape = v.known_shape(x);
  if (shape == nullptr || c.rank() > shape->rank()) return false;
  const int off = shape->rank() - c.rank();
  for (int d = 0; d < c.rank(); ++d) {
    const int64_t a = shape->dim(d + off), b = c.dim(d);
    if (b != 1 && b != a) return false;
  }
  return true;
}

// Replaces node id by tensor src; false when it must stay (the source of a control edge).
bool bypass(GraphView& v, int id, Input src) {
  VNode& n = v.at(id);
  if (n.preserved) {
    std::vector<Input> inputs{src};
    for (const Input& c : n.control_inputs()) inputs.push_back(c);
    std::map<std::string, AttrValue> attrs;
    attrs["T"].type = n.type_attr("T");
    std::vector<Shape> shapes = n.shapes;  // an Identity of x: the same shape
    v.rewrite(id, "Identity", std::move(inputs), std::move(attrs));
    v.at(id).shapes = std::move(shapes);
    return true;
  }
  if (v.has_control_consumer(id)) return false;
  v.forward_controls(id, id);
  v.replace_uses(Input{id, 0}, src);
  v.remove({id});
  return true;
}

bool simplify(GraphView& v, int id) {
  const VNode& n = v.at(id);
  const std::vector<Input> ins = n.data_inputs();
  auto neutral = kNeutral.find(n.op);
  if (neutral != kNeutral.end() && ins.size() == 2) {
    for (const auto& [pos, value] : neutral->second) {
      const Tensor* c = v.constant_value(ins[static_cast<size_t>(pos)]);
      const Input x = ins[static_cast<size_t>(1 - pos)];
      if (c == nullptr || !all_equal(*c, value) || !shape_safe(v, x, *c)) continue;
      return bypass(v, id, x);
    }
  } else if (n.op == "Transpose" && ins.size() == 2) {
    // The identity permutation (tf.tensordot transposes x by one when it contracts x's last
    // axis), of x's rank (another length is the Transpose's error to raise).
    const Tensor* perm = v.constant_value(ins[1]);
    const Shape* x = v.recorded_shape(ins[0]);
    std::vector<double> p;
    if (perm == nullptr || perm->rank() != 1 || x == nullptr || x->rank() != perm->dim(0) || !to_doubles(*perm, &p))
      return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != static_cast<double>(i)) return false;
    return bypass(v, id, ins[0]);
  } else if (kInvolutions.count(n.op) && ins.size() == 1) {
    const VNode& inner = v.at(ins[0].node);
    if (inner.alive && inner.op == n.op && ins[0].index == 0 && inner.control_inputs().empty() && !inner.fed &&
        inner.num_data_inputs() == 1) {
      return bypass(v, id, inner.data_inputs()[0]);
    }
  }
  return false;
}

}  // namespace

void arithmetic_optimization(GraphView& v) {
  v.rewrite_to_fixpoint([&](int id) { return simplify(v, id); });
}

}  // namespace optimizer
}  // namespace opforge
