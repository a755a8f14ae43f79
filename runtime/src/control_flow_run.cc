// Running a DataflowPlan (see control_flow.h): all that a run mutates (frame and iteration
// states, the ready queue) is local to run_dataflow.
#include <deque>
#include <map>
#include <memory>
#include <tuple>

#include "control_flow.h"
#include "opforge/kernel.h"
#include "session_impl.h"

namespace opforge {

using dataflow::Edge;
using dataflow::Kind;
using dataflow::PlanNode;
using dataflow::StaticFrame;

namespace {

// A value as the executor passes it: a tensor or a variable reference, or dead.
struct Entry {
  Tensor value;
  Variable* ref = nullptr;
  bool live = false;
};

struct IterState {
  std::vector<Entry> slots;    // per input slot of the frame's nodes
  std::vector<int> pending;    // per local node
  std::vector<int> dead;       // per local node: dead inputs that arrived
  std::vector<char> merge;     // per local node: Merge's state (kMergeLive, kMergeFired)
  int outstanding_ops = 0;     // queued or running nodes
  int outstanding_frames = 0;  // child frames not done
};

constexpr char kMergeLive = 1, kMergeFired = 2;

struct FrameState {
  int sframe = 0;
  FrameState* parent = nullptr;
  int64_t parent_iter = 0;
  int pending_enters = 0;
  int parallel_iterations = 10;
  int64_t first_iter = 0;        // the oldest iteration not yet done
  int64_t iteration_count = -1;  // the newest iteration
  std::deque<std::unique_ptr<IterState>> iters;
  std::vector<std::pair<int, Entry>> invariants;  // (Enter node, value)
  std::vector<std::pair<int, Entry>> deferred;    // (NextIteration node, value) for the next iteration
  std::vector<char> exited;                       // per exit: delivered its value
};

struct Task {
  int node;
  FrameState* frame;
  int64_t iter;
};

class DataflowRun {
 public:
  DataflowRun(const Graph& g, const DataflowPlan& plan, ResourceMgr* resources,
              const std::vector<std::pair<TensorRef, Tensor>>& feeds, StepTracer* tracer)
      : g_(g), plan_(plan), feeds_(feeds), tracer_(tracer), fetched_(plan.num_fetches) {
    env_.resources = resources;
  }

  Status run(std::vector<Tensor>* outputs) {
    root_.sframe = 0;
    root_.pending_enters = 0;
    root_.parallel_iterations = 1;
    new_iteration(&root_);
    for (int p : plan_.roots) schedule(p, &root_, 0);
    while (!queue_.empty()) {
      Task t = queue_.front();
      queue_.pop_front();
      OPF_RETURN_IF_ERROR(process(t));
    }
    outputs->clear();
    for (size_t i = 0; i < fetched_.size(); ++i) {
      if (plan_.fetch_feed[i] >= 0) {  // a fed tensor: the caller's value
        outputs->push_back(feeds_[static_cast<size_t>(plan_.fetch_feed[i])].second);
        continue;
      }
      const Entry* e = fetched_[i].get();
      if (e == nullptr) {
        {
          return errors::InvalidArgument("fetch '", plan_.fetch_names[i],
                                         "' was never computed: its inputs never arrived (a loop whose inputs are "
                                         "missing, or a node waiting on a value that is never produced)");
        }
        continue;
      }
      if (!e->live) {
        return errors::InvalidArgument("fetch '", plan_.fetch_names[i],
                                       "' is dead: it depends on a branch of a Switch that was not taken (a Merge "
                                       "with no live input, or a tensor of a cond branch that did not run)");
      }
      if (e->ref != nullptr && !e->value.initialized()) {
        outputs->emplace_back();
        OPF_RETURN_IF_ERROR(exec::read_variable(e->ref, plan_.fetch_names[i], &outputs->back()));
      } else {
        outputs->push_back(e->value);
      }
    }
    return Status::OK();
  }

 private:
  const PlanNode& pnode(int p) const { return plan_.nodes[static_cast<size_t>(p)]; }
  const StaticFrame& sframe(const FrameState* f) const { return plan_.frames[static_cast<size_t>(f->sframe)]; }
  IterState& iter_state(FrameState* f, int64_t iter) { return *f->iters[static_cast<size_t>(iter - f->first_iter)]; }

