// Variables, the other stateful objects a Session owns (iterators: ResourceBase), and the
// per-session store that owns them all (TensorFlow's resource manager).
//
// In a graph, a VariableV2 node outputs a reference (Ref(T)) to a Variable; Assign-style
// kernels receive that Variable and replace its value. Values are immutable Tensors, so an
// assignment installs a new tensor and readers holding the old one are unaffected.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "opforge/tensor.h"

namespace opforge {

struct Variable {
  std::string name;
  DType dtype = DType::kInvalid;
  Shape shape;  // as declared; may be partially known
  std::mutex mu;
  Tensor value;
  bool initialized = false;
};

// A stateful object other than a variable that a Session's ops share: an iterator (dataset.h),
// a lookup table. Resources are made by the ops that name them and live until the store is
// cleared or they are deleted; each guards its own state against concurrent runs.
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string type_name() const = 0;
};

// What a resource tensor (dtype kResource) holds: the resource and the name it has in its
// store. TensorFlow's handle names the resource only, and ops look it up; opforge's also holds
// it, so a handle works after its name is deleted, as a handle kept in Python does in TF.
class ResourceHandle final : public Variant {
 public:
  ResourceHandle(std::string name, std::shared_ptr<ResourceBase> resource)
      : name_(std::move(name)), resource_(std::move(resource)) {}
  std::string type_name() const override { return "resource"; }
  const std::string& name() const { return name_; }
  const std::shared_ptr<ResourceBase>& resource() const { return resource_; }

 private:
  std::string name_;
  std::shared_ptr<ResourceBase> resource_;
};

// A scalar resource tensor holding a handle to `resource`.
inline Tensor resource_tensor(std::string name, std::shared_ptr<ResourceBase> resource) {
  return Tensor::FromVariant(std::make_shared<ResourceHandle>(std::move(name), std::move(resource)),
                             DType::kResource);
}

// The resource of type T that a resource tensor holds. InvalidArgument (naming `op`) for a
// tensor that is not a resource handle or holds another type of resource.
template <class T>
Status resource_from_tensor(const std::string& op, const Tensor& t, std::shared_ptr<T>* out) {
  const auto* handle = t.dtype() == DType::kResource ? dynamic_cast<const ResourceHandle*>(t.variant().get()) : nullptr;
  std::shared_ptr<T> r = handle ? std::dynamic_pointer_cast<T>(handle->resource()) : nullptr;
  if (!r) {
    return errors::InvalidArgument(op, ": expected a resource handle to a ", T::kTypeName, ", got ",
                                   handle ? handle->resource()->type_name() : dtype_name(t.dtype()));
  }
  *out = std::move(r);
  return Status::OK();
}

class ResourceMgr : public std::enable_shared_from_this<ResourceMgr> {
 public:
  // The variable called name, created on first use. InvalidArgument if it exists with
  // another dtype.
  Status lookup_or_create(const std::string& name, DType dtype, const Shape& shape, Variable** out);
  Variable* find(const std::string& name);
  std::vector<std::string> names() const;
  // Drops the variables and the other resources.
  void clear();

  // The resource called name, made by make() on first use (make runs under no lock of the
  // store; when two threads race, the first to finish wins and the other's object is dropped).
  // InvalidArgument if a resource of another type has the name.
  template <class T>
  Status lookup_or_create_resource(const std::string& name, const std::function<Status(std::shared_ptr<T>*)>& make,
                                   std::shared_ptr<T>* out) {
    if (std::shared_ptr<ResourceBase> r = find_resource(name)) return cast_resource(name, r, out);
    std::shared_ptr<T> made;
    OPF_RETURN_IF_ERROR(make(&made));
    return cast_resource(name, insert_resource(name, made), out);
  }
  std::shared_ptr<ResourceBase> find_resource(const std::string& name) const;
  // Adds r under name unless the name is taken; returns the resource the name has after.
  std::shared_ptr<ResourceBase> insert_resource(const std::string& name, std::shared_ptr<ResourceBase> r);
  // Removes the resource called name (NotFound if there is none).
  Status delete_resource(const std::string& name);
  // Drops every resource other than the variables (a closing Session's iterators: their
  // threads stop and their functions' final calls run).
  void clear_resources();

 private:
  template <class T>
  static Status cast_resource(const std::string& name, const std::shared_ptr<ResourceBase>& r,
                              std::shared_ptr<T>* out) {
    *out = std::dynamic_pointer_cast<T>(r);
    if (!*out) {
      return errors::InvalidArgument("resource '", name, "' is a ", r->type_name(), ", not a ", T::kTypeName);
    }
    return Status::OK();
  }

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Variable>> vars_;
  std::map<std::string, std::shared_ptr<ResourceBase>> resources_;
};

// What a kernel sees of the graph executor. nullptr in eager mode.
struct ExecEnv {
  ResourceMgr* resources = nullptr;
  const std::string* node_name = nullptr;
  std::vector<Variable*> ref_inputs;   // per flattened input: the variable of a Ref input
  std::vector<Variable*> ref_outputs;  // per output: set by kernels producing a Ref
  // Per flattened input: the executor holds it alone and reads it no more after this node,
  // so an in-place kernel may write its output into it.
  std::vector<bool> forwardable_inputs;
};

}  // namespace opforge
