// The dataflow executor: runs graphs with TensorFlow 1's control-flow ops as TensorFlow's
// executor defines them.
//
// Every value carries a liveness bit. Switch forwards its input to one output and leaves the
// other dead; a node with a dead input does not run and its outputs are dead; Merge forwards
// the first live input it gets (or is dead when all of its inputs are). Loops are frames:
// Enter passes a value into a child frame (its first iteration, or every iteration when the
// Enter is a loop invariant), NextIteration passes a value to the next iteration of its frame,
// Exit passes a value out to the parent frame. A frame is instantiated per iteration of its
// parent, so nested loops work; at most `parallel_iterations` iterations of a frame are under
// way at once. Nodes run one at a time from a ready queue (kernels use the intra-op threads).
//
// The static part (which frame each node is in, its edges, initial pending counts) is a
// DataflowPlan, built once per (feeds, fetches, targets) and shared by concurrent runs; all
// that a run mutates (frame and iteration states, the queue) is local to run_dataflow.
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "executor.h"
#include "opforge/kernel.h"

namespace opforge {

bool is_control_flow_op(const std::string& op) {
  return op == "Switch" || op == "Merge" || op == "Enter" || op == "Exit" || op == "NextIteration" ||
         op == "LoopCond" || op == "ControlTrigger";
}

namespace {

enum class Kind : uint8_t { kNormal, kSwitch, kMerge, kEnter, kExit, kNextIteration, kControlTrigger };

Kind kind_of(const std::string& op) {
  if (op == "Switch") return Kind::kSwitch;
  if (op == "Merge") return Kind::kMerge;
  if (op == "Enter") return Kind::kEnter;
  if (op == "Exit") return Kind::kExit;
  if (op == "NextIteration") return Kind::kNextIteration;
  if (op == "ControlTrigger") return Kind::kControlTrigger;
  return Kind::kNormal;  // LoopCond too: it only forwards the predicate
}

struct Edge {
  int src_output;  // -1: a control edge
  int dst;         // plan node
  int dst_input;   // flattened input of dst; -1 for a control edge
};

struct PlanNode {
  int id = -1;  // graph node
  Kind kind = Kind::kNormal;
  int frame = 0;        // static frame the node runs in
  int local = 0;        // index among the frame's nodes
  int slot_base = 0;    // its inputs' first slot in the frame's slot array
  int num_inputs = 0;   // flattened data inputs
  int num_waited = 0;   // data inputs that arrive over edges (the rest are fed)
  int pending = 0;      // edges it waits for (Merge: control edges only)
  std::vector<int> feed_of;     // per flattened input: index into the feeds, or -1
  std::vector<bool> pass_ref;   // input is a Ref argument
  std::vector<bool> deref;      // input reads a Ref output as a value
  std::vector<Edge> out;
  std::vector<std::pair<int, int>> fetched;  // (output, fetch index)
  int child_frame = -1;  // Enter: the frame it enters
  bool is_constant = false;
  int parallel_iterations = 10;
  int exit_index = -1;   // Exit: its index among its frame's exits
  DeviceSpec device;
};

struct StaticFrame {
  std::string name;
  int parent = -1;
  int num_enters = 0;
  int num_nodes = 0;
  int num_slots = 0;
  std::vector<int> pending;  // per local node
  std::vector<int> exits;    // plan nodes
};

}  // namespace

struct DataflowPlan {
  std::vector<PlanNode> nodes;
  std::vector<StaticFrame> frames;  // 0 is the root frame
  std::vector<int> roots;           // root-frame nodes with nothing to wait for
  size_t num_fetches = 0;
  std::vector<std::string> fetch_names;
  std::vector<int> fetch_feed;  // per fetch: the feed that gives it, or -1
};

Status build_dataflow_plan(const Graph& g, const std::vector<char>& needed,
                           const std::vector<std::pair<TensorRef, Tensor>>& feeds,
                           const std::vector<TensorRef>& fetches, std::shared_ptr<const DataflowPlan>* out) {
  auto plan = std::make_shared<DataflowPlan>();
  std::map<TensorRef, int> fed;
  for (size_t i = 0; i < feeds.size(); ++i) fed.emplace(feeds[i].first, static_cast<int>(i));
  std::vector<int> index(static_cast<size_t>(g.num_nodes()), -1);
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (!needed[static_cast<size_t>(id)]) continue;
    index[static_cast<size_t>(id)] = static_cast<int>(plan->nodes.size());
    PlanNode pn;
    pn.id = id;
    pn.kind = kind_of(g.node(id).op->name);
    pn.device = exec::node_device(g.node(id));
    plan->nodes.push_back(std::move(pn));
  }
  auto& nodes = plan->nodes;
  const auto name = [&](int p) -> const std::string& { return g.node(nodes[static_cast<size_t>(p)].id).name; };
  // Edges, and whether an edge closes a loop (it leaves a NextIteration).
  std::vector<std::vector<int>> preds(nodes.size());  // non-back-edge sources, data and control
  for (size_t p = 0; p < nodes.size(); ++p) {
    PlanNode& pn = nodes[p];
    const Node& node = g.node(pn.id);
    pn.num_inputs = static_cast<int>(node.inputs.size());
    for (size_t a = 0; a < node.ranges.size(); ++a) {
      for (int k = node.ranges[a].first; k < node.ranges[a].second; ++k) {
        const TensorRef& r = node.inputs[static_cast<size_t>(k)];
        auto f = fed.find(r);
        pn.feed_of.push_back(f == fed.end() ? -1 : f->second);
        const bool src_ref = g.node(r.node).out_is_ref[static_cast<size_t>(r.index)];
        const bool arg_ref = node.op->inputs[a].is_ref;
        pn.pass_ref.push_back(arg_ref && f == fed.end());
        pn.deref.push_back(src_ref && !arg_ref && f == fed.end());
        if (f != fed.end()) continue;
        const int src = index[static_cast<size_t>(r.node)];
        nodes[static_cast<size_t>(src)].out.push_back({r.index, static_cast<int>(p), k});
        ++pn.num_waited;
        if (nodes[static_cast<size_t>(src)].kind != Kind::kNextIteration) preds[p].push_back(src);
      }
    }
    if (pn.kind == Kind::kMerge && pn.num_waited != pn.num_inputs) {
      return exec::at_node(errors::Unimplemented("Merge: feeding one of its inputs is not supported"), node.name);
    }
    for (int c : node.control_inputs) {
      const int src = index[static_cast<size_t>(c)];
      nodes[static_cast<size_t>(src)].out.push_back({-1, static_cast<int>(p), -1});
      ++pn.pending;
      if (nodes[static_cast<size_t>(src)].kind != Kind::kNextIteration) preds[p].push_back(src);
    }
    if (pn.kind != Kind::kMerge) pn.pending += pn.num_waited;
  }
  // Order the nodes with the loops' back edges left out; what remains must be acyclic.
  std::vector<int> indegree(nodes.size(), 0), order;
  std::vector<std::vector<int>> succ(nodes.size());
  for (size_t p = 0; p < nodes.size(); ++p) {
    for (int s : preds[p]) succ[static_cast<size_t>(s)].push_back(static_cast<int>(p));
    indegree[p] = static_cast<int>(preds[p].size());
  }
  std::vector<int> ready;
  for (size_t p = nodes.size(); p-- > 0;)
    if (indegree[p] == 0) ready.push_back(static_cast<int>(p));
  while (!ready.empty()) {
    const int p = ready.back();
    ready.pop_back();
    order.push_back(p);
    for (int s : succ[static_cast<size_t>(p)])
      if (--indegree[static_cast<size_t>(s)] == 0) ready.push_back(s);
  }
  if (order.size() != nodes.size()) {
    for (size_t p = 0; p < nodes.size(); ++p) {
      if (indegree[p] > 0) {
        return exec::at_node(errors::InvalidArgument(
                                 "the graph has a cycle that does not go through a NextIteration node"),
                             name(static_cast<int>(p)));
      }
    }
  }
  // Frames, in that order: a node is in the frame its inputs' values are in. Enter's output
  // is in its child frame, Exit's in its frame's parent.
  plan->frames.push_back(StaticFrame{"", -1, 0, 0, 0, {}, {}});
  std::map<std::pair<int, std::string>, int> child_of;
  const auto output_frame = [&](int p) -> int {
    const PlanNode& s = nodes[static_cast<size_t>(p)];
    if (s.kind == Kind::kEnter) return s.child_frame;
    if (s.kind == Kind::kExit) return plan->frames[static_cast<size_t>(s.frame)].parent;
    return s.frame;
  };
  const auto frame_name = [&](int f) {
    return f == 0 ? std::string("the root frame") : "frame '" + plan->frames[static_cast<size_t>(f)].name + "'";
  };
  for (int p : order) {
    PlanNode& pn = nodes[static_cast<size_t>(p)];
    const Node& node = g.node(pn.id);
    int frame = -2;
    int first = -1;
    for (int s : preds[static_cast<size_t>(p)]) {
      const int f = output_frame(s);
      if (frame == -2) {
        frame = f;
        first = s;
      } else if (f != frame) {
        return exec::at_node(errors::InvalidArgument(
                                 node.op->name, ": has inputs from different frames: '", name(first), "' is in ",
                                 frame_name(frame), ", '", name(s), "' is in ", frame_name(f)),
                             node.name);
      }
    }
    pn.frame = frame == -2 ? 0 : frame;
    if (pn.kind == Kind::kExit && pn.frame == 0) {
      return exec::at_node(errors::InvalidArgument("Exit: is not inside a loop (its input is in the root frame)"),
                           node.name);
    }
    if (pn.kind == Kind::kNextIteration && pn.frame == 0) {
      return exec::at_node(errors::InvalidArgument("NextIteration: is not inside a loop (its input is in the root frame)"),
                           node.name);
    }
    if (pn.kind == Kind::kEnter) {
      const std::string& fname = node.attrs[static_cast<size_t>(node.op->attr_index("frame_name"))].s;
      if (fname.empty()) return exec::at_node(errors::InvalidArgument("Enter: frame_name must not be empty"), node.name);
      auto key = std::make_pair(pn.frame, fname);
      auto it = child_of.find(key);
      if (it == child_of.end()) {
        it = child_of.emplace(key, static_cast<int>(plan->frames.size())).first;
        plan->frames.push_back(StaticFrame{fname, pn.frame, 0, 0, 0, {}, {}});
      }
      pn.child_frame = it->second;
      ++plan->frames[static_cast<size_t>(pn.child_frame)].num_enters;
      pn.is_constant = node.attrs[static_cast<size_t>(node.op->attr_index("is_constant"))].b;
      const int64_t pi = node.attrs[static_cast<size_t>(node.op->attr_index("parallel_iterations"))].i;
      if (pi < 1) {
        return exec::at_node(errors::InvalidArgument("Enter: parallel_iterations must be at least 1, got ", pi),
                             node.name);
      }
      pn.parallel_iterations = static_cast<int>(pi);
    }
  }
  // Back edges stay in their frame.
  for (const PlanNode& pn : nodes) {
    if (pn.kind != Kind::kNextIteration) continue;
    for (const Edge& e : pn.out) {
      const PlanNode& d = nodes[static_cast<size_t>(e.dst)];
      if (d.frame != pn.frame) {
        return exec::at_node(errors::InvalidArgument("NextIteration: feeds '", g.node(d.id).name, "' in ",
                                                     frame_name(d.frame), " from ", frame_name(pn.frame)),
                             g.node(pn.id).name);
      }
    }
  }
  // Local indices, input slots and initial pending counts per frame.
  for (size_t p = 0; p < nodes.size(); ++p) {
    PlanNode& pn = nodes[p];
    StaticFrame& f = plan->frames[static_cast<size_t>(pn.frame)];
    pn.local = f.num_nodes++;
    pn.slot_base = f.num_slots;
    f.num_slots += pn.num_inputs;
    f.pending.push_back(pn.pending);
    if (pn.kind == Kind::kExit) {
      pn.exit_index = static_cast<int>(f.exits.size());
      f.exits.push_back(static_cast<int>(p));
    }
    const bool waits = pn.kind == Kind::kMerge ? (pn.pending > 0 || pn.num_inputs > 0) : pn.pending > 0;
    if (pn.frame == 0 && !waits) plan->roots.push_back(static_cast<int>(p));
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    plan->fetch_names.push_back(g.node(fetches[i].node).name + ":" + std::to_string(fetches[i].index));
    auto f = fed.find(fetches[i]);
    plan->fetch_feed.push_back(f == fed.end() ? -1 : f->second);
    if (f != fed.end()) continue;
    const int p = index[static_cast<size_t>(fetches[i].node)];
    PlanNode& pn = nodes[static_cast<size_t>(p)];
    if (output_frame(p) != 0) {
      return exec::at_node(errors::InvalidArgument("cannot fetch '", plan->fetch_names.back(), "': it is inside ",
                                                   frame_name(output_frame(p)), " (fetch the loop's Exit instead)"),
                           g.node(pn.id).name);
    }
    pn.fetched.emplace_back(fetches[i].index, static_cast<int>(i));
  }
  plan->num_fetches = fetches.size();
  *out = std::move(plan);
  return Status::OK();
}

