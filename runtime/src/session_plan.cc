// Session plans: pruning to what the fetches and targets need, the graph optimizer's rewrite of
// that part (runtime/src/optimizer), topological order, slots, liveness, precomputed constants
// and the concurrent executor's view; cached per (feeds, fetches, targets).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "executor.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/parallel.h"
#include "session_impl.h"
#include "optimizer/meta_optimizer.h"

namespace opforge {

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
        if (optimizer_.fail_on_errors)
          return errors::Internal("graph optimizer: a fed, fetched or target node lost its name");
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
  // Graphs with control flow run on the dataflow executor (control_flow.h).
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
      if (w.readers++ == 0)
        w.device = d;
      else
        w.agree = w.agree && w.device == d;
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
    for (size_t k = 0; k < g.node(st.node).out_dtypes.size(); ++k)
      last_use[static_cast<size_t>(st.out_base) + k] = static_cast<int>(i);
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
  plan->stateless = true;
  std::vector<int> step_of(static_cast<size_t>(n), -1);
  for (size_t i = 0; i < plan->steps.size(); ++i)
    step_of[static_cast<size_t>(plan->steps[i].node)] = static_cast<int>(i);
  plan->readers.assign(static_cast<size_t>(next), 0);
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    Step& st = plan->steps[i];
    const Node& node = g.node(st.node);
    if (st.device.type != Device::kCPU) plan->concurrent = false;
    if (!st.precomputed && node.op->is_stateful) plan->stateless = false;
    st.collective = node.op->is_distributed_communication;
    plan->collectives = plan->collectives || st.collective;
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

}  // namespace opforge
