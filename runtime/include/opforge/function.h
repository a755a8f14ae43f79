// Functions: graphs that ops call (TensorFlow's FunctionDefs). A dataset op's `func` attrs
// (map, filter, flat_map, interleave; a one-shot iterator's dataset factory) name them.
//
// A function is a Graph whose arguments are Placeholder outputs and whose results are tensors
// of it. Functions live in one library per process, by name (a graph's function names are
// made unique when it is built or imported, see opforge/framework/function_library.py).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opforge/graph.h"
#include "opforge/resource.h"
#include "opforge/status.h"

namespace opforge {

struct FunctionBody {
  std::shared_ptr<const Graph> graph;
  std::vector<TensorRef> args;  // the Placeholder outputs the arguments feed, in order
  std::vector<TensorRef> rets;  // the results, in order
  std::vector<DType> arg_dtypes, ret_dtypes;
  std::vector<Shape> ret_shapes;  // as the graph knows them (may be partially known)
};

class FunctionLibrary {
 public:
  static FunctionLibrary& Global();
  // Adds a function; checks that args are Placeholders and rets exist. AlreadyExists when the
  // name is taken by another body.
  Status add(const std::string& name, std::shared_ptr<const Graph> graph, std::vector<TensorRef> args,
             std::vector<TensorRef> rets);
  // nullptr when there is no function called name.
  std::shared_ptr<const FunctionBody> find(const std::string& name) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const FunctionBody>> functions_;
};

// Calls one function: a Session over its graph. Its variables are those of the Session whose
// op made the runner (`resources`), which the runner does not keep alive: a call after that
// Session's store is gone fails with Cancelled. Any number of threads may call run at once.
class FunctionRunner {
 public:
  // `op` names the calling op in errors (e.g. "MapDataset").
  static Status Create(const std::string& op, const std::string& name, std::weak_ptr<ResourceMgr> resources,
                       std::shared_ptr<const FunctionRunner>* out);
  Status run(std::vector<Tensor> args, std::vector<Tensor>* rets) const;
  const FunctionBody& body() const { return *body_; }
  const std::string& name() const { return name_; }

 private:
  std::string op_, name_;
  std::shared_ptr<const FunctionBody> body_;
  std::weak_ptr<ResourceMgr> resources_;
  std::shared_ptr<ResourceMgr> owned_;  // a store of its own when made without one (eagerly)
  std::unique_ptr<Session> session_;
};

}  // namespace opforge
