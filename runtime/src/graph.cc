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

// An attr of node n by name (nullptr when the op has none of that name).
const AttrValue* attr_of(const Node& n, const char* name) {
  for (size_t i = 0; i < n.op->attrs.size(); ++i) {
    if (n.op->attrs[i].name == name) return &n.attrs[i];
  }
  return nullptr;
}

// What graph construction knows of an integer tensor's value: elements (-1 unknown) of a
// vector, or one element for a scalar; `known` false when not even its length is known.
// TensorFlow's shape inference carries the same through shape arithmetic
// (InferenceContext::MakeShapeFromShapeTensor, tensor_util.constant_value_as_shape).
struct PartialInts {
  bool known = false, scalar = false;
  std::vector<int64_t> v;
};

PartialInts partial_ints(const std::vector<Node>& nodes, const TensorRef& r, int depth) {
  PartialInts out;
  if (depth > 12 || r.node < 0 || r.node >= static_cast<int>(nodes.size())) return out;
  const Node& n = nodes[static_cast<size_t>(r.node)];
  const DType dt = n.out_dtypes[static_cast<size_t>(r.index)];
  if (dt != DType::kInt32 && dt != DType::kInt64) return out;
  const std::string& op = n.op->name;
  const auto input = [&](size_t k) { return partial_ints(nodes, n.inputs[k], depth + 1); };
  if (op == "Const") {
    const Tensor* t = const_value(n);
    if (t == nullptr || t->rank() > 1) return out;
    out.scalar = t->rank() == 0;
    if (!read_int_vector(*t, &out.v).ok()) return PartialInts();
    out.known = true;
  } else if (op == "Shape") {
    const Shape& x = nodes[static_cast<size_t>(n.inputs[0].node)].out_shapes[static_cast<size_t>(n.inputs[0].index)];
    if (x.unknown_rank()) return out;
    out.known = true;
    out.v = x.dims();
  } else if (op == "Size" || op == "Rank") {  // a scalar: known when x's shape (rank) is
    const Shape& x = nodes[static_cast<size_t>(n.inputs[0].node)].out_shapes[static_cast<size_t>(n.inputs[0].index)];
    out.known = out.scalar = true;
    out.v = {op == "Rank" ? (x.unknown_rank() ? -1 : x.rank()) : x.num_elements()};
  } else if (op == "Identity" || op == "Cast" || op == "StopGradient" || op == "Snapshot") {
    return input(0);
  } else if (op == "Reshape" || op == "ExpandDims" || op == "Squeeze") {
    // A scalar made a one-element vector (reshape(n, [1])) or back: the same elements.
    PartialInts in = input(0);
    const Shape& s = n.out_shapes[static_cast<size_t>(r.index)];
    if (!in.known || s.unknown_rank() || s.rank() > 1 || (s.rank() == 0 && in.v.size() != 1)) return out;
    if (s.rank() == 1 && s.dim(0) >= 0 && s.dim(0) != static_cast<int64_t>(in.v.size())) return out;
    in.scalar = s.rank() == 0;
    return in;
  } else if (op == "Pack") {
    const AttrValue* axis = attr_of(n, "axis");
    if (axis != nullptr && axis->i != 0) return out;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const PartialInts e = input(k);
      const Shape& es = nodes[static_cast<size_t>(n.inputs[k].node)].out_shapes[static_cast<size_t>(n.inputs[k].index)];
      if (!es.unknown_rank() && es.rank() != 0) return out;  // packs vectors: not a shape vector
      out.v.push_back(e.known && e.scalar && e.v.size() == 1 ? e.v[0] : -1);
    }
    out.known = true;
  } else if (op == "ConcatV2") {
    const PartialInts axis = input(n.inputs.size() - 1);
    if (!axis.known || axis.v.size() != 1 || (axis.v[0] != 0 && axis.v[0] != -1)) return out;
    for (size_t k = 0; k + 1 < n.inputs.size(); ++k) {
      const PartialInts e = input(k);
      if (e.known && !e.scalar) {
        out.v.insert(out.v.end(), e.v.begin(), e.v.end());
        continue;
      }
      // A piece whose values are not known but whose length is: that many unknown dims (as
      // TensorFlow's shape inference reads tf.tensordot's [free dims of x..., N]).
      const Shape& es = nodes[static_cast<size_t>(n.inputs[k].node)].out_shapes[static_cast<size_t>(n.inputs[k].index)];
      if (e.known || es.unknown_rank() || es.rank() != 1 || es.dim(0) < 0) return PartialInts();
      out.v.insert(out.v.end(), static_cast<size_t>(es.dim(0)), -1);
    }
    out.known = true;
  } else if (op == "GatherV2") {
    // Elements of a partially known vector at constant indices (tf.tensordot's free dims of x).
    const PartialInts params = input(0), idx = input(1), axis = input(2);
    if (!params.known || params.scalar || !idx.known || !axis.known || axis.v.size() != 1 || axis.v[0] != 0) return out;
    const AttrValue* batch_dims = attr_of(n, "batch_dims");
    if (batch_dims != nullptr && batch_dims->i != 0) return out;
    for (int64_t i : idx.v) {
      if (i < 0 || i >= static_cast<int64_t>(params.v.size())) return PartialInts();
      out.v.push_back(params.v[static_cast<size_t>(i)]);
    }
    out.known = true;
    out.scalar = idx.scalar;
  } else if (op == "StridedSlice") {
    // A slice of a known-length vector by constant begin/end/strides (stride 1 or a single
    // element with shrink_axis_mask), as x.shape[i] and x.shape[a:b] build them.
    const PartialInts in = input(0), b = input(1), e = input(2), st = input(3);
    if (!in.known || in.scalar || !b.known || !e.known || !st.known || b.v.size() != 1 || e.v.size() != 1 ||
        st.v.size() != 1) {
      return out;
    }
    const auto mask = [&](const char* name) {
      const AttrValue* a = attr_of(n, name);
      return a == nullptr ? int64_t{0} : a->i;
    };
    if (mask("ellipsis_mask") != 0 || mask("new_axis_mask") != 0) return out;
    const int64_t len = static_cast<int64_t>(in.v.size());
    const auto clamp_index = [&](int64_t i) { return i < 0 ? i + len : i; };
    if (mask("shrink_axis_mask") & 1) {
      const int64_t i = clamp_index(b.v[0]);
      if (i < 0 || i >= len) return out;
      out.known = out.scalar = true;
      out.v = {in.v[static_cast<size_t>(i)]};
      return out;
    }
    if (st.v[0] != 1) return out;
    int64_t lo = (mask("begin_mask") & 1) ? 0 : clamp_index(b.v[0]);
    int64_t hi = (mask("end_mask") & 1) ? len : clamp_index(e.v[0]);
    lo = std::min(std::max<int64_t>(lo, 0), len);
    hi = std::min(std::max<int64_t>(hi, lo), len);
    out.known = true;
    out.v.assign(in.v.begin() + lo, in.v.begin() + hi);
  }
  return out;
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
  // Partially known values of integer vector inputs (shape tensors built from Shape(x)).
  std::vector<Shape> partial(inputs.size(), Shape::UnknownRank());
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (values[k] != nullptr) continue;
    const PartialInts p = partial_ints(nodes_, inputs[k], 0);
    if (!p.known || p.scalar) continue;
    std::vector<int64_t> dims = p.v;
    for (int64_t& d : dims) d = d < 0 ? -1 : d;  // (a -1 in a reshape's shape: not known either)
    partial[k] = Shape(std::move(dims));
  }
  ShapeContext sc(op, shapes, values, n.attrs, ranges);
  sc.set_partial_values(&partial);
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