  void new_iteration(FrameState* f) {
    const StaticFrame& sf = sframe(f);
    auto is = std::make_unique<IterState>();
    is->slots.resize(static_cast<size_t>(sf.num_slots));
    is->pending = sf.pending;
    is->dead.assign(static_cast<size_t>(sf.num_nodes), 0);
    is->merge.assign(static_cast<size_t>(sf.num_nodes), 0);
    ++f->iteration_count;
    f->iters.push_back(std::move(is));
    // Loop invariants reach every iteration.
    for (const auto& inv : f->invariants) deliver_all(inv.first, inv.second, f, f->iteration_count);
  }

  void schedule(int p, FrameState* f, int64_t iter) {
    ++iter_state(f, iter).outstanding_ops;
    queue_.push_back({p, f, iter});
  }

  // One value (or control signal) arriving at a node.
  void deliver(const Edge& e, const Entry& v, FrameState* f, int64_t iter) {
    IterState& is = iter_state(f, iter);
    const PlanNode& d = pnode(e.dst);
    const size_t local = static_cast<size_t>(d.local);
    if (d.kind == Kind::kMerge) {
      if (e.dst_input < 0) {
        --is.pending[local];
      } else if (v.live) {
        Entry& slot = is.slots[static_cast<size_t>(d.slot_base + e.dst_input)];
        if (!(is.merge[local] & kMergeLive)) slot = v;  // the first live input wins
        is.merge[local] |= kMergeLive;
      } else {
        ++is.dead[local];
      }
      const bool all_dead = is.dead[local] == d.num_inputs;
      if (!(is.merge[local] & kMergeFired) && is.pending[local] == 0 && ((is.merge[local] & kMergeLive) || all_dead)) {
        is.merge[local] |= kMergeFired;
        schedule(e.dst, f, iter);
      }
      return;
    }
    if (e.dst_input >= 0) is.slots[static_cast<size_t>(d.slot_base + e.dst_input)] = v;
    if (!v.live) ++is.dead[local];
    if (--is.pending[local] == 0) schedule(e.dst, f, iter);
  }

  // Every output edge of node p, in frame f's iteration iter; output k's value is outs[k]
  // (control edges carry whether the node was live).
  void propagate(int p, const std::vector<Entry>& outs, bool live, FrameState* f, int64_t iter) {
    static const Entry kLive = [] {
      Entry e;
      e.live = true;
      return e;
    }();
    static const Entry kDead;
    for (const Edge& e : pnode(p).out) {
      deliver(e, e.src_output < 0 ? (live ? kLive : kDead) : outs[static_cast<size_t>(e.src_output)], f, iter);
    }
  }

  void deliver_all(int p, const Entry& v, FrameState* f, int64_t iter) {
    std::vector<Entry> outs{v};
    propagate(p, outs, v.live, f, iter);
  }

  FrameState* child_frame(FrameState* f, int64_t iter, const PlanNode& enter) {
    auto key = std::make_tuple(f, iter, enter.child_frame);
    auto it = frames_.find(key);
    if (it != frames_.end()) return it->second.get();
    auto child = std::make_unique<FrameState>();
    const StaticFrame& sf = plan_.frames[static_cast<size_t>(enter.child_frame)];
    child->sframe = enter.child_frame;
    child->parent = f;
    child->parent_iter = iter;
    child->pending_enters = sf.num_enters;
    child->parallel_iterations = enter.parallel_iterations;
    child->exited.assign(sf.exits.size(), 0);
    ++iter_state(f, iter).outstanding_frames;
    FrameState* raw = child.get();
    frames_.emplace(key, std::move(child));
    new_iteration(raw);
    return raw;
  }

