// The optimizer update ops of TensorFlow 1 (training_ops): ApplyGradientDescent, ApplyMomentum,
// ApplyAdam, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, ApplyAdadelta, ApplyFtrl(V2),
// ApplyProximalGradientDescent, ApplyProximalAdagrad, ApplyAdagradDA.
//
// Each updates a variable and its slot variables element by element, under the variables' locks
// (taken in address order, so two updates of overlapping variables cannot deadlock): in place
// where nothing else holds a variable's buffer, else into a fresh buffer installed as its value
// (fetched results may share a variable's buffer, and keep the value they were given).
#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>

#include "cpu/cpu_util.h"
#include "opforge/ops/training/apply_adadelta.h"
#include "opforge/ops/training/apply_adagrad.h"
#include "opforge/ops/training/apply_adagrad_da.h"
#include "opforge/ops/training/apply_adam.h"
#include "opforge/ops/training/apply_centered_rms_prop.h"
#include "opforge/ops/training/apply_ftrl.h"
#include "opforge/ops/training/apply_ftrl_v2.h"
#include "opforge/ops/training/apply_gradient_descent.h"
#include "opforge/ops/training/apply_momentum.h"
#include "opforge/ops/training/apply_proximal_adagrad.h"
#include "opforge/ops/training/apply_proximal_gradient_descent.h"
#include "opforge/ops/training/apply_rms_prop.h"

namespace opforge {
namespace {

// The value of a scalar hyperparameter input (TensorFlow requires rank 0).
template <typename T>
Status scalar_arg(KernelContext& ctx, const Tensor& t, const char* name, cpu::compute_t<T>* out) {
  if (t.shape().rank() != 0) {
    return ctx.error(name, " is not a scalar: ", t.shape().to_string());
  }
  *out = static_cast<cpu::compute_t<T>>(t.data<T>()[0]);
  return Status::OK();
}

// Runs update(x, g) for every element, where x holds the N variables' elements (the variable
// first, then its slots, in the op's input order) in the compute type and g the gradient's.
template <typename T, size_t N, typename Update>
Status apply_update(KernelContext& ctx, const Tensor& grad, Update update) {
  using C = cpu::compute_t<T>;
  std::array<Variable*, N> vars;
  for (size_t k = 0; k < N; ++k) {
    vars[k] = ctx.ref_input(static_cast<int>(k));
    if (vars[k] == nullptr) {
      return ctx.error("input ", k, " must be a variable (these ops update variables of a Session's graph)");
    }
  }
  std::array<Variable*, N> order = vars;
  std::sort(order.begin(), order.end());
  if (std::adjacent_find(order.begin(), order.end()) != order.end()) {
    return ctx.error("a variable and its slots must be different variables");
  }
  std::array<std::unique_lock<std::mutex>, N> locks;
  for (size_t k = 0; k < N; ++k) locks[k] = std::unique_lock<std::mutex>(order[k]->mu);
  for (Variable* v : vars) {
    if (!v->initialized) {
      return Status(Code::kFailedPrecondition, ctx.op().name + ": Attempting to use uninitialized value " + v->name);
    }
    if (v->value.shape() != grad.shape()) {
      return ctx.error("variable '", v->name, "' has shape ", v->value.shape().to_string(),
                       " but the gradient has shape ", grad.shape().to_string());
    }
  }
  // A variable whose buffer nothing else holds (no fetched result, no reader still running:
  // readers take their reference under the lock held here) and that the runtime allocated is
  // updated in place, as TensorFlow does; otherwise the values go to a fresh buffer, so what
  // others hold (a fetched result, a NumPy array a value was loaded from) keeps its value.
  std::array<Tensor, N> next;
  std::array<const T*, N> in;
  std::array<T*, N> out;
  for (size_t k = 0; k < N; ++k) {
    in[k] = vars[k]->value.template data<T>();
    if (cpu::writable_in_place(vars[k]->value)) {
      out[k] = const_cast<T*>(in[k]);
      continue;
    }
    OPF_RETURN_IF_ERROR(Tensor::Allocate(vars[k]->value.dtype(), vars[k]->value.shape(), &next[k]));
    out[k] = next[k].template data<T>();
  }
  const T* g = grad.data<T>();
  parallel_for(grad.num_elements(), cpu::kGrain, [&](int64_t b, int64_t e) {
    std::array<C, N> x;
    for (int64_t i = b; i < e; ++i) {
      for (size_t k = 0; k < N; ++k) x[k] = static_cast<C>(in[k][i]);
      update(x, static_cast<C>(g[i]));
      for (size_t k = 0; k < N; ++k) out[k][i] = static_cast<T>(x[k]);
    }
  });
  for (size_t k = 0; k < N; ++k) {
    if (next[k].initialized()) vars[k]->value = std::move(next[k]);
  }
  ctx.set_ref_output(0, vars[0]);
  return Status::OK();
}

#define OPF_SCALAR(args, name) \
  cpu::compute_t<T> name{};    \
  OPF_RETURN_IF_ERROR(scalar_arg<T>(args.ctx, args.name, #name, &name))

template <typename T>
Status ApplyGradientDescentCpu(ops::ApplyGradientDescentArgs& a) {
  OPF_SCALAR(a, alpha);
  return apply_update<T, 1>(a.ctx, a.delta, [=](auto& x, auto d) { x[0] -= alpha * d; });
}

template <typename T>
Status ApplyMomentumCpu(ops::ApplyMomentumArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, momentum);
  const bool nesterov = a.use_nesterov;
  return apply_update<T, 2>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] = x[1] * momentum + g;
    x[0] -= nesterov ? g * lr + x[1] * momentum * lr : x[1] * lr;
  });
}

