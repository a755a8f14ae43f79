// Graphs and the Session that runs them (TensorFlow 1's model).
//
// A Graph is built node by node; each node's attrs are inferred and checked and its output
// dtypes and (possibly partial) shapes computed when it is added, so errors surface at
// construction. A Session prunes the graph to what the requested fetches and targets need,
// orders it topologically (control dependencies included), caches that plan per
// (feeds, fetches, targets) and runs it here in C++, kernel after kernel.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
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
  std::vector<TensorRef> inputs;            // flattened over the input arguments
  std::vector<std::pair<int, int>> ranges;  // per input argument, into inputs
  std::vector<int> control_inputs;
  std::vector<AttrValue> attrs;  // every attr, resolved
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
                  std::vector<std::pair<int, int>> ranges, std::vector<AttrValue> given, std::vector<bool> has_given,
                  std::vector<int> control_inputs, const std::string& device, int* id);
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int id) const { return nodes_[static_cast<size_t>(id)]; }
  int find(const std::string& name) const;
  // Removes the nodes with id >= n (undoing a failed import); sessions never ran them.
  void truncate(int n);
  uint64_t version() const { return nodes_.size(); }
  // Replaces input `index` (flattened) of a node by src, which must have the same dtype: how
  // a loop's Merge gets its NextIteration back edge, made after the Merge. Sessions rebuild
  // the plans that were made before (edits() counts these changes). A Merge's output shape
  // is relaxed to cover the new input.
  Status update_input(int node, int index, TensorRef src);
  uint64_t edits() const { return edits_; }
  // Declares output `index` of a node to have `shape`, which must be compatible with what is
  // known: a loop variable's shape invariant (less specific than its first value's shape).
  Status set_output_shape(int node, int index, const Shape& shape);

  // Readers (Session::run, lookups from Python) hold this shared; add_node and truncate
  // take it exclusively, so a graph may grow while other threads run it.
  std::shared_mutex& mutex() const { return mu_; }

 private:
  mutable std::shared_mutex mu_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> by_name_;
  uint64_t edits_ = 0;
};

// Whether op is one of TensorFlow 1's control-flow ops (Switch, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger): a graph that runs one needs the dataflow executor.
bool is_control_flow_op(const std::string& op);

// Inter-op parallelism of Session runs (Session::run_concurrent), for tests and comparisons:
// kAuto (the default) times both executors on a plan's first runs and keeps the quicker; kOff
// runs every plan one step at a time (each step over all threads); kAlways runs every plan that
// allows it on the concurrent executor, every wave of two or more steps at once; kTeam runs
// every plan that allows it as kAuto does while the machine is busy (its team loop: each
// thread takes the next ready step as it comes free, no waves).
enum class ConcurrentExecutor { kOff = 0, kAuto = 1, kAlways = 2, kTeam = 3 };
ConcurrentExecutor concurrent_executor();
void set_concurrent_executor(ConcurrentExecutor mode);

// Per-op-type kernel time of Session runs, while enabled (of.config.experimental profiling and
// the benchmarks): op name -> (kernel runs, nanoseconds). Enabling clears the totals.
bool profiling_enabled();
// by_shape: one entry per op and input shapes, not per op.
void set_profiling(bool on, bool by_shape = false);
void record_op_time(const std::string& op, std::chrono::nanoseconds ns);
std::map<std::string, std::pair<int64_t, int64_t>> profile_stats();

// Which graph optimizer passes a Session runs (RewriterConfig toggle names: constant_folding,
// arithmetic_optimization, dependency_optimization, remapping, common_subgraph_elimination),
// and whether a pass's failure fails the run instead of being reported.
struct GraphOptimizerConfig {
  std::vector<std::string> passes;
  bool fail_on_errors = false;
};

// What a traced Session::run recorded (TensorFlow's RunOptions.trace_level = FULL_TRACE): one
// entry per node run, in the order the runs finished (a node in a loop runs once per iteration).
// Plain data: the Python bindings write TensorFlow's StepStats of it (runtime/python/step_stats.cc).
struct StepTrace {
  struct Output {
    bool produced = true;  // false: a dead output (the untaken side of a Switch)
    DType dtype = DType::kInvalid;
    bool known_shape = false;  // false for a reference output (a variable), whose value stays put
    std::vector<int64_t> dims;
    int64_t requested_bytes = 0, allocated_bytes = 0;
  };
  struct NodeRun {
    int node = -1;                    // in the graph the run's plan ran (the optimizer's, or the session's)
    std::string name, op;             // filled when the run ends
    std::vector<std::string> inputs;  // "src", "src:1", "^ctrl" (a NodeDef's inputs)
    DeviceSpec device;
    int64_t start_ns = 0, end_ns = 0;  // nanoseconds since the epoch
    uint32_t thread_id = 0;            // small numbers, one per thread of this process
    std::vector<Output> outputs;
    int64_t host_bytes_in_use = -1;  // the host allocator right after the node (-1: not read)
  };
  std::vector<NodeRun> nodes;
};

// Thread-safe: any number of threads may call run() at once. Plans are immutable once built
// and shared; everything one run mutates (slot values, scratch) is local to that run. The plans
// and executors are the runtime's own (runtime/src/session_impl.h).
class Session {
 public:
  // `resources` shares the variable store of another session; a new store when null.
  explicit Session(std::shared_ptr<const Graph> graph, std::shared_ptr<ResourceMgr> resources = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the nodes needed for fetches and targets; fed tensors replace their producers.
  Status run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
             const std::vector<int>& targets, std::vector<Tensor>* outputs);
  // The same, recording each node's run into `trace` (when not null).
  Status run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
             const std::vector<int>& targets, std::vector<Tensor>* outputs, StepTrace* trace);
  ResourceMgr& resources();
  const std::shared_ptr<ResourceMgr>& shared_resources() const;
  size_t cached_plans() const;
  // The graph optimizer (runtime/src/optimizer): when set, each plan runs the graph the passes
  // make of the part of the graph its (feeds, fetches, targets) need, built once with the plan.
  // Fed, fetched and target nodes keep their names. Set before the first run.
  void set_optimizer(GraphOptimizerConfig config);
  // Reports of the passes that failed since the last call ("pass: error"); each failure left
  // the graph as the previous pass made it.
  std::vector<std::string> take_optimizer_errors();
  // The optimized graphs of the cached plans (plans whose graph the optimizer changed).
  std::vector<std::shared_ptr<const Graph>> optimized_graphs() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace opforge
