// Graph construction (attr inference and shape inference per node) and the Session
// executor (pruning, topological order, plan cache, kernel loop).
#include "opforge/graph.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>

#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/op_check.h"
#include "opforge/parallel.h"
#include "executor.h"
#include "session_impl.h"
#include "optimizer/meta_optimizer.h"

namespace opforge {
namespace {

// The value of a Const node's output, for shape functions that read input values.
const Tensor* const_value(const Node& n) {
  if (n.op->name != "Const") return nullptr;
  for (size_t i = 0; i < n.op->attrs.size(); ++i) {
    if (n.op->attrs[i].name == "value" && n.attrs[i].tensor.initialized()) return &n.attrs[i].tensor;
  }
  return nullptr;
}

}  // namespace

int Graph::find(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void Graph::truncate(int n) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  while (num_nodes() > n && n >= 0) {
    by_name_.erase(nodes_.back().name);
    nodes_.pop_back();
  }
}

Status Graph::update_input(int id, int index, TensorRef src) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (id < 0 || id >= num_nodes()) return errors::InvalidArgument("update_input: no node ", id);
  Node& n = nodes_[static_cast<size_t>(id)];
  if (index < 0 || index >= static_cast<int>(n.inputs.size())) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": has no input ", index), n.name);
  }
  if (src.node < 0 || src.node >= num_nodes() ||
      src.index < 0 || src.index >= static_cast<int>(nodes_[static_cast<size_t>(src.node)].out_dtypes.size())) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": new input ", index, " refers to a tensor that does not exist"),
                         n.name);
  }
  const Node& s = nodes_[static_cast<size_t>(src.node)];
  const DType want = nodes_[static_cast<size_t>(n.inputs[static_cast<size_t>(index)].node)]
                         .out_dtypes[static_cast<size_t>(n.inputs[static_cast<size_t>(index)].index)];
  const DType got = s.out_dtypes[static_cast<size_t>(src.index)];
  if (got != want) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": input ", index, " must stay ", dtype_name(want),
                                                 ", got '", s.name, ":", src.index, "' of dtype ", dtype_name(got)),
                         n.name);
  }
  n.inputs[static_cast<size_t>(index)] = src;
  if (n.op->name == "Merge") n.out_shapes[0] = n.out_shapes[0].relaxed(s.out_shapes[static_cast<size_t>(src.index)]);
  ++edits_;
  return Status::OK();
}

Status Graph::set_output_shape(int id, int index, const Shape& shape) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (id < 0 || id >= num_nodes()) return errors::InvalidArgument("set_output_shape: no node ", id);
  Node& n = nodes_[static_cast<size_t>(id)];
  if (index < 0 || index >= static_cast<int>(n.out_shapes.size())) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": has no output ", index), n.name);
  }
  if (!shape.is_compatible_with(n.out_shapes[static_cast<size_t>(index)])) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": output ", index, " has shape ",
                                                 n.out_shapes[static_cast<size_t>(index)].to_string(),
                                                 ", which is not compatible with ", shape.to_string()),
                         n.name);
  }
  n.out_shapes[static_cast<size_t>(index)] = shape;
  return Status::OK();
}

