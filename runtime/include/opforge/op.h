// Op definitions as the runtime sees them: generated registration code builds an OpSpec for
// every opdef (signature, attrs, shape function); the runtime never parses opdef text.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "opforge/attr.h"
#include "opforge/shape.h"
#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {

struct ArgSpec {
  std::string name;
  DType type = DType::kInvalid;  // a fixed dtype, or kInvalid
  int type_attr = -1;            // index of the type attr giving the dtype
  int number_attr = -1;          // index of the int attr giving the list length
  int type_list_attr = -1;       // index of the list(type) attr giving the dtypes
  bool is_ref = false;
  bool is_list() const { return number_attr >= 0 || type_list_attr >= 0; }
};

struct AttrSpec {
  std::string name;
  AttrType type = AttrType::kInt;
  bool has_default = false;
  AttrValue default_value;
  bool inferred = false;           // derived from the inputs, not passed by the caller
  std::vector<AttrValue> allowed;  // empty: anything of the right type
  bool has_minimum = false;
  int64_t minimum = 0;
};

class ShapeContext;
using ShapeFn = std::function<Status(ShapeContext&)>;

struct OpSpec {
  std::string name;
  std::vector<ArgSpec> inputs;
  std::vector<ArgSpec> outputs;
  std::vector<AttrSpec> attrs;
  int dispatch_attr = -1;  // the type attr that selects a kernel; -1: none
  bool is_stateful = false;
  // TensorFlow's is_distributed_communication (collective ops): the op exchanges data with the
  // other processes of a job, so every process must run such ops in the same order.
  bool is_distributed_communication = false;
  ShapeFn shape_fn;     // empty: shapes come from the kernel (not used by spine ops)
  std::string library;  // "" for built-in ops, else the op library that registered it

  // The index of the attr called name, or -1.
  int attr_index(const std::string& attr_name) const {
    for (size_t i = 0; i < attrs.size(); ++i)
      if (attrs[i].name == attr_name) return static_cast<int>(i);
    return -1;
  }

  // Kernel lookups cached per dispatch dtype (see KernelRegistry::find_cached).
  struct KernelCache {
    uint64_t generation = ~uint64_t{0};
    const void* by_dtype[64] = {};
  };
  mutable KernelCache cpu_kernels;
  mutable KernelCache gpu_kernels;
};

// What a shape function sees: input shapes, input values where known (host tensors), attrs.
class ShapeContext {
 public:
  // Shapes (and values, nullptr where unknown) of the flattened inputs; arg_ranges gives
  // each input argument's [begin, end) in them. Nothing is copied: the caller keeps them alive.
  ShapeContext(const OpSpec& op, const std::vector<const Shape*>& input_shapes,
               const std::vector<const Tensor*>& input_values, const std::vector<AttrValue>& attrs,
               const std::vector<std::pair<int, int>>& arg_ranges);

  const OpSpec& op() const { return op_; }
  // The flattened tensors of input argument `arg`.
  int num_inputs(int arg) const { return arg_ranges_[arg].second - arg_ranges_[arg].first; }
  const Shape& input_shape(int arg, int i = 0) const;
  // Value of input `arg` if known (always in eager mode), else nullptr.
  const Tensor* input_value(int arg, int i = 0) const;
  // What graph construction knows of the value of an integer vector input whose value is not
  // known (TensorFlow's constant-value propagation for shape tensors: Shape(x) is x's static
  // shape; Pack, ConcatV2, StridedSlice, Cast and Identity of such values carry what they
  // know): a Shape whose dims are the elements, -1 where unknown. nullptr when nothing is.
  const Shape* input_partial_value(int arg) const;
  void set_partial_values(const std::vector<Shape>* partial) { partial_values_ = partial; }
  const AttrValue& attr(int index) const { return attrs_[index]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, Shape s) { outputs_[i] = std::move(s); }
  const std::vector<Shape>& outputs() const { return outputs_; }
  std::vector<Shape>& mutable_outputs() { return outputs_; }
  void resize_outputs(int n) { outputs_.resize(n, Shape::UnknownRank()); }

  // An InvalidArgument error naming the op.
  template <typename... Args>
  Status error(const Args&... args) const {
    return errors::InvalidArgument(op_.name, ": ", args...);
  }

 private:
  const OpSpec& op_;
  const std::vector<const Shape*>& input_shapes_;
  const std::vector<const Tensor*>& input_values_;
  const std::vector<AttrValue>& attrs_;
  const std::vector<std::pair<int, int>>& arg_ranges_;
  std::vector<Shape> outputs_;
  const std::vector<Shape>* partial_values_ = nullptr;  // per flattened input; unknown rank: none
};

// All registered ops. Registration is staged: static initializers (generated code, op
// libraries) add to a pending list; commit_pending() checks the whole batch (no name clash)
// and then publishes it, so a failed library load leaves the registry untouched.
class OpRegistry {
 public:
  static OpRegistry& Global();

  void add_pending(OpSpec spec);
  Status commit_pending(const std::string& library, std::vector<std::string>* added = nullptr);
  void discard_pending();
  // Op libraries (see library.h): what commit_batch would refuse; and publishing a batch
  // all or nothing.
  Status check_batch(const std::vector<OpSpec>& batch) const;
  Status commit_batch(std::vector<OpSpec> batch, const std::string& library, std::vector<std::string>* added = nullptr);

  // Index of an op by name; registers a placeholder (not executable) for unknown names so
  // that wrappers generated for ops without a runtime registration still import.
  int handle(const std::string& name);
  // nullptr if the handle names a placeholder.
  const OpSpec* spec(int handle) const;
  const std::string& name(int handle) const;
  const OpSpec* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<OpSpec>> specs_;  // index == handle; null for placeholders
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<OpSpec> pending_;

  Status check_locked(const std::vector<OpSpec>& batch) const;
  void insert_locked(std::vector<OpSpec>& batch, const std::string& library, std::vector<std::string>* added);
};

}  // namespace opforge
