// The optimizer's mutable view of a graph (see graph_view.h).
#include "optimizer/graph_view.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>
#include <unordered_set>

#include "executor.h"

namespace opforge {
namespace optimizer {

const OpSpec* find_spec(const std::string& op) { return OpRegistry::Global().find(op); }

std::string tensor_name(const GraphView& v, Input t) {
  const std::string& n = v.at(t.node).name;
  if (t.index < 0) return "^" + n;
  return t.index == 0 ? n : n + ":" + std::to_string(t.index);
}

std::vector<Input> VNode::data_inputs() const {
  std::vector<Input> out;
  for (const Input& i : inputs)
    if (!i.control()) out.push_back(i);
  return out;
}

std::vector<Input> VNode::control_inputs() const {
  std::vector<Input> out;
  for (const Input& i : inputs)
    if (i.control()) out.push_back(i);
  return out;
}

size_t VNode::num_data_inputs() const {
  size_t k = 0;
  for (const Input& i : inputs) k += i.control() ? 0 : 1;
  return k;
}

const AttrValue& VNode::attr(const std::string& k) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) throw PassError("node '" + name + "' (" + op + ") has no attr '" + k + "'");
  return it->second;
}

GraphView::GraphView(const Graph& g, const std::vector<std::string>& preserve, const std::vector<std::string>& fed) {
  const int n = g.num_nodes();
  std::vector<char> needed(static_cast<size_t>(n), 0);
  std::vector<int> stack;
  // (By name without Graph::find: the caller may hold the graph's lock already.)
  const std::unordered_set<std::string> roots(preserve.begin(), preserve.end());
  for (int id = 0; id < n; ++id) {
    if (roots.count(g.node(id).name)) {
      needed[static_cast<size_t>(id)] = 1;
      stack.push_back(id);
    }
  }
  while (!stack.empty()) {
    const Node& node = g.node(stack.back());
    stack.pop_back();
    auto need = [&](int id) {
      if (!needed[static_cast<size_t>(id)]) {
        needed[static_cast<size_t>(id)] = 1;
        stack.push_back(id);
      }
    };
    for (const TensorRef& r : node.inputs) need(r.node);
    for (int c : node.control_inputs) need(c);
  }
  std::vector<int> view_id(static_cast<size_t>(n), -1);
  for (int id = 0; id < n; ++id) {
    if (!needed[static_cast<size_t>(id)]) continue;
    view_id[static_cast<size_t>(id)] = static_cast<int>(nodes_.size());
    const Node& node = g.node(id);
    VNode v;
    v.name = node.name;
    v.op = node.op->name;
    v.spec = node.op;
    v.device = node.device;
    v.source = id;
    for (size_t i = 0; i < node.op->attrs.size() && i < node.attrs.size(); ++i)
      v.attrs[node.op->attrs[i].name] = node.attrs[i];
    v.shapes = node.out_shapes;
    by_name_[v.name] = static_cast<int>(nodes_.size());
    nodes_.push_back(std::move(v));
  }
  for (VNode& v : nodes_) {
    const Node& node = g.node(v.source);
    for (const TensorRef& r : node.inputs) v.inputs.push_back(Input{view_id[static_cast<size_t>(r.node)], r.index});
    for (int c : node.control_inputs) v.inputs.push_back(Input{view_id[static_cast<size_t>(c)], -1});
  }
  for (const std::string& name : preserve) {
    const int id = find(name);
    if (id >= 0) at(id).preserved = true;
  }
  for (const std::string& name : fed) {
    const int id = find(name);
    if (id >= 0) at(id).preserved = at(id).fed = true;
  }
}

int GraphView::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

int GraphView::num_alive() const {
  int k = 0;
  for (const VNode& v : nodes_) k += v.alive ? 1 : 0;
  return k;
}

std::vector<int> GraphView::live() const {
  std::vector<int> out;
  out.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].alive) out.push_back(static_cast<int>(i));
  return out;
}

void GraphView::index_consumers() {
  consumers_.assign(nodes_.size(), {});
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i].alive) continue;
    for (const Input& in : nodes_[i].inputs) {
      std::vector<int>& c = consumers_[static_cast<size_t>(in.node)];
      if (c.empty() || c.back() != static_cast<int>(i)) {
        if (std::find(c.begin(), c.end(), static_cast<int>(i)) == c.end()) c.push_back(static_cast<int>(i));
      }
    }
  }
  consumers_valid_ = true;
}

void GraphView::unlink(int c) {
  if (!consumers_valid_) return;
  for (const Input& in : at(c).inputs) {
    std::vector<int>& list = consumers_[static_cast<size_t>(in.node)];
    auto it = std::lower_bound(list.begin(), list.end(), c);
    if (it != list.end() && *it == c) list.erase(it);
  }
}