  Status process(const Task& t) {
    const PlanNode& pn = pnode(t.node);
    const Node& node = g_.node(pn.id);
    IterState& is = iter_state(t.frame, t.iter);
    const size_t n_in = static_cast<size_t>(pn.num_inputs);
    const int64_t trace_t0 = tracer_ ? StepTracer::now() : 0;
    // Take the inputs out of the slots: this iteration reads them no more.
    inputs_.resize(n_in);
    for (size_t k = 0; k < n_in; ++k) {
      Entry& slot = is.slots[static_cast<size_t>(pn.slot_base) + k];
      if (pn.feed_of[k] >= 0) {
        inputs_[k] = Entry{feeds_[static_cast<size_t>(pn.feed_of[k])].second, nullptr, true};
      } else {
        inputs_[k] = std::move(slot);
        slot = Entry();
      }
    }
    if (pn.kind != Kind::kNormal) {
      // Control-flow nodes pass values along: a variable read through one is read here, as
      // the value it has now (TensorFlow's Enter of a variable's value).
      for (size_t k = 0; k < n_in; ++k) {
        if (!pn.deref[k] || !inputs_[k].live) continue;
        Tensor value;
        OPF_RETURN_IF_ERROR(exec::read_variable(inputs_[k].ref, node.name, &value));
        inputs_[k] = Entry{std::move(value), nullptr, true};
      }
    }
    const int num_outputs = static_cast<int>(node.out_dtypes.size());
    outs_.assign(static_cast<size_t>(num_outputs), Entry());
    bool live = is.dead[static_cast<size_t>(pn.local)] == 0;
    switch (pn.kind) {
      case Kind::kMerge: {
        live = false;
        for (size_t k = 0; k < n_in && !live; ++k) {
          if (!inputs_[k].live) continue;
          outs_[0] = inputs_[k];
          outs_[1].live = true;
          OPF_RETURN_IF_ERROR(Tensor::Allocate(DType::kInt32, Shape({}), &outs_[1].value));
          outs_[1].value.data<int32_t>()[0] = static_cast<int32_t>(k);
          live = true;
        }
        break;
      }
      case Kind::kSwitch: {
        if (!live) break;
        const Tensor& pred = inputs_[1].value;
        if (pred.dtype() != DType::kBool || pred.num_elements() != 1 || !pred.on_host()) {
          return exec::at_node(
              errors::InvalidArgument("Switch: pred must be a scalar bool, got shape ", pred.shape().to_string()),
              node.name);
        }
        outs_[pred.data<bool>()[0] ? 1 : 0] = inputs_[0];
        break;
      }
      case Kind::kEnter:
      case Kind::kExit:
      case Kind::kNextIteration:
        if (live) outs_[0] = inputs_[0];  // dead, also when a control input was
        break;
      case Kind::kControlTrigger:
        live = true;
        break;
      case Kind::kNormal:
        if (live) OPF_RETURN_IF_ERROR(run_kernel(pn, node));
        break;
    }
    // As TensorFlow's executor, a trace shows the nodes that ran live (a Merge: with a live input).
    if (tracer_ && live) {
      tracer_->record(pn.id, pn.device, trace_t0, StepTracer::now(), outs_.size(),
                      [&](size_t k) { return outs_[k].live ? &outs_[k].value : static_cast<const Tensor*>(nullptr); });
    }
    // An Exit is dead in every iteration but the last: only its live value is the result.
    if (pn.kind != Kind::kExit || outs_[0].live) record_fetches(pn, outs_);
    // Where the outputs go.
    FrameState* f = t.frame;
    switch (pn.kind) {
      case Kind::kEnter: {
        FrameState* child = child_frame(f, t.iter, pn);
        --child->pending_enters;
        if (pn.is_constant) {
          child->invariants.emplace_back(t.node, outs_[0]);
          for (int64_t i = child->first_iter; i <= child->iteration_count; ++i) deliver_all(t.node, outs_[0], child, i);
        } else {
          deliver_all(t.node, outs_[0], child, 0);
        }
        cleanup(child, child->first_iter);
        break;
      }
      case Kind::kExit:
        if (outs_[0].live) {
          f->exited[static_cast<size_t>(pn.exit_index)] = 1;
          deliver_all(t.node, outs_[0], f->parent, f->parent_iter);
        }
        break;
      case Kind::kNextIteration: {
        if (!outs_[0].live) break;  // the loop ends here for this value
        const int64_t next = t.iter + 1;
        if (next <= f->iteration_count) {
          deliver_all(t.node, outs_[0], f, next);
        } else if (static_cast<int>(f->iters.size()) >= f->parallel_iterations) {
          f->deferred.emplace_back(t.node, outs_[0]);
        } else {
          new_iteration(f);
          deliver_all(t.node, outs_[0], f, next);
        }
        break;
      }
      default:
        propagate(t.node, outs_, live, f, t.iter);
    }
    --iter_state(f, t.iter).outstanding_ops;
    cleanup(f, t.iter);
    return Status::OK();
  }

  Status run_kernel(const PlanNode& pn, const Node& node) {
    ptrs_.clear();
    derefs_.clear();
    derefs_.reserve(inputs_.size());  // pointers into it must stay valid
    forwardable_.assign(inputs_.size(), false);
    env_.ref_inputs.assign(inputs_.size(), nullptr);
    static const Tensor kNoTensor;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      if (pn.pass_ref[k]) {
        env_.ref_inputs[k] = inputs_[k].ref;
        ptrs_.push_back(&kNoTensor);
      } else if (pn.deref[k]) {
        derefs_.emplace_back();
        OPF_RETURN_IF_ERROR(exec::read_variable(inputs_[k].ref, node.name, &derefs_.back()));
        ptrs_.push_back(&derefs_.back());
      } else {
        ptrs_.push_back(&inputs_[k].value);
        forwardable_[k] = pn.feed_of[k] < 0;  // run_kernel checks the buffer is not shared
      }
    }
    OPF_RETURN_IF_ERROR(exec::run_node(node, pn.device, ptrs_, forwardable_, env_, scratch_));
    for (size_t k = 0; k < outs_.size(); ++k) {
      outs_[k].value = std::move(scratch_.outs[k]);
      outs_[k].ref = env_.ref_outputs[k];
      outs_[k].live = true;
    }
    inputs_.clear();
    derefs_.clear();
    return Status::OK();
  }