template <typename T>
Status ApplyAdamCpu(ops::ApplyAdamArgs& a) {
  OPF_SCALAR(a, beta1_power);
  OPF_SCALAR(a, beta2_power);
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, beta1);
  OPF_SCALAR(a, beta2);
  OPF_SCALAR(a, epsilon);
  using C = cpu::compute_t<T>;
  const C one = 1;
  const C lr_t = lr * std::sqrt(one - beta2_power) / (one - beta1_power);
  const bool nesterov = a.use_nesterov;
  return apply_update<T, 3>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] += (g - x[1]) * (one - beta1);
    x[2] += (g * g - x[2]) * (one - beta2);
    const C m = nesterov ? g * (one - beta1) + beta1 * x[1] : x[1];
    x[0] -= m * lr_t / (std::sqrt(x[2]) + epsilon);
  });
}

template <typename T>
Status ApplyRMSPropCpu(ops::ApplyRMSPropArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, rho);
  OPF_SCALAR(a, momentum);
  OPF_SCALAR(a, epsilon);
  using C = cpu::compute_t<T>;
  return apply_update<T, 3>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] += (g * g - x[1]) * (C(1) - rho);
    x[2] = x[2] * momentum + lr * g / std::sqrt(x[1] + epsilon);
    x[0] -= x[2];
  });
}

template <typename T>
Status ApplyCenteredRMSPropCpu(ops::ApplyCenteredRMSPropArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, rho);
  OPF_SCALAR(a, momentum);
  OPF_SCALAR(a, epsilon);
  using C = cpu::compute_t<T>;
  return apply_update<T, 4>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] += (g - x[1]) * (C(1) - rho);
    x[2] += (g * g - x[2]) * (C(1) - rho);
    x[3] = x[3] * momentum + lr * g / std::sqrt(x[2] - x[1] * x[1] + epsilon);
    x[0] -= x[3];
  });
}

template <typename T>
Status ApplyAdagradCpu(ops::ApplyAdagradArgs& a) {
  OPF_SCALAR(a, lr);
  const bool update_slots = a.update_slots;
  return apply_update<T, 2>(a.ctx, a.grad, [=](auto& x, auto g) {
    if (update_slots) x[1] += g * g;
    x[0] -= lr * g / std::sqrt(x[1]);
  });
}

template <typename T>
Status ApplyAdadeltaCpu(ops::ApplyAdadeltaArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, rho);
  OPF_SCALAR(a, epsilon);
  using C = cpu::compute_t<T>;
  return apply_update<T, 3>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] = x[1] * rho + g * g * (C(1) - rho);
    const C update = std::sqrt(x[2] + epsilon) / std::sqrt(x[1] + epsilon) * g;
    x[2] = x[2] * rho + update * update * (C(1) - rho);
    x[0] -= update * lr;
  });
}

// FTRL-proximal (McMahan et al. 2013), as TensorFlow computes it. shrinkage is 0 for ApplyFtrl.
template <typename T, typename Args>
Status ftrl(Args& a, cpu::compute_t<T> shrinkage) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, l1);
  OPF_SCALAR(a, l2);
  OPF_SCALAR(a, lr_power);
  using C = cpu::compute_t<T>;
  if (!(lr > C(0))) return a.ctx.error("lr is not positive: ", static_cast<double>(lr));
  if (l1 < C(0)) return a.ctx.error("l1 regularization strength is negative: ", static_cast<double>(l1));
  if (l2 < C(0)) return a.ctx.error("l2 regularization strength is negative: ", static_cast<double>(l2));
  if (lr_power > C(0)) return a.ctx.error("lr_power is positive: ", static_cast<double>(lr_power));
  const bool by_lr = a.multiply_linear_by_lr;
  auto power = [=](C v) { return lr_power == C(-0.5) ? std::sqrt(v) : std::pow(v, -lr_power); };
  return apply_update<T, 3>(a.ctx, a.grad, [=](auto& x, auto g) {
    const C shrunk = g + C(2) * shrinkage * x[0];
    const C accum_new = x[1] + g * g;
    const C sigma = power(accum_new) - power(x[1]);
    if (by_lr) {
      x[2] += shrunk * lr - sigma * x[0];
    } else {
      x[2] += shrunk - sigma / lr * x[0];
    }
    const C l1_eff = by_lr ? l1 * lr : l1;
    const C quadratic = by_lr ? power(accum_new) + C(2) * l2 * lr : power(accum_new) / lr + C(2) * l2;
    const C clipped = std::max(-l1_eff, std::min(x[2], l1_eff));
    x[0] = std::abs(x[2]) > l1_eff ? (clipped - x[2]) / quadratic : C(0);
    x[1] = accum_new;
  });
}