Status Graph::add_node(const std::string& name, const OpSpec& op, std::vector<TensorRef> inputs,
                       std::vector<std::pair<int, int>> ranges, std::vector<AttrValue> given,
                       std::vector<bool> has_given, std::vector<int> control_inputs,
                       const std::string& device, int* id) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (name.empty()) return errors::InvalidArgument(op.name, ": node name must not be empty");
  if (by_name_.count(name)) {
    return errors::InvalidArgument(op.name, ": duplicate node name '", name, "'");
  }
  std::vector<DType> dtypes;
  std::vector<const Shape*> shapes;
  std::vector<const Tensor*> values;
  for (size_t a = 0; a < ranges.size() && a < op.inputs.size(); ++a) {
    for (int k = ranges[a].first; k < ranges[a].second; ++k) {
      const TensorRef& r = inputs[static_cast<size_t>(k)];
      if (r.node < 0 || r.node >= num_nodes()) {
        return exec::at_node(errors::InvalidArgument(op.name, ": input '", op.inputs[a].name,
                                               "' refers to a node that does not exist"), name);
      }
      const Node& src = nodes_[static_cast<size_t>(r.node)];
      if (r.index < 0 || r.index >= static_cast<int>(src.out_dtypes.size())) {
        return exec::at_node(errors::InvalidArgument(op.name, ": input '", op.inputs[a].name, "' refers to output ",
                                               r.index, " of node '", src.name, "', which has ",
                                               src.out_dtypes.size(), " outputs"), name);
      }
      if (op.inputs[a].is_ref && !src.out_is_ref[static_cast<size_t>(r.index)]) {
        return exec::at_node(errors::InvalidArgument(op.name, ": input '", op.inputs[a].name,
                                               "' must be a variable reference, got '", src.name, ":",
                                               r.index, "'"), name);
      }
      dtypes.push_back(src.out_dtypes[static_cast<size_t>(r.index)]);
      shapes.push_back(&src.out_shapes[static_cast<size_t>(r.index)]);
      values.push_back(r.index == 0 ? const_value(src) : nullptr);
    }
  }
  for (int c : control_inputs) {
    if (c < 0 || c >= num_nodes()) {
      return exec::at_node(errors::InvalidArgument(op.name, ": control input refers to a node that does not exist"), name);
    }
  }
  Node n;
  n.name = name;
  n.op = &op;
  n.device = device;
  given.resize(op.attrs.size());
  has_given.resize(op.attrs.size(), false);
  OPF_RETURN_IF_ERROR(exec::at_node(infer_attrs(op, dtypes, ranges, given, has_given), name));
  n.attrs = std::move(given);
  OPF_RETURN_IF_ERROR(exec::at_node(all_output_dtypes(op, n.attrs, &n.out_dtypes), name));
  for (const ArgSpec& arg : op.outputs) {
    int count = 1;
    if (arg.number_attr >= 0) count = static_cast<int>(n.attrs[arg.number_attr].i);
    if (arg.type_list_attr >= 0) count = static_cast<int>(n.attrs[arg.type_list_attr].list_type.size());
    int begin = static_cast<int>(n.out_is_ref.size());
    for (int k = 0; k < count; ++k) n.out_is_ref.push_back(arg.is_ref);
    n.out_ranges.emplace_back(begin, static_cast<int>(n.out_is_ref.size()));
  }
  ShapeContext sc(op, shapes, values, n.attrs, ranges);
  sc.resize_outputs(static_cast<int>(n.out_dtypes.size()));
  if (op.shape_fn) OPF_RETURN_IF_ERROR(exec::at_node(op.shape_fn(sc), name));
  n.out_shapes = sc.outputs();
  n.inputs = std::move(inputs);
  n.ranges = std::move(ranges);
  n.control_inputs = std::move(control_inputs);
  *id = num_nodes();
  by_name_[name] = *id;
  nodes_.push_back(std::move(n));
  return Status::OK();
}

void Session::Impl::set_optimizer(GraphOptimizerConfig config) {
  std::lock_guard<std::mutex> lock(plans_mu_);
  optimizer_ = std::move(config);
  plans_.clear();
}

std::vector<std::string> Session::Impl::take_optimizer_errors() {
  std::lock_guard<std::mutex> lock(optimizer_mu_);
  std::vector<std::string> out;
  out.swap(optimizer_errors_);
  return out;
}

std::vector<std::shared_ptr<const Graph>> Session::Impl::optimized_graphs() const {
  std::lock_guard<std::mutex> lock(plans_mu_);
  std::vector<std::shared_ptr<const Graph>> out;
  for (const auto& [key, plan] : plans_)
    if (plan->graph != graph_) out.push_back(plan->graph);
  return out;
}

