// The graph optimizer's pipeline (see meta_optimizer.h).
#include "optimizer/meta_optimizer.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {
namespace {

std::mutex g_fail_mu;
std::string g_failing_pass;

using PassFn = void (*)(GraphView&);

PassFn pass_fn(const std::string& name) {
  if (name == "common_subgraph_elimination") return &common_subgraph_elimination;
  if (name == "constant_folding") return &constant_folding;
  if (name == "arithmetic_optimization") return &arithmetic_optimization;
  if (name == "dependency_optimization") return &dependency_optimization;
  if (name == "fold_batch_norm") return &fold_batch_norm;
  return &remapping;
}

}  // namespace

const std::vector<std::string>& toggles() {
  static const std::vector<std::string> t = {"common_subgraph_elimination", "constant_folding",
                                             "arithmetic_optimization", "dependency_optimization", "remapping"};
  return t;
}

const std::vector<std::pair<std::string, std::string>>& pipeline() {
  static const std::vector<std::pair<std::string, std::string>> p = {
      {"common_subgraph_elimination", "common_subgraph_elimination"},
      {"constant_folding", "constant_folding"},
      {"arithmetic_optimization", "arithmetic_optimization"},
      {"dependency_optimization", "dependency_optimization"},
      {"fold_batch_norm", "constant_folding"},
      {"remapping", "remapping"}};
  return p;
}

void set_failing_pass(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_fail_mu);
  g_failing_pass = name;
}

Status optimize(const Graph& g, const Options& options, std::shared_ptr<Graph>* out, std::vector<PassReport>* report) {
  out->reset();
  report->clear();
  std::string failing;
  {
    std::lock_guard<std::mutex> lock(g_fail_mu);
    failing = g_failing_pass;
  }
  std::vector<std::string> preserve = options.preserve;
  preserve.insert(preserve.end(), options.fed.begin(), options.fed.end());
  GraphView view(g, preserve, options.fed);
  view.prune_dead();
  {
    // A graph the executor will refuse (a cycle outside a loop) is left as written, without a
    // report: the run fails with the executor's error naming the node, not the optimizer's.
    std::vector<int> order;
    if (!view.topological_order(&order).ok()) return Status::OK();
  }
  Status first_error;
  for (const auto& [name, toggle] : pipeline()) {
    if (std::find(options.passes.begin(), options.passes.end(), toggle) == options.passes.end()) continue;
    PassReport r;
    r.name = name;
    r.toggle = toggle;
    r.nodes_before = view.num_alive();
    const auto t0 = std::chrono::steady_clock::now();
    GraphView snapshot = view;
    try {
      if (name == failing) throw PassError("injected failure (optimizer testing hook)");
      pass_fn(name)(view);
      view.prune_dead();
    } catch (const std::exception& e) {
      r.error = e.what();
      view = std::move(snapshot);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.nodes_after = view.num_alive();
    if (!r.error.empty() && first_error.ok()) {
      first_error = errors::Internal("graph optimizer pass '", name, "' failed: ", r.error);
    }
    report->push_back(std::move(r));
  }
  if (options.always_build || view.changed_from_source(g)) {
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<Graph> built;
    Status s = view.build(&built);
    PassReport r;
    r.name = "build";
    r.nodes_before = r.nodes_after = view.num_alive();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s.ok()) {
      *out = std::move(built);
    } else {
      // An optimizer bug: the run goes on over the graph as written, and the error is reported.
      r.error = s.message();
      report->push_back(r);
      if (first_error.ok())
        first_error = errors::Internal("graph optimizer: building the optimized graph failed: ", s.message());
    }
  }
  return options.fail_on_errors ? first_error : Status::OK();
}

}  // namespace optimizer
}  // namespace opforge
