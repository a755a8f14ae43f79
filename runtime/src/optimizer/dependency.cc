// Dependency optimization (RewriterConfig `dependency_optimization`).
//
// Removes Identity and Snapshot nodes on the run path (their consumers read the input directly),
// IdentityN likewise (each output's consumers read that output's input: Keras writes one around
// every swish, tf.custom_gradient's IdentityN(x * sigmoid(x), x), whose extra read of x would
// keep the remapper from fusing the swish into the convolution before it), and NoOp nodes that
// only relay control edges (their consumers wait on the NoOp's own control inputs instead).
// Kept: preserved (fetched/fed/target) nodes, an Identity reading a variable (a producer with a
// Ref output: it is the read that fixes *when* the value is taken, e.g.
// before an assignment), nodes that are the source of a control edge (waiting on them means
// something), and NoOps whose fan-in times fan-out would add more control edges than removing
// the node saves. A control edge from a constant (a Const, or an Identity chain over one with no
// control inputs of its own) is dropped: waiting on it means nothing. Frozen TF2 graphs end in
// an Identity with one such edge per variable the model read (ResNet50: 273), each a node that
// would otherwise run every step.
#include <algorithm>
#include <set>

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {
namespace {

bool is_identity(const std::string& op) { return op == "Identity" || op == "Snapshot"; }

// Whether a data input of id may read a variable (its producer has a Ref output, or is unknown).
bool reads_ref(const GraphView& v, int id) {
  for (size_t i = 0; i < v.at(id).num_data_inputs(); ++i) {
    const int p = v.producer(id, i);
    if (p < 0 || !v.at(p).alive || v.at(p).spec == nullptr) return true;
    const VNode& producer = v.at(p);
    if (producer.op == "VariableV2") return true;
    for (const ArgSpec& out : producer.spec->outputs)
      if (out.is_ref) return true;
  }
  return false;
}

// name is a Const, or an Identity/Snapshot chain over one, with no control inputs.
bool is_constant_chain(const GraphView& v, int id) {
  for (int k = 0; k < 64; ++k) {
    const VNode& n = v.at(id);
    if (!n.alive || !n.control_inputs().empty()) return false;
    if (n.op == "Const") return true;
    if (!is_identity(n.op) || n.num_data_inputs() != 1) return false;
    id = n.data_inputs()[0].node;
  }
  return false;
}

void drop_constant_controls(GraphView& v) {
  std::set<int> dropped;
  for (int id : v.live()) {
    std::vector<Input>& ins = v.at(id).inputs;
    std::vector<Input> kept;
    bool any = false;
    for (const Input& in : ins) {
      if (in.control() && is_constant_chain(v, in.node)) {
        dropped.insert(in.node);
        any = true;
      } else {
        kept.push_back(in);
      }
    }
    if (any) {
      ins.swap(kept);
      v.changed();
    }
  }
  // What only those edges read goes too (down the Identity chain to the Const).
  while (!dropped.empty()) {
    std::vector<int> dead;
    std::set<int> feeding;
    for (int id : dropped) {
      if (!v.at(id).alive || v.at(id).preserved || !v.consumers(id).empty()) continue;
      dead.push_back(id);
    }
    for (int id : dead)
      for (const Input& in : v.at(id).inputs) feeding.insert(in.node);
    v.remove(dead);
    dropped.swap(feeding);
  }
}

}  // namespace

void dependency_optimization(GraphView& v) {
  drop_constant_controls(v);
  std::vector<int> removed;
  std::vector<char> gone(static_cast<size_t>(v.size()), 0);
  for (int id : v.live()) {
    const VNode& n = v.at(id);
    if (n.preserved || gone[static_cast<size_t>(id)]) continue;
    if (is_identity(n.op) || n.op == "IdentityN") {
      if ((n.op != "IdentityN" && n.num_data_inputs() != 1) || reads_ref(v, id) || v.has_control_consumer(id)) continue;
      const std::vector<Input> srcs = n.data_inputs();
      v.forward_controls(id, id);
      for (size_t i = 0; i < srcs.size(); ++i) v.replace_uses(Input{id, static_cast<int>(i)}, srcs[i]);
      removed.push_back(id);
      gone[static_cast<size_t>(id)] = 1;
    } else if (n.op == "NoOp") {
      const std::vector<Input> fan_in = n.control_inputs();
      const std::vector<int> consumers = v.consumers(id);
      bool data_use = false;
      for (int c : consumers)
        for (const Input& in : v.at(c).inputs) data_use = data_use || (in.node == id && !in.control());
      if (data_use) continue;
      if (fan_in.size() * consumers.size() > fan_in.size() + consumers.size()) continue;
      for (int c : consumers) {
        std::vector<Input> kept;
        for (const Input& in : v.at(c).inputs)
          if (!(in.node == id && in.control())) kept.push_back(in);
        for (const Input& f : fan_in)
          if (f.node != c && std::find(kept.begin(), kept.end(), f) == kept.end()) kept.push_back(f);
        v.at(c).inputs.swap(kept);
      }
      v.changed();
      removed.push_back(id);
      gone[static_cast<size_t>(id)] = 1;
    }
  }
  v.remove(removed);
}

}  // namespace optimizer
}  // namespace opforge
