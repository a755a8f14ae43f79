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
// something; an Identity's data consumers read its input all the same), and NoOps whose fan-in times fan-out would add
// more control edges than removing the node saves. A control edge from a constant (a Const, or an Identity chain over
// one with no control inputs of its own) is dropped: waiting on it means nothing. Frozen TF2 graphs end in an Identity
// with one such edge per variable the model read (ResNet50: 273), each a node that would otherwise run every step.
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

// A control edge from an Identity to n is redundant where n reads the Identity's result anyway
// through its data inputs (TensorFlow's dependency optimizer drops redundant edges too): a
// frozen TF2 graph's final Identity waits on every function call the model made
// (_has_manual_control_dependencies), each call's output Identity already upstream of the data;
// the edges kept those Identity nodes, and those kept an inlined convolution from fusing with
// its bias. Only nodes with a control input from an Identity are searched (a training graph has
// thousands of control edges from NoOps and assignments, which keep theirs), and the searches
// stop after kBudget nodes in all (a huge graph keeps its edges rather than cost the first run).
void drop_redundant_controls(GraphView& v) {
  constexpr int64_t kBudget = 1 << 20;
  int64_t visited = 0;
  std::vector<int> seen(static_cast<size_t>(v.size()), -1);  // the n whose search saw the node
  std::vector<int> stack;
  const auto from_identity = [&](const Input& in) { return in.control() && is_identity(v.at(in.node).op); };
  for (int n : v.live()) {
    std::vector<Input>& ins = v.at(n).inputs;
    if (std::none_of(ins.begin(), ins.end(), from_identity)) continue;
    stack.clear();
    for (const Input& in : ins)
      if (!in.control() && in.node >= 0 && seen[static_cast<size_t>(in.node)] != n) {
        seen[static_cast<size_t>(in.node)] = n;
        stack.push_back(in.node);
      }
    while (!stack.empty() && visited < kBudget) {
      const int id = stack.back();
      stack.pop_back();
      ++visited;
      for (const Input& in : v.at(id).inputs)
        if (in.node >= 0 && seen[static_cast<size_t>(in.node)] != n) {
          seen[static_cast<size_t>(in.node)] = n;
          stack.push_back(in.node);
        }
    }
    if (!stack.empty()) return;  // over budget: not searched to the end
    // An Identity that data no longer flows through (bypassed below, kept for its control
    // consumers) is as good as its inputs.
    const auto upstream = [&](int id) {
      if (seen[static_cast<size_t>(id)] == n) return true;
      for (const Input& in : v.at(id).inputs)
        if (in.node < 0 || seen[static_cast<size_t>(in.node)] != n) return false;
      return true;
    };
    std::vector<Input> kept;
    for (const Input& in : ins)
      if (!from_identity(in) || !upstream(in.node)) kept.push_back(in);
    if (kept.size() != ins.size()) {
      ins.swap(kept);
      v.changed();
    }
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
      if ((n.op != "IdentityN" && n.num_data_inputs() != 1) || reads_ref(v, id)) continue;
      // The source of a control edge stays for those edges, but its data consumers still read its
      // input: an inlined function's output Identity, which a frozen graph's final Identity waits
      // on, would otherwise keep a convolution from its BiasAdd (Keras 3's grouped convolutions).
      const bool control_source = v.has_control_consumer(id);
      if (control_source) {
        bool data_use = false;
        for (int c : v.consumers(id))
          for (const Input& in : v.at(c).inputs) data_use = data_use || (in.node == id && !in.control());
        if (!data_use) continue;
      }
      const std::vector<Input> srcs = n.data_inputs();
      v.forward_controls(id, id);
      for (size_t i = 0; i < srcs.size(); ++i) v.replace_uses(Input{id, static_cast<int>(i)}, srcs[i]);
      if (control_source) continue;
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
  // After the NoOps above handed their control inputs on (a frozen graph's final Identity gets
  // one per function call), and the Identities kept as control sources no longer carry data.
  drop_redundant_controls(v);
  v.prune_dead();
}

}  // namespace optimizer
}  // namespace opforge
