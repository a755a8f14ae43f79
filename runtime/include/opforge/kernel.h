// Kernels: the per-device implementations of ops, registered per (op, device, dtype).
//
// A kernel receives the op's generated typed call struct (e.g. MatMulArgs, see
// generated/cpp/opforge/ops/*.h): inputs, attrs and outputs already validated, outputs already
// allocated with the shapes the shape function computed.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "opforge/device.h"
#include "opforge/op.h"
#include "opforge/resource.h"
#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {

// A view of the tensors of one list argument (N * T or a type list).
struct TensorList {
  const Tensor* const* data = nullptr;
  int size = 0;
  const Tensor& operator[](int i) const { return *data[i]; }
};

class KernelContext {
 public:
  // Inputs are borrowed: the caller keeps the tensors alive for the kernel's run.
  KernelContext(const OpSpec& op, const std::vector<const Tensor*>& inputs,
                const std::vector<std::pair<int, int>>& input_ranges, const std::vector<AttrValue>& attrs,
                std::vector<Tensor>& outputs, const std::vector<Shape>& output_shapes)
      : op_(op),
        inputs_(inputs),
        input_ranges_(input_ranges),
        attrs_(attrs),
        outputs_(outputs),
        output_shapes_(output_shapes) {}

  const OpSpec& op() const { return op_; }
  // The single tensor of input argument `arg`.
  const Tensor& input(int arg) const { return *inputs_[input_ranges_[arg].first]; }
  TensorList input_list(int arg) const {
    const auto& r = input_ranges_[arg];
    return TensorList{inputs_.data() + r.first, r.second - r.first};
  }
  const AttrValue& attr(int i) const { return attrs_[i]; }
  Tensor& output(int i) { return outputs_[i]; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // The shape the shape function computed for output i.
  const Shape& output_shape(int i) const { return output_shapes_[i]; }

  template <typename... Args>
  Status error(const Args&... args) const {
    return errors::InvalidArgument(op_.name, ": ", args...);
  }

  // The graph executor's environment (variables, node name); nullptr when running eagerly.
  // The device the kernel runs on (its outputs live there, except host-memory outputs).
  const DeviceSpec& device() const { return device_; }
  void set_device(const DeviceSpec& d) { device_ = d; }

  ExecEnv* env() const { return env_; }
  void set_env(ExecEnv* env) { env_ = env; }
  // The Variable behind Ref input argument `arg` (graph execution only).
  Variable* ref_input(int arg) const {
    return env_ ? env_->ref_inputs[static_cast<size_t>(input_ranges_[arg].first)] : nullptr;
  }
  void set_ref_output(int i, Variable* v) {
    if (env_) env_->ref_outputs[static_cast<size_t>(i)] = v;
  }

 private:
  ExecEnv* env_ = nullptr;
  DeviceSpec device_;
  const OpSpec& op_;
  const std::vector<const Tensor*>& inputs_;
  const std::vector<std::pair<int, int>>& input_ranges_;
  const std::vector<AttrValue>& attrs_;
  std::vector<Tensor>& outputs_;
  const std::vector<Shape>& output_shapes_;
};

using KernelFn = Status (*)(KernelContext&);

struct KernelDef {
  KernelFn fn = nullptr;
  // The kernel sets its outputs itself (e.g. Reshape aliases its input's buffer) instead of
  // receiving them allocated.
  bool forwards_input = false;
  // Bit i set: input (output) argument i stays in host memory although the kernel runs on
  // another device (shape-like arguments: Reshape's shape, reduction axes, Shape's output).
  uint64_t host_inputs = 0;
  uint64_t host_outputs = 0;
  // Bit i set: output 0 may take the buffer of input argument i when the graph executor owns
  // that input alone and never reads it again (same dtype and shape). Only for kernels that
  // read each element before writing the same position (elementwise maps).
  uint64_t inplace_inputs = 0;
};

// Bit masks over argument indices for KernelDef::host_inputs / host_outputs.
constexpr uint64_t host_args() { return 0; }
template <typename... Rest>
constexpr uint64_t host_args(int arg, Rest... rest) {
  return (uint64_t{1} << arg) | host_args(rest...);
}

// Bit mask over input argument indices for KernelDef::inplace_inputs.
template <typename... Args>
constexpr uint64_t inplace_args(Args... args) {
  return host_args(args...);
}

class KernelRegistry {
 public:
  static KernelRegistry& Global();

  void add(const std::string& op, Device device, DType dtype, KernelDef def);
  // nullptr if none; dtype kInvalid for ops without a dispatch attr.
  const KernelDef* find(const std::string& op, Device device, DType dtype) const;
  // find() for the CPU, memoized in the op's spec until the next registration.
  const KernelDef* find_cached(const OpSpec& op, DType dtype) const;
  // The same for any device.
  const KernelDef* find_cached(const OpSpec& op, Device device, DType dtype) const;
  // "CPU: float32, float64" for error messages and `opforge list`.
  std::string describe(const std::string& op) const;
  // The devices with at least one kernel for `op` ("CPU", "GPU").
  std::vector<Device> devices_for(const std::string& op) const;
  std::vector<std::pair<Device, DType>> kernels_for(const std::string& op) const;

