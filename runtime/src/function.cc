// The process's function library and function calls (opforge/function.h).
#include "opforge/function.h"

#include <shared_mutex>

namespace opforge {

FunctionLibrary& FunctionLibrary::Global() {
  static FunctionLibrary* lib = new FunctionLibrary();  // never destroyed: kernels may outlive statics
  return *lib;
}

Status FunctionLibrary::add(const std::string& name, std::shared_ptr<const Graph> graph, std::vector<TensorRef> args,
                            std::vector<TensorRef> rets) {
  if (name.empty()) return errors::InvalidArgument("a function needs a name");
  auto body = std::make_shared<FunctionBody>();
  {
    std::shared_lock<std::shared_mutex> lock(graph->mutex());
    auto check = [&](const TensorRef& r, const char* what) -> Status {
      if (r.node < 0 || r.node >= graph->num_nodes() || r.index < 0 ||
          r.index >= static_cast<int>(graph->node(r.node).out_dtypes.size())) {
        return errors::InvalidArgument("function ", name, ": ", what, " is not a tensor of its graph");
      }
      return Status::OK();
    };
    for (const TensorRef& a : args) {
      OPF_RETURN_IF_ERROR(check(a, "an argument"));
      if (graph->node(a.node).op->name != "Placeholder") {
        return errors::InvalidArgument("function ", name, ": argument ", graph->node(a.node).name,
                                       " is not a Placeholder");
      }
      body->arg_dtypes.push_back(graph->node(a.node).out_dtypes[static_cast<size_t>(a.index)]);
    }
    for (const TensorRef& r : rets) {
      OPF_RETURN_IF_ERROR(check(r, "a result"));
      const Node& n = graph->node(r.node);
      body->ret_dtypes.push_back(n.out_dtypes[static_cast<size_t>(r.index)]);
      body->ret_shapes.push_back(n.out_shapes[static_cast<size_t>(r.index)]);
    }
  }
  body->graph = std::move(graph);
  body->args = std::move(args);
  body->rets = std::move(rets);
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = functions_[name];
  if (slot && slot->graph != body->graph) return errors::AlreadyExists("a function called ", name, " exists");
  slot = std::move(body);
  return Status::OK();
}

std::shared_ptr<const FunctionBody> FunctionLibrary::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second;
}

Status FunctionRunner::Create(const std::string& op, const std::string& name, std::weak_ptr<ResourceMgr> resources,
                              std::shared_ptr<const FunctionRunner>* out) {
  auto body = FunctionLibrary::Global().find(name);
  if (!body) return errors::NotFound(op, ": function '", name, "' is not defined");
  auto r = std::shared_ptr<FunctionRunner>(new FunctionRunner());
  r->op_ = op;
  r->name_ = name;
  r->body_ = body;
  std::shared_ptr<ResourceMgr> store = resources.lock();
  if (!store) {  // eagerly: the function's variables are its own
    r->owned_ = std::make_shared<ResourceMgr>();
    r->resources_ = r->owned_;
    r->session_ = std::make_unique<Session>(body->graph, r->owned_);
  } else {
    r->resources_ = resources;
    // The Session reads the store through a pointer that owns nothing (no cycle through the
    // store's iterators, which hold this runner); run() keeps the store alive while it runs.
    r->session_ =
        std::make_unique<Session>(body->graph, std::shared_ptr<ResourceMgr>(std::shared_ptr<void>(), store.get()));
  }
  *out = std::move(r);
  return Status::OK();
}

Status FunctionRunner::run(std::vector<Tensor> args, std::vector<Tensor>* rets) const {
  const FunctionBody& b = *body_;
  if (args.size() != b.args.size()) {
    return errors::InvalidArgument(op_, ": function ", name_, " takes ", b.args.size(), " arguments, got ",
                                   args.size());
  }
  std::vector<std::pair<TensorRef, Tensor>> feeds;
  feeds.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != b.arg_dtypes[i]) {
      return errors::InvalidArgument(op_, ": argument ", i, " of function ", name_, " must be ",
                                     dtype_name(b.arg_dtypes[i]), ", got ", dtype_name(args[i].dtype()));
    }
    feeds.emplace_back(b.args[i], std::move(args[i]));
  }
  std::shared_ptr<ResourceMgr> alive = resources_.lock();
  if (!alive) return errors::Cancelled(op_, ": the Session that made this dataset is closed");
  return session_->run(feeds, b.rets, {}, rets);
}

}  // namespace opforge