Status Session::Impl::make_plan(const std::vector<std::pair<TensorRef, Tensor>>& user_feeds,
                          const std::vector<TensorRef>& user_fetches, const std::vector<int>& user_targets,
                          Plan* plan) const {
  plan->version = graph_->version();
  plan->edits = graph_->edits();
  plan->graph = graph_;
  // The graph optimizer rewrites what this signature needs; the plan then runs its graph, where
  // the fed, fetched and target nodes have the same names.
  std::vector<std::pair<TensorRef, Tensor>> mapped_feeds;
  std::vector<TensorRef> mapped_fetches;
  std::vector<int> mapped_targets;
  bool optimized = false;
  if (!optimizer_.passes.empty()) {
    const Graph& user = *graph_;
    optimizer::Options options;
    options.passes = optimizer_.passes;
    options.fail_on_errors = optimizer_.fail_on_errors;
    for (const auto& f : user_feeds) options.fed.push_back(user.node(f.first.node).name);
    for (const TensorRef& f : user_fetches) options.preserve.push_back(user.node(f.node).name);
    for (int t : user_targets) options.preserve.push_back(user.node(t).name);
    std::shared_ptr<Graph> rewritten;
    std::vector<optimizer::PassReport> report;
    const Status s = optimizer::optimize(user, options, &rewritten, &report);
    OPF_RETURN_IF_ERROR(s);  // with fail_on_errors, a failed pass fails the run
    {
      std::lock_guard<std::mutex> lock(optimizer_mu_);
      for (const optimizer::PassReport& r : report)
        if (!r.error.empty()) optimizer_errors_.push_back(r.name + ": " + r.error);
    }
    if (rewritten) {
      const auto map = [&](int id) { return rewritten->find(user.node(id).name); };
      bool ok = true;
      for (const auto& f : user_feeds) mapped_feeds.emplace_back(TensorRef{map(f.first.node), f.first.index}, f.second);
      for (const TensorRef& f : user_fetches) mapped_fetches.push_back(TensorRef{map(f.node), f.index});
      for (int t : user_targets) mapped_targets.push_back(map(t));
      for (const auto& f : mapped_feeds) ok = ok && f.first.node >= 0;
      for (const TensorRef& f : mapped_fetches) ok = ok && f.node >= 0;
      for (int t : mapped_targets) ok = ok && t >= 0;
      if (ok) {
        plan->graph = std::move(rewritten);
        optimized = true;
      } else {
        if (optimizer_.fail_on_errors) return errors::Internal("graph optimizer: a fed, fetched or target node lost its name");
        std::lock_guard<std::mutex> lock(optimizer_mu_);
        optimizer_errors_.push_back("meta_optimizer: a fed, fetched or target node lost its name");
      }
    }
  }
  const std::vector<std::pair<TensorRef, Tensor>>& feeds = optimized ? mapped_feeds : user_feeds;
  const std::vector<TensorRef>& fetches = optimized ? mapped_fetches : user_fetches;
  const std::vector<int>& targets = optimized ? mapped_targets : user_targets;
  for (const auto& f : feeds) plan->feed_refs.push_back(f.first);
  const Graph& g = *plan->graph;
  const int n = g.num_nodes();
  std::map<TensorRef, bool> fed;
  for (const auto& f : feeds) fed[f.first] = true;
  // Prune: walk back from fetches and targets; a fed tensor does not need its producer.
  std::vector<char> needed(static_cast<size_t>(n), 0);
  std::vector<int> stack;
  auto need = [&](int node) {
    if (!needed[static_cast<size_t>(node)]) {
      needed[static_cast<size_t>(node)] = 1;
      stack.push_back(node);
    }
  };
  for (const TensorRef& f : fetches)
    if (!fed.count(f)) need(f.node);
  for (int t : targets) need(t);
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    const Node& node = g.node(id);
    for (const TensorRef& r : node.inputs)
      if (!fed.count(r)) need(r.node);
    for (int c : node.control_inputs) need(c);
  }
  // Graphs with control flow run on the dataflow executor (control_flow.cc).
  for (int id = 0; id < n; ++id) {
    if (needed[static_cast<size_t>(id)] && is_control_flow_op(g.node(id).op->name)) {
      std::shared_ptr<const DataflowPlan> dataflow;
      OPF_RETURN_IF_ERROR(build_dataflow_plan(g, needed, feeds, fetches, &dataflow));
      plan->dataflow = std::move(dataflow);
      return Status::OK();
    }
  }
  // Topological order over the needed nodes (Kahn's algorithm, ties by node id).
  std::vector<int> indegree(static_cast<size_t>(n), 0);
  std::vector<std::vector<int>> consumers(static_cast<size_t>(n));
  for (int id = 0; id < n; ++id) {
    if (!needed[static_cast<size_t>(id)]) continue;
    const Node& node = g.node(id);
    std::vector<int> deps;
    for (const TensorRef& r : node.inputs)
      if (!fed.count(r)) deps.push_back(r.node);
    for (int c : node.control_inputs) deps.push_back(c);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (int d : deps) {
      consumers[static_cast<size_t>(d)].push_back(id);
      ++indegree[static_cast<size_t>(id)];
    }
  }
  std::vector<int> ready, order;
  for (int id = 0; id < n; ++id)
    if (needed[static_cast<size_t>(id)] && indegree[static_cast<size_t>(id)] == 0) ready.push_back(id);
  std::reverse(ready.begin(), ready.end());
  while (!ready.empty()) {
    int id = ready.back();
    ready.pop_back();
    order.push_back(id);
    for (int c : consumers[static_cast<size_t>(id)])
      if (--indegree[static_cast<size_t>(c)] == 0) ready.push_back(c);
  }
  size_t total = 0;
  for (int id = 0; id < n; ++id) total += needed[static_cast<size_t>(id)] ? 1 : 0;
  if (order.size() != total) {
    return errors::InvalidArgument("the graph has a cycle among the nodes the fetches need");
  }
  // Slots: one per output of every node in the plan, plus the fed tensors.
  std::map<TensorRef, int> slot;
  int next = 0;
  for (const auto& f : feeds) {
    if (!slot.count(f.first)) slot[f.first] = next++;
  }
  plan->steps.clear();
  for (int id : order) {
    const Node& node = g.node(id);
    Step st;
    st.node = id;
    st.out_base = next;
    st.device = exec::node_device(node);
    for (size_t k = 0; k < node.out_dtypes.size(); ++k) {
      TensorRef r{id, static_cast<int>(k)};
      if (!slot.count(r)) slot[r] = next;
      ++next;
    }
    plan->steps.push_back(std::move(st));
  }
  for (Step& st : plan->steps) {
    const Node& node = g.node(st.node);
    for (size_t a = 0; a < node.ranges.size(); ++a) {
      for (int k = node.ranges[a].first; k < node.ranges[a].second; ++k) {
        const TensorRef& r = node.inputs[static_cast<size_t>(k)];
        st.input_slots.push_back(slot.at(r));
        const bool src_ref = g.node(r.node).out_is_ref[static_cast<size_t>(r.index)];
        const bool arg_ref = node.op->inputs[a].is_ref;
        st.pass_ref.push_back(arg_ref && !fed.count(r));
        st.deref.push_back(src_ref && !arg_ref && !fed.count(r));
      }
    }
  }
  for (Step& st : plan->steps) {
    const Node& node = g.node(st.node);
    if (node.op->name != "Const" || st.device.type != Device::kCPU || !node.inputs.empty()) continue;
    // (A Const that fails, e.g. a value of the wrong dtype, stays a step and fails in the run.)
    ExecEnv env;
    exec::Scratch scratch;
    std::vector<const Tensor*> no_inputs;
    if (exec::run_node(node, st.device, no_inputs, {}, env, scratch).ok() && scratch.outs.size() == 1) {
      st.precomputed = true;
      st.value = std::move(scratch.outs[0]);
    }
  }
  // A precomputed constant that only GPU kernels read (a frozen model's weights, read by its
  // convolutions) is copied to that GPU once, here, rather than on every run. One that a CPU
  // step, a host-memory argument or a fetch also reads stays on the host.
  if (gpu_count() > 0) {
    struct Want {  // where the readers of a slot want it
      DeviceSpec device;
      int readers = 0;
      bool agree = true;
    };
    std::vector<Want> wants(static_cast<size_t>(next));
    const auto read = [&](int slot, const DeviceSpec& d) {
      Want& w = wants[static_cast<size_t>(slot)];
      if (w.readers++ == 0) w.device = d;
      else w.agree = w.agree && w.device == d;
    };
    for (const Step& st : plan->steps) {
      const Node& node = g.node(st.node);
      const exec::ArgPlacement placement(node, st.device);
      for (size_t a = 0; a < node.ranges.size(); ++a) {
        for (int k = node.ranges[a].first; k < node.ranges[a].second; ++k) {
          read(st.input_slots[static_cast<size_t>(k)], placement.of(a));
        }
      }
    }
    for (const TensorRef& f : fetches) read(slot.at(f), DeviceSpec());
    for (Step& st : plan->steps) {
      const Want& w = wants[static_cast<size_t>(st.out_base)];
      if (!st.precomputed || w.readers == 0 || !w.agree || w.device.type == Device::kCPU) continue;
      Tensor on_device;
      if (copy_tensor(st.value, w.device, &on_device).ok()) st.value = std::move(on_device);
    }
  }
  plan->feed_slots.clear();
  for (const auto& f : feeds) plan->feed_slots.push_back(slot.at(f.first));
  plan->fetch_slots.clear();
  for (const TensorRef& f : fetches) plan->fetch_slots.push_back(slot.at(f));
  plan->num_slots = next;
  // Liveness: each slot is dropped after the last step that reads it (or, unread, right after
  // the step that writes it). Fetched slots live to the end of the run.
  std::vector<int> last_use(static_cast<size_t>(next), -1);
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    const Step& st = plan->steps[i];
    for (size_t k = 0; k < g.node(st.node).out_dtypes.size(); ++k) last_use[static_cast<size_t>(st.out_base) + k] = static_cast<int>(i);
    for (int s : st.input_slots) last_use[static_cast<size_t>(s)] = static_cast<int>(i);
  }
  for (int s : plan->fetch_slots) last_use[static_cast<size_t>(s)] = -1;
  for (int s = 0; s < next; ++s) {
    const int step = last_use[static_cast<size_t>(s)];
    if (step >= 0) plan->steps[static_cast<size_t>(step)].release.push_back(s);
  }
  for (Step& st : plan->steps) {
    for (size_t k = 0; k < st.input_slots.size(); ++k) {
      const bool released = std::find(st.release.begin(), st.release.end(), st.input_slots[k]) != st.release.end();
      st.last_read.push_back(released && !st.pass_ref[k] && !st.deref[k]);
    }
  }
  // The concurrent executor's view: which steps wait on which, and who reads each slot.
  plan->concurrent = true;
  std::vector<int> step_of(static_cast<size_t>(n), -1);
  for (size_t i = 0; i < plan->steps.size(); ++i) step_of[static_cast<size_t>(plan->steps[i].node)] = static_cast<int>(i);
  plan->readers.assign(static_cast<size_t>(next), 0);
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    Step& st = plan->steps[i];
    const Node& node = g.node(st.node);
    bool ref_out = false;
    for (bool r : node.out_is_ref) ref_out = ref_out || r;
    const bool has_ref = std::find(st.pass_ref.begin(), st.pass_ref.end(), true) != st.pass_ref.end() ||
                         std::find(st.deref.begin(), st.deref.end(), true) != st.deref.end();
    if (node.op->is_stateful || st.device.type != Device::kCPU || has_ref || ref_out) plan->concurrent = false;
    st.read_slots = st.input_slots;
    std::sort(st.read_slots.begin(), st.read_slots.end());
    st.read_slots.erase(std::unique(st.read_slots.begin(), st.read_slots.end()), st.read_slots.end());
    for (int s : st.read_slots) ++plan->readers[static_cast<size_t>(s)];
    std::vector<int> deps;
    for (const TensorRef& r : node.inputs)
      if (!fed.count(r)) deps.push_back(step_of[static_cast<size_t>(r.node)]);
    for (int c : node.control_inputs) deps.push_back(step_of[static_cast<size_t>(c)]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    st.waits_on = static_cast<int>(deps.size());
    for (int d : deps) plan->steps[static_cast<size_t>(d)].successors.push_back(static_cast<int>(i));
  }
  for (int s : plan->fetch_slots) plan->readers[static_cast<size_t>(s)] = -1;
  plan->alone_ns.reset(new std::atomic<int64_t>[plan->steps.size()]());
  plan->beside_ns.reset(new std::atomic<int64_t>[plan->steps.size()]());
  return Status::OK();
}

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

