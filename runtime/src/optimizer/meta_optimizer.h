// The graph optimizer's pipeline (TensorFlow's Grappler meta optimizer, DESIGN.md section 5):
// passes over a mutable view of a runtime Graph, one per file, each switched by its
// RewriterConfig name. Order (TensorFlow's): common subgraph elimination, constant folding,
// arithmetic simplification, dependency optimization, batch-norm folding (with constant
// folding, as TensorFlow pushes constant multiplications into convolutions there), remapping
// into fused ops. A pass that fails leaves the graph as the previous pass left it and its error
// is reported (or returned, with fail_on_errors).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "opforge/graph.h"

namespace opforge {
namespace optimizer {

struct PassReport {
  std::string name;    // the pass ("fold_batch_norm", "remapping", ...)
  std::string toggle;  // its RewriterConfig switch
  int nodes_before = 0, nodes_after = 0;
  double seconds = 0;
  std::string error;  // empty when it succeeded
};

struct Options {
  std::vector<std::string> preserve;  // fetched, fed and target nodes (names)
  std::vector<std::string> fed;       // nodes one of whose outputs is fed
  std::vector<std::string> passes;    // the RewriterConfig toggles that are on
  bool fail_on_errors = false;
  // Build a graph even when the passes changed nothing but pruning (opforge optimize).
  bool always_build = false;
};

// The RewriterConfig toggles, and the passes in order as (pass name, toggle).
const std::vector<std::string>& toggles();
const std::vector<std::pair<std::string, std::string>>& pipeline();

// Optimizes the part of `g` the preserved nodes need. *out is the optimized graph, or null when
// the passes changed nothing but pruning (and !always_build). A pass's failure is in its
// report; with fail_on_errors it is also the returned status.
Status optimize(const Graph& g, const Options& options, std::shared_ptr<Graph>* out, std::vector<PassReport>* report);

// Testing: the named pass throws as it starts (empty: none).
void set_failing_pass(const std::string& name);

}  // namespace optimizer
}  // namespace opforge