template <typename T>
Status ApplyFtrlCpu(ops::ApplyFtrlArgs& a) {
  return ftrl<T>(a, cpu::compute_t<T>(0));
}

template <typename T>
Status ApplyFtrlV2Cpu(ops::ApplyFtrlV2Args& a) {
  OPF_SCALAR(a, l2_shrinkage);
  if (l2_shrinkage < cpu::compute_t<T>(0)) {
    return a.ctx.error("l2 shrinkage regularization strength is negative: ", static_cast<double>(l2_shrinkage));
  }
  return ftrl<T>(a, l2_shrinkage);
}

// FOBOS (Duchi & Singer 2009): a gradient step to prox, then the proximal step of the l1 and l2
// penalties at step size `rate`, as TensorFlow's ApplyProximal* kernels compute it.
template <typename C>
C proximal_step(C prox, C rate, C l1, C l2) {
  const C denom = C(1) + rate * l2;
  if (l1 > C(0)) {
    const C sign = prox > C(0) ? C(1) : (prox < C(0) ? C(-1) : C(0));
    return sign * std::max(std::abs(prox) - rate * l1, C(0)) / denom;
  }
  return prox / denom;
}

template <typename T>
Status ApplyProximalGradientDescentCpu(ops::ApplyProximalGradientDescentArgs& a) {
  OPF_SCALAR(a, alpha);
  OPF_SCALAR(a, l1);
  OPF_SCALAR(a, l2);
  return apply_update<T, 1>(a.ctx, a.delta,
                            [=](auto& x, auto d) { x[0] = proximal_step(x[0] - alpha * d, alpha, l1, l2); });
}

template <typename T>
Status ApplyProximalAdagradCpu(ops::ApplyProximalAdagradArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, l1);
  OPF_SCALAR(a, l2);
  using C = cpu::compute_t<T>;
  return apply_update<T, 2>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] += g * g;
    const C rate = lr / std::sqrt(x[1]);
    x[0] = proximal_step(x[0] - rate * g, rate, l1, l2);
  });
}

// Adagrad dual averaging (Duchi et al. 2011): var is recomputed from the accumulated gradients
// at step global_step.
template <typename T>
Status ApplyAdagradDACpu(ops::ApplyAdagradDAArgs& a) {
  OPF_SCALAR(a, lr);
  OPF_SCALAR(a, l1);
  OPF_SCALAR(a, l2);
  using C = cpu::compute_t<T>;
  if (a.global_step.shape().rank() != 0) {
    return a.ctx.error("global_step is not a scalar: ", a.global_step.shape().to_string());
  }
  const C step = static_cast<C>(a.global_step.template data<int64_t>()[0]);
  return apply_update<T, 3>(a.ctx, a.grad, [=](auto& x, auto g) {
    x[1] += g;
    x[2] += g * g;
    const C denom = step * l2 * lr + std::sqrt(x[2]);
    if (l1 > C(0)) {
      const C sign = x[1] > C(0) ? C(1) : (x[1] < C(0) ? C(-1) : C(0));
      x[0] = -lr * sign * std::max(std::abs(x[1]) - step * l1, C(0)) / denom;
    } else {
      x[0] = -lr * x[1] / denom;
    }
  });
}

#undef OPF_SCALAR
#define OPF_FLOATS bfloat16, half, float, double

}  // namespace

OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyGradientDescent, CPU, ApplyGradientDescentCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyMomentum, CPU, ApplyMomentumCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyAdam, CPU, ApplyAdamCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyRMSProp, CPU, ApplyRMSPropCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyCenteredRMSProp, CPU, ApplyCenteredRMSPropCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyAdagrad, CPU, ApplyAdagradCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyAdadelta, CPU, ApplyAdadeltaCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyFtrl, CPU, ApplyFtrlCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyFtrlV2, CPU, ApplyFtrlV2Cpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyProximalGradientDescent, CPU, ApplyProximalGradientDescentCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyProximalAdagrad, CPU, ApplyProximalAdagradCpu, OPF_FLOATS)
OPFORGE_REGISTER_FORWARDING_KERNEL(ApplyAdagradDA, CPU, ApplyAdagradDACpu, OPF_FLOATS)

}  // namespace opforge
