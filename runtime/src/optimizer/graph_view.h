// The mutable view of a runtime Graph that the graph optimizer's passes rewrite (TensorFlow's
// Grappler works on a GraphDef the same way): nodes by name with their op, device, inputs
// (data inputs first, then control inputs, as in a NodeDef), attrs by name and the output
// shapes the runtime's shape inference gave them. Nodes are never moved: a removed node keeps
// its id (dead) and new nodes are appended, so ids stay valid while a pass runs. The result is
// built back into a new Graph with Graph::add_node (attrs, dtypes and shapes re-inferred and
// checked); Const nodes keep their value Tensor, so the new graph shares its buffers.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "opforge/graph.h"

namespace opforge {
namespace optimizer {

// A pass that cannot go on throws this (the meta optimizer reports it and rolls the pass back).
struct PassError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Input {
  int node = -1;
  int index = 0;  // -1: a control input
  bool control() const { return index < 0; }
  bool operator==(const Input& o) const { return node == o.node && index == o.index; }
  bool operator!=(const Input& o) const { return !(*this == o); }
};

struct VNode {
  std::string name, op, device;
  const OpSpec* spec = nullptr;  // null for an op the registry lacks (treated as stateful)
  std::vector<Input> inputs;     // data inputs, then control inputs
  std::map<std::string, AttrValue> attrs;
  // Output shapes as inferred in the source graph; empty once a pass rewrote the node into
  // something else (TensorFlow's _output_shapes go with the attrs there too).
  std::vector<Shape> shapes;
  bool alive = true;
  bool preserved = false;  // fetched, fed or a target: keeps its name, op and outputs
  bool fed = false;        // one of its outputs is fed: none of them is a constant
  int source = -1;         // its id in the source graph; -1 for a node a pass made
  bool edited = false;     // a pass changed its attrs in place

  std::vector<Input> data_inputs() const;
  std::vector<Input> control_inputs() const;
  size_t num_data_inputs() const;
  bool has_attr(const std::string& k) const { return attrs.count(k) != 0; }
  const AttrValue& attr(const std::string& k) const;  // throws PassError when missing
  DType type_attr(const std::string& k) const { return has_attr(k) ? attrs.at(k).type : DType::kInvalid; }
  bool bool_attr(const std::string& k) const { return has_attr(k) && attrs.at(k).b; }
  std::string data_format() const { return has_attr("data_format") ? attrs.at("data_format").s : "NHWC"; }
};

class GraphView {
 public:
  // The nodes of `g` that the preserved nodes need (data or control inputs, transitively).
  GraphView(const Graph& g, const std::vector<std::string>& preserve, const std::vector<std::string>& fed);

  // ---- lookup
  int size() const { return static_cast<int>(nodes_.size()); }
  VNode& at(int id) { return nodes_[static_cast<size_t>(id)]; }
  const VNode& at(int id) const { return nodes_[static_cast<size_t>(id)]; }
  int find(const std::string& name) const;  // -1 when absent or removed
  int num_alive() const;
  // Ids of the live nodes, in order (a snapshot: passes edit while they walk it).
  std::vector<int> live() const;
  // Inputs were edited by hand: the consumer index is rebuilt on the next query. (The edits
  // below keep the index up to date themselves, so a pass making thousands of them stays linear.)
  void changed() { consumers_valid_ = false; }
  // Distinct nodes with a data or control input from node id.
  const std::vector<int>& consumers(int id);
  bool has_control_consumer(int id);
  // Exactly one data use of any output of id, no control use, not preserved.
  bool has_single_data_consumer(int id);
  // The producer of data input i of n (-1 when it has none).
  int producer(int n, size_t i) const;
  bool is_stateful(int id) const;
  // The output's shape when fully known (every dimension), else nullptr.
  const Shape* known_shape(Input t) const;
  // The output's shape when its rank is known (dims may be -1), else nullptr.
  const Shape* recorded_shape(Input t) const;

