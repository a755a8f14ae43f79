// Remapping (RewriterConfig `remapping`): contraction + bias + activation into one fused op.
//
// Patterns, as TensorFlow's Grappler remapper writes them (same op names and attrs, so the
// result also runs in TensorFlow):
//
// * Conv2D / DepthwiseConv2dNative / MatMul -> BiasAdd (or Add/AddV2 of a constant 1-D vector,
//   one value per output channel) [-> activation]  =>  _FusedConv2D /
//   _FusedDepthwiseConv2dNative / _FusedMatMul with fused_ops ["BiasAdd"(, activation)];
// * Conv2D / DepthwiseConv2dNative -> FusedBatchNormV3 (is_training=false, only the first output
//   used) [-> activation]  =>  fused_ops ["FusedBatchNorm"(, activation)] with the four
//   statistics as args (reached when constant folding did not fold the batch norm into the
//   weights);
//
// with the activation one of Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, x * Sigmoid(x) (swish,
// spelled "_MklSwish" as TensorFlow's oneDNN remapper does) or x * Relu6(x + 3) / 6 (hard-swish,
// "_FusedHardSwish", TensorFlow's oneDNN name too: MobileNetV3). An intermediate is fused
// only when it has a single consumer and is not preserved (fetched, fed, a target); the fused
// node takes the name of the last node of the pattern.
//
// Before that, a zero Pad of the spatial dimensions feeding a convolution becomes the
// convolution's own padding (EXPLICIT, explicit_paddings): Keras writes ZeroPadding2D + a VALID
// convolution before every strided convolution of MobileNet, ResNet, NASNet..., and the Pad is
// a full pass over the (often largest) activation that the convolution can do for free, as
// TensorFlow's oneDNN remapper does with _MklPadWithConv2D (opforge's
// _FusedDepthwiseConv2dNative accepts EXPLICIT padding, which TensorFlow's does not). And a
// BiasAdd followed by an Add of a constant per-channel vector merges into one BiasAdd.
//
// After that, a batch norm that is not folded into a convolution followed by Relu becomes
// _FusedBatchNormEx (remapper_batch_norm.cc).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "optimizer/graph_view.h"
#include "optimizer/remapper.h"

