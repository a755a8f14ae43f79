// A fixed pool of worker threads for parallel_for. The calling thread posts a job (a
// generation number, a part count and a claim counter packed in one atomic word), runs part 0
// itself, takes whatever parts no worker has claimed, and waits for the rest. Workers and the
// waiting caller spin briefly before they sleep: a Session run starts its next parallel region
// within microseconds, and waking a sleeping thread costs tens of them (more in a VM), which
// for a 10 us elementwise op is more than the second thread saves. The spins are bounded, so
// idle threads do not hold cores other processes need, and they yield the core while the
// thread on the other side of the wait was last seen on it: a busy machine can leave the
// caller and a worker on one core, where a worker spinning with pause instructions took 100 us
// from the caller after every region (NASNetMobile at batch 1 beside one busy process ran 2x
// slower than alone, slower than on one thread). When a region has to wait out a worker the
// OS descheduled (other processes want the cores), regions run on the calling thread alone for
// a while: fork-join over a contended core costs a time slice per region.
#include "opforge/parallel.h"

#include "src/blas.h"
#include "src/parallel_state.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>  // sched_getcpu
#endif

namespace opforge {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

namespace {

// The CPU the calling thread runs on (-1 where the OS does not say).
int current_cpu() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

// Spins until done() or `budget` has passed; returns done(). A turn yields the core when
// polite() says a thread this one waits on (or that waits on it) may be queued on it: a spin
// with pause instructions would hold the core that thread needs until the time slice ends.
// Otherwise a turn is pause instructions, which keep the core from other processes' threads
// (a yield to one of those costs its whole time slice). A yield with nothing else runnable
// returns at once (about 0.5 us here).
template <typename Done, typename Polite>
bool spin_until(Done done, std::chrono::microseconds budget, Polite polite) {
  const auto until = std::chrono::steady_clock::now() + budget;
  while (!done()) {
    if (polite()) {
      std::this_thread::yield();
    } else {
      for (int i = 0; i < 32; ++i) cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
  return true;
}

// The job word: generation (32 bits) | part count (16) | next unclaimed part (16). One word,
// so a claim (compare-and-swap) can only succeed for the job it read the count of.
constexpr int kMaxParts = 0xFFFF;
constexpr uint64_t gen_of(uint64_t s) { return s >> 32; }
constexpr int parts_of(uint64_t s) { return static_cast<int>((s >> 16) & 0xFFFF); }
constexpr int next_of(uint64_t s) { return static_cast<int>(s & 0xFFFF); }

thread_local bool uneven_parts = false;  // see UnevenParts

class ThreadPool {
 public:
  explicit ThreadPool(int workers) {
    for (auto& cpu : worker_cpu_) cpu.store(-2, std::memory_order_relaxed);  // never seen
    grow(workers);
  }
  // Starts workers until there are `workers` (never fewer than now).
  void grow(int workers) {
    std::lock_guard<std::mutex> call_lock(call_mu_);
    while (static_cast<int>(threads_.size()) < workers) {
      const int index = static_cast<int>(threads_.size());
      threads_.emplace_back([this, index] { loop(index); });
    }
    size_.store(static_cast<int>(threads_.size()));
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_.store(true);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int size() const { return size_.load(std::memory_order_relaxed); }

  // Runs fn(part) for part in [0, parts) and returns when all have run. The caller runs part 0
  // and every part no worker has claimed. While another thread's region holds the pool (two
  // Sessions running at once), the caller runs all parts itself rather than wait.
  void run(int parts, const std::function<void(int)>& fn) {
    std::unique_lock<std::mutex> call_lock(call_mu_, std::try_to_lock);
    if (!call_lock.owns_lock()) {
      for (int p = 0; p < parts; ++p) fn(p);
      return;
    }
    job_ = &fn;
    caller_cpu_.store(current_cpu(), std::memory_order_relaxed);
    pending_.store(parts - 1, std::memory_order_relaxed);
    const uint64_t gen = (gen_of(state_.load(std::memory_order_relaxed)) + 1) & 0xFFFFFFFFu;  // wraps in 32 bits
    // Part 0 is the caller's: the word starts with part 1 unclaimed.
    state_.store((gen << 32) | (uint64_t(parts) << 16) | 1u, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      {
        std::lock_guard<std::mutex> lock(mu_);
      }
      cv_.notify_all();
    }
    const auto t0 = std::chrono::steady_clock::now();
    fn(0);
    // Take whatever no worker has started: a worker the OS has not scheduled (other busy
    // processes on the cores) does not hold the call up.
    for (int part; (part = claim(gen)) >= 0;) {
      fn(part);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
    const auto done = [this] { return pending_.load(std::memory_order_seq_cst) == 0; };
    if (done()) return;
    const auto t_own = std::chrono::steady_clock::now();
    // Yield while a worker was last seen on this core: it may hold an unfinished part there.
    const auto worker_here = [this] {
      const int cpu = current_cpu();
      const int n = std::min(size(), kCpuSlots);
      for (int i = 0; i < n; ++i) {
        if (worker_cpu_[i].load(std::memory_order_relaxed) == cpu) return true;
      }
      return cpu < 0;
    };
    if (!spin_until(done, kCallerSpin, worker_here)) {
      std::unique_lock<std::mutex> lock(done_mu_);
      caller_waiting_.store(true, std::memory_order_seq_cst);
      done_cv_.wait(lock, done);
      caller_waiting_.store(false, std::memory_order_relaxed);
    }
    // A worker that held its part much longer than this thread took for all of its own was
    // kept off its core (another process is using the cores): regions then run on the calling
    // thread alone for a while, rather than each waiting out the OS's time slice (convoying).
    const auto t_end = std::chrono::steady_clock::now();
    const auto wait = t_end - t_own;
    if (!uneven_parts && wait > kStraggler && wait > 2 * (t_own - t0)) {
      contended_until_.store((t_end + kContendedFor).time_since_epoch().count(), std::memory_order_relaxed);
      last_straggler_.store(t_end.time_since_epoch().count(), std::memory_order_relaxed);
    }
  }

  // Whether a region lately waited out a worker the OS had descheduled (see run).
  bool contended() const {
    const int64_t until = contended_until_.load(std::memory_order_relaxed);
    return until != 0 && std::chrono::steady_clock::now().time_since_epoch().count() < until;
  }
  void note_contended() {
    last_straggler_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }
  // Whether one did within the last `window`.
  bool contended_within(std::chrono::steady_clock::duration window) const {
    const int64_t last = last_straggler_.load(std::memory_order_relaxed);
    return last != 0 && std::chrono::steady_clock::now().time_since_epoch().count() - last < window.count();
  }

 private:
  // Claims the next part of generation `gen`; -1 when none is left (or the job is another).
  int claim(uint64_t gen) {
    uint64_t s = state_.load(std::memory_order_acquire);
    while (gen_of(s) == gen && next_of(s) < parts_of(s)) {
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire))
        return next_of(s);
    }
    return -1;
  }

  void loop(int index) {
    std::atomic<int>& my_cpu = worker_cpu_[index % kCpuSlots];
    // Yield while on the caller's core: the caller may be queued behind this spin with its
    // next region's work (a busy machine can leave both on one core).
    const auto caller_here = [&] {
      const int cpu = current_cpu();
      my_cpu.store(cpu, std::memory_order_relaxed);
      return cpu < 0 || cpu == caller_cpu_.load(std::memory_order_relaxed);
    };
    uint64_t seen = 0;
    for (;;) {
      // seq_cst: with sleepers_ below and the caller's store-then-load, one side always sees
      // the other (no sleeping through a posted job).
      const auto posted = [&] { return gen_of(state_.load(std::memory_order_seq_cst)) != seen; };
      if (!spin_until(posted, kWorkerSpin, caller_here)) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        cv_.wait(lock, [&] { return stop_.load() || posted(); });
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (stop_.load()) return;
      seen = gen_of(state_.load(std::memory_order_acquire));
      // A successful claim means the caller is still waiting for this part, so job_ is the
      // job of generation `seen` until the part is counted off.
      for (int part; (part = claim(seen)) >= 0;) {
        my_cpu.store(current_cpu(), std::memory_order_relaxed);
        (*job_)(part);
        if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1 && caller_waiting_.load(std::memory_order_seq_cst)) {
          {
            std::lock_guard<std::mutex> lock(done_mu_);
          }
          done_cv_.notify_one();
        }
      }
    }
  }

  static constexpr std::chrono::microseconds kWorkerSpin{100};
  static constexpr std::chrono::microseconds kCallerSpin{50};
  // A wait for a worker longer than this (and than twice the caller's own work) is a worker
  // the OS descheduled: waking a sleeping one takes tens of microseconds, a time slice
  // milliseconds. Regions then run inline for kContendedFor before trying the pool again.
  static constexpr std::chrono::microseconds kStraggler{500};
  static constexpr std::chrono::milliseconds kContendedFor{50};
  std::atomic<int64_t> contended_until_{0};  // steady_clock ticks; 0: never
  std::atomic<int64_t> last_straggler_{0};   // steady_clock ticks of the latest; 0: never

  std::vector<std::thread> threads_;
  std::atomic<int> size_{0};
  std::mutex call_mu_;  // one parallel region at a time
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<uint64_t> state_{0};
  std::atomic<int> pending_{0};  // parts posted to workers and not yet finished
  // Sleeping workers: they wait on cv_ under mu_; the caller notifies only when one sleeps.
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // A caller that spun out waits on done_cv_ under done_mu_.
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  std::atomic<bool> caller_waiting_{false};
  // Where the threads were last seen (current_cpu), for the spins' choice between a yield and
  // pause instructions: the caller's at its latest region, worker i's in slot i % kCpuSlots.
  static constexpr int kCpuSlots = 64;
  std::atomic<int> caller_cpu_{-1};
  std::atomic<int> worker_cpu_[kCpuSlots];
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

void parallel_for_impl(int64_t n, int64_t min_per_thread, const std::function<void(int64_t, int64_t)>& fn) {
  parallel_for_parts(n, min_per_thread, 4, fn);
}

void parallel_for_parts(int64_t n, int64_t min_per_thread, int parts_per_thread,
                        const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = num_threads();
  if (threads <= 1) {
    fn(0, n);
    return;
  }
  // A few parts per thread, taken dynamically: when a thread is slowed (another process on
  // its core), the others take its share instead of waiting for it.
  int64_t parts = std::min<int64_t>(
      {int64_t{threads} * parts_per_thread, n / std::max<int64_t>(1, min_per_thread), int64_t{kMaxParts}});
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  int64_t chunk = (n + parts - 1) / parts;
  // A nested region (a kernel run inside another region's part) or a contended pool (see
  // ThreadPool::run) runs on this thread, but over the same parts in order: the ranges fn
  // sees depend only on n and the thread budget, never on who else holds the pool, so a
  // kernel that accumulates per range (partial sums) gives the same bits every run.
  if (in_parallel_region || pool().contended()) {
    const bool outer = in_parallel_region;
    in_parallel_region = true;
    for (int64_t begin = 0; begin < n; begin += chunk) fn(begin, std::min(n, begin + chunk));
    in_parallel_region = outer;
    return;
  }
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

bool parallel_contended() { return pool().contended(); }

bool parallel_contended_within(std::chrono::milliseconds window) { return pool().contended_within(window); }

void parallel_note_contended() { pool().note_contended(); }

void parallel_team(const std::function<void(int)>& fn) {
  const int threads = num_threads();
  const auto part = [&](int t) {
    const bool outer = in_parallel_region;
    in_parallel_region = true;
    fn(t);
    in_parallel_region = outer;
  };
  if (threads <= 1 || in_parallel_region) {
    for (int t = 0; t < threads; ++t) part(t);
    return;
  }
  const UnevenParts uneven;  // a thread's share is whatever it takes from the queue
  pool().run(threads, part);
}

UnevenParts::UnevenParts() { uneven_parts = true; }
UnevenParts::~UnevenParts() { uneven_parts = false; }

int parallel_probe(int parts, int64_t slow_part_us) {
  std::mutex mu;
  std::set<std::thread::id> ids;
  parallel_for_parts(parts, 1, std::max(1, (parts + num_threads() - 1) / num_threads()), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      // Part 0 (the caller's) takes a little while too, so that a worker claims part 1 first.
      const int64_t us = p == 1 ? slow_part_us : p == 0 && slow_part_us > 0 ? 300 : 0;
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
      while (std::chrono::steady_clock::now() < until) cpu_relax();
    }
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  return static_cast<int>(ids.size());
}

}  // namespace opforge
