// The straight-line executor: a plan's steps one at a time, in plan order, each kernel over all
// threads. It runs every plan without control flow (and a concurrent plan while its tuning says
// one step at a time is quicker); it also times each step alone for the concurrent executor's
// cost model while that plan is being tuned.
#include <chrono>

#include "executor.h"
#include "session_impl.h"

namespace opforge {
namespace {

using Plan = Session::Impl::Plan;
using Step = Session::Impl::Step;

class StraightLineExecutor final : public Executor {
 public:
  Status run(const RunArgs& args, std::vector<Tensor>* outputs) const override {
    const Plan& plan = args.plan;
    const Graph& pg = *plan.graph;  // the graph the plan runs (the optimizer's, or the session's)
    // Everything below is this run's own state.
    std::vector<Tensor> values(static_cast<size_t>(plan.num_slots));
    std::vector<Variable*> refs(static_cast<size_t>(plan.num_slots), nullptr);
    for (size_t i = 0; i < args.feeds.size(); ++i)
      values[static_cast<size_t>(plan.feed_slots[i])] = args.feeds[i].second;
    // While a concurrent plan is being tuned, its steps' times alone feed the concurrent
    // executor's cost model.
    const bool time_steps = plan.concurrent && concurrent_executor() == ConcurrentExecutor::kAuto;

    std::vector<const Tensor*> inputs;
    std::vector<Tensor> derefs;
    std::vector<bool> forwardable;
    exec::Scratch scratch;
    static const Tensor kNoTensor;
    ExecEnv env;
    env.resources = args.resources;
    for (const Step& st : plan.steps) {
      if (st.precomputed) {
        const int64_t t0 = args.tracer ? StepTracer::now() : 0;
        values[static_cast<size_t>(st.out_base)] = st.value;
        if (args.tracer)
          args.tracer->record(st.node, st.device, t0, StepTracer::now(), 1, [&](size_t) { return &st.value; });
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
      const int64_t trace_t0 = args.tracer ? StepTracer::now() : 0;
      OPF_RETURN_IF_ERROR(exec::run_node(node, st.device, inputs, forwardable, env, scratch));
      if (time_steps)
        plan.alone_ns[static_cast<size_t>(&st - plan.steps.data())].store(elapsed_ns(t0), std::memory_order_relaxed);
      std::vector<Tensor>& outs = scratch.outs;
      if (args.tracer) {
        args.tracer->record(st.node, st.device, trace_t0, StepTracer::now(), outs.size(),
                            [&](size_t k) { return &outs[k]; });
      }
      for (size_t k = 0; k < outs.size(); ++k) {
        values[static_cast<size_t>(st.out_base) + k] = std::move(outs[k]);
        refs[static_cast<size_t>(st.out_base) + k] = env.ref_outputs[k];
      }
      for (int s : st.release) values[static_cast<size_t>(s)] = Tensor();
    }
    outputs->clear();
    for (size_t i = 0; i < args.fetches.size(); ++i) {
      const size_t s = static_cast<size_t>(plan.fetch_slots[i]);
      if (refs[s] != nullptr && !values[s].initialized()) {
        outputs->emplace_back();
        OPF_RETURN_IF_ERROR(exec::read_variable(refs[s], args.graph.node(args.fetches[i].node).name,
                                                &outputs->back()));  // (same name in pg)
      } else {
        outputs->push_back(values[s]);
      }
    }
    return Status::OK();
  }
};

}  // namespace

const Executor& executors::straight_line() {
  static const StraightLineExecutor executor;
  return executor;
}

}  // namespace opforge
