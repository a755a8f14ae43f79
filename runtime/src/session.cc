// The Session: its interface (forwarding to Session::Impl), the optimizer settings and reports,
// and a run: the call's checks, its plan, and the executor that runs it (session_impl.h).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "executor.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/parallel.h"
#include "host_allocator.h"
#include "session_impl.h"

namespace opforge {

namespace {

// This thread's number in traces: 1, 2, ... in the order threads first record a node.
uint32_t trace_thread_id() {
  static std::atomic<uint32_t> next{1};
  thread_local const uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

}  // namespace

StepTracer::StepTracer(StepTrace* out) : out_(out) {
  const int64_t wall =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  offset_ns_ = wall - now();
}

void StepTracer::describe(const Tensor* t, StepTrace::Output* out) {
  out->produced = t != nullptr;
  if (t == nullptr || !t->initialized()) return;  // a reference output's dtype: from the node (name_nodes)
  out->dtype = t->dtype();
  out->known_shape = true;
  out->dims.assign(static_cast<size_t>(t->rank()), 0);
  for (int d = 0; d < t->rank(); ++d) out->dims[static_cast<size_t>(d)] = t->dim(d);
  out->requested_bytes = static_cast<int64_t>(t->nbytes());
  out->allocated_bytes = t->buffer() ? static_cast<int64_t>(t->buffer()->nbytes()) : out->requested_bytes;
}

void StepTracer::finish(StepTrace::NodeRun&& run) {
  run.thread_id = trace_thread_id();
  if (run.device.type == Device::kCPU) run.host_bytes_in_use = static_cast<int64_t>(host_memory_stats().bytes_in_use);
  std::lock_guard<std::mutex> lock(mu_);
  out_->nodes.push_back(std::move(run));
}

void StepTracer::name_nodes(const Graph& g) {
  for (StepTrace::NodeRun& run : out_->nodes) {
    const Node& node = g.node(run.node);
    run.name = node.name;
    run.op = node.op->name;
    run.inputs.clear();
    for (const TensorRef& in : node.inputs) {
      const std::string& src = g.node(in.node).name;
      run.inputs.push_back(in.index == 0 ? src : errors::StrCat(src, ":", in.index));
    }
    for (int c : node.control_inputs) run.inputs.push_back("^" + g.node(c).name);
    for (size_t k = 0; k < run.outputs.size() && k < node.out_dtypes.size(); ++k)
      if (!run.outputs[k].known_shape) run.outputs[k].dtype = node.out_dtypes[k];
  }
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

Status Session::Impl::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                          const std::vector<int>& targets, std::vector<Tensor>* outputs, StepTrace* trace) {
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
  std::unique_ptr<StepTracer> tracer;
  if (trace != nullptr) {
    trace->nodes.clear();
    tracer = std::make_unique<StepTracer>(trace);
  }
  const RunArgs args{g, plan, feeds, fetches, resources_.get(), tracer.get()};
  if (plan.dataflow) {
    const Status s = executors::dataflow().run(args, outputs);
    if (tracer) tracer->name_nodes(*plan.graph);
    return s;
  }
  const ExecutorChoice choice = choose_executor(plan, feeds);
  const auto t_start = std::chrono::steady_clock::now();
  const Executor& executor = choice.team         ? executors::team()
                             : choice.concurrent ? executors::concurrent()
                                                 : executors::straight_line();
  const Status s = executor.run(args, outputs);
  if (tracer) tracer->name_nodes(*plan.graph);
  OPF_RETURN_IF_ERROR(s);
  if (choice.timing != nullptr && !tracer) {  // a tuning run (traced runs are slower: not counted)
    const int64_t ns = elapsed_ns(t_start);
    std::lock_guard<std::mutex> lock(plan.tuning_mu);
    int64_t& best = choice.concurrent ? choice.timing->concurrent_ns : choice.timing->one_at_a_time_ns;
    best = std::min(best, ns);
  }
  return Status::OK();
}

Session::Session(std::shared_ptr<const Graph> graph, std::shared_ptr<ResourceMgr> resources)
    : impl_(std::make_unique<Impl>(std::move(graph),
                                   resources ? std::move(resources) : std::make_shared<ResourceMgr>())) {}
Session::~Session() = default;
Status Session::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                    const std::vector<int>& targets, std::vector<Tensor>* outputs) {
  return impl_->run(feeds, fetches, targets, outputs, nullptr);
}
Status Session::run(const std::vector<std::pair<TensorRef, Tensor>>& feeds, const std::vector<TensorRef>& fetches,
                    const std::vector<int>& targets, std::vector<Tensor>* outputs, StepTrace* trace) {
  return impl_->run(feeds, fetches, targets, outputs, trace);
}
ResourceMgr& Session::resources() { return *impl_->resources_; }
const std::shared_ptr<ResourceMgr>& Session::shared_resources() const { return impl_->resources_; }
size_t Session::cached_plans() const { return impl_->cached_plans(); }
void Session::set_optimizer(GraphOptimizerConfig config) { impl_->set_optimizer(std::move(config)); }
std::vector<std::string> Session::take_optimizer_errors() { return impl_->take_optimizer_errors(); }
std::vector<std::shared_ptr<const Graph>> Session::optimized_graphs() const { return impl_->optimized_graphs(); }

}  // namespace opforge
