// The GPU backend: devices, raw memory, copies and one stream per device, for the runtime's
// device layer (opforge/device.h). Built into libopforge_cuda.so by nvcc and into
// libopforge_hip.so by hipcc from this one source.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/gpu_util.h"
#include "opforge/device.h"

namespace opforge {
namespace gpu {

Status api_error(gpuError_t e, const std::string& call) {
  const std::string msg =
      errors::StrCat(OPF_GPU_API, " call ", call, " failed: ", gpuGetErrorString(e), " (", gpuGetErrorName(e), ")");
  switch (e) {
    case gpuErrorMemoryAllocation:
      return Status(Code::kResourceExhausted, msg);
    case gpuErrorNoDevice:
    case gpuErrorInsufficientDriver:
      return Status(Code::kUnavailable, msg);
    case gpuErrorInvalidValue:
      return Status(Code::kInvalidArgument, msg);
    default:
      return Status(Code::kInternal, msg);
  }
}

namespace {

struct DeviceState {
  std::once_flag once;
  Status init;
  gpuStream_t stream = nullptr;
  int sms = 1;
  std::string name;
};

std::mutex g_mu;
std::vector<std::unique_ptr<DeviceState>>* g_devices = nullptr;  // leaked: see ~Buffer

DeviceState& state_of(int device) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_devices) g_devices = new std::vector<std::unique_ptr<DeviceState>>();
  while (static_cast<int>(g_devices->size()) <= device) g_devices->push_back(std::make_unique<DeviceState>());
  return *(*g_devices)[static_cast<size_t>(device)];
}

Status init_device(int device, DeviceState& d) {
  OPF_GPU_CHECK(gpuSetDevice(device), errors::StrCat(OPF_GPU_PREFIX, "SetDevice(", device, ")"));
  gpuDeviceProp_t prop;
  OPF_GPU_CHECK(gpuGetDeviceProperties(&prop, device), OPF_GPU_PREFIX "GetDeviceProperties");
  d.sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
  d.name = prop.name;
  OPF_GPU_CHECK(gpuStreamCreateWithFlags(&d.stream, gpuStreamNonBlocking), OPF_GPU_PREFIX "StreamCreateWithFlags");
  return Status::OK();
}

}  // namespace

Status stream_for(int device, gpuStream_t* out) {
  DeviceState& d = state_of(device);
  std::call_once(d.once, [&] { d.init = init_device(device, d); });
  OPF_RETURN_IF_ERROR(d.init);
  OPF_GPU_CHECK(gpuSetDevice(device), errors::StrCat(OPF_GPU_PREFIX, "SetDevice(", device, ")"));
  *out = d.stream;
  return Status::OK();
}

int multiprocessor_count(int device) { return state_of(device).sms; }

namespace {

class Backend final : public GpuBackend {
 public:
  const char* name() const override { return OPF_GPU_API; }

  int device_count(std::string* why) override {
    int n = 0;
    gpuError_t e = gpuGetDeviceCount(&n);
    if (e != gpuSuccess) {
      *why = api_error(e, OPF_GPU_PREFIX "GetDeviceCount").message();
      (void)gpuGetLastError();  // clear it
      return 0;
    }
    if (n == 0) *why = OPF_GPU_PREFIX "GetDeviceCount found no device";
    return n;
  }

  std::string describe_device(int device) override {
    gpuStream_t s;
    if (!stream_for(device, &s).ok()) return "?";
    return state_of(device).name;
  }

  Status raw_alloc(int device, size_t nbytes, void** out) override {
    gpuStream_t s;
    OPF_RETURN_IF_ERROR(stream_for(device, &s));
    OPF_GPU_CHECK(gpuMalloc(out, nbytes), errors::StrCat(OPF_GPU_PREFIX, "Malloc(", nbytes, " bytes)"));
    return Status::OK();
  }

  void raw_free(int device, void* p) override {
    if (gpuSetDevice(device) == gpuSuccess) (void)gpuFree(p);
  }

  Status copy_to_device(int device, void* dst, const void* src, size_t n) override {
    gpuStream_t s;
    OPF_RETURN_IF_ERROR(stream_for(device, &s));
    OPF_GPU_CHECK(gpuMemcpyAsync(dst, src, n, gpuMemcpyHostToDevice, s), OPF_GPU_PREFIX "MemcpyAsync(host to device)");
    return Status::OK();
  }

  Status copy_to_host(int device, void* dst, const void* src, size_t n) override {
    gpuStream_t s;
    OPF_RETURN_IF_ERROR(stream_for(device, &s));
    OPF_GPU_CHECK(gpuMemcpyAsync(dst, src, n, gpuMemcpyDeviceToHost, s), OPF_GPU_PREFIX "MemcpyAsync(device to host)");
    OPF_GPU_CHECK(gpuStreamSynchronize(s), OPF_GPU_PREFIX "StreamSynchronize (after a copy to the host)");
    return Status::OK();
  }

  Status copy_on_device(int device, void* dst, const void* src, size_t n) override {
    gpuStream_t s;
    OPF_RETURN_IF_ERROR(stream_for(device, &s));
    OPF_GPU_CHECK(gpuMemcpyAsync(dst, src, n, gpuMemcpyDeviceToDevice, s),
                  OPF_GPU_PREFIX "MemcpyAsync(device to device)");
    return Status::OK();
  }

  Status synchronize(int device) override {
    gpuStream_t s;
    OPF_RETURN_IF_ERROR(stream_for(device, &s));
    OPF_GPU_CHECK(gpuStreamSynchronize(s), OPF_GPU_PREFIX "StreamSynchronize");
    return Status::OK();
  }

  std::vector<std::pair<std::string, std::string>> missing_kernel_notes() override {
#if defined(OPFORGE_HIP) && !defined(OPFORGE_HAVE_HIPBLAS)
    const char* note = "this HIP build has no hipBLAS (Debian does not package it), so it runs on the CPU only";
    return {{"MatMul", note},       {"BatchMatMul", note}, {"BatchMatMulV2", note},
            {"_FusedMatMul", note}, {"Conv2D", note},      { "_FusedConv2D", note }};
#else
    return {};
#endif
  }
};

}  // namespace
}  // namespace gpu
}  // namespace opforge

// The entry point the runtime's loader looks up (see opforge/device.h).
extern "C" __attribute__((visibility("default"))) opforge::GpuBackend* opforge_gpu_backend() {
  return new opforge::gpu::Backend();
}
