// Constant folding (RewriterConfig `constant_folding`).
//
// A node whose data inputs are all constants (unfed Const nodes, or nodes folded in the same
// sweep) is evaluated once, here, by running its kernel directly (exec::run_node on the CPU,
// over a scratch graph that holds only the nodes being folded and the constants they read: no
// Session). Never folded: stateful ops (variables, assignments, random ops), placeholders,
// control flow, ops with reference inputs, preserved (fetched/fed/target) nodes, nodes with a
// control input from a node that is not itself constant, and results larger than
// kMaxConstantBytes (TensorFlow's limit too: a folded constant must not bloat the graph), and
// variant values (a TensorList has no Const form). A
// node whose kernel fails is left as it is (it fails where the user runs it), and so is what
// reads it.
//
// A folded single-output node becomes a Const of the same name, so error messages and name
// lookups keep working; a folded output of a multi-output node becomes a new Const node.
#include <algorithm>
#include <set>

#include "executor.h"
#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {
namespace {

constexpr size_t kMaxConstantBytes = 10 * 1024 * 1024;

// Ops whose value is not a function of their inputs alone, besides the stateful ones.
const std::set<std::string> kNeverFold = {
    "Placeholder", "PlaceholderWithDefault", "Const", "NoOp", "VariableV2", "Assign", "AssignAdd", "AssignSub",
    // Control flow: a value's liveness and frame are not constants (a folded Enter would leave
    // its loop).
    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "ControlTrigger"};

bool foldable_op(const GraphView& v, int id) {
  const VNode& n = v.at(id);
  if (kNeverFold.count(n.op) || n.preserved || n.fed || v.is_stateful(id)) return false;
  for (const ArgSpec& arg : n.spec->inputs)
    if (arg.is_ref) return false;  // a Ref input reads a variable
  return n.num_data_inputs() > 0;
}

bool single_output(const VNode& n) { return n.spec->outputs.size() == 1 && !n.spec->outputs[0].is_list(); }

}  // namespace

void constant_folding(GraphView& v) {
  std::vector<char> constant(static_cast<size_t>(v.size()), 0);
  for (int id : v.live()) constant[static_cast<size_t>(id)] = v.is_constant(id) ? 1 : 0;
  std::vector<int> foldable;  // in an order that evaluates inputs first
  bool again = true;
  while (again) {  // grow the foldable set to a fixed point (any node order)
    again = false;
    for (int id : v.live()) {
      if (constant[static_cast<size_t>(id)] || !foldable_op(v, id)) continue;
      bool all = true;
      for (const Input& in : v.at(id).inputs) all = all && constant[static_cast<size_t>(in.node)];
      if (all) {
        constant[static_cast<size_t>(id)] = 1;
        foldable.push_back(id);
        again = true;
      }
    }
  }
  if (foldable.empty()) return;
  std::vector<char> folded(static_cast<size_t>(v.size()), 0);
  for (int id : foldable) folded[static_cast<size_t>(id)] = 1;
  // The frontier: outputs of folded nodes read by nodes that stay.
  std::vector<Input> wanted;
  for (int id : v.live()) {
    if (folded[static_cast<size_t>(id)]) continue;
    for (const Input& in : v.at(id).inputs) {
      if (in.control() || !folded[static_cast<size_t>(in.node)]) continue;
      if (std::find(wanted.begin(), wanted.end(), in) == wanted.end()) wanted.push_back(in);
    }
  }
  if (wanted.empty()) return;

  // Evaluate: each folded node's kernel runs once, on the CPU, in input order.
  Graph scratch_graph;
  std::vector<int> scratch_id(static_cast<size_t>(v.size()), -1);
  std::vector<std::vector<Tensor>> values(static_cast<size_t>(v.size()));
  std::vector<char> failed(static_cast<size_t>(v.size()), 0);
  ResourceMgr resources;
  ExecEnv env;
  env.resources = &resources;
  exec::Scratch scratch;
  for (int id : foldable) {
    const VNode& n = v.at(id);
    bool ready = true;
    for (const Input& in : n.inputs) {
      const size_t src = static_cast<size_t>(in.node);
      if (failed[src]) ready = false;
      if (!ready || scratch_id[src] >= 0) continue;
      // A constant input: its node joins the scratch graph and its value is the attr's tensor.
      if (!v.add_to(scratch_graph, in.node, scratch_id, nullptr).ok()) {
        failed[src] = 1;
        ready = false;
        continue;
      }
      const Tensor* value = v.constant_value(Input{in.node, 0});
      if (value == nullptr) {
        failed[src] = 1;
        ready = false;
        continue;
      }
      values[src] = {*value};
    }
    if (!ready || !v.add_to(scratch_graph, id, scratch_id, nullptr).ok()) {
      failed[static_cast<size_t>(id)] = 1;
      continue;
    }
    std::vector<const Tensor*> inputs;
    for (const Input& in : n.inputs) {
      if (in.control()) continue;
      const std::vector<Tensor>& outs = values[static_cast<size_t>(in.node)];
      inputs.push_back(static_cast<size_t>(in.index) < outs.size() ? &outs[static_cast<size_t>(in.index)] : nullptr);
    }
    if (std::find(inputs.begin(), inputs.end(), nullptr) != inputs.end()) {
      failed[static_cast<size_t>(id)] = 1;
      continue;
    }
    env.ref_inputs.assign(inputs.size(), nullptr);
    const std::vector<bool> forwardable(inputs.size(), false);
    const Node& node = scratch_graph.node(scratch_id[static_cast<size_t>(id)]);
    if (!exec::run_node(node, DeviceSpec(), inputs, forwardable, env, scratch).ok()) {
      failed[static_cast<size_t>(id)] = 1;
      continue;
    }
    values[static_cast<size_t>(id)] = std::move(scratch.outs);
    scratch.outs.clear();
  }

  for (const Input& t : wanted) {
    const std::vector<Tensor>& outs = values[static_cast<size_t>(t.node)];
    if (failed[static_cast<size_t>(t.node)] || static_cast<size_t>(t.index) >= outs.size()) continue;
    const Tensor& value = outs[static_cast<size_t>(t.index)];
    if (!value.initialized() || !value.on_host() || value.nbytes() > kMaxConstantBytes) continue;
    // A variant (a TensorList made from constant sizes) has no Const form: it stays computed.
    if (value.dtype() == DType::kVariant) continue;
    VNode& n = v.at(t.node);
    if (t.index == 0 && single_output(n)) {
      std::map<std::string, AttrValue> attrs;
      attrs["value"].tensor = value;
      attrs["dtype"].type = value.dtype();
      v.rewrite(t.node, "Const", {}, std::move(attrs));
      v.at(t.node).shapes = {value.shape()};
    } else {
      const std::string name = v.unique_name(n.name + "/ConstantFolding/out_" + std::to_string(t.index));
      const std::string device = n.device;
      const int c = v.make_const(name, value, device);
      v.replace_uses(t, Input{c, 0});
    }
  }
}

}  // namespace optimizer
}  // namespace opforge
