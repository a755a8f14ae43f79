// Folds inference batch normalization into the weights of the preceding contraction.
//
// Runs with `constant_folding` (TensorFlow's constant folding does the same push-down of a
// constant Mul into a Conv2D's filter). Patterns, with C a Conv2D, DepthwiseConv2dNative or
// MatMul whose filter/weights are a constant and whose output has no other consumer:
//
// * Mul(C, s) with s a constant per output channel (or scalar): C's weights become w * s.
//   Keras 3 freezes BatchNormalization into exactly this Mul followed by an Add; the Rsqrt etc.
//   on its constants are folded first.
// * Mul(BiasAdd(C, b), s): weights w * s, bias b * s.
// * Add/AddV2(C, b) and Sub(C, b) with b a constant per output channel: BiasAdd(C, +-b), which
//   remapping then fuses into the contraction.
// * FusedBatchNormV3(C, scale, offset, mean, variance) with is_training=false and only its first
//   output used: weights w * scale / sqrt(variance + epsilon), then a BiasAdd of
//   offset - mean * that factor.
//
// The node that ends a pattern keeps its name (it becomes the BiasAdd, or an Identity when it
// is preserved or the source of a control edge), so fetches and error messages still find it.
#include <cmath>

#include "optimizer/graph_view.h"

