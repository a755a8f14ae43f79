// The dataflow executor's plan (see control_flow.h): which frame each node of a graph with
// TensorFlow 1's control flow runs in, its edges and its initial pending counts, checked once
// per (feeds, fetches, targets).
#include <map>
#include <memory>

#include "control_flow.h"

namespace opforge {

using dataflow::Edge;
using dataflow::Kind;
using dataflow::PlanNode;
using dataflow::StaticFrame;

bool is_control_flow_op(const std::string& op) {
  return op == "Switch" || op == "Merge" || op == "Enter" || op == "Exit" || op == "NextIteration" ||
         op == "LoopCond" || op == "ControlTrigger";
}

namespace {

Kind kind_of(const std::string& op) {
  if (op == "Switch") return Kind::kSwitch;
  if (op == "Merge") return Kind::kMerge;
  if (op == "Enter") return Kind::kEnter;
  if (op == "Exit") return Kind::kExit;
  if (op == "NextIteration") return Kind::kNextIteration;
  if (op == "ControlTrigger") return Kind::kControlTrigger;
  return Kind::kNormal;  // LoopCond too: it only forwards the predicate
}

}  // namespace

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
        return exec::at_node(
            errors::InvalidArgument("the graph has a cycle that does not go through a NextIteration node"),
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
        return exec::at_node(
            errors::InvalidArgument(node.op->name, ": has inputs from different frames: '", name(first), "' is in ",
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
      return exec::at_node(
          errors::InvalidArgument("NextIteration: is not inside a loop (its input is in the root frame)"), node.name);
    }
    if (pn.kind == Kind::kEnter) {
      const std::string& fname = node.attrs[static_cast<size_t>(node.op->attr_index("frame_name"))].s;
      if (fname.empty())
        return exec::at_node(errors::InvalidArgument("Enter: frame_name must not be empty"), node.name);
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

}  // namespace opforge