Status Session::Impl::get_plan(const std::vector<std::pair<TensorRef, Tensor>>& feeds,
                         const std::vector<TensorRef>& fetches, const std::vector<int>& targets,
                         std::shared_ptr<const Plan>* plan) {
  std::string key;
  auto add = [&key](char tag, int a, int b) {
    key += tag;
    key += std::to_string(a);
    key += ':';
    key += std::to_string(b);
    key += ',';
  };
  for (const auto& f : feeds) add('f', f.first.node, f.first.index);
  for (const TensorRef& f : fetches) add('o', f.node, f.index);
  for (int t : targets) add('t', t, 0);
  std::lock_guard<std::mutex> lock(plans_mu_);
  auto it = plans_.find(key);
  if (it == plans_.end() || it->second->version > graph_->version() || it->second->edits != graph_->edits()) {
    auto fresh = std::make_shared<Plan>();
    OPF_RETURN_IF_ERROR(make_plan(feeds, fetches, targets, fresh.get()));
    it = plans_.insert_or_assign(key, std::move(fresh)).first;
  }
  *plan = it->second;  // callers keep it alive even if another thread replaces the entry
  return Status::OK();
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

namespace {

std::atomic<int> g_concurrent{static_cast<int>(ConcurrentExecutor::kAuto)};

// The runs at one feed shape that time the two executors against each other (Session::run).
constexpr int kFirstTuningRun = 3, kLastTuningRun = 10;
// Feed shapes a plan tunes for; runs at further shapes (a graph fed ever-new shapes) go one
// step at a time.
constexpr size_t kMaxTunedShapes = 64;

// What handing a group of steps to the threads costs (a parallel region), in nanoseconds.
constexpr int64_t kGroupOverheadNs = 5'000;

int64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count();
}

// The time n threads take over `work` (each item on one thread), longest first, each to the
// thread with the least so far.
int64_t makespan(const std::vector<int64_t>& work, int threads) {
  std::vector<int64_t> load(static_cast<size_t>(threads), 0);
  for (int64_t w : work) *std::min_element(load.begin(), load.end()) += w;
  return *std::max_element(load.begin(), load.end());
}

}  // namespace

