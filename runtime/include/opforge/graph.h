// Graphs and the Session that runs them (TensorFlow 1's model).
//
// A Graph is built node by node; each node's attrs are inferred and checked and its output
// dtypes and (possibly partial) shapes computed when it is added, so errors surface at
// construction. A Session prunes the graph to what the requested fetches and targets need,
// orders it topologically (control dependencies included), caches that plan per
// (feeds, fetches, targets) and runs it here in C++, kernel after kernel.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "opforge/attr.h"
#include "opforge/device.h"
#include "opforge/op.h"
#include "opforge/resource.h"

namespace opforge {

struct TensorRef {
  int node = -1;
  int index = 0;
  bool operator<(const TensorRef& o) const { return node != o.node ? node < o.node : index < o.index; }
  bool operator==(const TensorRef& o) const { return node == o.node && index == o.index; }
};

struct Node {
  std::string name;
  const OpSpec* op = nullptr;
  std::string device;
  std::vector<TensorRef> inputs;                // flattened over the input arguments
  std::vector<std::pair<int, int>> ranges;      // per input argument, into inputs
  std::vector<int> control_inputs;
  std::vector<AttrValue> attrs;                 // every attr, resolved
  std::vector<DType> out_dtypes;
  std::vector<bool> out_is_ref;
  std::vector<Shape> out_shapes;                // may be partially known
  std::vector<std::pair<int, int>> out_ranges;  // per output argument, into the outputs
};

class Graph {
 public:
  // Adds a node. `given` holds the caller's attrs (by index into op.attrs, has_given[i]).
  // Errors name the node and the op; on error the graph is unchanged.
  Status add_node(const std::string& name, const OpSpec& op, std::vector<TensorRef> inputs,
                  std::vector<std::pair<int, int>> ranges, std::vector<AttrValue> given,
                  std::vector<bool> has_given, std::vector<int> control_inputs,
                  const std::string& device, int* id);
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int id) const { return nodes_[static_cast<size_t>(id)]; }
  int find(const std::string& name) const;
  // Removes the nodes with id >= n (undoing a failed import); sessions never ran them.
  void truncate(int n);
  uint64_t version() const { return nodes_.size(); }

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> by_name_;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Graph> graph) : graph_(std::move(graph)) {}

  // Runs the nodes needed for fetches and targets; fed tensors replace their producers.
  Status run(const std::vector<std::pair<TensorRef, Tensor>>& feeds,
             const std::vector<TensorRef>& fetches, const std::vector<int>& targets,
             std::vector<Tensor>* outputs);
  ResourceMgr& resources() { return resources_; }
  size_t cached_plans() const { return plans_.size(); }

 private:
  struct Step {
    int node;
    std::vector<int> input_slots;   // per flattened input
    std::vector<bool> deref;        // input reads a Ref slot as a value
    std::vector<bool> pass_ref;     // input is a Ref argument
    int out_base;                   // first output slot
    // Where the node runs: its device when that is a GPU of this machine with a kernel for
    // the node's op and dtype, else the CPU (soft placement, see Session::Run).
    DeviceSpec device;
  };
  struct Plan {
    uint64_t version = 0;
    std::vector<Step> steps;
    int num_slots = 0;
    std::vector<int> feed_slots, fetch_slots;
  };
  Status make_plan(const std::vector<std::pair<TensorRef, Tensor>>& feeds,
                   const std::vector<TensorRef>& fetches, const std::vector<int>& targets,
                   Plan* plan) const;

  std::shared_ptr<const Graph> graph_;
  ResourceMgr resources_;
  std::map<std::string, Plan> plans_;
  std::string key_scratch_;
  std::vector<Tensor> values_scratch_;
  std::vector<Variable*> refs_scratch_;
};

}  // namespace opforge