 private:
  // add() may move list elements; it bumps generation_, which find_cached() checks before
  // trusting a memoized pointer.
  std::unordered_map<std::string, std::vector<std::pair<std::pair<Device, DType>, KernelDef>>> kernels_;
  uint64_t generation_ = 0;
  static constexpr char kMissing = 0;
};

const char* device_name(Device d);

// Registers Kernel::template run<T> for every T in Ts.
template <typename Kernel, typename... Ts>
struct KernelRegistrar {
  static bool reg(const char* op, Device device, bool forwards_input = false, uint64_t host_inputs = 0,
                  uint64_t host_outputs = 0, uint64_t inplace_inputs = 0) {
    (KernelRegistry::Global().add(
         op, device, DTypeOf<Ts>::value,
         KernelDef{&Kernel::template run<Ts>, forwards_input, host_inputs, host_outputs, inplace_inputs}),
     ...);
    return true;
  }
};

#define OPF_CAT_(a, b) a##b
#define OPF_CAT(a, b) OPF_CAT_(a, b)

// OPFORGE_REGISTER_KERNEL(MatMul, CPU, MatMulCpu, float, double) registers
// `template <typename T> Status MatMulCpu(MatMulArgs&)` for each listed dtype.
#define OPFORGE_REGISTER_KERNEL_IMPL(OP, DEVICE, FN, FORWARDS, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL_HM(OP, DEVICE, FN, FORWARDS, 0, 0, __VA_ARGS__)

#define OPFORGE_REGISTER_KERNEL_IMPL_HM(OP, DEVICE, FN, FORWARDS, HOST_IN, HOST_OUT, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL_FULL(OP, DEVICE, FN, FORWARDS, HOST_IN, HOST_OUT, 0, __VA_ARGS__)

// The general form: HOST_IN / HOST_OUT / INPLACE are ::opforge::host_args(...) masks of
// argument indices.
#define OPFORGE_REGISTER_KERNEL_IMPL_FULL(OP, DEVICE, FN, FORWARDS, HOST_IN, HOST_OUT, INPLACE, ...)                 \
  namespace {                                                                                                        \
  struct OPF_CAT(OpfKernel_, __LINE__) {                                                                             \
    template <typename T>                                                                                            \
    static ::opforge::Status run(::opforge::KernelContext& ctx) {                                                    \
      ::opforge::ops::OP##Args args(ctx);                                                                            \
      return FN<T>(args);                                                                                            \
    }                                                                                                                \
  };                                                                                                                 \
  [[maybe_unused]] const bool OPF_CAT(opf_kernel_registered_, __LINE__) =                                            \
      ::opforge::KernelRegistrar<OPF_CAT(OpfKernel_, __LINE__), __VA_ARGS__>::reg(#OP, ::opforge::Device::k##DEVICE, \
                                                                                  FORWARDS, HOST_IN, HOST_OUT,       \
                                                                                  INPLACE);                          \
  }

#define OPFORGE_REGISTER_KERNEL(OP, DEVICE, FN, ...) OPFORGE_REGISTER_KERNEL_IMPL(OP, DEVICE, FN, false, __VA_ARGS__)
// Elementwise kernels whose output 0 may reuse the buffer of the listed input arguments in a
// graph run (see KernelDef::inplace_inputs): OPFORGE_REGISTER_INPLACE_KERNEL(Relu, CPU,
// ReluCpu, inplace_args(0), float, double).
#define OPFORGE_REGISTER_INPLACE_KERNEL(OP, DEVICE, FN, INPLACE, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL_FULL(OP, DEVICE, FN, false, 0, 0, ::opforge::INPLACE, __VA_ARGS__)
// For kernels that set their outputs themselves (aliasing an input's buffer).
#define OPFORGE_REGISTER_FORWARDING_KERNEL(OP, DEVICE, FN, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL(OP, DEVICE, FN, true, __VA_ARGS__)

// Kernels with host-memory arguments, e.g. a GPU Reshape whose shape (input 1) stays on the host:
// OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Reshape, GPU, ReshapeGpu, host_args(1), host_args(), float)
#define OPFORGE_REGISTER_KERNEL_HOST_MEMORY(OP, DEVICE, FN, HOST_IN, HOST_OUT, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL_HM(OP, DEVICE, FN, false, ::opforge::HOST_IN, ::opforge::HOST_OUT, __VA_ARGS__)
#define OPFORGE_REGISTER_FORWARDING_KERNEL_HOST_MEMORY(OP, DEVICE, FN, HOST_IN, HOST_OUT, ...) \
  OPFORGE_REGISTER_KERNEL_IMPL_HM(OP, DEVICE, FN, true, ::opforge::HOST_IN, ::opforge::HOST_OUT, __VA_ARGS__)

// For ops without a type attr: `Status Fn(OpArgs&)`, registered once (FORWARDS: the kernel
// sets its outputs itself).
#define OPFORGE_REGISTER_UNTYPED_KERNEL_IMPL(OP, DEVICE, FN, FORWARDS)                                           \
  namespace {                                                                                                    \
  [[maybe_unused]] const bool OPF_CAT(opf_kernel_registered_, __LINE__) = [] {                                   \
    ::opforge::KernelDef def{[](::opforge::KernelContext& ctx) {                                                 \
      ::opforge::ops::OP##Args args(ctx);                                                                        \
      return FN(args);                                                                                           \
    }};                                                                                                          \
    def.forwards_input = FORWARDS;                                                                               \
    ::opforge::KernelRegistry::Global().add(#OP, ::opforge::Device::k##DEVICE, ::opforge::DType::kInvalid, def); \
    return true;                                                                                                 \
  }();                                                                                                           \
  }
#define OPFORGE_REGISTER_UNTYPED_KERNEL(OP, DEVICE, FN) OPFORGE_REGISTER_UNTYPED_KERNEL_IMPL(OP, DEVICE, FN, false)
#define OPFORGE_REGISTER_UNTYPED_FORWARDING_KERNEL(OP, DEVICE, FN) \
  OPFORGE_REGISTER_UNTYPED_KERNEL_IMPL(OP, DEVICE, FN, true)

}  // namespace opforge