  void record_fetches(const PlanNode& pn, const std::vector<Entry>& outs) {
    for (const auto& f : pn.fetched)
      fetched_[static_cast<size_t>(f.second)] = std::make_unique<Entry>(outs[static_cast<size_t>(f.first)]);
  }

  bool iteration_done(FrameState* f, int64_t iter) {
    if (iter != f->first_iter || f->iters.empty()) return false;
    const IterState& is = *f->iters.front();
    return is.outstanding_ops == 0 && is.outstanding_frames == 0 && (iter != 0 || f->pending_enters == 0);
  }

  // Retires the iterations (oldest first) and frames that have nothing left to do.
  void cleanup(FrameState* f, int64_t iter) {
    while (f != &root_ && iteration_done(f, iter)) {
      f->iters.pop_front();
      ++f->first_iter;
      if (!f->deferred.empty()) {  // a NextIteration waited for a free iteration
        std::vector<std::pair<int, Entry>> deferred;
        deferred.swap(f->deferred);
        new_iteration(f);
        for (const auto& d : deferred) deliver_all(d.first, d.second, f, f->iteration_count);
      }
      if (!f->iters.empty()) {
        iter = f->first_iter;
        continue;
      }
      // The frame is done. An Exit that never delivered a live value (a loop that was dead
      // as a whole, as inside an untaken cond branch) delivers a dead one.
      FrameState* parent = f->parent;
      const int64_t parent_iter = f->parent_iter;
      const StaticFrame& sf = sframe(f);
      for (size_t x = 0; x < sf.exits.size(); ++x) {
        if (f->exited[x]) continue;
        deliver_all(sf.exits[x], Entry(), parent, parent_iter);
        record_fetches(pnode(sf.exits[x]), std::vector<Entry>(1));
      }
      frames_.erase(std::make_tuple(parent, parent_iter, f->sframe));
      --iter_state(parent, parent_iter).outstanding_frames;
      f = parent;
      iter = parent_iter;
    }
  }

  const Graph& g_;
  const DataflowPlan& plan_;
  const std::vector<std::pair<TensorRef, Tensor>>& feeds_;
  StepTracer* tracer_;
  std::vector<std::unique_ptr<Entry>> fetched_;
  FrameState root_;
  std::map<std::tuple<FrameState*, int64_t, int>, std::unique_ptr<FrameState>> frames_;
  std::deque<Task> queue_;
  ExecEnv env_;
  exec::Scratch scratch_;
  std::vector<Entry> inputs_, outs_;
  std::vector<const Tensor*> ptrs_;
  std::vector<Tensor> derefs_;
  std::vector<bool> forwardable_;
};

}  // namespace

Status run_dataflow(const Graph& g, const DataflowPlan& plan, ResourceMgr* resources,
                    const std::vector<std::pair<TensorRef, Tensor>>& feeds, std::vector<Tensor>* outputs,
                    StepTracer* tracer) {
  DataflowRun run(g, plan, resources, feeds, tracer);
  return run.run(outputs);
}

namespace {

// The Executor face of run_dataflow: feeds map to the plan's graph (the optimizer's rewrite
// keeps their names, not their node ids).
class DataflowExecutor final : public Executor {
 public:
  Status run(const RunArgs& args, std::vector<Tensor>* outputs) const override {
    const Session::Impl::Plan& plan = args.plan;
    if (plan.graph.get() == &args.graph) {
      return run_dataflow(args.graph, *plan.dataflow, args.resources, args.feeds, outputs, args.tracer);
    }
    std::vector<std::pair<TensorRef, Tensor>> mapped;
    for (size_t i = 0; i < args.feeds.size(); ++i) mapped.emplace_back(plan.feed_refs[i], args.feeds[i].second);
    return run_dataflow(*plan.graph, *plan.dataflow, args.resources, mapped, outputs, args.tracer);
  }
};

}  // namespace

const Executor& executors::dataflow() {
  static const DataflowExecutor executor;
  return executor;
}

}  // namespace opforge