void GraphView::link(int c) {
  if (!consumers_valid_ || !at(c).alive) return;
  for (const Input& in : at(c).inputs) {
    std::vector<int>& list = consumers_[static_cast<size_t>(in.node)];
    auto it = std::lower_bound(list.begin(), list.end(), c);  // lists stay sorted, as index_consumers makes them
    if (it == list.end() || *it != c) list.insert(it, c);
  }
}

const std::vector<int>& GraphView::consumers(int id) {
  if (!consumers_valid_ || consumers_.size() != nodes_.size()) index_consumers();
  return consumers_[static_cast<size_t>(id)];
}

bool GraphView::has_control_consumer(int id) {
  for (int c : consumers(id))
    for (const Input& in : at(c).inputs)
      if (in.node == id && in.control()) return true;
  return false;
}

bool GraphView::has_single_data_consumer(int id) {
  if (at(id).preserved) return false;
  int uses = 0;
  for (int c : consumers(id)) {
    for (const Input& in : at(c).inputs) {
      if (in.node != id) continue;
      if (in.control()) return false;
      ++uses;
    }
  }
  return uses == 1;
}

int GraphView::producer(int n, size_t i) const {
  size_t k = 0;
  for (const Input& in : at(n).inputs) {
    if (in.control()) continue;
    if (k++ == i) return in.node;
  }
  return -1;
}

bool GraphView::is_stateful(int id) const {
  const VNode& v = at(id);
  return v.spec == nullptr || v.spec->is_stateful;
}

const Shape* GraphView::recorded_shape(Input t) const {
  if (t.node < 0 || t.index < 0) return nullptr;
  const VNode& v = at(t.node);
  if (!v.alive || static_cast<size_t>(t.index) >= v.shapes.size()) return nullptr;
  const Shape& s = v.shapes[static_cast<size_t>(t.index)];
  return s.unknown_rank() ? nullptr : &s;
}

const Shape* GraphView::known_shape(Input t) const {
  const Shape* s = recorded_shape(t);
  return s != nullptr && s->fully_defined() ? s : nullptr;
}

bool GraphView::is_constant(int id) const {
  const VNode& v = at(id);
  return v.alive && v.op == "Const" && !v.fed;
}

const Tensor* GraphView::constant_value(Input t) const {
  if (t.index != 0 || t.node < 0 || !is_constant(t.node)) return nullptr;
  auto it = at(t.node).attrs.find("value");
  if (it == at(t.node).attrs.end() || !it->second.tensor.initialized()) return nullptr;
  return &it->second.tensor;
}

int GraphView::make_const(const std::string& name, const Tensor& value, const std::string& device) {
  if (find(name) >= 0) throw PassError("make_const: the name '" + name + "' is taken");
  VNode v;
  v.name = name;
  v.op = "Const";
  v.spec = find_spec("Const");
  v.device = device;
  v.attrs["value"].tensor = value;
  v.attrs["dtype"].type = value.dtype();
  v.shapes = {value.shape()};
  const int id = static_cast<int>(nodes_.size());
  by_name_[name] = id;
  nodes_.push_back(std::move(v));
  if (consumers_valid_) consumers_.emplace_back();
  return id;
}

std::string GraphView::unique_name(const std::string& base) const {
  std::string name = base;
  for (int i = 1; find(name) >= 0; ++i) name = base + "_" + std::to_string(i);
  return name;
}

void GraphView::replace_uses(Input from, Input to, int skip) {
  for (int c : std::vector<int>(consumers(from.node))) {
    if (c == skip) continue;
    unlink(c);
    for (Input& in : at(c).inputs)
      if (in == from) in = to;
    link(c);
  }
}

void GraphView::redirect(int from, int to) {
  for (int c : std::vector<int>(consumers(from))) {
    unlink(c);
    for (Input& in : at(c).inputs)
      if (in.node == from) in.node = to;
    // A consumer may now wait on `to` twice (control) or on itself: drop those.
    std::vector<Input>& ins = at(c).inputs;
    std::vector<Input> kept;
    for (const Input& in : ins) {
      if (in.control() && (in.node == c || std::find(kept.begin(), kept.end(), in) != kept.end())) continue;
      kept.push_back(in);
    }
    ins.swap(kept);
    link(c);
  }
}

void GraphView::forward_controls(int removed, int to_consumers_of) {
  const std::vector<Input> ctrls = at(removed).control_inputs();
  if (ctrls.empty()) return;
  for (int c : std::vector<int>(consumers(to_consumers_of))) {
    unlink(c);
    std::vector<Input>& ins = at(c).inputs;
    for (const Input& ctl : ctrls) {
      if (ctl.node != c && std::find(ins.begin(), ins.end(), ctl) == ins.end()) ins.push_back(ctl);
    }
    link(c);
  }
}

