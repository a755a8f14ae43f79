// The Session: its interface (forwarding to Session::Impl), the optimizer settings and reports,
// and the straight-line executor (one step at a time, each over all threads).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "executor.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/parallel.h"
#include "session_impl.h"

namespace opforge {

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

Status Session::Impl::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                          const std::vector<int>& targets, std::vector<Tensor>* outputs) {
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
      return errors::InvalidArgument("cannot feed a ", dtype_name(f.second.dtype()), " value to '", src.name, ":",
                                     f.first.index, "', which is ", dtype_name(want));
    }
    const Shape& declared = src.out_shapes[static_cast<size_t>(f.first.index)];
    if (!declared.unknown_rank()) {
      bool ok = declared.rank() == f.second.rank();
      for (int d = 0; ok && d < declared.rank(); ++d) ok = declared.dim(d) < 0 || declared.dim(d) == f.second.dim(d);
      if (!ok) {
        return errors::InvalidArgument("cannot feed a value of shape ", f.second.shape().to_string(), " to '", src.name,
                                       ":", f.first.index, "', which has shape ", declared.to_string());
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
    if (time_steps)
      plan.alone_ns[static_cast<size_t>(&st - plan.steps.data())].store(elapsed_ns(t0), std::memory_order_relaxed);
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
      OPF_RETURN_IF_ERROR(
          exec::read_variable(refs[s], g.node(fetches[i].node).name, &outputs->back()));  // (same name in pg)
    } else {
      outputs->push_back(values[s]);
    }
  }
  return Status::OK();
}

Session::Session(std::shared_ptr<const Graph> graph, std::shared_ptr<ResourceMgr> resources)
    : impl_(std::make_unique<Impl>(std::move(graph),
                                   resources ? std::move(resources) : std::make_shared<ResourceMgr>())) {}
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
