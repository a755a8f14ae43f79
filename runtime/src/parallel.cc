// A fixed pool of worker threads for parallel_for. Workers sleep on a condition variable;
// the calling thread takes the first chunk itself.
#include "opforge/parallel.h"

#include "opforge/blas.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace opforge {
namespace {

class ThreadPool {
 public:
  explicit ThreadPool(int workers) { grow(workers); }
  // Starts workers until there are `workers` (never fewer than now).
  void grow(int workers) {
    std::lock_guard<std::mutex> call_lock(call_mu_);
    while (static_cast<int>(threads_.size()) < workers) threads_.emplace_back([this] { loop(); });
    size_.store(static_cast<int>(threads_.size()));
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int size() const { return size_.load(std::memory_order_relaxed); }

  // Runs fn(part) for part in [1, parts) on workers; the caller runs part 0, then waits.
  void run(int parts, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> call_lock(call_mu_);  // one parallel region at a time
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &fn;
      next_part_ = 1;
      parts_ = parts;
      pending_ = parts - 1;
      ++generation_;
      posted_.store(generation_, std::memory_order_release);
    }
    cv_.notify_all();
    fn(0);
    // The caller then takes whatever parts no worker has started: a worker that the OS has
    // not scheduled (other busy processes on the cores) does not hold the whole call up.
    std::unique_lock<std::mutex> lock(mu_);
    while (next_part_ < parts_) {
      const int part = next_part_++;
      lock.unlock();
      fn(part);
      lock.lock();
      --pending_;
    }
    done_cv_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void loop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (generation_ == seen && !stop_) {
        // Spin a little before sleeping: the next parallel region of a run usually starts
        // within microseconds, and waking a sleeping thread costs tens of them (more in a VM).
        // The spin is bounded, so idle workers do not hold cores other processes need.
        lock.unlock();
        spin_until_posted(seen);
        lock.lock();
      }
      cv_.wait(lock, [&] { return stop_ || (generation_ != seen && next_part_ < parts_); });
      if (stop_) return;
      seen = generation_;
      while (next_part_ < parts_) {
        int part = next_part_++;
        const auto* job = job_;
        lock.unlock();
        (*job)(part);
        lock.lock();
        if (--pending_ == 0) done_cv_.notify_one();
      }
    }
  }

  void spin_until_posted(uint64_t seen) const {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    while (posted_.load(std::memory_order_acquire) == seen) {
      for (int i = 0; i < 64; ++i) cpu_relax();
      if (std::chrono::steady_clock::now() >= until) return;
    }
  }

  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  static constexpr std::chrono::microseconds kSpin{100};

  std::vector<std::thread> threads_;
  std::atomic<int> size_{0};
  std::mutex mu_, call_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* job_ = nullptr;
  int next_part_ = 0, parts_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  std::atomic<uint64_t> posted_{0};  // generation_, readable without mu_ (for the spin)
  bool stop_ = false;
};

int default_threads() {
  if (const char* env = std::getenv("OPFORGE_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::atomic<int> budget{0};  // 0: not yet read from the environment

ThreadPool& pool() {
  // Leaked on purpose: joining threads during static destruction at exit can deadlock.
  static ThreadPool* p = [] {
    blas::use_single_thread();  // the BLAS works inside this budget, never beside it
    int want = budget.load();
    if (want == 0) {
      want = default_threads();
      budget.store(want);
    }
    return new ThreadPool(want - 1);
  }();
  return *p;
}

}  // namespace

int num_threads() {
  ThreadPool& p = pool();
  return std::min(budget.load(std::memory_order_relaxed), p.size() + 1);
}

void set_num_threads(int n) {
  if (n <= 0) n = default_threads();
  budget.store(n);
  pool().grow(n - 1);
}

thread_local bool in_parallel_region = false;

void parallel_for_impl(int64_t n, int64_t min_per_thread,
                       const std::function<void(int64_t, int64_t)>& fn) {
  parallel_for_parts(n, min_per_thread, 4, fn);
}

void parallel_for_parts(int64_t n, int64_t min_per_thread, int parts_per_thread,
                        const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  int threads = in_parallel_region ? 1 : num_threads();  // nested regions run inline
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  // A few parts per thread, taken dynamically: when a thread is slowed (another process on
  // its core), the others take its share instead of waiting for it.
  int64_t parts = std::min<int64_t>(int64_t{threads} * parts_per_thread, n / std::max<int64_t>(1, min_per_thread));
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  int64_t chunk = (n + parts - 1) / parts;
  pool().run(static_cast<int>(parts), [&](int part) {
    int64_t begin = part * chunk;
    int64_t end = std::min(n, begin + chunk);
    if (begin < end) {
      in_parallel_region = true;
      fn(begin, end);
      in_parallel_region = false;
    }
  });
}

}  // namespace opforge
