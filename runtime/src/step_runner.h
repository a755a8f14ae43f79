// Running the steps of one run of a plan over its slots, shared by the concurrent executor's
// wave loop (concurrent_executor.cc) and its team loop (team_executor.cc). Internal to the
// runtime.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "executor.h"
#include "opforge/kernel.h"
#include "session_impl.h"

namespace opforge {
namespace steps {

using Plan = Session::Impl::Plan;
using Step = Session::Impl::Step;

// Per slot: the steps that still read it (-1: fetched, never released). Atomic: the team loop's
// threads count it down as their steps finish.
using Readers = std::unique_ptr<std::atomic<int>[]>;

inline Readers initial_readers(const Plan& plan) {
  Readers readers(new std::atomic<int>[plan.readers.size()]);
  for (size_t s = 0; s < plan.readers.size(); ++s) readers[s].store(plan.readers[s], std::memory_order_relaxed);
  return readers;
}

// What running one step needs besides the slots: the steps run alone share one, each thread
// running steps beside others has its own.
struct StepScratch {
  std::vector<const Tensor*> inputs;
  std::vector<Tensor> derefs;  // variables' values read by this step
  std::vector<bool> forwardable;
  ExecEnv env;
  exec::Scratch scratch;
};

// Runs the steps of one run of a plan over its slots: the wave loop's and the team loop's.
class StepRunner {
 public:
  StepRunner(const Plan& plan, ResourceMgr* resources, StepTracer* tracer, std::vector<Tensor>& values,
             std::vector<Variable*>& refs, const Readers& readers)
      : plan_(plan), resources_(resources), tracer_(tracer), values_(values), refs_(refs), readers_(readers) {}

  // Runs step i and records its time (alone: over all threads; else on one beside others).
  // may_forward: an input this step is the last reader of may be reused in place.
  Status run(int i, bool alone, StepScratch& sc, bool may_forward) const {
    static const Tensor kNoTensor;
    const Step& st = plan_.steps[static_cast<size_t>(i)];
    if (st.precomputed) {
      const int64_t t0 = tracer_ ? StepTracer::now() : 0;
      values_[static_cast<size_t>(st.out_base)] = st.value;
      if (tracer_) tracer_->record(st.node, st.device, t0, StepTracer::now(), 1, [&](size_t) { return &st.value; });
      return Status::OK();
    }
    const Node& node = plan_.graph->node(st.node);
    sc.inputs.clear();
    sc.forwardable.clear();
    sc.derefs.clear();
    sc.derefs.reserve(st.input_slots.size());  // pointers into it must stay valid
    sc.env.resources = resources_;
    sc.env.ref_inputs.assign(st.input_slots.size(), nullptr);
    for (size_t k = 0; k < st.input_slots.size(); ++k) {
      const size_t slot = static_cast<size_t>(st.input_slots[k]);
      if (st.pass_ref[k]) {  // a Ref argument: the kernel gets the variable itself
        sc.env.ref_inputs[k] = refs_[slot];
        sc.inputs.push_back(&kNoTensor);
      } else if (st.deref[k]) {  // a variable read as a value (never forwarded: it is the variable's)
        sc.derefs.emplace_back();
        OPF_RETURN_IF_ERROR(exec::read_variable(refs_[slot], node.name, &sc.derefs.back()));
        sc.inputs.push_back(&sc.derefs.back());
      } else {
        sc.inputs.push_back(&values_[slot]);
      }
      sc.forwardable.push_back(may_forward && !st.pass_ref[k] && !st.deref[k] &&
                               readers_[slot].load(std::memory_order_acquire) == 1);
    }
    exec::Scratch& scratch = sc.scratch;
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t trace_t0 = tracer_ ? StepTracer::now() : 0;
    OPF_RETURN_IF_ERROR(exec::run_node(node, st.device, sc.inputs, sc.forwardable, sc.env, scratch));
    (alone ? plan_.alone_ns : plan_.beside_ns)[static_cast<size_t>(i)].store(elapsed_ns(t0), std::memory_order_relaxed);
    if (tracer_) {
      tracer_->record(st.node, st.device, trace_t0, StepTracer::now(), scratch.outs.size(),
                      [&](size_t k) { return &scratch.outs[k]; });
    }
    for (size_t k = 0; k < scratch.outs.size(); ++k) {
      values_[static_cast<size_t>(st.out_base) + k] = std::move(scratch.outs[k]);
      refs_[static_cast<size_t>(st.out_base) + k] = sc.env.ref_outputs[k];
    }
    return Status::OK();
  }

  // After step i: counts down what it read and releases what nobody reads any more (its
  // outputs too, when nothing reads them and they are not fetched); calls ready(c) for each
  // successor c whose last wait this was (`waiting` counts them down).
  template <typename Ready>
  void finish(int i, std::atomic<int>* waiting, Ready ready) const {
    const Step& st = plan_.steps[static_cast<size_t>(i)];
    for (int s : st.read_slots) {
      if (readers_[static_cast<size_t>(s)].fetch_sub(1, std::memory_order_acq_rel) == 1)
        values_[static_cast<size_t>(s)] = Tensor();
    }
    for (size_t k = 0; k < plan_.graph->node(st.node).out_dtypes.size(); ++k) {
      const size_t s = static_cast<size_t>(st.out_base) + k;
      if (readers_[s].load(std::memory_order_acquire) == 0) values_[s] = Tensor();
    }
    for (int c : st.successors) {
      if (waiting[static_cast<size_t>(c)].fetch_sub(1, std::memory_order_acq_rel) == 1) ready(c);
    }
  }

 private:
  const Plan& plan_;
  ResourceMgr* resources_;
  StepTracer* tracer_;
  std::vector<Tensor>& values_;
  std::vector<Variable*>& refs_;
  const Readers& readers_;
};

inline std::unique_ptr<std::atomic<int>[]> initial_waits(const Plan& plan) {
  std::unique_ptr<std::atomic<int>[]> waiting(new std::atomic<int>[plan.steps.size()]);
  for (size_t i = 0; i < plan.steps.size(); ++i) waiting[i].store(plan.steps[i].waits_on, std::memory_order_relaxed);
  return waiting;
}

using StepLoop = Status (*)(const Plan&, ResourceMgr*, StepTracer*, std::vector<Tensor>&, std::vector<Variable*>&);

// A run's slots: the feeds in, `loop` over the steps, the fetches out (concurrent_executor.cc).
Status run_with_slots(const RunArgs& args, std::vector<Tensor>* outputs, StepLoop loop);

}  // namespace steps
}  // namespace opforge
