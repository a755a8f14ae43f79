// The `fused_ops` attr of the fused contraction ops (_FusedConv2D, _FusedDepthwiseConv2dNative,
// _FusedMatMul), read once for the CPU and GPU kernels: TensorFlow's spelling [X] or [X, A],
// X a per-channel BiasAdd or inference FusedBatchNorm, A an activation.
#pragma once

#include <string>
#include <vector>

#include "opforge/kernel.h"
#include "opforge/status.h"

namespace opforge {
namespace nn {

// kHardSwish: x * Relu6(x + 3) / 6 (MobileNetV3's hard-swish, TensorFlow's "_FusedHardSwish").
// kGeluExact: x * (1 + erf(x / sqrt(2))) / 2; kGeluApproximate: the tanh form, x * (1 +
// tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2 (TensorFlow's "GeluExact" / "GeluApproximate").
enum class FusedAct {
  kNone,
  kRelu,
  kRelu6,
  kElu,
  kLeakyRelu,
  kSigmoid,
  kTanh,
  kSwish,
  kHardSwish,
  kGeluExact,
  kGeluApproximate
};

struct FusedOps {
  bool batch_norm = false;  // X: FusedBatchNorm (args scale, offset, mean, variance); else BiasAdd (args bias)
  int num_args = 1;         // X's extra inputs
  FusedAct act = FusedAct::kNone;
};

inline std::string join_fused_ops(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "]";
}

inline Status parse_fused_ops(const std::string& op, const std::vector<std::string>& fused_ops, FusedOps* out) {
  if (fused_ops.empty() || fused_ops.size() > 2) {
    return errors::Unimplemented(op,
                                 ": fused_ops must be [X] or [X, activation] with X BiasAdd or "
                                 "FusedBatchNorm, got ",
                                 join_fused_ops(fused_ops));
  }
  const std::string& x = fused_ops[0];
  if (x != "BiasAdd" && x != "FusedBatchNorm") {
    return errors::Unimplemented(op, ": unsupported fused op '", x, "' in fused_ops ", join_fused_ops(fused_ops),
                                 " (BiasAdd or FusedBatchNorm first)");
  }
  out->batch_norm = x == "FusedBatchNorm";
  out->num_args = out->batch_norm ? 4 : 1;
  out->act = FusedAct::kNone;
  if (fused_ops.size() == 2) {
    const std::string& a = fused_ops[1];
    if (a == "Relu")
      out->act = FusedAct::kRelu;
    else if (a == "Relu6")
      out->act = FusedAct::kRelu6;
    else if (a == "Elu")
      out->act = FusedAct::kElu;
    else if (a == "LeakyRelu")
      out->act = FusedAct::kLeakyRelu;
    else if (a == "Sigmoid")
      out->act = FusedAct::kSigmoid;
    else if (a == "Tanh")
      out->act = FusedAct::kTanh;
    else if (a == "_MklSwish" || a == "Swish")
      out->act = FusedAct::kSwish;
    else if (a == "_FusedHardSwish")
      out->act = FusedAct::kHardSwish;
    else if (a == "GeluExact")
      out->act = FusedAct::kGeluExact;
    else if (a == "GeluApproximate")
      out->act = FusedAct::kGeluApproximate;
    else {
      return errors::Unimplemented(
          op, ": unsupported activation '", a, "' in fused_ops ", join_fused_ops(fused_ops),
          " (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, _MklSwish, _FusedHardSwish, GeluExact, GeluApproximate)");
    }
  }
  return Status::OK();
}

// X's extra inputs: as many as X takes, each of dtype `dtype` and 1-D with one value per
// output channel.
inline Status check_fused_args(const std::string& op, const std::vector<std::string>& fused_ops, const FusedOps& f,
                               const TensorList& args, DType dtype, int64_t channels) {
  const std::string& x = fused_ops[0];
  if (args.size != f.num_args) {
    return errors::InvalidArgument(op, ": fused ", x, " takes ", f.num_args, " args, got ", args.size);
  }
  for (int i = 0; i < args.size; ++i) {
    const Tensor& t = args[i];
    if (t.dtype() != dtype) {
      return errors::InvalidArgument(op, ": arg ", i, " of ", x, " has dtype ", dtype_name(t.dtype()), ", expected ",
                                     dtype_name(dtype));
    }
    if (t.shape().rank() != 1 || t.dim(0) != channels) {
      return errors::InvalidArgument(op, ": arg ", i, " of ", x, " must be 1-D with ", channels,
                                     " values (one per output channel), got shape ", t.shape().to_string());
    }
  }
  return Status::OK();
}

}  // namespace nn
}  // namespace opforge
