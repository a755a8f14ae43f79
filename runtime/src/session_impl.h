// The Session's plans and executors (internal to the runtime; the installed graph.h holds
// only Session's interface). Plans: session_plan.cc; the Session's run (checks, plan, choice of
// executor): session.cc; the executors, behind the Executor interface below: straight-line
// (straight_line_executor.cc), concurrent (concurrent_executor.cc) and dataflow for graphs
// with control flow (control_flow_plan.cc, control_flow_run.cc); running one node: node_exec.cc.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "executor.h"
#include "opforge/graph.h"

namespace opforge {

inline int64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count();
}

struct Session::Impl {
  Impl(std::shared_ptr<const Graph> graph, std::shared_ptr<ResourceMgr> resources)
      : graph_(std::move(graph)), resources_(std::move(resources)) {}

  Status run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
             const std::vector<int>& targets, std::vector<Tensor>* outputs, StepTrace* trace);
  size_t cached_plans() const {
    std::lock_guard<std::mutex> lock(plans_mu_);
    return plans_.size();
  }
  void set_optimizer(GraphOptimizerConfig config);
  std::vector<std::string> take_optimizer_errors();
  std::vector<std::shared_ptr<const Graph>> optimized_graphs() const;

  struct Step {
    int node;
    std::vector<int> input_slots;  // per flattened input
    std::vector<bool> deref;       // input reads a Ref slot as a value
    std::vector<bool> pass_ref;    // input is a Ref argument
    int out_base;                  // first output slot
    // Slots whose last reader is this step: dropped right after it runs, so their buffers go
    // back to the allocator's cache while the run goes on (liveness-based reuse).
    std::vector<int> release;
    std::vector<bool> last_read;  // per flattened input: its slot is in `release`
    // Where the node runs: its device when that is a GPU of this machine with a kernel for
    // the node's op and dtype, else the CPU (soft placement, see Session::Run).
    DeviceSpec device;
    // A Const on the CPU is run once when the plan is made and its value kept here: a run
    // only puts it in its slot (frozen models have thousands of constants).
    bool precomputed = false;
    Tensor value;
    // The node's op exchanges data with the job's other processes (a collective): the
    // concurrent executor runs it on the collective thread (concurrent_executor.cc).
    bool collective = false;
    // For the concurrent executor: the steps that wait on this one (data or control), how many
    // steps this one waits on, and the distinct slots it reads.
    std::vector<int> successors;
    int waits_on = 0;
    std::vector<int> read_slots;
  };
  struct Plan {
    uint64_t version = 0, edits = 0;  // of the session's graph
    // The graph the steps run: the session's, or the optimizer's rewrite of it (whose node ids
    // the steps, feeds and fetches of this plan use).
    std::shared_ptr<const Graph> graph;
    std::vector<TensorRef> feed_refs;              // the feeds, in `graph`
    std::shared_ptr<const DataflowPlan> dataflow;  // set for graphs with control flow
    std::vector<Step> steps;
    int num_slots = 0;
    std::vector<int> feed_slots, fetch_slots;
    // Inter-op parallelism: set when every step runs on the CPU (inference graphs and TF1
    // training steps alike; control flow runs on the dataflow executor). Such a plan may run
    // on the concurrent executor: independent ready steps at once, one thread each, where
    // their measured times say that beats one step at a time over all threads. As in
    // TensorFlow, only data and control edges order the steps; stateful kernels are thread-safe
    // (a Session runs concurrently anyway), and steps that change a variable run after the
    // other ready steps, which may read it (concurrent_executor.cc). On a busy machine a plan
    // with no stateful step runs on the team loop instead (team_executor.cc).
    bool concurrent = false;
    // Some step is a collective: the executor is chosen by rule, not by timing, so that every
    // process of a job runs its collectives in the same order.
    bool collectives = false;
    // No step's op is stateful (no variable, random draw, queue...): an inference graph, which
    // the concurrent executor's team loop may run (steps in any order their edges allow).
    bool stateless = false;
    std::vector<int> readers;  // per slot: the steps that read it (-1: fetched, kept to the end)
    // The executor's cost model, per step: its kernel time (nanoseconds; 0 before it has run)
    // when it last ran alone over all threads, and when it last ran on one thread beside
    // others. Shared by concurrent runs of the plan, hence atomic.
    std::unique_ptr<std::atomic<int64_t>[]> alone_ns, beside_ns;
    // Which executor a concurrent plan uses, per shape of its feeds (a batch size): the first
    // runs time both, later runs take the quicker (see Session::run).
    struct Tuning {
      int runs = 0;
      int64_t one_at_a_time_ns = INT64_MAX, concurrent_ns = INT64_MAX;
    };
    mutable std::mutex tuning_mu;
    mutable std::map<std::vector<int64_t>, Tuning> tuning;
  };
  // Which executor runs this call of a concurrent plan (see Session::run), and the tuning
  // entry to report its wall time to (null: not a timing run).
  struct ExecutorChoice {
    bool concurrent = false;
    bool team = false;  // the concurrent executor's team loop (a busy machine), not its waves
    Plan::Tuning* timing = nullptr;
  };
  static ExecutorChoice choose_executor(const Plan& plan, const std::vector<std::pair<TensorRef, Tensor>>& feeds);
  Status make_plan(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                   const std::vector<int>& targets, Plan* plan) const;

  // The cached plan for this signature, built under the lock on first use.
  Status get_plan(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                  const std::vector<int>& targets, std::shared_ptr<const Plan>* plan);

  std::shared_ptr<const Graph> graph_;
  std::shared_ptr<ResourceMgr> resources_;
  GraphOptimizerConfig optimizer_;
  mutable std::mutex optimizer_mu_;
  mutable std::vector<std::string> optimizer_errors_;
  mutable std::mutex plans_mu_;
  std::map<std::string, std::shared_ptr<const Plan>> plans_;
};