  // ---- constants
  bool is_constant(int id) const;  // an unfed Const
  // The value of tensor t when it is an unfed Const's output 0, else nullptr.
  const Tensor* constant_value(Input t) const;
  // Appends a Const node holding value; returns its id. `name` must be free.
  int make_const(const std::string& name, const Tensor& value, const std::string& device);

  // ---- edits
  std::string unique_name(const std::string& base) const;
  // Applies rule(id) -> whether it rewrote something to every live node, sweeping again until
  // a sweep changes nothing.
  template <typename F>
  void rewrite_to_fixpoint(F rule) {
    bool again = true;
    while (again) {
      again = false;
      for (int id : live())
        if (at(id).alive && rule(id)) again = true;
    }
  }
  // Every data input reading tensor `from` reads `to` instead (skipping node `skip`).
  void replace_uses(Input from, Input to, int skip = -1);
  // Every input (data or control) from node `from` reads node `to` instead, output for output.
  void redirect(int from, int to);
  // Control inputs of a node being removed move to the nodes that consume `to_consumers_of`.
  void forward_controls(int removed, int to_consumers_of);
  // Removes the nodes (preserved ones stay).
  void remove(const std::vector<int>& ids);
  // Removes what no preserved node depends on (data or control); returns how many.
  int prune_dead();
  // Rewrites node id in place into op `op` with the given inputs and attrs (its shapes drop).
  void rewrite(int id, const std::string& op, std::vector<Input> inputs, std::map<std::string, AttrValue> attrs);
  // Sets an attr of a node in place.
  void set_attr(int id, const std::string& name, AttrValue value);

  // ---- result
  // Whether the view differs from its source graph by more than pruning.
  bool changed_from_source(const Graph& source) const;
  // A new Graph of the live nodes (inputs first; a loop's NextIteration -> Merge back edges are
  // made last, with Graph::update_input). Errors name the node.
  // The live nodes, every node after its inputs (a loop's back edges aside); an error when the
  // graph has a cycle that is not a loop's.
  Status topological_order(std::vector<int>* order) const;
  Status build(std::shared_ptr<Graph>* out) const;
  // A Merge input made after the Merge (a loop's back edge), set once its source exists.
  struct BackEdge {
    int consumer, index;
    Input src;
  };
  // Adds node id to g, its inputs read through new_id (view id -> id in g; -1: not built,
  // allowed only for back edges, collected in *back); sets new_id[id].
  Status add_to(Graph& g, int id, std::vector<int>& new_id, std::vector<BackEdge>* back) const;

 private:
  std::vector<VNode> nodes_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<std::vector<int>> consumers_;
  bool consumers_valid_ = false;
  void index_consumers();
  // With a valid index: drop node c from (unlink) / add it to (link) the consumer lists of the
  // nodes its inputs read. An edit of c's inputs is unlink(c), edit, link(c).
  void unlink(int c);
  void link(int c);
};

const OpSpec* find_spec(const std::string& op);
std::string tensor_name(const GraphView& v, Input t);

// Numeric helpers over small constant tensors (weights, per-channel vectors).
// The values of a real (float, double, half, bfloat16) or integer tensor, as doubles.
bool to_doubles(const Tensor& t, std::vector<double>* out);
// A tensor of dtype with the given values (rounded as a cast would).
Tensor from_doubles(const std::vector<double>& values, DType dtype, const Shape& shape);
bool is_real(DType dt);  // float, double, bfloat16, half

// The passes (one per file), in the order the meta optimizer runs them.
void common_subgraph_elimination(GraphView& v);
void constant_folding(GraphView& v);
void arithmetic_optimization(GraphView& v);
void dependency_optimization(GraphView& v);
void fold_batch_norm(GraphView& v);
void remapping(GraphView& v);

// Shared by fold_batch_norm and the remapper.
// value as a [channels] vector (doubles) when broadcasting it against the output of
// contraction `c` applies it per output channel without changing the output's shape.
bool per_channel(const Tensor& value, const VNode& c, int64_t channels, std::vector<double>* out);
// Output channels of contraction c, from its constant weights; 0 when unknown.
int64_t contraction_channels(const GraphView& v, int c);

}  // namespace optimizer
}  // namespace opforge
