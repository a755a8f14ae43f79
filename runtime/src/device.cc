// Devices: parsing device strings, loading the GPU backend, the caching device allocator,
// copies between devices and the eager placement scope.
#include "opforge/device.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#include "opforge/kernel.h"
#include "opforge/library.h"

namespace opforge {

// ---- device strings

std::string device_string(const DeviceSpec& d) { return errors::StrCat("/device:", device_name(d.type), ":", d.index); }

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status bad_device(const std::string& s, const std::string& why) {
  return errors::InvalidArgument("invalid device '", s, "': ", why,
                                 " (expected e.g. \"/cpu:0\", \"/gpu:0\" or \"/device:GPU:1\")");
}

}  // namespace

Status parse_device(const std::string& s, DeviceSpec* out) {
  // TensorFlow's full names carry /job:.../replica:.../task:... first; only the device part
  // matters in a single process.
  std::string rest = s;
  std::string type_part, index_part;
  bool found = false;
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t next = rest.find('/', pos);
    std::string field = rest.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    pos = next == std::string::npos ? rest.size() + 1 : next + 1;
    if (field.empty()) continue;
    std::string lf = lower(field);
    if (lf.rfind("job:", 0) == 0 || lf.rfind("replica:", 0) == 0 || lf.rfind("task:", 0) == 0) continue;
    if (found) return bad_device(s, "more than one device name");
    if (lf.rfind("device:", 0) == 0) lf = lf.substr(7);
    size_t colon = lf.find(':');
    type_part = lf.substr(0, colon);
    index_part = colon == std::string::npos ? "" : lf.substr(colon + 1);
    found = true;
  }
  if (!found) return bad_device(s, "no device name");
  DeviceSpec d;
  if (type_part == "cpu") {
    d.type = Device::kCPU;
  } else if (type_part == "gpu" || type_part == "cuda") {
    d.type = Device::kGPU;
  } else {
    return bad_device(s, "unknown device type '" + type_part + "'");
  }
  if (!index_part.empty() && index_part != "*") {
    if (index_part.size() > 6 || !std::all_of(index_part.begin(), index_part.end(),
                                              [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return bad_device(s, "the device index must be a non-negative integer");
    }
    d.index = std::stoi(index_part);
  }
  if (d.type == Device::kCPU && d.index != 0) {
    return bad_device(s, "there is one CPU device, /cpu:0");
  }
  *out = d;
  return Status::OK();
}

// ---- the backend

namespace {

struct BackendState {
  std::mutex mu;
  GpuBackend* backend = nullptr;
  int count = 0;
  std::string reason = "no GPU backend library was built into this opforge (see the README's GPU section)";
  std::unordered_map<std::string, std::string> notes;
};

BackendState& state() {
  static BackendState* s = new BackendState();  // leaked: buffers may die in static dtors
  return *s;
}

}  // namespace

GpuBackend* gpu_backend() { return state().backend; }
int gpu_count() { return state().count; }
std::string gpu_unavailable_reason() { return state().reason; }

Status check_device(const DeviceSpec& d) {
  if (d.type == Device::kCPU) return Status::OK();
  const int n = gpu_count();
  if (d.index < n) return Status::OK();
  if (n == 0) {
    return errors::NotFound("device ", device_string(d), " is not available: this machine has no GPU (",
                            gpu_unavailable_reason(), ")");
  }
  return errors::NotFound("device ", device_string(d), " is not available: this machine has ", n, " GPU",
                          n == 1 ? "" : "s", " (/device:GPU:0", n > 1 ? errors::StrCat(" to /device:GPU:", n - 1) : "",
                          ")");
}

void set_missing_kernel_note(const std::string& op, const std::string& note) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().notes[op] = note;
}

std::string missing_kernel_note(const std::string& op) {
  std::lock_guard<std::mutex> lock(state().mu);
  auto it = state().notes.find(op);
  return it == state().notes.end() ? std::string() : it->second;
}

