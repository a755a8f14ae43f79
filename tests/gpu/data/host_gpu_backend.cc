// A test double of a GPU backend whose "device memory" is host memory: it lets the tests run
// the runtime's device layer (placement, copies, host-memory arguments, the caching
// allocator, NotFound errors) on machines without a GPU. It registers a few GPU kernels that
// compute on the host pointers. Never shipped; built by tests/gpu/test_gpu_device_layer.py.
#include <cstdlib>
#include <cstring>
#include <string>

#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/ops/array_ops.h"
#include "opforge/ops/math_ops.h"

namespace {

using namespace opforge;

class HostGpu final : public GpuBackend {
 public:
  const char* name() const override { return "HOSTGPU"; }
  int device_count(std::string* why) override {
    const char* n = std::getenv("HOSTGPU_DEVICES");
    if (n && std::atoi(n) == 0) *why = "hostGetDeviceCount found no device";
    return n ? std::atoi(n) : 2;
  }
  std::string describe_device(int device) override { return "host-gpu-" + std::to_string(device); }
  Status raw_alloc(int device, size_t nbytes, void** out) override {
    if (nbytes > (size_t{1} << 36)) {
      return Status(Code::kResourceExhausted,
                    "HOSTGPU call hostMalloc(" + std::to_string(nbytes) + " bytes) failed: out of memory");
    }
    *out = std::malloc(nbytes);
    return Status::OK();
  }
  void raw_free(int, void* p) override { std::free(p); }
  Status copy_to_device(int, void* dst, const void* src, size_t n) override {
    std::memcpy(dst, src, n);
    ++copies;
    return Status::OK();
  }
  Status copy_to_host(int, void* dst, const void* src, size_t n) override {
    std::memcpy(dst, src, n);
    ++copies;
    return Status::OK();
  }
  Status copy_on_device(int, void* dst, const void* src, size_t n) override {
    std::memcpy(dst, src, n);
    return Status::OK();
  }
  Status synchronize(int) override { return Status::OK(); }
  std::vector<std::pair<std::string, std::string>> missing_kernel_notes() override {
    return {{"MatMul", "the host test backend has no GEMM"}};
  }
  int copies = 0;
};

template <typename T>
Status AddV2Host(ops::AddV2Args& a) {
  if (a.x.device() != Device::kGPU || a.y.device() != Device::kGPU || a.z.device() != Device::kGPU) {
    return a.ctx.error("host test backend: operands not in device memory");
  }
  if (a.x.shape() != a.y.shape()) return a.ctx.error("host test backend: no broadcasting");
  for (int64_t i = 0; i < a.z.num_elements(); ++i) a.z.data<T>()[i] = a.x.data<T>()[i] + a.y.data<T>()[i];
  return Status::OK();
}

template <typename T>
Status ReshapeHost(ops::ReshapeArgs& a) {
  if (a.shape.device() != Device::kCPU) return a.ctx.error("host test backend: shape not in host memory");
  a.output = a.tensor.reshaped(a.ctx.output_shape(0));
  return Status::OK();
}

template <typename T>
Status ShapeHost(ops::ShapeArgs& a) {
  if (a.output.device() != Device::kCPU) return a.ctx.error("host test backend: output not in host memory");
  for (int i = 0; i < a.input.rank(); ++i) {
    if (a.out_type == DType::kInt32)
      a.output.data<int32_t>()[i] = static_cast<int32_t>(a.input.dim(i));
    else
      a.output.data<int64_t>()[i] = a.input.dim(i);
  }
  return Status::OK();
}

template <typename T>
Status FillHost(ops::FillArgs& a) {
  if (a.dims.device() != Device::kCPU || a.value.device() != Device::kCPU) {
    return a.ctx.error("host test backend: dims and value not in host memory");
  }
  for (int64_t i = 0; i < a.output.num_elements(); ++i) a.output.data<T>()[i] = a.value.data<T>()[0];
  return Status::OK();
}

}  // namespace

namespace opforge {
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Fill, GPU, FillHost, host_args(0, 1), host_args(), float)
OPFORGE_REGISTER_KERNEL(AddV2, GPU, AddV2Host, float, int32_t)
OPFORGE_REGISTER_FORWARDING_KERNEL_HOST_MEMORY(Reshape, GPU, ReshapeHost, host_args(1), host_args(), float)
OPFORGE_REGISTER_KERNEL_HOST_MEMORY(Shape, GPU, ShapeHost, host_args(), host_args(0), float)
// A kernel keyed to an op that does not exist: the loader must drop it.
[[maybe_unused]] const bool no_such_op = [] {
  KernelRegistry::Global().add("NoSuchOpForTest", Device::kGPU, DType::kFloat,
                               KernelDef{[](KernelContext&) { return Status::OK(); }});
  return true;
}();
}  // namespace opforge

extern "C" opforge::GpuBackend* opforge_gpu_backend() { return new HostGpu(); }
