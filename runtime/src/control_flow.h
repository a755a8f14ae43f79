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
//
// This header holds the plan's types, shared by control_flow_plan.cc (building a DataflowPlan:
// frames, edges, pending counts) and control_flow_run.cc (running one: frame and iteration
// states, dead tensors, the ready queue). Private to the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor.h"

namespace opforge {
namespace dataflow {

enum class Kind : uint8_t { kNormal, kSwitch, kMerge, kEnter, kExit, kNextIteration, kControlTrigger };

struct Edge {
  int src_output;  // -1: a control edge
  int dst;         // plan node
  int dst_input;   // flattened input of dst; -1 for a control edge
};

struct PlanNode {
  int id = -1;  // graph node
  Kind kind = Kind::kNormal;
  int frame = 0;               // static frame the node runs in
  int local = 0;               // index among the frame's nodes
  int slot_base = 0;           // its inputs' first slot in the frame's slot array
  int num_inputs = 0;          // flattened data inputs
  int num_waited = 0;          // data inputs that arrive over edges (the rest are fed)
  int pending = 0;             // edges it waits for (Merge: control edges only)
  std::vector<int> feed_of;    // per flattened input: index into the feeds, or -1
  std::vector<bool> pass_ref;  // input is a Ref argument
  std::vector<bool> deref;     // input reads a Ref output as a value
  std::vector<Edge> out;
  std::vector<std::pair<int, int>> fetched;  // (output, fetch index)
  int child_frame = -1;                      // Enter: the frame it enters
  bool is_constant = false;
  int parallel_iterations = 10;
  int exit_index = -1;  // Exit: its index among its frame's exits
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

}  // namespace dataflow

struct DataflowPlan {
  std::vector<dataflow::PlanNode> nodes;
  std::vector<dataflow::StaticFrame> frames;  // 0 is the root frame
  std::vector<int> roots;                     // root-frame nodes with nothing to wait for
  size_t num_fetches = 0;
  std::vector<std::string> fetch_names;
  std::vector<int> fetch_feed;  // per fetch: the feed that gives it, or -1
};

}  // namespace opforge