Status load_gpu_backends(const std::vector<std::string>& paths, std::vector<std::string>* report) {
  struct Loaded {
    std::string path;
    void* handle;
    GpuBackend* backend;
    RegistrationStage stage;
    int count;
    std::string why;
  };
  std::vector<std::unique_ptr<Loaded>> loaded;
  for (const std::string& path : paths) {
    auto l = std::make_unique<Loaded>();
    l->path = path;
    {
      ScopedRegistrationStage scope(&l->stage);
      dlerror();
      l->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    if (l->handle == nullptr) {
      const char* err = dlerror();
      report->push_back(path + ": not loaded: " + (err ? err : "dlopen failed"));
      continue;
    }
    using Entry = GpuBackend* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(l->handle, "opforge_gpu_backend"));
    l->backend = entry ? entry() : nullptr;
    if (l->backend == nullptr) {
      report->push_back(path + ": not an opforge GPU backend (no opforge_gpu_backend())");
      dlclose(l->handle);
      continue;
    }
    l->count = l->backend->device_count(&l->why);
    report->push_back(errors::StrCat(path, ": ", l->backend->name(), ", ", l->count, " device(s)",
                                     l->count ? "" : " (" + l->why + ")"));
    loaded.push_back(std::move(l));
    if (loaded.back()->count > 0) break;  // later libraries are not needed
  }
  if (loaded.empty()) return Status::OK();
  Loaded* pick = loaded.front().get();
  for (auto& l : loaded)
    if (l->count > 0) pick = l.get();
  // Kernels keyed to ops this build does not define (e.g. Softmax before its opdef lands)
  // are dropped rather than listed for an op that does not exist.
  for (auto& k : pick->stage.kernels) {
    if (OpRegistry::Global().find(std::get<0>(k)) == nullptr) continue;
    KernelRegistry::Global().add(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k));
  }
  for (const auto& note : pick->backend->missing_kernel_notes()) set_missing_kernel_note(note.first, note.second);
  {
    std::lock_guard<std::mutex> lock(state().mu);
    state().backend = pick->backend;
    state().count = pick->count;
    state().reason = std::string(pick->backend->name()) + ": " + pick->why;
  }
  pick->handle = nullptr;  // stays loaded for the life of the process
  pick->backend = nullptr;
  // The others are unloaded; their backends were never used beyond the device query.
  for (auto& l : loaded) {
    if (l->handle) {
      delete l->backend;
      dlclose(l->handle);
    }
  }
  return Status::OK();
}

// ---- the caching allocator

namespace {

// Blocks are rounded up to 512 bytes (small) or 2 MiB (large); a request reuses the smallest
// cached block of at least its size and at most twice it (large blocks) or exactly its size
// class (small ones). Stream order makes reuse safe: every kernel and copy of a device runs on
// its one stream, so work queued before a buffer died finishes before work queued after.
constexpr size_t kSmallRound = 512;
constexpr size_t kLargeRound = size_t{2} << 20;
constexpr size_t kSmallLimit = size_t{1} << 20;

size_t round_block(size_t n) {
  if (n == 0) n = 1;
  const size_t r = n <= kSmallLimit ? kSmallRound : kLargeRound;
  return (n + r - 1) / r * r;
}

struct DeviceCache {
  std::mutex mu;
  std::multimap<size_t, void*> free_blocks;  // size -> block
  std::unordered_map<void*, size_t> sizes;   // live and cached blocks
  DeviceMemoryStats stats;
};

DeviceCache& cache_for(int device) {
  static std::mutex mu;
  static auto* caches = new std::map<int, std::unique_ptr<DeviceCache>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& c = (*caches)[device];
  if (!c) c = std::make_unique<DeviceCache>();
  return *c;
}

void release_cached(GpuBackend* b, int device, DeviceCache& c) {
  // Caller holds c.mu. Pending work may still use blocks freed after it was queued.
  (void)b->synchronize(device);
  for (auto& kv : c.free_blocks) {
    b->raw_free(device, kv.second);
    c.sizes.erase(kv.second);
    c.stats.cached -= kv.first;
  }
  c.free_blocks.clear();
}

}  // namespace

