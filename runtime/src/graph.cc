// Graph construction: attr inference and shape inference per node, edits of a loop's back
// edges and shape invariants. (The Session that runs graphs: session.cc, session_plan.cc,
// concurrent_executor.cc, node_exec.cc; control_flow_*.cc for graphs with control flow.)
#include "opforge/graph.h"

#include "executor.h"
#include "opforge/op_check.h"

namespace opforge {
namespace {

// The value of a Const node's output, for shape functions that read input values.
const Tensor* const_value(const Node& n) {
  if (n.op->name != "Const") return nullptr;
  for (size_t i = 0; i < n.op->attrs.size(); ++i) {
    if (n.op->attrs[i].name == "value" && n.attrs[i].tensor.initialized()) return &n.attrs[i].tensor;
  }
  return nullptr;
}

}  // namespace

int Graph::find(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void Graph::truncate(int n) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  while (num_nodes() > n && n >= 0) {
    by_name_.erase(nodes_.back().name);
    nodes_.pop_back();
  }
}

Status Graph::update_input(int id, int index, TensorRef src) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (id < 0 || id >= num_nodes()) return errors::InvalidArgument("update_input: no node ", id);
  Node& n = nodes_[static_cast<size_t>(id)];
  if (index < 0 || index >= static_cast<int>(n.inputs.size())) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": has no input ", index), n.name);
  }
  if (src.node < 0 || src.node >= num_nodes() || src.index < 0 ||
      src.index >= static_cast<int>(nodes_[static_cast<size_t>(src.node)].out_dtypes.size())) {
    return exec::at_node(
        errors::InvalidArgument(n.op->name, ": new input ", index, " refers to a tensor that does not exist"), n.name);
  }
  const Node& s = nodes_[static_cast<size_t>(src.node)];
  const DType want = nodes_[static_cast<size_t>(n.inputs[static_cast<size_t>(index)].node)]
                         .out_dtypes[static_cast<size_t>(n.inputs[static_cast<size_t>(index)].index)];
  const DType got = s.out_dtypes[static_cast<size_t>(src.index)];
  if (got != want) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": input ", index, " must stay ", dtype_name(want),
                                                 ", got '", s.name, ":", src.index, "' of dtype ", dtype_name(got)),
                         n.name);
  }
  n.inputs[static_cast<size_t>(index)] = src;
  if (n.op->name == "Merge") n.out_shapes[0] = n.out_shapes[0].relaxed(s.out_shapes[static_cast<size_t>(src.index)]);
  ++edits_;
  return Status::OK();
}

Status Graph::set_output_shape(int id, int index, const Shape& shape) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (id < 0 || id >= num_nodes()) return errors::InvalidArgument("set_output_shape: no node ", id);
  Node& n = nodes_[static_cast<size_t>(id)];
  if (index < 0 || index >= static_cast<int>(n.out_shapes.size())) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": has no output ", index), n.name);
  }
  if (!shape.is_compatible_with(n.out_shapes[static_cast<size_t>(index)])) {
    return exec::at_node(errors::InvalidArgument(n.op->name, ": output ", index, " has shape ",
                                                 n.out_shapes[static_cast<size_t>(index)].to_string(),
                                                 ", which is not compatible with ", shape.to_string()),
                         n.name);
  }
  n.out_shapes[static_cast<size_t>(index)] = shape;
  return Status::OK();
}

Status Graph::add_node(const std::string& name, const OpSpec& op, std::vector<TensorRef> inputs,
                       std::vector<std::pair<int, int>> ranges, std::vector<AttrValue> given,
                       std::vector<bool> has_given, std::vector<int> control_inputs, const std::string& device,
                       int* id) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (name.empty()) return errors::InvalidArgument(op.name, ": node name must not be empty");
  if (by_name_.count(name)) {
    return errors::InvalidArgument(op.name, ": duplicate node name '", name, "'");
  }
  std::vector<DType> dtypes;
  std::vector<const Shape*> shapes;
  std::vector<const Tensor*> values;
  for (size_t a = 0; a < ranges.size() && a < op.inputs.size(); ++a) {
    for (int k = ranges[a].first; k < ranges[a].second; ++k) {
      const TensorRef& r = inputs[static_cast<size_t>(k)];
      if (r.node < 0 || r.node >= num_nodes()) {
        return exec::at_node(
            errors::InvalidArgument(op.name, ": input '", op.inputs[a].name, "' refers to a node that does not exist"),
            name);
      }
      const Node& src = nodes_[static_cast<size_t>(r.node)];
      if (r.index < 0 || r.index >= static_cast<int>(src.out_dtypes.size())) {
        return exec::at_node(
            errors::InvalidArgument(op.name, ": input '", op.inputs[a].name, "' refers to output ", r.index,
                                    " of node '", src.name, "', which has ", src.out_dtypes.size(), " outputs"),
            name);
      }
      if (op.inputs[a].is_ref && !src.out_is_ref[static_cast<size_t>(r.index)]) {
        return exec::at_node(
            errors::InvalidArgument(op.name, ": input '", op.inputs[a].name, "' must be a variable reference, got '",
                                    src.name, ":", r.index, "'"),
            name);
      }
      dtypes.push_back(src.out_dtypes[static_cast<size_t>(r.index)]);
      shapes.push_back(&src.out_shapes[static_cast<size_t>(r.index)]);
      values.push_back(r.index == 0 ? const_value(src) : nullptr);
    }
  }
  for (int c : control_inputs) {
    if (c < 0 || c >= num_nodes()) {
      return exec::at_node(errors::InvalidArgument(op.name, ": control input refers to a node that does not exist"),
                           name);
    }
  }
  Node n;
  n.name = name;
  n.op = &op;
  n.device = device;
  given.resize(op.attrs.size());
  has_given.resize(op.attrs.size(), false);
  OPF_RETURN_IF_ERROR(exec::at_node(infer_attrs(op, dtypes, ranges, given, has_given), name));
  n.attrs = std::move(given);
  OPF_RETURN_IF_ERROR(exec::at_node(all_output_dtypes(op, n.attrs, &n.out_dtypes), name));
  for (const ArgSpec& arg : op.outputs) {
    int count = 1;
    if (arg.number_attr >= 0) count = static_cast<int>(n.attrs[arg.number_attr].i);
    if (arg.type_list_attr >= 0) count = static_cast<int>(n.attrs[arg.type_list_attr].list_type.size());
    int begin = static_cast<int>(n.out_is_ref.size());
    for (int k = 0; k < count; ++k) n.out_is_ref.push_back(arg.is_ref);
    n.out_ranges.emplace_back(begin, static_cast<int>(n.out_is_ref.size()));
  }
  ShapeContext sc(op, shapes, values, n.attrs, ranges);
  sc.resize_outputs(static_cast<int>(n.out_dtypes.size()));
  if (op.shape_fn) OPF_RETURN_IF_ERROR(exec::at_node(op.shape_fn(sc), name));
  n.out_shapes = sc.outputs();
  n.inputs = std::move(inputs);
  n.ranges = std::move(ranges);
  n.control_inputs = std::move(control_inputs);
  *id = num_nodes();
  by_name_[name] = *id;
  nodes_.push_back(std::move(n));
  return Status::OK();
}

}  // namespace opforge