namespace opforge {
namespace optimizer {
namespace {

int output_rank(const std::string& op);
bool absorbable(GraphView& v, int id);

const std::map<std::string, std::string> kFusedOp = {
    {"Conv2D", "_FusedConv2D"}, {"DepthwiseConv2dNative", "_FusedDepthwiseConv2dNative"}, {"MatMul", "_FusedMatMul"}};
const std::set<std::string> kActivations = {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"};

int contraction(GraphView& v, Input t) {
  if (t.node < 0 || t.index != 0) return -1;
  const VNode& c = v.at(t.node);
  if (!c.alive || !kFusedOp.count(c.op) || !v.has_single_data_consumer(t.node) || !is_real(c.type_attr("T"))) return -1;
  return t.node;
}

// The static shape of tensor t where shape inference gave one; null otherwise.
const Shape* static_shape(const GraphView& v, Input t) {
  if (t.node < 0 || t.index < 0) return nullptr;
  const std::vector<Shape>& shapes = v.at(t.node).shapes;
  return static_cast<size_t>(t.index) < shapes.size() ? &shapes[static_cast<size_t>(t.index)] : nullptr;
}

// For Add/AddV2: whether the bias is a vector with one value per output channel of c (so the Add
// is a BiasAdd). A constant is checked by value. A computed vector (a training graph's bias
// variable, read every step) qualifies by its static shape: rank 1, its length the known channel
// count of c's output, as TensorFlow's remapper fuses `conv + b` in training graphs.
bool channels_of_bias(GraphView& v, int c, Input bias) {
  if (v.at(c).op != "MatMul" && v.at(c).data_format() != "NHWC") return false;
  const Tensor* value = v.constant_value(bias);
  if (value == nullptr) {
    const Shape* b = static_shape(v, bias);
    const Shape* out = static_shape(v, Input{c, 0});
    if (b == nullptr || out == nullptr || b->unknown_rank() || out->unknown_rank() || b->rank() != 1) return false;
    if (out->rank() != output_rank(v.at(c).op) || b->dim(0) <= 0 || out->dim(out->rank() - 1) != b->dim(0))
      return false;
    return true;  // (the Add's operands have one dtype: c's T)
  }
  if (value->rank() != 1) return false;
  if (v.constant_value(v.at(c).data_inputs()[1]) != nullptr) {
    std::vector<double> unused;
    if (!per_channel(*value, v.at(c), contraction_channels(v, c), &unused)) return false;
  }
  return true;
}

struct Head {
  int c = -1;
  std::string kind;
  std::vector<Input> args;
  int reshape = -1;  // a Reshape between the MatMul and its bias (matmul_under_reshape)
};

// Keras's Dense over an input of rank > 2 (tf.tensordot): BiasAdd(Reshape(MatMul(x, w), [..., N]),
// b). The bias and activation fuse into the MatMul and the Reshape moves after them (fuse), where
// the Reshape keeps the product's N columns as its last dimension, so every value keeps its bias.
// ConvNeXt's and transformers' Dense layers are written this way.
bool matmul_under_reshape(GraphView& v, Input t, Input bias, Head* h) {
  if (t.node < 0 || t.index != 0 || v.at(t.node).op != "Reshape" || v.at(t.node).preserved || !absorbable(v, t.node))
    return false;
  const int c = contraction(v, v.at(t.node).data_inputs()[0]);
  if (c < 0 || v.at(c).op != "MatMul") return false;
  const Shape* out = static_shape(v, t);
  const Shape* prod = static_shape(v, Input{c, 0});
  if (out == nullptr || prod == nullptr || out->unknown_rank() || prod->unknown_rank() || out->rank() < 1 ||
      prod->rank() != 2)
    return false;
  const int64_t n = prod->dim(1);
  if (n <= 0 || out->dim(out->rank() - 1) != n) return false;
  const Tensor* value = v.constant_value(bias);
  const Shape* b = static_shape(v, bias);
  const bool bias_n = value != nullptr ? value->rank() == 1 && value->dim(0) == n
                                       : b != nullptr && !b->unknown_rank() && b->rank() == 1 && b->dim(0) == n;
  if (!bias_n) return false;
  *h = Head{c, "BiasAdd", {bias}, t.node};
  return true;
}

// The contraction, kind and args when nd is a BiasAdd / Add / FusedBatchNormV3 over a fusable
// contraction.
bool match_head(GraphView& v, int nd, Head* h) {
  const VNode& n = v.at(nd);
  const std::vector<Input> ins = n.data_inputs();
  if (n.op == "BiasAdd" && ins.size() == 2) {
    const int c = contraction(v, ins[0]);
    if (c >= 0 && (v.at(c).op == "MatMul" || v.at(c).data_format() == n.data_format())) {
      *h = Head{c, "BiasAdd", {ins[1]}};
      return true;
    }
    if (n.data_format() == "NHWC" && matmul_under_reshape(v, ins[0], ins[1], h)) return true;
  } else if ((n.op == "Add" || n.op == "AddV2") && ins.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const int c = contraction(v, ins[static_cast<size_t>(k)]);
      if (c >= 0 && channels_of_bias(v, c, ins[static_cast<size_t>(1 - k)])) {
        *h = Head{c, "BiasAdd", {ins[static_cast<size_t>(1 - k)]}};
        return true;
      }
      if (matmul_under_reshape(v, ins[static_cast<size_t>(k)], ins[static_cast<size_t>(1 - k)], h)) return true;
    }
  } else if (n.op == "FusedBatchNormV3" && !n.bool_attr("is_training") && !n.preserved && ins.size() == 5) {
    const int c = contraction(v, ins[0]);
    if (c < 0 || v.at(c).op == "MatMul" || v.at(c).data_format() != n.data_format()) return false;
    for (int cons : v.consumers(nd))
      for (const Input& in : v.at(cons).inputs)
        if (in.node == nd && in.index != 0) return false;
    if (n.type_attr("U") != v.at(c).type_attr("T")) return false;  // the fused op takes its args in T
    *h = Head{c, "FusedBatchNorm", {ins.begin() + 1, ins.end()}};
    return true;
  }
  return false;
}

// Whether t is a constant of one value equal to x (to float32 rounding) that broadcasts
// without adding dimensions to a tensor of rank `rank`.
bool is_scalar_const(GraphView& v, Input t, double x, int rank) {
  const Tensor* c = v.constant_value(t);
  std::vector<double> d;
  return c != nullptr && c->num_elements() == 1 && c->rank() <= rank && to_doubles(*c, &d) &&
         std::abs(d[0] - x) <= 1e-6 * std::abs(x);
}

// A node the activation's pattern takes in whole: its output used once, by the pattern's next
// node (which has_single_data_consumer checks), and nothing else to carry over.
bool absorbable(GraphView& v, int id) { return v.has_single_data_consumer(id) && v.at(id).control_inputs().empty(); }

// The one data input of binary node n other than `t`, when n reads t exactly once; else none.
bool other_operand(GraphView& v, int n, Input t, Input* other) {
  const std::vector<Input> ins = v.at(n).data_inputs();
  if (ins.size() != 2 || (ins[0] == t) == (ins[1] == t)) return false;
  *other = ins[0] == t ? ins[1] : ins[0];
  return true;
}

// Hard-swish of x = head's output, as TensorFlow's oneDNN remapper fuses it ("_FusedHardSwish"):
// Keras's x * hard_sigmoid(x), hard_sigmoid(x) = Relu6(x + 3) / 6 (or * (1/6), either operand
// order), or TensorFlow's own spelling (x * (1/6)) * Relu6(x + 3). head feeds exactly the Add and
// one Mul; every other node of the pattern is absorbable. *last is the pattern's final Mul.
bool match_hard_swish(GraphView& v, int head, int rank, int* last) {
  const std::vector<int> cons = v.consumers(head);
  if (cons.size() != 2 || v.has_control_consumer(head)) return false;
  const Input x{head, 0};
  const auto is = [&](int id, std::initializer_list<const char*> ops) {
    for (const char* op : ops)
      if (v.at(id).op == op) return true;
    return false;
  };
  for (int k = 0; k < 2; ++k) {
    const int add = cons[static_cast<size_t>(k)], mul = cons[static_cast<size_t>(1 - k)];
    Input three, other;
    if (!is(add, {"Add", "AddV2"}) || !is(mul, {"Mul"}) || !absorbable(v, add) || !other_operand(v, add, x, &three) ||
        !is_scalar_const(v, three, 3.0, rank))
      continue;
    const int relu6 = v.consumers(add)[0];
    if (!is(relu6, {"Relu6"}) || !absorbable(v, relu6)) continue;
    const Input r{relu6, 0};
    if (!other_operand(v, mul, x, &other)) continue;
    // x * gate, gate = Relu6(x + 3) / 6 or Relu6(x + 3) * (1/6)
    if (other.node == v.consumers(relu6)[0] && other.index == 0 && absorbable(v, other.node)) {
      const int gate = other.node;
      Input c;
      if (other_operand(v, gate, r, &c) &&
          ((is(gate, {"RealDiv"}) && v.at(gate).data_inputs()[0] == r && is_scalar_const(v, c, 6.0, rank)) ||
           (is(gate, {"Mul"}) && is_scalar_const(v, c, 1.0 / 6.0, rank)))) {
        *last = mul;
        return true;
      }
    }
    // (x * (1/6)) * Relu6(x + 3)
    if (is_scalar_const(v, other, 1.0 / 6.0, rank) && absorbable(v, mul)) {
      const int outer = v.consumers(mul)[0];
      Input rest;
      if (is(outer, {"Mul"}) && other_operand(v, outer, Input{mul, 0}, &rest) && rest == r &&
          v.consumers(relu6)[0] == outer) {
        *last = outer;
        return true;
      }
    }
  }
  return false;
}

// Swish of x = head's output: Mul(x, Sigmoid(x)), head feeding exactly the Sigmoid and the Mul.
bool match_swish(GraphView& v, int head, int* last) {
  const std::vector<int> cons = v.consumers(head);
  if (cons.size() != 2 || v.has_control_consumer(head)) return false;
  for (int k = 0; k < 2; ++k) {
    const int sig = cons[static_cast<size_t>(k)], mul = cons[static_cast<size_t>(1 - k)];
    Input other;
    if (v.at(sig).op == "Sigmoid" && v.at(mul).op == "Mul" && absorbable(v, sig) &&
        other_operand(v, mul, Input{head, 0}, &other) && other == Input{sig, 0}) {
      *last = mul;
      return true;
    }
  }
  return false;
}

// GELU of x = head's output, as TensorFlow's oneDNN remapper fuses it into _FusedMatMul:
//   exact, tf.nn.gelu's spelling (TensorFlow 2.21, Keras):  (0.5 * x) * Erfc(Neg(x) * 0.7071...)
//   exact, older TensorFlow's:         (0.5 * x) * (1 + Erf(x / 1.4142...))  (or x * 0.7071...)
//   approximate (tf.nn.gelu(approximate=True)):
//       (0.5 * x) * (1 + Tanh(0.7978... * (x + 0.044715 * Pow(x, 3))))
// with each constant a scalar and each Mul/Add in either operand order. head feeds the half Mul
// and the other branch's first node(s); every other node of the pattern is absorbable. *last is
// the final Mul; *exact says which GELU.
bool match_gelu(GraphView& v, int head, int rank, int* last, bool* exact) {
  const std::vector<int> cons = v.consumers(head);
  if (cons.size() < 2 || cons.size() > 3 || v.has_control_consumer(head)) return false;
  const Input x{head, 0};
  const auto op_is = [&](int id, const char* a, const char* b = nullptr) {
    return v.at(id).op == a || (b != nullptr && v.at(id).op == b);
  };
  // n is a binary op `op` of tensor t and a scalar constant c: true.
  const auto with_const = [&](int n, const char* op, Input t, double c) {
    Input k;
    return op_is(n, op) && other_operand(v, n, t, &k) && is_scalar_const(v, k, c, rank);
  };
  // The single consumer of n, when n is absorbable; else -1.
  const auto next = [&](int n) { return absorbable(v, n) ? v.consumers(n)[0] : -1; };
  for (int half : cons) {
    if (!with_const(half, "Mul", x, 0.5) || !absorbable(v, half)) continue;
    const int mul = v.consumers(half)[0];
    Input gate;
    if (!op_is(mul, "Mul") || !other_operand(v, mul, Input{half, 0}, &gate) || gate.index != 0) continue;
    std::vector<int> rest;  // head's other consumers
    for (int c : cons)
      if (c != half) rest.push_back(c);
    if (rest.size() == 1 && op_is(rest[0], "Neg")) {  // Erfc(Neg(x) * 0.7071)
      const int scaled = next(rest[0]);
      if (scaled < 0 || !with_const(scaled, "Mul", Input{rest[0], 0}, 0.70710678118654752440)) continue;
      const int erfc = next(scaled);
      if (erfc >= 0 && op_is(erfc, "Erfc") && erfc == gate.node && absorbable(v, erfc)) {
        *last = mul, *exact = true;
        return true;
      }
      continue;
    }
    if (rest.size() == 1) {  // 1 + Erf(x / 1.4142) or 1 + Erf(x * 0.7071)
      const int scaled = rest[0];
      if (!absorbable(v, scaled) || !((op_is(scaled, "RealDiv") && v.at(scaled).data_inputs()[0] == x &&
                                       with_const(scaled, "RealDiv", x, 1.41421356237309504880)) ||
                                      with_const(scaled, "Mul", x, 0.70710678118654752440)))
        continue;
      const int erf = next(scaled);
      if (erf < 0 || !op_is(erf, "Erf")) continue;
      const int one = next(erf);
      if (one >= 0 && (op_is(one, "Add") || op_is(one, "AddV2")) &&
          with_const(one, v.at(one).op.c_str(), Input{erf, 0}, 1.0) && one == gate.node && absorbable(v, one)) {
        *last = mul, *exact = true;
        return true;
      }
      continue;
    }
    // approximate: head feeds the half Mul, Pow(x, 3) and the inner Add
    if (rest.size() != 2) continue;
    for (int k = 0; k < 2; ++k) {
      const int pow = rest[static_cast<size_t>(k)], inner = rest[static_cast<size_t>(1 - k)];
      if (!with_const(pow, "Pow", x, 3.0) || v.at(pow).data_inputs()[0] != x) continue;
      const int cubic = next(pow);
      if (cubic < 0 || !with_const(cubic, "Mul", Input{pow, 0}, 0.044715) || next(cubic) != inner) continue;
      Input other;
      if (!(op_is(inner, "Add", "AddV2")) || !other_operand(v, inner, x, &other) || other != Input{cubic, 0}) continue;
      const int scaled = next(inner);
      if (scaled < 0 || !with_const(scaled, "Mul", Input{inner, 0}, 0.79788456080286535588)) continue;
      const int tanh = next(scaled);
      if (tanh < 0 || !op_is(tanh, "Tanh")) continue;
      const int one = next(tanh);
      if (one >= 0 && op_is(one, "Add", "AddV2") && with_const(one, v.at(one).op.c_str(), Input{tanh, 0}, 1.0) &&
          one == gate.node && absorbable(v, one)) {
        *last = mul, *exact = false;
        return true;
      }
    }
  }
  return false;
}

// The last node and activation name for the activation applied to head's output, if fusable
// (rank: that of the output).
bool match_activation(GraphView& v, int head, int rank, int* last, std::string* activation) {
  if (v.at(head).preserved) return false;
  const std::vector<int> cons = v.consumers(head);
  if (cons.size() == 1 && v.has_single_data_consumer(head) && kActivations.count(v.at(cons[0]).op)) {
    *last = cons[0];
    *activation = v.at(cons[0]).op;
    return true;
  }
  if (match_swish(v, head, last)) {
    *activation = "_MklSwish";
    return true;
  }
  if (match_hard_swish(v, head, rank, last)) {
    *activation = "_FusedHardSwish";
    return true;
  }
  bool exact = false;
  if (match_gelu(v, head, rank, last, &exact)) {
    *activation = exact ? "GeluExact" : "GeluApproximate";
    return true;
  }
  return false;
}

void fuse(GraphView& v, const Head& h, int head, int last, const std::string& activation) {
  const int fused = last >= 0 ? last : head;
  std::vector<Input> ctrl;
  for (int id : {h.c, h.reshape, head, last}) {
    if (id < 0) continue;
    for (const Input& in : v.at(id).control_inputs())
      if (std::find(ctrl.begin(), ctrl.end(), in) == ctrl.end()) ctrl.push_back(in);
  }
  const VNode& c = v.at(h.c);
  const DType t = c.type_attr("T");
  const std::string op = kFusedOp.at(c.op);
  std::vector<Input> inputs;
  const std::vector<Input> cins = c.data_inputs();
  inputs.push_back(cins.at(0));
  inputs.push_back(cins.at(1));
  for (const Input& a : h.args) inputs.push_back(a);
  for (const Input& in : ctrl) inputs.push_back(in);
  std::map<std::string, AttrValue> attrs;
  static const std::map<std::string, std::vector<std::string>> kKeep = {
      {"_FusedConv2D", {"strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"}},
      {"_FusedDepthwiseConv2dNative", {"strides", "padding", "explicit_paddings", "data_format", "dilations"}},
      {"_FusedMatMul", {"transpose_a", "transpose_b"}}};
  for (const std::string& k : kKeep.at(op))
    if (c.has_attr(k)) attrs[k] = c.attrs.at(k);
  attrs["T"].type = t;
  if (op == "_FusedConv2D") {
    attrs["TArgs"].list_type.assign(h.args.size(), t);
    attrs["num_host_args"].i = 0;
  }
  attrs["num_args"].i = static_cast<int64_t>(h.args.size());
  attrs["fused_ops"].list_s = {h.kind};
  if (!activation.empty()) attrs["fused_ops"].list_s.push_back(activation);
  const VNode& hn = v.at(head);
  attrs["epsilon"].f = h.kind == "FusedBatchNorm" && hn.has_attr("epsilon") ? hn.attrs.at("epsilon").f : 0.0f;
  attrs["leakyrelu_alpha"].f =
      activation == "LeakyRelu" && v.at(last).has_attr("alpha") ? v.at(last).attrs.at("alpha").f : 0.2f;
  if (h.reshape < 0) {
    v.rewrite(fused, op, std::move(inputs), std::move(attrs));
    return;
  }
  // The product takes the MatMul's place, and the pattern's last node becomes the Reshape of it.
  const VNode& r = v.at(h.reshape);
  std::vector<Input> reshape_inputs = {Input{h.c, 0}, r.data_inputs()[1]};
  std::map<std::string, AttrValue> reshape_attrs = r.attrs;
  v.rewrite(h.c, op, std::move(inputs), std::move(attrs));
  v.rewrite(fused, "Reshape", std::move(reshape_inputs), std::move(reshape_attrs));
}

// Ops whose output rank is fixed: 4 for images, 2 for matrices.
int output_rank(const std::string& op) {
  if (op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "_FusedConv2D" || op == "_FusedDepthwiseConv2dNative")
    return 4;
  if (op == "MatMul" || op == "_FusedMatMul") return 2;
  return 1;
}

// The rank of nd's output where known (inferred shapes, or a BiasAdd of a convolution or
// matmul, whose rank is fixed); else 1, which lets only a vector or scalar merge.
int rank_of(const GraphView& v, int nd, int bias_add) {
  const VNode& n = v.at(nd);
  if (!n.shapes.empty()) return std::max(n.shapes[0].rank(), 0);
  const int src = v.producer(bias_add, 0);
  return src >= 0 ? output_rank(v.at(src).op) : 1;
}

// BiasAdd(x, b) -> Add/AddV2 of a constant per-channel vector c becomes BiasAdd(x, b + c).
// A frozen Keras BatchNormalization after a biased convolution leaves exactly this once its
// scale is folded into the weights; merged, the contraction, its bias and the following
// activation fuse into one op instead of leaving an Add and the activation as two more passes
// over the output.
void merge_bias_adds(GraphView& v) {
  std::vector<int> merged;
  for (int nd : v.live()) {
    const VNode& n = v.at(nd);
    if ((n.op != "Add" && n.op != "AddV2") || n.preserved || !n.control_inputs().empty()) continue;
    const std::vector<Input> ins = n.data_inputs();
    if (ins.size() != 2) continue;
    for (int k = 0; k < 2; ++k) {
      const Input in = ins[static_cast<size_t>(k)];
      const VNode& ba = v.at(in.node);
      if (in.index != 0 || ba.op != "BiasAdd" || ba.data_format() != "NHWC" || !v.has_single_data_consumer(in.node))
        continue;
      const Tensor* b = v.constant_value(ba.data_inputs()[1]);
      const Tensor* c = v.constant_value(ins[static_cast<size_t>(1 - k)]);
      if (b == nullptr || c == nullptr || b->rank() != 1 || c->dtype() != b->dtype()) continue;
      const std::vector<int64_t>& cs = c->shape().dims();
      bool ok = c->num_elements() == 1;
      if (!ok && !cs.empty() && cs.back() == b->dim(0)) {
        ok = true;
        for (size_t d = 0; d + 1 < cs.size(); ++d) ok = ok && cs[d] == 1;
      }
      if (!ok || c->rank() > std::max(rank_of(v, nd, in.node), 1)) continue;  // c could add dimensions
      std::vector<double> bv, cv;
      if (!to_doubles(*b, &bv) || !to_doubles(*c, &cv)) continue;
      for (size_t i = 0; i < bv.size(); ++i) bv[i] += cv.size() == 1 ? cv[0] : cv[i];
      const Tensor merged_bias = from_doubles(bv, b->dtype(), b->shape());
      const std::string device = ba.device;
      const int bias_add = in.node;
      const int nb = v.make_const(v.unique_name(v.at(bias_add).name + "/merged_bias"), merged_bias, device);
      size_t j = 0;
      for (Input& bin : v.at(bias_add).inputs) {
        if (bin.control()) continue;
        if (j++ == 1) bin = Input{nb, 0};
      }
      v.changed();  // a hand edit of inputs
      v.redirect(nd, bias_add);
      merged.push_back(nd);
      break;
    }
  }
  v.remove(merged);
}

bool is_paddable(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "_FusedConv2D" || op == "_FusedDepthwiseConv2dNative";
}

// The Pad's [before, after] for height and width, when it pads only those with zeros.
bool spatial_pads(const GraphView& v, int pad, const std::string& data_format, std::vector<int64_t>* out) {
  const std::vector<Input> ins = v.at(pad).data_inputs();
  const Tensor* paddings = v.constant_value(ins[1]);
  std::vector<double> p;
  if (paddings == nullptr || paddings->shape() != Shape({4, 2}) || !to_doubles(*paddings, &p)) return false;
  for (double x : p)
    if (x < 0) return false;
  if (v.at(pad).op == "PadV2") {
    const Tensor* value = ins.size() > 2 ? v.constant_value(ins[2]) : nullptr;
    std::vector<double> z;
    if (value == nullptr || value->num_elements() != 1 || !to_doubles(*value, &z) || z[0] != 0) return false;
  }
  const int h = data_format == "NHWC" ? 1 : 2, w = h + 1;
  for (int d = 0; d < 4; ++d)
    if (d != h && d != w && (p[static_cast<size_t>(2 * d)] != 0 || p[static_cast<size_t>(2 * d + 1)] != 0))
      return false;
  *out = {static_cast<int64_t>(p[static_cast<size_t>(2 * h)]), static_cast<int64_t>(p[static_cast<size_t>(2 * h + 1)]),
          static_cast<int64_t>(p[static_cast<size_t>(2 * w)]), static_cast<int64_t>(p[static_cast<size_t>(2 * w + 1)])};
  return true;
}

// The new explicit_paddings of convolution c when it reads pad's output as its input (and only
// there) and can absorb pad's zero padding of height and width.
bool paddable_by(const GraphView& v, int pad, int c, std::vector<int64_t>* out) {
  const VNode& n = v.at(c);
  if (!is_paddable(n.op) || !n.has_attr("padding")) return false;
  const std::string& padding = n.attrs.at("padding").s;
  if ((padding != "VALID" && padding != "EXPLICIT") || n.type_attr("T") != v.at(pad).type_attr("T")) return false;
  std::vector<Input> reads;
  for (const Input& in : n.inputs)
    if (in.node == pad) reads.push_back(in);
  if (reads.size() != 1 || n.inputs.empty() || !(n.inputs[0] == reads[0]) || reads[0].index != 0) return false;
  const std::string fmt = n.data_format();
  std::vector<int64_t> extra;
  if (!spatial_pads(v, pad, fmt, &extra)) return false;
  std::vector<int64_t> old(8, 0);
  if (padding == "EXPLICIT")
    old = n.has_attr("explicit_paddings") ? n.attrs.at("explicit_paddings").list_i : std::vector<int64_t>();
  if (old.size() != 8) return false;
  const size_t hoff = fmt == "NHWC" ? 2 : 4, woff = fmt == "NHWC" ? 4 : 6;  // H's and W's (before, after)
  old[hoff] += extra[0];
  old[hoff + 1] += extra[1];
  old[woff] += extra[2];
  old[woff + 1] += extra[3];
  *out = std::move(old);
  return true;
}

// Pad(x) -> VALID or EXPLICIT convolutions  =>  the convolutions over x with the padding added
// to their explicit_paddings (every reader of the Pad must be one: NASNet pads once for two
// depthwise convolutions).
void fold_pads(GraphView& v) {
  std::vector<int> folded;
  for (int pad : v.live()) {
    const VNode& p = v.at(pad);
    if ((p.op != "Pad" && p.op != "PadV2") || p.preserved || !p.control_inputs().empty() || p.num_data_inputs() < 2)
      continue;
    const std::vector<int> convs = v.consumers(pad);
    if (convs.empty()) continue;
    std::vector<std::vector<int64_t>> paddings(convs.size());
    bool all = true;
    for (size_t i = 0; i < convs.size() && all; ++i) all = paddable_by(v, pad, convs[i], &paddings[i]);
    if (!all) continue;
    const Input x = v.at(pad).data_inputs()[0];
    for (size_t i = 0; i < convs.size(); ++i) {
      v.at(convs[i]).inputs[0] = x;
      v.set_attr(convs[i], "padding", AttrValue::String("EXPLICIT"));
      v.set_attr(convs[i], "explicit_paddings", AttrValue::ListInt(paddings[i]));
    }
    v.changed();
    folded.push_back(pad);
  }
  v.remove(folded);
}

}  // namespace

void remapping(GraphView& v) {
  fold_pads(v);
  merge_bias_adds(v);
  bool again = true;
  while (again) {
    again = false;
    for (int nd : v.live()) {
      const VNode& n = v.at(nd);
      if (!n.alive || (n.op != "BiasAdd" && n.op != "Add" && n.op != "AddV2" && n.op != "FusedBatchNormV3")) continue;
      Head h;
      if (!match_head(v, nd, &h)) continue;
      int last = -1;
      std::string activation;
      const int rank = h.reshape >= 0 ? static_shape(v, Input{h.reshape, 0})->rank() : output_rank(v.at(h.c).op);
      if (!match_activation(v, nd, rank, &last, &activation)) last = -1, activation.clear();
      fuse(v, h, nd, last, activation);
      v.prune_dead();
      again = true;
    }
  }
  v.rewrite_to_fixpoint([&](int id) { return fuse_batch_norm_relu(v, id); });
  v.prune_dead();
}

}  // namespace optimizer
}  // namespace opforge
