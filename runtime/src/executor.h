// What the Session's executors share (internal to the runtime): the straight-line executor in
// session.cc and the concurrent one in concurrent_executor.cc run graphs without control flow;
// the dataflow executor (control_flow.h) runs graphs with TensorFlow 1's control-flow ops
// (dead tensors, frames, iterations). Running one node (node_exec.cc) is common to them all.
#pragma once

#include <string>
#include <vector>

#include "opforge/graph.h"
#include "opforge/kernel.h"

namespace opforge {
namespace exec {

// s, with " [[node NAME]]" appended when it is an error.
Status at_node(const Status& s, const std::string& node);

// Soft placement (TensorFlow's allow_soft_placement): a node asking for a GPU runs there when
// this machine has that GPU and a kernel for the node's op and dtype; otherwise on the CPU.
DeviceSpec node_device(const Node& node);

// Where a node run on `device` wants each input argument: host memory on the CPU, and on a GPU
// for the arguments its kernel declares host memory (shapes, axes); the GPU for the rest.
class ArgPlacement {
 public:
  ArgPlacement(const Node& node, const DeviceSpec& device);
  DeviceSpec of(size_t arg) const;
  // The device the kernel runs on: `device` when it has a kernel for the node there, else the CPU.
  DeviceSpec kernel_device() const { return kernel_ ? device_ : DeviceSpec(); }

 private:
  DeviceSpec device_;
  const KernelDef* kernel_ = nullptr;  // the GPU kernel; null on the CPU
};

// The current value of a variable read through a reference; FailedPrecondition when it has
// never been assigned.
Status read_variable(Variable* v, const std::string& node, Tensor* out);

// Buffers one run reuses from node to node.
struct Scratch {
  std::vector<Tensor> outs, moved;
  std::vector<const Shape*> shapes;
  std::vector<const Tensor*> vals;
};

// Runs a node's kernel. `inputs` holds one pointer per flattened input (unused for reference
// inputs, whose variables are in env.ref_inputs); inputs move to the device the kernel wants,
// the shape function runs on their actual shapes, and the outputs land in scratch.outs (with
// reference outputs in env.ref_outputs). `forwardable` marks the inputs the executor holds
// alone and reads no more (an in-place kernel may reuse their buffers).
Status run_node(const Node& node, const DeviceSpec& device, std::vector<const Tensor*>& inputs,
                const std::vector<bool>& forwardable, ExecEnv& env, Scratch& scratch);

}  // namespace exec

// The dataflow executor (control_flow.h): the plan of a graph with control flow
// (control_flow_plan.cc), and running it (control_flow_run.cc). `needed` marks the nodes the
// run needs (pruned).
struct DataflowPlan;
Status build_dataflow_plan(const Graph& g, const std::vector<char>& needed,
                           const std::vector<std::pair<TensorRef, Tensor>>& feeds,
                           const std::vector<TensorRef>& fetches, std::shared_ptr<const DataflowPlan>* plan);
class StepTracer;  // session_impl.h
// `tracer` (null: not traced) records each node run that is not dead, once per iteration.
Status run_dataflow(const Graph& g, const DataflowPlan& plan, ResourceMgr* resources,
                    const std::vector<std::pair<TensorRef, Tensor>>& feeds, std::vector<Tensor>* outputs,
                    StepTracer* tracer = nullptr);

}  // namespace opforge
