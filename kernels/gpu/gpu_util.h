// Helpers shared by the GPU kernels: errors, the device's stream, launch shapes, and the
// device-side view of opforge's dtypes (half and bfloat16 are stored as 16-bit patterns and
// computed in float).
#pragma once

#include <cstdint>
#include <cstring>

#include "gpu/gpu_port.h"
#include "opforge/kernel.h"
#include "opforge/status.h"

namespace opforge {
namespace gpu {

// A typed error naming the failing call: "CUDA call cudaMalloc(1048576 bytes) failed: out of
// memory (cudaErrorMemoryAllocation)". Out of memory -> ResourceExhausted, missing device or
// driver -> Unavailable, invalid value -> InvalidArgument, anything else -> Internal.
Status api_error(gpuError_t e, const std::string& call);

// On failure the runtime's last-error slot is cleared too, so that a later launch check does
// not report this error again under another kernel's name.
#define OPF_GPU_CHECK(expr, call)                       \
  do {                                                  \
    gpuError_t _opf_err = (expr);                       \
    if (_opf_err != gpuSuccess) {                       \
      (void)gpuGetLastError();                          \
      return ::opforge::gpu::api_error(_opf_err, call); \
    }                                                   \
  } while (0)

// Reports a failed kernel launch (bad configuration, no kernel image for this GPU).
#define OPF_GPU_CHECK_LAUNCH(name) OPF_GPU_CHECK(gpuGetLastError(), std::string("launch of kernel ") + (name))

// The one stream of `device` (created on first use); makes `device` current on this thread.
Status stream_for(int device, gpuStream_t* out);
int multiprocessor_count(int device);

// A grid for a grid-stride loop over `n` work items of `threads` each.
inline unsigned grid_for(int64_t n, int device, int threads = 256) {
  int64_t blocks = (n + threads - 1) / threads;
  const int64_t cap = int64_t{multiprocessor_count(device)} * 16;
  if (blocks > cap) blocks = cap;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// The dtype lists GPU kernels register for (the narrower integer types stay CPU-only).
#define OPF_GPU_FLOATS bfloat16, half, float, double
#define OPF_GPU_NUMBERS bfloat16, half, float, double, int32_t, int64_t
#define OPF_GPU_ALL bool, bfloat16, half, float, double, int32_t, int64_t

// ---- device dtypes

struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};

template <typename T>
struct DevType {
  using type = T;
};
template <>
struct DevType<::opforge::half> {
  using type = F16;
};
template <>
struct DevType<::opforge::bfloat16> {
  using type = BF16;
};
template <typename T>
using dev_t = typename DevType<T>::type;

// Acc<D>: the compute type C of storage type D, with load (D -> C) and store (C -> D).
template <typename D>
struct Acc {
  using C = D;
  __host__ __device__ static C load(D x) { return x; }
  __host__ __device__ static D store(C x) { return x; }
};
template <>
struct Acc<F16> {
  using C = float;
  __device__ static float load(F16 x) {
    __half h;
    memcpy(&h, &x.bits, 2);
    return __half2float(h);
  }
  __device__ static F16 store(float f) {
    __half h = __float2half(f);
    F16 r;
    memcpy(&r.bits, &h, 2);
    return r;
  }
};
template <>
struct Acc<BF16> {
  using C = float;
  __host__ __device__ static float load(BF16 x) {
    uint32_t u = static_cast<uint32_t>(x.bits) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  __host__ __device__ static BF16 store(float f) {  // round to nearest even, NaN stays NaN
    uint32_t u;
    memcpy(&u, &f, 4);
    BF16 r;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      r.bits = static_cast<uint16_t>((u >> 16) | 0x40);
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      r.bits = static_cast<uint16_t>(u >> 16);
    }
    return r;
  }
};

// Converts between storage types through their compute types (half/bfloat16 via float).
template <typename To, typename From>
__device__ inline To convert(From x) {
  return Acc<To>::store(static_cast<typename Acc<To>::C>(Acc<From>::load(x)));
}

// N elements of T loaded or stored as one 16-byte access.
template <typename T>
struct VecWidth {
  static constexpr int value = sizeof(T) >= 16 ? 1 : 16 / static_cast<int>(sizeof(T));
};
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

template <typename T>
dev_t<T>* dev_ptr(const Tensor& t) {
  return static_cast<dev_t<T>*>(t.raw_data());
}

}  // namespace gpu
}  // namespace opforge
