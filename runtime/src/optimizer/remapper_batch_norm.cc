// Remapping, continued: a batch norm that is not folded into a convolution -- a frozen Keras
// BatchNormalization after a concatenation or an addition, x * c1 + c2 with per-channel
// constants (DenseNet's and ResNetV2's pre-activations), or an inference FusedBatchNormV3 --
// followed by Relu becomes TensorFlow's _FusedBatchNormEx (activation_mode "Relu"): one pass
// over the tensor instead of three (x * c1 + c2 as a batch norm with mean 0, variance 1 and
// epsilon 0, which is exact).
#include "optimizer/remapper.h"

namespace opforge {
namespace optimizer {
namespace {

// The constant at t as float32 [channels] values, when it is one value per channel of mul's
// channels-last output ((C,) or (1, ..., 1, C): per_channel's rule, no scalar).
bool channel_vector(const GraphView& v, Input t, const VNode& mul, int64_t channels, std::vector<double>* out) {
  const Tensor* value = v.constant_value(t);
  if (value == nullptr || value->dtype() != DType::kFloat || value->rank() == 0 ||
      value->dim(value->rank() - 1) != channels) {
    return false;
  }
  return per_channel(*value, mul, channels, out);
}

Tensor float_vector(const std::vector<double>& values) {
  return from_doubles(values, DType::kFloat, Shape({static_cast<int64_t>(values.size())}));
}

}  // namespace

bool fuse_batch_norm_relu(GraphView& v, int relu) {
  {
    const VNode& r = v.at(relu);
    if (r.op != "Relu" || r.type_attr("T") != DType::kFloat || !r.control_inputs().empty() ||
        r.num_data_inputs() != 1) {
      return false;
    }
  }
  const Input head_in = v.at(relu).data_inputs()[0];
  const int head = head_in.node;
  if (head < 0 || !v.has_single_data_consumer(head) || !v.at(head).control_inputs().empty() || head_in.index != 0)
    return false;
  Input x, scale, offset, mean, var;
  float eps = 0.0f;
  std::string fmt = "NHWC";
  std::vector<int> removed{head};
  const std::string head_op = v.at(head).op;
  if (head_op == "FusedBatchNormV3") {
    const VNode& h = v.at(head);
    if (h.bool_attr("is_training") || h.type_attr("T") != DType::kFloat || h.type_attr("U") != DType::kFloat)
      return false;
    const std::vector<Input> ins = h.data_inputs();
    if (ins.size() != 5) return false;
    x = ins[0], scale = ins[1], offset = ins[2], mean = ins[3], var = ins[4];
    eps = h.has_attr("epsilon") ? h.attrs.at("epsilon").f : 1e-4f;
    fmt = h.data_format();
  } else if (head_op == "Add" || head_op == "AddV2") {
    const std::vector<Input> adds = v.at(head).data_inputs();
    if (adds.size() != 2) return false;
    int mul = -1, k = 0;
    for (; k < 2; ++k) {
      const Input a = adds[static_cast<size_t>(k)];
      const VNode& m = v.at(a.node);
      if (m.op == "Mul" && a.index == 0 && v.has_single_data_consumer(a.node) && m.control_inputs().empty() &&
          m.num_data_inputs() == 2) {
        mul = a.node;
        break;
      }
    }
    if (mul < 0) return false;
    const Input shift = adds[static_cast<size_t>(1 - k)];
    const std::vector<Input> mins = v.at(mul).data_inputs();
    std::vector<double> c1, c2;
    int64_t channels = 0;
    bool found = false;
    for (int j = 0; j < 2 && !found; ++j) {
      x = mins[static_cast<size_t>(j)];
      const Shape* dims = v.recorded_shape(x);
      const Shape* out = v.recorded_shape(Input{mul, 0});
      if (dims == nullptr || dims->rank() != 4 || dims->dim(3) <= 0 || out == nullptr || *out != *dims) continue;
      channels = dims->dim(3);
      found = channel_vector(v, mins[static_cast<size_t>(1 - j)], v.at(mul), channels, &c1) &&
              channel_vector(v, shift, v.at(mul), channels, &c2);
    }
    if (!found) return false;
    const std::string base = v.at(relu).name + "/batch_norm";
    const std::string device = v.at(relu).device;
    scale = Input{v.make_const(v.unique_name(base + "/scale"), float_vector(c1), device), 0};
    offset = Input{v.make_const(v.unique_name(base + "/offset"), float_vector(c2), device), 0};
    mean = Input{v.make_const(v.unique_name(base + "/mean"),
                              float_vector(std::vector<double>(static_cast<size_t>(channels), 0.0)), device),
                 0};
    var = Input{v.make_const(v.unique_name(base + "/variance"),
                             float_vector(std::vector<double>(static_cast<size_t>(channels), 1.0)), device),
                0};
    removed.push_back(mul);
  } else {
    return false;
  }
  std::map<std::string, AttrValue> attrs;
  attrs["T"].type = DType::kFloat;
  attrs["U"].type = DType::kFloat;
  attrs["epsilon"].f = eps;
  attrs["exponential_avg_factor"].f = 1.0f;
  attrs["num_side_inputs"].i = 0;
  attrs["activation_mode"].s = "Relu";
  attrs["data_format"].s = fmt;
  attrs["is_training"].b = false;
  v.rewrite(relu, "_FusedBatchNormEx", {x, scale, offset, mean, var}, std::move(attrs));
  v.remove(removed);
  return true;
}

}  // namespace optimizer
}  // namespace opforge