void GraphView::remove(const std::vector<int>& ids) {
  for (int id : ids) {
    VNode& v = at(id);
    if (!v.alive || v.preserved) continue;
    unlink(id);  // the index lists live consumers only
    v.alive = false;
    by_name_.erase(v.name);
  }
}

int GraphView::prune_dead() {
  std::vector<char> live_set(nodes_.size(), 0);
  std::vector<int> stack;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].alive && nodes_[i].preserved) {
      live_set[i] = 1;
      stack.push_back(static_cast<int>(i));
    }
  }
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    for (const Input& in : at(id).inputs) {
      if (in.node >= 0 && !live_set[static_cast<size_t>(in.node)] && at(in.node).alive) {
        live_set[static_cast<size_t>(in.node)] = 1;
        stack.push_back(in.node);
      }
    }
  }
  std::vector<int> dead;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].alive && !live_set[i]) dead.push_back(static_cast<int>(i));
  remove(dead);
  return static_cast<int>(dead.size());
}

void GraphView::rewrite(int id, const std::string& op, std::vector<Input> inputs,
                        std::map<std::string, AttrValue> attrs) {
  VNode& v = at(id);
  const OpSpec* spec = find_spec(op);
  if (spec == nullptr) throw PassError("op '" + op + "' is not registered (rewriting '" + v.name + "')");
  unlink(id);
  v.op = op;
  v.spec = spec;
  v.inputs = std::move(inputs);
  v.attrs = std::move(attrs);
  v.shapes.clear();
  v.edited = true;
  link(id);
}

void GraphView::set_attr(int id, const std::string& name, AttrValue value) {
  at(id).attrs[name] = std::move(value);
  at(id).edited = true;
}

bool GraphView::changed_from_source(const Graph& source) const {
  int alive = 0;
  for (const VNode& v : nodes_) {
    if (!v.alive) continue;
    ++alive;
    if (v.source < 0 || v.edited) return true;
    const Node& s = source.node(v.source);
    if (s.op->name != v.op || s.inputs.size() + s.control_inputs.size() != v.inputs.size()) return true;
    size_t k = 0;
    for (const TensorRef& r : s.inputs) {
      const Input& in = v.inputs[k++];
      if (in.control() || at(in.node).source != r.node || in.index != r.index) return true;
    }
    for (int c : s.control_inputs) {
      const Input& in = v.inputs[k++];
      if (!in.control() || at(in.node).source != c) return true;
    }
  }
  (void)alive;
  return false;
}

namespace {

bool is_back_edge(const VNode& consumer, const VNode& producer, const Input& in) {
  return !in.control() && consumer.op == "Merge" && producer.op == "NextIteration";
}

}  // namespace

Status GraphView::add_to(Graph& g, int id, std::vector<int>& new_id, std::vector<BackEdge>* back) const {
  const VNode& v = at(id);
  if (v.spec == nullptr)
    return exec::at_node(errors::NotFound("graph optimizer: op '", v.op, "' is not registered"), v.name);
  const OpSpec& op = *v.spec;
  std::vector<AttrValue> given(op.attrs.size());
  std::vector<bool> has(op.attrs.size(), false);
  for (const auto& [key, value] : v.attrs) {
    const int i = op.attr_index(key);
    if (i < 0) {
      if (!key.empty() && key[0] == '_') continue;
      return exec::at_node(errors::Internal("graph optimizer: unknown attr '", key, "' for op ", op.name), v.name);
    }
    given[static_cast<size_t>(i)] = value;
    has[static_cast<size_t>(i)] = true;
  }
  const std::vector<Input> data = v.data_inputs();
  std::vector<TensorRef> flat;
  std::vector<std::pair<int, int>> ranges;
  size_t pos = 0;
  for (const ArgSpec& arg : op.inputs) {
    size_t count = 1;
    if (arg.is_list()) {
      const int a = arg.number_attr >= 0 ? arg.number_attr : arg.type_list_attr;
      if (!has[static_cast<size_t>(a)]) {
        return exec::at_node(errors::Internal("graph optimizer: list input '", arg.name, "' lacks its length attr"),
                             v.name);
      }
      count = arg.number_attr >= 0 ? static_cast<size_t>(given[static_cast<size_t>(a)].i)
                                   : given[static_cast<size_t>(a)].list_type.size();
    }
    ranges.emplace_back(static_cast<int>(flat.size()), static_cast<int>(flat.size() + count));
    for (size_t k = 0; k < count; ++k, ++pos) {
      if (pos >= data.size()) {
        return exec::at_node(errors::Internal("graph optimizer: ", op.name, " lacks input '", arg.name, "'"), v.name);
      }
      flat.push_back(TensorRef{new_id[static_cast<size_t>(data[pos].node)], data[pos].index});
    }
  }
  if (pos != data.size()) {
    return exec::at_node(
        errors::Internal("graph optimizer: ", data.size(), " inputs for ", op.name, ", which takes ", pos), v.name);
  }
  // A back edge reads a node made later: another input of the Merge stands in for now.
  for (size_t k = 0; k < flat.size(); ++k) {
    if (flat[k].node >= 0) continue;
    auto stand_in = std::find_if(flat.begin(), flat.end(), [](const TensorRef& r) { return r.node >= 0; });
    if (back == nullptr || stand_in == flat.end()) {
      return exec::at_node(
          errors::Internal("graph optimizer: input '", tensor_name(*this, data[k]), "' is not built yet"), v.name);
    }
    back->push_back(BackEdge{id, static_cast<int>(k), data[k]});
    flat[k] = *stand_in;
  }
  std::vector<int> ctrl;
  for (const Input& in : v.inputs) {
    if (!in.control()) continue;
    if (new_id[static_cast<size_t>(in.node)] < 0) {
      return exec::at_node(errors::Internal("graph optimizer: control input '", at(in.node).name, "' is not built yet"),
                           v.name);
    }
    ctrl.push_back(new_id[static_cast<size_t>(in.node)]);
  }
  int nid = -1;
  OPF_RETURN_IF_ERROR(g.add_node(v.name, op, std::move(flat), std::move(ranges), std::move(given), std::move(has),
                                 std::move(ctrl), v.device, &nid));
  new_id[static_cast<size_t>(id)] = nid;
  return Status::OK();
}