Status allocate_device(const DeviceSpec& d, size_t nbytes, std::shared_ptr<Buffer>* out) {
  OPF_RETURN_IF_ERROR(check_device(d));
  GpuBackend* b = gpu_backend();
  DeviceCache& c = cache_for(d.index);
  const size_t size = round_block(nbytes);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free_blocks.lower_bound(size);
    if (it != c.free_blocks.end() && (size <= kSmallLimit ? it->first == size : it->first <= 2 * size)) {
      p = it->second;
      c.stats.cached -= it->first;
      c.stats.in_use += it->first;
      c.free_blocks.erase(it);
    } else {
      Status s = b->raw_alloc(d.index, size, &p);
      if (!s.ok() && !c.free_blocks.empty()) {  // out of memory: give the cache back, retry
        release_cached(b, d.index, c);
        s = b->raw_alloc(d.index, size, &p);
      }
      if (!s.ok()) return s;
      c.sizes[p] = size;
      c.stats.in_use += size;
      ++c.stats.raw_allocs;
    }
  }
  *out = std::make_shared<Buffer>(p, nbytes, Device::kGPU, d.index);
  return Status::OK();
}

// Called by ~Buffer for device memory: the block goes back to the cache.
void free_device_buffer(Device device, int index, void* p, size_t nbytes) {
  (void)device;
  (void)nbytes;
  DeviceCache& c = cache_for(index);
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.sizes.find(p);
  if (it == c.sizes.end()) return;
  c.stats.in_use -= it->second;
  c.stats.cached += it->second;
  c.free_blocks.emplace(it->second, p);
}

void empty_device_cache() {
  GpuBackend* b = gpu_backend();
  if (b == nullptr) return;
  for (int i = 0; i < gpu_count(); ++i) {
    DeviceCache& c = cache_for(i);
    std::lock_guard<std::mutex> lock(c.mu);
    release_cached(b, i, c);
  }
}

DeviceMemoryStats device_memory_stats(int device) {
  DeviceCache& c = cache_for(device);
  std::lock_guard<std::mutex> lock(c.mu);
  return c.stats;
}

// ---- copies

namespace {

// One copy between the host and `device` through the backend, counted in the device's stats.
Status counted_copy(int device, bool to_device, void* dst, const void* src, size_t n) {
  GpuBackend* b = gpu_backend();
  OPF_RETURN_IF_ERROR(to_device ? b->copy_to_device(device, dst, src, n) : b->copy_to_host(device, dst, src, n));
  DeviceCache& c = cache_for(device);
  std::lock_guard<std::mutex> lock(c.mu);
  ++(to_device ? c.stats.copies_to_device : c.stats.copies_to_host);
  (to_device ? c.stats.bytes_to_device : c.stats.bytes_to_host) += n;
  return Status::OK();
}

}  // namespace

Status copy_host_to_device(int device, void* dst, const void* src, size_t n) {
  return counted_copy(device, true, dst, src, n);
}

Status copy_device_to_host(int device, void* dst, const void* src, size_t n) {
  return counted_copy(device, false, dst, src, n);
}

Status copy_tensor(const Tensor& src, const DeviceSpec& dst, Tensor* out) {
  const DeviceSpec from{src.device(), src.device_index()};
  if (from == dst) {
    *out = src;
    return Status::OK();
  }
  OPF_RETURN_IF_ERROR(check_device(dst));
  Tensor t;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(src.dtype(), src.shape(), dst.type, dst.index, &t));
  const size_t n = src.nbytes();
  if (n > 0) {
    if (from.type == Device::kCPU) {
      OPF_RETURN_IF_ERROR(copy_host_to_device(dst.index, t.raw_data(), src.raw_data(), n));
    } else if (dst.type == Device::kCPU) {
      OPF_RETURN_IF_ERROR(copy_device_to_host(from.index, t.raw_data(), src.raw_data(), n));
    } else {
      // Between two GPUs: through the host (peer access is not set up).
      Tensor host;
      OPF_RETURN_IF_ERROR(copy_tensor(src, DeviceSpec{}, &host));
      OPF_RETURN_IF_ERROR(copy_host_to_device(dst.index, t.raw_data(), host.raw_data(), n));
      OPF_RETURN_IF_ERROR(gpu_backend()->synchronize(dst.index));  // `host` dies on return
    }
  }
  *out = std::move(t);
  return Status::OK();
}

// ---- placement

namespace {
thread_local DeviceSpec t_placement;
thread_local bool t_has_placement = false;
}  // namespace

const DeviceSpec* eager_placement() { return t_has_placement ? &t_placement : nullptr; }

void set_eager_placement(const DeviceSpec* d) {
  t_has_placement = d != nullptr;
  if (d) t_placement = *d;
}

}  // namespace opforge
