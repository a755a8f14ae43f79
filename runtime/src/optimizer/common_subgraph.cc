// Common subgraph elimination (RewriterConfig `common_subgraph_elimination`).
//
// Two nodes with the same op, device, attrs and inputs (in any order for commutative ops)
// compute the same values; the later one's consumers read the first one instead. Equal
// constants merge the same way. Stateful ops (variables, random ops, assignments) never merge,
// nor do nodes with a reference input, placeholders, NoOps, and preserved (fetched, fed, target)
// nodes: each fetched node keeps its identity.
#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {
namespace {

const std::set<std::string> kCommutative = {"Add",        "AddV2",     "Mul",   "Maximum", "Minimum",
                                            "LogicalAnd", "LogicalOr", "Equal", "NotEqual"};

template <typename T>
void put(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void put_shape(std::string& key, const Shape& s) {
  put(key, s.rank());
  for (int64_t d : s.dims()) put(key, d);
}

uint64_t hash_bytes(const void* data, size_t n) {  // FNV-1a
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// Appends the value of an attr (of its declared type) to key; false when it cannot be compared
// (a variant tensor).
bool put_attr(std::string& key, AttrType type, const AttrValue& a) {
  switch (type) {
    case AttrType::kInt:
      put(key, a.i);
      break;
    case AttrType::kFloat:
      put(key, a.f);
      break;
    case AttrType::kBool:
      put(key, a.b);
      break;
    case AttrType::kType:
      put(key, a.type);
      break;
    case AttrType::kString:
      put(key, a.s.size());
      key += a.s;
      break;
    case AttrType::kShape:
      put_shape(key, a.shape);
      break;
    case AttrType::kListInt:
      put(key, a.list_i.size());
      for (int64_t v : a.list_i) put(key, v);
      break;
    case AttrType::kListFloat:
      put(key, a.list_f.size());
      for (float v : a.list_f) put(key, v);
      break;
    case AttrType::kListBool:
      put(key, a.list_b.size());
      for (bool v : a.list_b) put(key, v);
      break;
    case AttrType::kListType:
      put(key, a.list_type.size());
      for (DType v : a.list_type) put(key, v);
      break;
    case AttrType::kListString:
      put(key, a.list_s.size());
      for (const std::string& v : a.list_s) {
        put(key, v.size());
        key += v;
      }
      break;
    case AttrType::kListShape:
      put(key, a.list_shape.size());
      for (const Shape& v : a.list_shape) put_shape(key, v);
      break;
    case AttrType::kTensor: {
      const Tensor& t = a.tensor;
      put(key, t.dtype());
      put_shape(key, t.shape());
      if (!t.initialized()) break;
      if (const auto* strs = t.strings()) {
        for (const std::string& v : *strs) {
          put(key, v.size());
          key += v;
        }
      } else if (t.dtype() == DType::kVariant || !t.on_host()) {
        return false;
      } else {
        put(key, hash_bytes(t.raw_data(), t.nbytes()));  // equal bytes are checked on a match
      }
      break;
    }
    default:
      return false;
  }
  return true;
}

bool same_tensor_attrs(const VNode& a, const VNode& b) {
  for (const auto& [k, va] : a.attrs) {
    const Tensor& x = va.tensor;
    if (!x.initialized() || x.strings() != nullptr) continue;
    const Tensor& y = b.attrs.at(k).tensor;
    if (x.nbytes() != y.nbytes() ||
        (x.raw_data() != y.raw_data() && std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) != 0))
      return false;
  }
  return true;
}

// The node's signature, or "" when it never merges.
std::string signature(const GraphView& v, int id) {
  const VNode& n = v.at(id);
  if (n.preserved || n.fed || v.is_stateful(id) || n.op == "Placeholder" || n.op == "PlaceholderWithDefault" ||
      n.op == "NoOp") {
    return "";
  }
  for (const ArgSpec& arg : n.spec->inputs)
    if (arg.is_ref) return "";
  std::vector<Input> data = n.data_inputs(), ctrl = n.control_inputs();
  auto by_name = [&](const Input& a, const Input& b) {
    const std::string& x = v.at(a.node).name;
    const std::string& y = v.at(b.node).name;
    return x != y ? x < y : a.index < b.index;
  };
  if (kCommutative.count(n.op)) std::sort(data.begin(), data.end(), by_name);
  std::sort(ctrl.begin(), ctrl.end(), by_name);
  std::string key = n.op;
  key += '\0';
  key += n.device;
  key += '\0';
  for (const Input& i : data) {
    put(key, i.node);
    put(key, i.index);
  }
  key += '|';
  for (const Input& i : ctrl) put(key, i.node);
  key += '|';
  for (const auto& [name, value] : n.attrs) {
    const int a = n.spec->attr_index(name);
    if (a < 0) continue;
    key += name;
    key += '=';
    if (!put_attr(key, n.spec->attrs[static_cast<size_t>(a)].type, value)) return "";
  }
  return key;
}

}  // namespace

void common_subgraph_elimination(GraphView& v) {
  bool again = true;
  while (again) {  // a merge can make the consumers of the two nodes equal in turn
    again = false;
    std::unordered_map<std::string, std::vector<int>> seen;
    std::vector<int> dead;
    for (int id : v.live()) {
      std::string sig = signature(v, id);
      if (sig.empty()) continue;
      std::vector<int>& reps = seen[sig];
      int rep = -1;
      for (int r : reps) {
        if (same_tensor_attrs(v.at(r), v.at(id))) {
          rep = r;
          break;
        }
      }
      if (rep < 0) {
        reps.push_back(id);
        continue;
      }
      v.redirect(id, rep);
      dead.push_back(id);
      again = true;
    }
    v.remove(dead);
  }
}

}  // namespace optimizer
}  // namespace opforge