namespace {

// A value as the executor passes it: a tensor or a variable reference, or dead.
struct Entry {
  Tensor value;
  Variable* ref = nullptr;
  bool live = false;
};

struct IterState {
  std::vector<Entry> slots;  // per input slot of the frame's nodes
  std::vector<int> pending;  // per local node
  std::vector<int> dead;     // per local node: dead inputs that arrived
  std::vector<char> merge;   // per local node: Merge's state (kMergeLive, kMergeFired)
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
  int64_t first_iter = 0;       // the oldest iteration not yet done
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
              const std::vector<std::pair<TensorRef, Tensor>>& feeds)
      : g_(g), plan_(plan), feeds_(feeds), fetched_(plan.num_fetches) {
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
          return exec::at_node(errors::InvalidArgument("Switch: pred must be a scalar bool, got shape ",
                                                       pred.shape().to_string()),
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
    for (const auto& f : pn.fetched) fetched_[static_cast<size_t>(f.second)] = std::make_unique<Entry>(outs[static_cast<size_t>(f.first)]);
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
                    const std::vector<std::pair<TensorRef, Tensor>>& feeds, std::vector<Tensor>* outputs) {
  DataflowRun run(g, plan, resources, feeds);
  return run.run(outputs);
}

}  // namespace opforge