// Records node runs into a StepTrace for a traced run (RunArgs::tracer; executors call it only
// when that is set, so an untraced run pays one branch per node). Safe to call from the
// concurrent executor's threads. Times are steady-clock nanoseconds (now()), turned into
// nanoseconds since the epoch by the offset read when the run began.
class StepTracer {
 public:
  explicit StepTracer(StepTrace* out);
  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // One run of `node` on `device` from t0 to t1 (now() values); output k is tensor_at(k): null
  // for an output not produced (dead), an uninitialized tensor for a reference output.
  template <typename TensorAt>
  void record(int node, const DeviceSpec& device, int64_t t0, int64_t t1, size_t num_outputs, TensorAt&& tensor_at) {
    StepTrace::NodeRun run;
    run.node = node;
    run.device = device;
    run.start_ns = t0 + offset_ns_;
    run.end_ns = t1 + offset_ns_;
    run.outputs.resize(num_outputs);
    for (size_t k = 0; k < num_outputs; ++k) describe(tensor_at(k), &run.outputs[k]);
    finish(std::move(run));
  }
  // Fills names, ops and inputs from the graph the plan ran, and each reference output's
  // dtype (called once the executor is done, under the graph's lock).
  void name_nodes(const Graph& g);

 private:
  static void describe(const Tensor* t, StepTrace::Output* out);
  void finish(StepTrace::NodeRun&& run);

  StepTrace* out_;
  int64_t offset_ns_;
  std::mutex mu_;
};

// One run of a plan as an executor sees it. `graph`, `feeds` and `fetches` are the session's
// (the plan's own graph and feed references are in `plan`); everything the run mutates is the
// executor's own, so any number of runs of one plan may go at once.
struct RunArgs {
  const Graph& graph;
  const Session::Impl::Plan& plan;
  const std::vector<std::pair<TensorRef, Tensor>>& feeds;
  const std::vector<TensorRef>& fetches;
  ResourceMgr* resources;
  StepTracer* tracer = nullptr;  // set for a traced run
};

// The Session's executors, behind one interface. Session::Impl::run checks the call, gets the
// plan and hands it to one: the dataflow executor for a plan with control flow; for the rest
// the straight-line one, or for a concurrent plan whichever the tuning picks. Each puts one
// tensor per fetch in `outputs`.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual Status run(const RunArgs& args, std::vector<Tensor>* outputs) const = 0;
};

namespace executors {
// One step at a time, each over all threads (straight_line_executor.cc).
const Executor& straight_line();
// Independent ready steps at once, one thread each, by the plan's cost model (concurrent_executor.cc).
const Executor& concurrent();
// Every thread taking the next ready step as it comes free, one thread each (team_executor.cc).
const Executor& team();
// TensorFlow 1's control flow: frames, iterations, dead tensors (control_flow_run.cc).
const Executor& dataflow();
}  // namespace executors

// Whether other processes lately kept this process's threads from their cores (a parallel
// region waited out a descheduled worker, or a team run its own thread): stateless plans then
// run on the team loop (team_executor.cc).
bool machine_busy();

}  // namespace opforge
