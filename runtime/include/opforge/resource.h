// Variables and the per-session store that owns them (TensorFlow 1's resource manager).
//
// In a graph, a VariableV2 node outputs a reference (Ref(T)) to a Variable; Assign-style
// kernels receive that Variable and replace its value. Values are immutable Tensors, so an
// assignment installs a new tensor and readers holding the old one are unaffected.
#pragma once

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

class ResourceMgr {
 public:
  // The variable called name, created on first use. InvalidArgument if it exists with
  // another dtype.
  Status lookup_or_create(const std::string& name, DType dtype, const Shape& shape, Variable** out);
  Variable* find(const std::string& name);
  std::vector<std::string> names() const;
  void clear();

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Variable>> vars_;
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
