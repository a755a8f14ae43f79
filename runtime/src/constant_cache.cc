// The constant-derived value cache (constant_cache.h).
#include "src/constant_cache.h"

#include <map>
#include <mutex>
#include <utility>

namespace opforge {
namespace {

struct Entry {
  std::weak_ptr<Buffer> buffer;
  std::shared_ptr<const void> value;
  size_t bytes = 0;
};

struct Cache {
  std::mutex mu;
  std::map<std::pair<const Buffer*, std::string>, Entry> entries;
  size_t bytes = 0;

  // Drops entries whose buffer is gone (a new buffer may reuse its address). Under mu.
  void drop_dead() {
    for (auto it = entries.begin(); it != entries.end();) {
      if (it->second.buffer.expired()) {
        bytes -= it->second.bytes;
        it = entries.erase(it);
      } else {
        ++it;
      }
    }
  }
};

Cache& cache() {
  static Cache* c = new Cache();  // leaked: kernels may run during static destruction
  return *c;
}

}  // namespace

std::shared_ptr<const void> derived_from_constant(const Tensor& t, const std::string& key, size_t bytes,
                                                  const std::function<std::shared_ptr<const void>()>& make) {
  const std::shared_ptr<Buffer>& buf = t.buffer();
  if (!buf || !buf->is_constant()) return make();
  Cache& c = cache();
  const auto k = std::make_pair(static_cast<const Buffer*>(buf.get()), key);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.entries.find(k);
    if (it != c.entries.end()) {
      if (it->second.buffer.lock() == buf) return it->second.value;
      c.bytes -= it->second.bytes;  // a dead buffer's entry at a reused address
      c.entries.erase(it);
    }
  }
  std::shared_ptr<const void> value = make();  // outside the lock: other kernels go on
  std::lock_guard<std::mutex> lock(c.mu);
  c.drop_dead();
  if (c.bytes + bytes > kConstantCacheLimit) return value;
  auto [it, inserted] = c.entries.emplace(k, Entry{buf, value, bytes});
  if (inserted) {
    c.bytes += bytes;
  } else {
    value = it->second.value;  // another thread made it first
  }
  return value;
}

size_t constant_cache_bytes() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.drop_dead();
  return c.bytes;
}

void clear_constant_cache() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  c.entries.clear();
  c.bytes = 0;
}

}  // namespace opforge