ConcurrentExecutor concurrent_executor() {
  return static_cast<ConcurrentExecutor>(g_concurrent.load(std::memory_order_relaxed));
}
void set_concurrent_executor(ConcurrentExecutor mode) { g_concurrent.store(static_cast<int>(mode)); }

// The concurrent executor. Steps run in waves: a wave is every step whose inputs are ready.
// From the measured times of its steps (alone: over all threads; beside: on one thread while
// the others run other steps) a wave runs either step by step, each over all threads, or its
// k longest steps that way (k <= 2) and the rest at once, one thread each (their own
// parallel_for calls run inline), whichever the times say is quicker. A step not yet timed
// beside others is assumed to take 1.6x its time alone (so grouping gets tried where threads
// scale poorly), one never timed runs alone. Slots are dropped when their last reader has run
// (counted down at the end of each wave), and an input may be forwarded in place only when the
// step is its one reader left.
Status Session::Impl::run_concurrent(const Plan& plan, std::vector<Tensor>& values) const {
  const Graph& g = *plan.graph;
  const size_t n = plan.steps.size();
  std::vector<int> readers = plan.readers;
  std::vector<int> waiting(n);
  std::vector<int> ready, wave;
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = plan.steps[i].waits_on;
    if (waiting[i] == 0) ready.push_back(static_cast<int>(i));
  }
  std::mutex error_mu;
  Status error;
  // What running one step needs besides the slots: the steps run alone share one, each step
  // of a concurrent group has its own.
  struct StepScratch {
    std::vector<const Tensor*> inputs;
    std::vector<bool> forwardable;
    ExecEnv env;
    exec::Scratch scratch;
  };
  StepScratch alone_scratch;
  // Runs step i and records its time (alone: over all threads; else on one beside others).
  const auto run_step = [&](int i, bool alone, StepScratch& sc) {
    const Step& st = plan.steps[static_cast<size_t>(i)];
    if (st.precomputed) {
      values[static_cast<size_t>(st.out_base)] = st.value;
      return;
    }
    const Node& node = g.node(st.node);
    sc.inputs.clear();
    sc.forwardable.clear();
    for (int s : st.input_slots) {
      sc.inputs.push_back(&values[static_cast<size_t>(s)]);
      sc.forwardable.push_back(readers[static_cast<size_t>(s)] == 1);
    }
    sc.env.resources = resources_.get();
    sc.env.ref_inputs.assign(st.input_slots.size(), nullptr);
    exec::Scratch& scratch = sc.scratch;
    const auto t0 = std::chrono::steady_clock::now();
    Status s = exec::run_node(node, st.device, sc.inputs, sc.forwardable, sc.env, scratch);
    (alone ? plan.alone_ns : plan.beside_ns)[static_cast<size_t>(i)].store(elapsed_ns(t0), std::memory_order_relaxed);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (error.ok()) error = s;
      return;
    }
    for (size_t k = 0; k < scratch.outs.size(); ++k) values[static_cast<size_t>(st.out_base) + k] = std::move(scratch.outs[k]);
  };
  const int threads = num_threads();
  const bool always = concurrent_executor() == ConcurrentExecutor::kAlways;
  struct Cost {
    int64_t beside, alone;
    int step;
  };
  std::vector<Cost> costs;
  std::vector<int64_t> work;
  while (!ready.empty()) {
    wave.swap(ready);
    ready.clear();
    // The wave's step times, read once (other runs of the plan may update them meanwhile),
    // longest first.
    costs.clear();
    bool timed = true;
    for (int i : wave) {
      const int64_t a = plan.alone_ns[static_cast<size_t>(i)].load(std::memory_order_relaxed);
      const int64_t b = plan.beside_ns[static_cast<size_t>(i)].load(std::memory_order_relaxed);
      costs.push_back({b > 0 ? b : a * 8 / 5, a, i});
      timed = timed && (a > 0 || plan.steps[static_cast<size_t>(i)].precomputed);
    }
    std::stable_sort(costs.begin(), costs.end(), [](const Cost& x, const Cost& y) { return x.beside > y.beside; });
    for (size_t k = 0; k < costs.size(); ++k) wave[k] = costs[k].step;
    // How many of the wave's steps (longest first) run alone; the rest run at once.
    size_t first = wave.size();
    if (wave.size() >= 2 && always) {
      first = 0;
    } else if (wave.size() >= 2 && timed) {
      int64_t best = 0;
      for (const Cost& c : costs) best += c.alone;
      int64_t head = 0;  // time of the steps run alone
      for (size_t k = 0; k <= 2 && k + 2 <= wave.size(); ++k) {
        work.clear();
        for (size_t j = k; j < wave.size(); ++j) work.push_back(costs[j].beside);
        const int64_t t = head + makespan(work, threads) + kGroupOverheadNs;
        if (t < best) {
          best = t;
          first = k;
        }
        head += costs[k].alone;
      }
    }
    for (size_t k = 0; k < std::min(first, wave.size()); ++k) {
      run_step(wave[k], true, alone_scratch);
      if (!error.ok()) return error;
    }
    if (first < wave.size()) {
      const int64_t count = static_cast<int64_t>(wave.size() - first);
      parallel_for_parts(count, 1, static_cast<int>(count), [&](int64_t b, int64_t e) {
        StepScratch sc;
        for (int64_t k = b; k < e; ++k) run_step(wave[first + static_cast<size_t>(k)], false, sc);
      });
      if (!error.ok()) return error;
    }
    for (int i : wave) {  // count down what the wave read; release what nobody reads any more
      const Step& st = plan.steps[static_cast<size_t>(i)];
      for (int s : st.read_slots) {
        if (--readers[static_cast<size_t>(s)] == 0) values[static_cast<size_t>(s)] = Tensor();
      }
      for (size_t k = 0; k < g.node(st.node).out_dtypes.size(); ++k) {
        const size_t s = static_cast<size_t>(st.out_base) + k;
        if (readers[s] == 0) values[s] = Tensor();  // nothing reads it and it is not fetched
      }
      for (int c : st.successors) {
        if (--waiting[static_cast<size_t>(c)] == 0) ready.push_back(c);
      }
    }
    wave.clear();
  }
  return Status::OK();
}

