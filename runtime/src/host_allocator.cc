// The caching host allocator (see host_allocator.h).
#include "src/host_allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace opforge {
namespace {

constexpr size_t kAlign = 64;
constexpr size_t kSmallMax = 1024;                // 64-byte buckets up to here
constexpr size_t kSmallBuckets = kSmallMax / 64;  // 16
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeThreshold = size_t{4} << 20;
constexpr int kMaxBuckets = kSmallBuckets + 4 * 54;

// The bucket of a request and that bucket's block size.
struct Bucket {
  int id;
  size_t size;
};

Bucket bucket_of(size_t nbytes) {
  if (nbytes <= kSmallMax) {
    const size_t size = nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
    return {static_cast<int>(size / 64 - 1), size};
  }
  // 2^p < nbytes <= 2^(p+1), cut into four steps of 2^(p-2).
  const int p = 63 - __builtin_clzll(static_cast<unsigned long long>(nbytes - 1));
  const size_t step = size_t{1} << (p - 2);
  const size_t quarters = (nbytes + step - 1) / step;  // 5..8
  return {static_cast<int>(kSmallBuckets + static_cast<size_t>(p - 10) * 4 + (quarters - 5)), quarters * step};
}

uint64_t default_limit() {
  if (const char* env = std::getenv("OPFORGE_HOST_CACHE_LIMIT")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env) return v;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const uint64_t phys = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  return std::min<uint64_t>(phys / 4, uint64_t{4} << 30);
}

void* os_alloc(size_t size) {
  if (size >= kHugeThreshold) {
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
#ifdef MADV_HUGEPAGE
    if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
  }
  return std::aligned_alloc(kAlign, size);
}

class HostAllocator {
 public:
  HostAllocator() : limit_(default_limit()) {
#ifdef OPFORGE_NO_BUFFER_POOL
    limit_ = 0;  // sanitized builds: every block comes from malloc, so ASan sees misuse
#endif
  }

  void* alloc(size_t nbytes) {
    const Bucket b = bucket_of(nbytes);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.num_allocs;
      auto& list = free_[b.id];
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        ++stats_.cache_hits;
        stats_.bytes_cached -= b.size;
        note_in_use(b.size);
        return p;
      }
    }
    void* p = os_alloc(b.size);
    if (p == nullptr) {  // give the cache back and try once more
      empty_cache();
      p = os_alloc(b.size);
      if (p == nullptr) return nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.os_allocs;
    note_in_use(b.size);
    return p;
  }

  void free(void* p, size_t nbytes) {
    const Bucket b = bucket_of(nbytes);
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.bytes_in_use -= b.size;
      if (stats_.bytes_cached + b.size <= limit_) {
        free_[b.id].push_back(p);
        stats_.bytes_cached += b.size;
        return;
      }
      ++stats_.os_frees;
    }
    std::free(p);
  }

  HostMemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    HostMemoryStats s = stats_;
    s.cache_limit = limit_;
    return s;
  }

  void reset_peak() {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.peak_bytes_in_use = stats_.bytes_in_use;
  }

  void set_limit(uint64_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit_ = bytes;
    }
    trim_to_limit();
  }

  void empty_cache() {
    release_until(0);
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
  }

 private:
  void note_in_use(size_t size) {
    stats_.bytes_in_use += size;
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  }

  void trim_to_limit() {
    uint64_t limit;
    {
      std::lock_guard<std::mutex> lock(mu_);
      limit = limit_;
    }
    release_until(limit);
  }

  // Frees cached blocks, largest buckets first, until at most `keep` bytes stay cached.
  void release_until(uint64_t keep) {
    std::vector<void*> to_free;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int id = kMaxBuckets - 1; id >= 0 && stats_.bytes_cached > keep; --id) {
        auto& list = free_[id];
        const size_t size = bucket_size(id);
        while (!list.empty() && stats_.bytes_cached > keep) {
          to_free.push_back(list.back());
          list.pop_back();
          stats_.bytes_cached -= size;
          ++stats_.os_frees;
        }
      }
    }
    for (void* p : to_free) std::free(p);
  }

  static size_t bucket_size(int id) {
    if (id < static_cast<int>(kSmallBuckets)) return static_cast<size_t>(id + 1) * 64;
    const int rel = id - static_cast<int>(kSmallBuckets);
    const int p = rel / 4 + 10;
    return static_cast<size_t>(rel % 4 + 5) << (p - 2);
  }

  std::mutex mu_;
  std::vector<void*> free_[kMaxBuckets];
  HostMemoryStats stats_;
  uint64_t limit_;
};

HostAllocator& allocator() {
  // Leaked on purpose: buffers may be freed during static destruction.
  static HostAllocator* a = new HostAllocator();
  return *a;
}

}  // namespace

void* host_alloc(size_t nbytes) { return allocator().alloc(nbytes); }
void host_free(void* p, size_t nbytes) { allocator().free(p, nbytes); }
HostMemoryStats host_memory_stats() { return allocator().stats(); }
void host_reset_peak() { allocator().reset_peak(); }
void host_empty_cache() { allocator().empty_cache(); }
void host_set_cache_limit(uint64_t bytes) { allocator().set_limit(bytes); }

}  // namespace opforge
