// The epilogue of the fused contraction ops on the GPU (_FusedConv2D, _FusedDepthwiseConv2dNative,
// _FusedMatMul) and BiasAdd: a per-channel BiasAdd or inference FusedBatchNorm, then an
// optional activation (common/fused_ops.h reads the attr). Its per-channel arguments stay on
// the device: the batch norm's scale is formed per element, (x - mean) * scale * rsqrt(var + eps)
// + offset, so no host round trip or extra kernel is needed to fold it.
#pragma once

#include <string>
#include <vector>

#include "common/fused_ops.h"
#include "gpu/gpu_util.h"

namespace opforge {
namespace gpu {

struct DevEpilogue {
  bool batch_norm = false;
  nn::FusedAct act = nn::FusedAct::kNone;
  const void* p[4] = {nullptr, nullptr, nullptr, nullptr};  // bias | scale, offset, mean, variance
  float eps = 0.f, alpha = 0.f;
  int64_t channels = 1;  // the channel of element i is (i / inner) % channels
  int64_t inner = 1;
};

// Reads fused_ops and checks args (dtype T, one value per output channel, on the device).
template <typename T>
Status make_epilogue(const std::string& op, const std::vector<std::string>& fused_ops, const TensorList& args,
                     int64_t channels, float eps, float alpha, DevEpilogue* ep) {
  nn::FusedOps f;
  OPF_RETURN_IF_ERROR(nn::parse_fused_ops(op, fused_ops, &f));
  OPF_RETURN_IF_ERROR(nn::check_fused_args(op, fused_ops, f, args, DTypeOf<T>::value, channels));
  ep->batch_norm = f.batch_norm;
  ep->act = f.act;
  for (int i = 0; i < args.size; ++i) ep->p[i] = args[i].raw_data();
  ep->eps = eps;
  ep->alpha = alpha;
  ep->channels = channels;
  return Status::OK();
}

template <class C>
__device__ inline C activate(nn::FusedAct act, C v, C alpha) {
  switch (act) {
    case nn::FusedAct::kNone:
      return v;
    case nn::FusedAct::kRelu:
      return v < C(0) ? C(0) : v;
    case nn::FusedAct::kRelu6:
      return v < C(0) ? C(0) : (v > C(6) ? C(6) : v);
    case nn::FusedAct::kElu:
      return v < C(0) ? C(expm1(v)) : v;
    case nn::FusedAct::kLeakyRelu:
      return v > C(0) ? v : C(alpha * v);
    case nn::FusedAct::kSigmoid:
      return C(1) / (C(1) + C(exp(-v)));
    case nn::FusedAct::kTanh:
      return C(tanh(v));
    case nn::FusedAct::kSwish:
      return v / (C(1) + C(exp(-v)));
    case nn::FusedAct::kHardSwish: {
      const C g = v + C(3);
      return v * ((g < C(0) ? C(0) : (g > C(6) ? C(6) : g)) * C(1.0 / 6.0));
    }
    case nn::FusedAct::kGeluExact:
      return C(0.5) * v * C(erfc(-v * C(0.70710678118654752440)));
    case nn::FusedAct::kGeluApproximate:
      return C(0.5) * v * (C(1) + C(tanh(C(0.79788456080286535588) * (v + C(0.044715) * v * v * v))));
  }
  return v;
}

// The epilogue of value v (compute type C) in channel c; D is the args' storage type.
template <class D, class C>
__device__ inline C epilogue_value(const DevEpilogue& e, C v, int64_t c) {
  using A = Acc<D>;
  const D* const* p = reinterpret_cast<const D* const*>(e.p);
  if (e.batch_norm) {
    const C scale = C(A::load(p[0][c])), offset = C(A::load(p[1][c])), mean = C(A::load(p[2][c]));
    const C var = C(A::load(p[3][c]));
    v = (v - mean) * (scale / C(sqrt(var + C(e.eps)))) + offset;
  } else {
    v = v + C(A::load(p[0][c]));
  }
  return activate<C>(e.act, v, C(e.alpha));
}

// y[i] = epilogue(x[i]) for i < n (y may be x).
template <typename T>
Status apply_epilogue(KernelContext& ctx, const DevEpilogue& ep, const void* x, void* y, int64_t n);

}  // namespace gpu
}  // namespace opforge