Status GraphView::topological_order(std::vector<int>* out) const {
  // Inputs first (depth-first), leaving a loop's back edges out of the order.
  std::vector<int>& order = *out;
  order.clear();
  std::vector<char> state(nodes_.size(), 0);
  for (size_t root = 0; root < nodes_.size(); ++root) {
    if (!nodes_[root].alive || state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(root), 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const VNode& v = at(id);
      if (next == v.inputs.size()) {
        state[static_cast<size_t>(id)] = 2;
        order.push_back(id);
        stack.pop_back();
        continue;
      }
      const Input in = v.inputs[next++];
      if (in.node < 0 || !at(in.node).alive) {
        return exec::at_node(errors::Internal("graph optimizer: input refers to a removed node"), v.name);
      }
      if (is_back_edge(v, at(in.node), in)) continue;
      const char s = state[static_cast<size_t>(in.node)];
      if (s == 1) return exec::at_node(errors::Internal("graph optimizer: the rewritten graph has a cycle"), v.name);
      if (s == 0) {
        state[static_cast<size_t>(in.node)] = 1;
        stack.emplace_back(in.node, 0);
      }
    }
  }
  return Status::OK();
}

Status GraphView::build(std::shared_ptr<Graph>* out) const {
  auto g = std::make_shared<Graph>();
  std::vector<int> order;
  OPF_RETURN_IF_ERROR(topological_order(&order));
  std::vector<int> new_id(nodes_.size(), -1);
  std::vector<BackEdge> back;
  for (int id : order) OPF_RETURN_IF_ERROR(add_to(*g, id, new_id, &back));
  for (const BackEdge& b : back) {
    OPF_RETURN_IF_ERROR(g->update_input(new_id[static_cast<size_t>(b.consumer)], b.index,
                                        TensorRef{new_id[static_cast<size_t>(b.src.node)], b.src.index}));
  }
  *out = std::move(g);
  return Status::OK();
}

// ---- numeric helpers

bool is_real(DType dt) {
  return dt == DType::kFloat || dt == DType::kDouble || dt == DType::kBFloat16 || dt == DType::kHalf;
}

bool to_doubles(const Tensor& t, std::vector<double>* out) {
  if (!t.initialized() || !t.on_host() || t.dtype() == DType::kBool) return false;
  out->resize(static_cast<size_t>(t.num_elements()));
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out->size(); ++i) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        (*out)[i] = static_cast<double>(static_cast<float>(p[i]));
      } else {
        (*out)[i] = static_cast<double>(p[i]);
      }
    }
  });
}

Tensor from_doubles(const std::vector<double>& values, DType dtype, const Shape& shape) {
  Tensor t;
  Status s = Tensor::Allocate(dtype, shape, &t);
  if (!s.ok()) throw PassError(s.message());
  if (static_cast<size_t>(t.num_elements()) != values.size()) throw PassError("from_doubles: size mismatch");
  const bool ok = visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        p[i] = T(static_cast<float>(values[i]));
      } else {
        p[i] = static_cast<T>(values[i]);
      }
    }
  });
  if (!ok) throw PassError("from_doubles: unsupported dtype " + dtype_name(dtype));
  return t;
}

}  // namespace optimizer
}  // namespace opforge