// A concurrent plan's first runs at a feed shape time both executors: runs 0-2 one step at a
// time (warm-up: first allocations, derived constants; they give the concurrent executor its
// step times), runs 3-10 alternating one step at a time / concurrent; from run 11 on, the
// quicker by its best run goes on (concurrent only when at least 3% quicker). Wall time
// decides, so what the step times cannot see (cache locality, contention for memory) counts too.
Session::Impl::ExecutorChoice Session::Impl::choose_executor(const Plan& plan,
                                                 const std::vector<std::pair<TensorRef, Tensor>>& feeds) {
  ExecutorChoice choice;
  const ConcurrentExecutor mode = concurrent_executor();
  if (!plan.concurrent || num_threads() <= 1 || mode == ConcurrentExecutor::kOff) return choice;
  if (mode == ConcurrentExecutor::kAlways) {
    choice.concurrent = true;
    return choice;
  }
  std::vector<int64_t> key;
  for (const auto& f : feeds) {
    key.push_back(f.second.rank());
    for (int d = 0; d < f.second.rank(); ++d) key.push_back(f.second.dim(d));
  }
  std::lock_guard<std::mutex> lock(plan.tuning_mu);
  auto it = plan.tuning.find(key);
  if (it == plan.tuning.end()) {
    if (plan.tuning.size() >= kMaxTunedShapes) return choice;
    it = plan.tuning.emplace(std::move(key), Plan::Tuning()).first;
  }
  Plan::Tuning& t = it->second;
  const int run = t.runs <= kLastTuningRun ? t.runs++ : t.runs;
  if (run > kLastTuningRun) {
    // (Both timed: a run can reach the decision before other threads' timing runs finish.)
    const bool timed_both = t.concurrent_ns != INT64_MAX && t.one_at_a_time_ns != INT64_MAX;
    choice.concurrent = timed_both && t.concurrent_ns < t.one_at_a_time_ns / 100 * 97;
  } else {
    choice.concurrent = run >= kFirstTuningRun && run % 2 == 0;
    if (run >= kFirstTuningRun) choice.timing = &t;  // map entries stay put: std::map
  }
  return choice;
}

