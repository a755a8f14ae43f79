// Running one node's kernel for the Session's executors (input placement, shape function,
// kernel call), and the per-op profile of those runs.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "executor.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/op_check.h"
#include "opforge/parallel.h"
#include "session_impl.h"

namespace opforge {
namespace {

std::atomic<bool> g_profiling{false};
std::atomic<bool> g_profile_by_shape{false};
std::mutex g_profile_mu;
std::map<std::string, std::pair<int64_t, int64_t>> g_profile;  // op -> (runs, nanoseconds)

}  // namespace

bool profiling_enabled() { return g_profiling.load(std::memory_order_relaxed); }

bool profiling_by_shape() { return g_profile_by_shape.load(std::memory_order_relaxed); }

void set_profiling(bool on, bool by_shape) {
  std::lock_guard<std::mutex> lock(g_profile_mu);
  g_profiling.store(on);
  g_profile_by_shape.store(on && by_shape);
  if (on) g_profile.clear();
}

void record_op_time(const std::string& op, std::chrono::nanoseconds ns) {
  std::lock_guard<std::mutex> lock(g_profile_mu);
  auto& e = g_profile[op];
  ++e.first;
  e.second += ns.count();
}

std::map<std::string, std::pair<int64_t, int64_t>> profile_stats() {
  std::lock_guard<std::mutex> lock(g_profile_mu);
  return g_profile;
}

namespace exec {

Status at_node(const Status& s, const std::string& node) {
  if (s.ok()) return s;
  return Status(s.code(), s.message() + " [[node " + node + "]]");
}

DeviceSpec node_device(const Node& node) {
  DeviceSpec d;
  if (node.device.empty() || !parse_device(node.device, &d).ok() || d.type == Device::kCPU) return DeviceSpec();
  if (!check_device(d).ok()) return DeviceSpec();
  const OpSpec& op = *node.op;
  const DType dispatch = op.dispatch_attr >= 0 ? node.attrs[op.dispatch_attr].type : DType::kInvalid;
  for (const ArgSpec& arg : op.inputs)
    if (arg.is_ref) return DeviceSpec();  // variables live in host memory
  if (KernelRegistry::Global().find_cached(op, d.type, dispatch) == nullptr) return DeviceSpec();
  return d;
}

ArgPlacement::ArgPlacement(const Node& node, const DeviceSpec& device) : device_(device) {
  if (device.type == Device::kCPU) return;
  const OpSpec& op = *node.op;
  const DType dispatch = op.dispatch_attr >= 0 ? node.attrs[op.dispatch_attr].type : DType::kInvalid;
  kernel_ = KernelRegistry::Global().find_cached(op, device.type, dispatch);
}

DeviceSpec ArgPlacement::of(size_t arg) const {
  const bool host = kernel_ == nullptr || (arg < 64 && ((kernel_->host_inputs >> arg) & 1));
  return host ? DeviceSpec() : device_;
}

Status read_variable(Variable* v, const std::string& node, Tensor* out) {
  if (v == nullptr) return exec::at_node(errors::Internal("missing variable reference"), node);
  std::lock_guard<std::mutex> lock(v->mu);
  if (!v->initialized) {
    return exec::at_node(Status(Code::kFailedPrecondition, "Attempting to use uninitialized value " + v->name), node);
  }
  *out = v->value;
  return Status::OK();
}

Status run_node(const Node& node, const DeviceSpec& device, std::vector<const Tensor*>& inputs,
                const std::vector<bool>& forwardable, ExecEnv& env, Scratch& scratch) {
  const OpSpec& op = *node.op;
  env.forwardable_inputs = forwardable;
  // Inputs move to where the node's kernel wants them (GPU nodes: host-memory arguments on
  // the CPU, the rest on the GPU; CPU nodes: everything on the CPU).
  const ArgPlacement placement(node, device);
  std::vector<Tensor>& moved = scratch.moved;
  moved.clear();
  moved.reserve(inputs.size());  // pointers into it must stay valid
  for (size_t a = 0; a < node.ranges.size(); ++a) {
    const DeviceSpec want = placement.of(a);
    for (int k = node.ranges[a].first; k < node.ranges[a].second; ++k) {
      const Tensor* t = inputs[static_cast<size_t>(k)];
      if (env.ref_inputs[static_cast<size_t>(k)] != nullptr || !t->initialized()) continue;
      if (DeviceSpec{t->device(), t->device_index()} == want) continue;
      moved.emplace_back();
      OPF_RETURN_IF_ERROR(exec::at_node(copy_tensor(*t, want, &moved.back()), node.name));
      inputs[static_cast<size_t>(k)] = &moved.back();
      env.forwardable_inputs[static_cast<size_t>(k)] = false;
    }
  }
  std::vector<const Shape*>& shapes = scratch.shapes;
  std::vector<const Tensor*>& vals = scratch.vals;
  shapes.clear();
  vals.clear();
  for (size_t k = 0; k < inputs.size(); ++k) {
    // A reference input is described by its variable's declared shape.
    Variable* v = env.ref_inputs[k];
    shapes.push_back(v != nullptr ? &v->shape : &inputs[k]->shape());
    vals.push_back(v != nullptr || !inputs[k]->on_host() ? nullptr : inputs[k]);
  }
  // Fed values were checked against the declared dtypes; inputs of other nodes come from
  // kernels that produce the declared dtypes, so attrs inferred at construction still hold.
  ShapeContext sc(op, shapes, vals, node.attrs, node.ranges);
  sc.resize_outputs(static_cast<int>(node.out_dtypes.size()));
  if (op.shape_fn) OPF_RETURN_IF_ERROR(exec::at_node(op.shape_fn(sc), node.name));
  env.node_name = &node.name;
  env.ref_outputs.assign(node.out_dtypes.size(), nullptr);
  const bool profile = profiling_enabled();
  const auto t0 = profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  OPF_RETURN_IF_ERROR(exec::at_node(run_kernel(op, inputs, node.ranges, node.attrs, node.out_dtypes, sc, &scratch.outs,
                                               &env, placement.kernel_device()),
                                    node.name));
  if (profile) {
    std::string key = op.name;
    if (profiling_by_shape()) {  // "Conv2D [1,56,56,64] [3,3,64,64]"
      for (const Shape* s : shapes) key += " " + s->to_string();
    }
    record_op_time(key, std::chrono::steady_clock::now() - t0);
  }
  moved.clear();
  return Status::OK();
}

}  // namespace exec

}  // namespace opforge
