// The caching host allocator: every CPU tensor buffer comes from here.
//
// Freed blocks are kept in size-bucketed free lists and handed out again for the next request
// of the same bucket (as PyTorch's CPU caching allocator and TensorFlow's BFC allocator do),
// so a steady-state Session.run or eager loop reuses warm memory instead of returning it to
// the OS and faulting it in again. Buckets are 64 bytes apart up to 1 KiB, then four per
// power of two (at most 25% slack). The cache is bounded: a freed block that would push the
// cached bytes over the limit goes back to the OS. empty_cache() releases every cached block.
#pragma once

#include <cstddef>
#include <cstdint>

namespace opforge {

struct HostMemoryStats {
  uint64_t bytes_in_use = 0;       // held by live tensors (bucket sizes)
  uint64_t peak_bytes_in_use = 0;  // since start or the last reset_peak
  uint64_t bytes_cached = 0;       // freed blocks kept for reuse
  uint64_t cache_limit = 0;        // most bytes kept cached
  uint64_t num_allocs = 0;         // requests served
  uint64_t cache_hits = 0;         // requests served from the cache
  uint64_t os_allocs = 0;          // blocks obtained from the OS
  uint64_t os_frees = 0;           // blocks given back to the OS
};

// A block of at least nbytes, 64-byte aligned (2 MiB aligned and marked for transparent huge
// pages from 4 MiB). nullptr when the OS has no memory left even after emptying the cache.
void* host_alloc(size_t nbytes);
// Returns a block from host_alloc(nbytes) (same nbytes).
void host_free(void* p, size_t nbytes);

HostMemoryStats host_memory_stats();
void host_reset_peak();
// Gives every cached block back to the OS.
void host_empty_cache();
// Most bytes the cache keeps (default: OPFORGE_HOST_CACHE_LIMIT in bytes, or 1/4 of the
// machine's memory capped at 4 GiB). Lowering it releases cached blocks at once.
void host_set_cache_limit(uint64_t bytes);

}  // namespace opforge