Status Session::Impl::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds,
                    const std::vector<TensorRef>& fetches, const std::vector<int>& targets,
                    std::vector<Tensor>* outputs) {
  const Graph& g = *graph_;
  std::shared_lock<std::shared_mutex> graph_lock(g.mutex());  // the graph may not grow meanwhile
  for (const auto& f : feeds) {
    if (f.first.node < 0 || f.first.node >= g.num_nodes() || f.first.index < 0 ||
        f.first.index >= static_cast<int>(g.node(f.first.node).out_dtypes.size())) {
      return errors::InvalidArgument("feed refers to a tensor that is not in the graph");
    }
    const Node& src = g.node(f.first.node);
    DType want = src.out_dtypes[static_cast<size_t>(f.first.index)];
    if (f.second.dtype() != want) {
      return errors::InvalidArgument("cannot feed a ", dtype_name(f.second.dtype()), " value to '",
                                     src.name, ":", f.first.index, "', which is ", dtype_name(want));
    }
    const Shape& declared = src.out_shapes[static_cast<size_t>(f.first.index)];
    if (!declared.unknown_rank()) {
      bool ok = declared.rank() == f.second.rank();
      for (int d = 0; ok && d < declared.rank(); ++d)
        ok = declared.dim(d) < 0 || declared.dim(d) == f.second.dim(d);
      if (!ok) {
        return errors::InvalidArgument("cannot feed a value of shape ", f.second.shape().to_string(),
                                       " to '", src.name, ":", f.first.index, "', which has shape ",
                                       declared.to_string());
      }
    }
  }
  for (const TensorRef& f : fetches) {
    if (f.node < 0 || f.node >= g.num_nodes() || f.index < 0 ||
        f.index >= static_cast<int>(g.node(f.node).out_dtypes.size())) {
      return errors::InvalidArgument("fetch refers to a tensor that is not in the graph");
    }
  }
  for (int t : targets) {
    if (t < 0 || t >= g.num_nodes()) return errors::InvalidArgument("target refers to a node that is not in the graph");
  }

  std::shared_ptr<const Plan> plan_ptr;
  OPF_RETURN_IF_ERROR(get_plan(feeds, fetches, targets, &plan_ptr));
  const Plan& plan = *plan_ptr;
  const Graph& pg = *plan.graph;  // the graph the plan runs (the optimizer's, or g)

  if (plan.dataflow) {
    if (plan.graph == graph_) return run_dataflow(g, *plan.dataflow, resources_.get(), feeds, outputs);
    std::vector<std::pair<TensorRef, Tensor>> mapped;
    for (size_t i = 0; i < feeds.size(); ++i) mapped.emplace_back(plan.feed_refs[i], feeds[i].second);
    return run_dataflow(pg, *plan.dataflow, resources_.get(), mapped, outputs);
  }

  // Everything below is this run's own state.
  std::vector<Tensor> values(static_cast<size_t>(plan.num_slots));
  std::vector<Variable*> refs(static_cast<size_t>(plan.num_slots), nullptr);
  for (size_t i = 0; i < feeds.size(); ++i) values[static_cast<size_t>(plan.feed_slots[i])] = feeds[i].second;
  const ExecutorChoice choice = choose_executor(plan, feeds);
  const auto t_start = std::chrono::steady_clock::now();
  const auto report_time = [&](bool ran_concurrent) {
    if (choice.timing == nullptr) return;
    const int64_t ns = elapsed_ns(t_start);
    std::lock_guard<std::mutex> lock(plan.tuning_mu);
    int64_t& best = ran_concurrent ? choice.timing->concurrent_ns : choice.timing->one_at_a_time_ns;
    best = std::min(best, ns);
  };
  if (choice.concurrent) {
    OPF_RETURN_IF_ERROR(run_concurrent(plan, values));
    report_time(true);
    outputs->clear();
    for (size_t i = 0; i < fetches.size(); ++i) outputs->push_back(values[static_cast<size_t>(plan.fetch_slots[i])]);
    return Status::OK();
  }
  // While a concurrent plan is being tuned, its steps' times alone feed the concurrent
  // executor's cost model.
  const bool time_steps = plan.concurrent && concurrent_executor() == ConcurrentExecutor::kAuto;

  std::vector<const Tensor*> inputs;
  std::vector<Tensor> derefs;
  std::vector<bool> forwardable;
  exec::Scratch scratch;
  static const Tensor kNoTensor;
  ExecEnv env;
  env.resources = resources_.get();
  for (const Step& st : plan.steps) {
    if (st.precomputed) {
      values[static_cast<size_t>(st.out_base)] = st.value;
      for (int s : st.release) values[static_cast<size_t>(s)] = Tensor();
      continue;
    }
    const Node& node = pg.node(st.node);
    inputs.clear();
    derefs.clear();
    derefs.reserve(st.input_slots.size());  // pointers into it must stay valid
    env.ref_inputs.assign(st.input_slots.size(), nullptr);
    for (size_t k = 0; k < st.input_slots.size(); ++k) {
      const size_t s = static_cast<size_t>(st.input_slots[k]);
      if (st.pass_ref[k]) {
        env.ref_inputs[k] = refs[s];
        inputs.push_back(&kNoTensor);
      } else if (st.deref[k]) {
        derefs.emplace_back();
        OPF_RETURN_IF_ERROR(exec::read_variable(refs[s], node.name, &derefs.back()));
        inputs.push_back(&derefs.back());
      } else {
        inputs.push_back(&values[s]);
      }
    }
    forwardable = st.last_read;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k] != &values[static_cast<size_t>(st.input_slots[k])]) forwardable[k] = false;
    }
    const auto t0 = time_steps ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    OPF_RETURN_IF_ERROR(exec::run_node(node, st.device, inputs, forwardable, env, scratch));
    if (time_steps) plan.alone_ns[static_cast<size_t>(&st - plan.steps.data())].store(elapsed_ns(t0), std::memory_order_relaxed);
    std::vector<Tensor>& outs = scratch.outs;
    for (size_t k = 0; k < outs.size(); ++k) {
      values[static_cast<size_t>(st.out_base) + k] = std::move(outs[k]);
      refs[static_cast<size_t>(st.out_base) + k] = env.ref_outputs[k];
    }
    for (int s : st.release) values[static_cast<size_t>(s)] = Tensor();
  }
  report_time(false);
  outputs->clear();
  for (size_t i = 0; i < fetches.size(); ++i) {
    const size_t s = static_cast<size_t>(plan.fetch_slots[i]);
    if (refs[s] != nullptr && !values[s].initialized()) {
      outputs->emplace_back();
      OPF_RETURN_IF_ERROR(exec::read_variable(refs[s], g.node(fetches[i].node).name, &outputs->back()));  // (same name in pg)
    } else {
      outputs->push_back(values[s]);
    }
  }
  return Status::OK();
}

Session::Session(std::shared_ptr<const Graph> graph, std::shared_ptr<ResourceMgr> resources)
    : impl_(std::make_unique<Impl>(std::move(graph), resources ? std::move(resources) : std::make_shared<ResourceMgr>())) {}
Session::~Session() = default;
Status Session::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                    const std::vector<int>& targets, std::vector<Tensor>* outputs) {
  return impl_->run(feeds, fetches, targets, outputs);
}
ResourceMgr& Session::resources() { return *impl_->resources_; }
const std::shared_ptr<ResourceMgr>& Session::shared_resources() const { return impl_->resources_; }
size_t Session::cached_plans() const { return impl_->cached_plans(); }
void Session::set_optimizer(GraphOptimizerConfig config) { impl_->set_optimizer(std::move(config)); }
std::vector<std::string> Session::take_optimizer_errors() { return impl_->take_optimizer_errors(); }
std::vector<std::shared_ptr<const Graph>> Session::optimized_graphs() const { return impl_->optimized_graphs(); }

}  // namespace opforge
