// Devices: where a tensor lives and where an op runs.
//
// The CPU is always there. GPUs come from a backend library loaded at import
// (libopforge_cuda.so or libopforge_hip.so, see kernels/gpu/): it implements GpuBackend, and
// its kernels register for Device::kGPU. The runtime keeps one caching allocator per GPU
// (freed blocks are reused, never handed back to cudaFree/hipFree between ops) and every GPU
// kernel and copy runs on the backend's one stream per device, so stream order alone makes
// buffer reuse safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {

// A device: type and ordinal. "/cpu:0", "/gpu:1", "/device:GPU:0", "GPU:0", "cuda:0" ...
struct DeviceSpec {
  Device type = Device::kCPU;
  int index = 0;
  bool operator==(const DeviceSpec& o) const { return type == o.type && index == o.index; }
  bool operator!=(const DeviceSpec& o) const { return !(*this == o); }
};

// "/device:GPU:0" (TensorFlow's canonical spelling).
std::string device_string(const DeviceSpec& d);
// Parses TensorFlow's spellings ("/gpu:0", "/device:GPU:0", "/job:x/replica:0/task:0/device:CPU:0",
// "GPU", "gpu:1") and PyTorch's ("cuda", "cuda:0", "cpu"). An empty string is an error here;
// callers treat "" as "no placement".
Status parse_device(const std::string& s, DeviceSpec* out);

// ---- GPU backends

// What a backend library implements. All copies and kernels of a device go to its one stream.
class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual const char* name() const = 0;  // "CUDA" or "HIP"
  // Number of usable devices; 0 with `why` set when the driver or the devices are missing.
  virtual int device_count(std::string* why) = 0;
  virtual std::string describe_device(int device) = 0;
  // Raw device memory (the caching allocator above calls these rarely).
  virtual Status raw_alloc(int device, size_t nbytes, void** out) = 0;
  virtual void raw_free(int device, void* p) = 0;
  // Copies. Host-to-device and device-to-device are ordered on the device's stream (the host
  // source may be reused once the call returns); device-to-host waits for the copy.
  virtual Status copy_to_device(int device, void* dst, const void* src, size_t n) = 0;
  virtual Status copy_to_host(int device, void* dst, const void* src, size_t n) = 0;
  virtual Status copy_on_device(int device, void* dst, const void* src, size_t n) = 0;
  virtual Status synchronize(int device) = 0;
  // (op, why) for ops this backend has no kernels for on purpose; shown in NotFound errors.
  virtual std::vector<std::pair<std::string, std::string>> missing_kernel_notes() { return {}; }
};

// The backend in use (nullptr: none loaded).
GpuBackend* gpu_backend();
// Number of GPUs (0 without a backend or without devices).
int gpu_count();
// Why there are no GPUs ("no GPU backend library was built", "CUDA: cudaGetDeviceCount: ...").
std::string gpu_unavailable_reason();
// NotFound naming the device if `d` is not a device of this machine.
Status check_device(const DeviceSpec& d);

// Loads backend libraries: each path in order is dlopened with its kernel registrations
// staged; the first whose backend reports a device is committed. If none has a device, the
// first that loaded is committed anyway (its kernels are listed, so the build can be checked
// on machines without a GPU) and ops on "/gpu:N" raise NotFound. `report` receives one line per
// library tried.
Status load_gpu_backends(const std::vector<std::string>& paths, std::vector<std::string>* report);

// Notes about kernels a backend lacks on purpose, shown in NotFound errors
// (e.g. "MatMul: HIP build without hipBLAS").
void set_missing_kernel_note(const std::string& op, const std::string& note);
std::string missing_kernel_note(const std::string& op);

// ---- memory

// Device memory from the caching allocator of GPU `device`.
Status allocate_device(const DeviceSpec& d, size_t nbytes, std::shared_ptr<Buffer>* out);
// Frees cached blocks of every GPU (what torch.cuda.empty_cache does).
void empty_device_cache();
struct DeviceMemoryStats {
  size_t in_use = 0;      // bytes held by live buffers
  size_t cached = 0;      // bytes in free blocks kept for reuse
  size_t raw_allocs = 0;  // calls to the backend's raw_alloc so far
  // Tensor copies between the host and this device so far (copy_tensor): what a graph run on
  // the GPU moves over the bus besides its feeds and fetches shows here.
  size_t copies_to_device = 0, bytes_to_device = 0;
  size_t copies_to_host = 0, bytes_to_host = 0;
};
DeviceMemoryStats device_memory_stats(int device);

// The backend's copies between host memory and a device, counted in its DeviceMemoryStats
// (copy_device_to_host waits for the copy).
Status copy_host_to_device(int device, void* dst, const void* src, size_t n);
Status copy_device_to_host(int device, void* dst, const void* src, size_t n);

// A copy of `src` on `dst` (the same tensor when it is already there).
Status copy_tensor(const Tensor& src, const DeviceSpec& dst, Tensor* out);

// ---- placement of eager ops

// The device eager ops are placed on by `with of.device(...)` on this thread; nullptr: none
// (ops run where their inputs are, the CPU for host inputs).
const DeviceSpec* eager_placement();
void set_eager_placement(const DeviceSpec* d);

}  // namespace opforge