namespace opforge {
namespace optimizer {

bool per_channel(const Tensor& value, const VNode& c, int64_t channels, std::vector<double>* out) {
  if (channels <= 0) return false;
  std::vector<double> values;
  if (!to_doubles(value, &values)) return false;
  const std::vector<int64_t>& shape = value.shape().dims();
  if (value.num_elements() == 1 && value.rank() <= 1) {
    out->assign(static_cast<size_t>(channels), values[0]);
    return true;
  }
  const bool nchw = c.op != "MatMul" && c.data_format() == "NCHW";
  bool ok;
  if (nchw) {
    ok = shape == std::vector<int64_t>{channels, 1, 1} || shape == std::vector<int64_t>{1, channels, 1, 1};
  } else {
    const size_t rank = c.op == "MatMul" ? 2 : 4;
    ok = !shape.empty() && shape.size() <= rank && shape.back() == channels;
    for (size_t d = 0; ok && d + 1 < shape.size(); ++d) ok = shape[d] == 1;
  }
  if (!ok) return false;
  *out = std::move(values);
  return true;
}

int64_t contraction_channels(const GraphView& v, int c) {
  const VNode& n = v.at(c);
  if (n.num_data_inputs() < 2) return 0;
  const Tensor* w = v.constant_value(n.data_inputs()[1]);
  if (w == nullptr) return 0;
  if (n.op == "Conv2D" || n.op == "_FusedConv2D") return w->rank() == 4 ? w->dim(3) : 0;
  if (n.op == "DepthwiseConv2dNative" || n.op == "_FusedDepthwiseConv2dNative")
    return w->rank() == 4 ? w->dim(2) * w->dim(3) : 0;
  if (w->rank() != 2) return 0;
  return n.bool_attr("transpose_b") ? w->dim(0) : w->dim(1);
}

namespace {

bool is_contraction(const std::string& op) { return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MatMul"; }

// The contraction producing tensor t, when it may be rewritten; -1 otherwise.
int contraction(GraphView& v, Input t) {
  if (t.node < 0 || t.index != 0) return -1;
  const VNode& c = v.at(t.node);
  if (!c.alive || !is_contraction(c.op) || !is_real(c.type_attr("T")) || !v.has_single_data_consumer(t.node)) return -1;
  if (c.num_data_inputs() < 2 || v.constant_value(c.data_inputs()[1]) == nullptr) return -1;
  if (c.op == "MatMul" && !c.has_attr("transpose_b")) return -1;
  return t.node;
}

// Gives c new constant weights w * scale (per output channel).
void scale_weights(GraphView& v, int c, const std::vector<double>& scale) {
  const Input w_in = v.at(c).data_inputs()[1];
  const Tensor w = *v.constant_value(w_in);
  std::vector<double> wide;
  if (!to_doubles(w, &wide)) throw PassError("fold_batch_norm: weights of '" + v.at(c).name + "' are not numbers");
  const size_t n = scale.size();
  if (v.at(c).op == "MatMul" && v.at(c).bool_attr("transpose_b")) {
    const size_t cols = wide.size() / n;  // [channels, k]: scale rows
    for (size_t i = 0; i < wide.size(); ++i) wide[i] *= scale[i / cols];
  } else {  // the channels are the last dimension (Conv2D, MatMul) or the last two (depthwise)
    for (size_t i = 0; i < wide.size(); ++i) wide[i] *= scale[i % n];
  }
  const std::string device = v.at(w_in.node).device;
  const int nw =
      v.make_const(v.unique_name(v.at(c).name + "/folded_weights"), from_doubles(wide, w.dtype(), w.shape()), device);
  size_t k = 0;
  for (Input& in : v.at(c).inputs) {
    if (in.control()) continue;
    if (k++ == 1) in = Input{nw, 0};
  }
  v.set_attr(c, "T", v.at(c).attr("T"));  // marks c edited
  v.changed();
}

// Rewrites nd (keeping its name, device and control inputs) as BiasAdd(value_input, bias).
void become_bias_add(GraphView& v, int nd, Input value_input, const std::vector<double>& bias, int c, DType dtype) {
  const int b = v.make_const(v.unique_name(v.at(nd).name + "/folded_bias"),
                             from_doubles(bias, dtype, Shape({static_cast<int64_t>(bias.size())})), v.at(nd).device);
  std::vector<Input> inputs{value_input, Input{b, 0}};
  for (const Input& ctl : v.at(nd).control_inputs()) inputs.push_back(ctl);
  std::map<std::string, AttrValue> attrs;
  attrs["T"].type = v.at(nd).type_attr("T");
  attrs["data_format"].s = v.at(c).op != "MatMul" ? v.at(c).data_format() : "NHWC";
  v.rewrite(nd, "BiasAdd", std::move(inputs), std::move(attrs));
}

void become_identity(GraphView& v, int nd, Input value_input) {
  std::vector<Input> inputs{value_input};
  for (const Input& ctl : v.at(nd).control_inputs()) inputs.push_back(ctl);
  std::map<std::string, AttrValue> attrs;
  attrs["T"].type = v.at(nd).type_attr("T");
  v.rewrite(nd, "Identity", std::move(inputs), std::move(attrs));
}

bool fold_mul(GraphView& v, int nd) {
  const std::vector<Input> ins = v.at(nd).data_inputs();
  if (ins.size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    const Tensor* s = v.constant_value(ins[static_cast<size_t>(1 - k)]);
    if (s == nullptr) continue;
    const int src = ins[static_cast<size_t>(k)].node;
    int bias_add = -1, c = -1;
    const Tensor* b = nullptr;
    if (v.at(src).op == "BiasAdd" && v.has_single_data_consumer(src)) {
      bias_add = src;
      const std::vector<Input> bins = v.at(src).data_inputs();
      c = contraction(v, bins[0]);
      b = v.constant_value(bins[1]);
      if (c < 0 || b == nullptr) continue;
    } else {
      c = contraction(v, ins[static_cast<size_t>(k)]);
      if (c < 0) continue;
    }
    std::vector<double> scale;
    if (!per_channel(*s, v.at(c), contraction_channels(v, c), &scale)) continue;
    std::vector<double> bias;
    if (b != nullptr && (!to_doubles(*b, &bias) || bias.size() != scale.size())) continue;
    const DType b_dtype = b != nullptr ? b->dtype() : DType::kInvalid;
    scale_weights(v, c, scale);
    if (bias_add >= 0) {
      for (size_t i = 0; i < bias.size(); ++i) bias[i] *= scale[i];
      become_bias_add(v, nd, Input{c, 0}, bias, c, b_dtype);
      v.remove({bias_add});  // nd was its one reader: C has one reader again
    } else if (v.at(nd).preserved || v.has_control_consumer(nd)) {
      become_identity(v, nd, Input{c, 0});
    } else {
      v.forward_controls(nd, nd);
      v.replace_uses(Input{nd, 0}, Input{c, 0});
      v.remove({nd});
    }
    return true;
  }
  return false;
}

bool fold_add(GraphView& v, int nd) {
  const std::vector<Input> ins = v.at(nd).data_inputs();
  if (ins.size() != 2) return false;
  const bool sub = v.at(nd).op == "Sub";
  for (int k = 0; k < (sub ? 1 : 2); ++k) {
    const Tensor* b = v.constant_value(ins[static_cast<size_t>(1 - k)]);
    const int c = b != nullptr ? contraction(v, ins[static_cast<size_t>(k)]) : -1;
    if (c < 0) continue;
    std::vector<double> bias;
    if (!per_channel(*b, v.at(c), contraction_channels(v, c), &bias)) continue;
    if (sub)
      for (double& x : bias) x = -x;
    become_bias_add(v, nd, Input{c, 0}, bias, c, b->dtype());
    return true;
  }
  return false;
}

bool fold_fused_batch_norm(GraphView& v, int nd) {
  if (v.at(nd).bool_attr("is_training") || v.at(nd).preserved) return false;  // it may be fetched for its other outputs
  for (int cons : v.consumers(nd))
    for (const Input& in : v.at(cons).inputs)
      if (in.node == nd && in.index != 0) return false;  // the batch statistics outputs are used
  const std::vector<Input> ins = v.at(nd).data_inputs();
  if (ins.size() != 5) return false;
  const int c = contraction(v, ins[0]);
  if (c < 0 || v.at(c).op == "MatMul" || v.at(c).data_format() != v.at(nd).data_format()) return false;
  const int64_t channels = contraction_channels(v, c);
  std::vector<double> vals[4];
  for (int i = 0; i < 4; ++i) {
    const Tensor* t = v.constant_value(ins[static_cast<size_t>(i + 1)]);
    if (t == nullptr || !per_channel(*t, v.at(c), channels, &vals[i])) return false;
  }
  const double eps = v.at(nd).has_attr("epsilon") ? v.at(nd).attrs.at("epsilon").f : 1e-4;
  std::vector<double> factor(vals[0].size()), bias(vals[0].size());
  for (size_t i = 0; i < factor.size(); ++i) {
    factor[i] = vals[0][i] / std::sqrt(vals[3][i] + eps);
    bias[i] = vals[1][i] - vals[2][i] * factor[i];
  }
  scale_weights(v, c, factor);
  const DType w_dtype = v.constant_value(v.at(c).data_inputs()[1])->dtype();
  become_bias_add(v, nd, Input{c, 0}, bias, c, w_dtype);
  return true;
}

}  // namespace

void fold_batch_norm(GraphView& v) {
  v.rewrite_to_fixpoint([&](int id) {
    const std::string& op = v.at(id).op;
    if (op == "Mul") return fold_mul(v, id);
    if (op == "Add" || op == "AddV2" || op == "Sub") return fold_add(v, id);
    if (op == "FusedBatchNormV3") return fold_fused_batch_norm(v, id);
    return false;
  });
}

}  // namespace optimizer
}  // namespace opforge
