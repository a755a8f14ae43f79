// The concurrent executor's team loop, for a busy machine (other processes keep this process's
// threads from their cores), and the test of whether the machine is busy.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#endif

#include "session_impl.h"
#include "src/parallel_state.h"
#include "step_runner.h"

namespace opforge {

namespace {

using steps::Plan;
using steps::Readers;
using steps::StepRunner;
using steps::StepScratch;

// How long a thread of the team loop with no ready step spins before it sleeps.
constexpr std::chrono::microseconds kTeamSpin{20};

// How recently a parallel region must have waited out a descheduled worker (or a team run
// found its thread kept from its core) for a run to take the team loop (see
// Session::Impl::choose_executor).
constexpr std::chrono::milliseconds kBusyWindow{250};

// The time the calling thread has spent runnable but waiting for a core (Linux's schedstat
// run_delay), in nanoseconds; -1 where the OS does not say.
int64_t run_delay_ns() {
#ifdef __linux__
  struct SchedStat {  // this thread's, open while the thread lives
    int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    ~SchedStat() {
      if (fd >= 0) ::close(fd);
    }
  };
  thread_local SchedStat stat;
  char buf[96];
  const ssize_t got = stat.fd >= 0 ? ::pread(stat.fd, buf, sizeof(buf) - 1, 0) : -1;
  if (got <= 0) return -1;
  buf[got] = '\0';
  unsigned long long on_cpu = 0, waiting = 0;
  return std::sscanf(buf, "%llu %llu", &on_cpu, &waiting) == 2 ? static_cast<int64_t>(waiting) : -1;
#else
  return -1;
#endif
}

// The team loop: every thread (parallel_team) takes the next ready step from one queue as it
// comes free and runs it on its own, no waves. For a machine other processes keep busy, where
// the OS deschedules one of the threads for a time slice at a time: that thread then holds up
// only the steps that need what it is computing, where a wave (or a parallel region) waited for
// it at every barrier. A thread out of ready steps spins briefly, then sleeps until a finished
// step readies more. Only for stateless plans (inference graphs): the wave loop's ordering of
// variable writers after their readers does not apply.
Status run_team(const Plan& plan, ResourceMgr* resources, StepTracer* tracer, std::vector<Tensor>& values,
                std::vector<Variable*>& refs) {
  const Readers readers = steps::initial_readers(plan);
  const std::unique_ptr<std::atomic<int>[]> waiting = steps::initial_waits(plan);
  const StepRunner runner(plan, resources, tracer, values, refs, readers);
  std::mutex mu;  // guards the queue, the count and the error
  std::condition_variable cv;
  std::deque<int> ready;
  size_t unfinished = plan.steps.size();
  int sleepers = 0;
  std::atomic<bool> more{false};  // (spinning threads' hint: the queue may have grown)
  Status error;
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].waits_on == 0) ready.push_back(static_cast<int>(i));
  parallel_team([&](int) {
    StepScratch sc;
    std::vector<int> readied;
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      if (ready.empty() && unfinished > 0 && error.ok()) {
        // Another thread's step finishes in microseconds as often as not: spin before sleeping
        // (pause instructions: a yield on a busy machine can cost a time slice).
        lock.unlock();
        const auto until = std::chrono::steady_clock::now() + kTeamSpin;
        while (!more.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < until)
          for (int k = 0; k < 32; ++k) cpu_relax();
        lock.lock();
        ++sleepers;
        cv.wait(lock, [&] { return !ready.empty() || unfinished == 0 || !error.ok(); });
        --sleepers;
      }
      if (ready.empty() || !error.ok()) return;
      const int i = ready.front();
      ready.pop_front();
      more.store(!ready.empty(), std::memory_order_relaxed);
      lock.unlock();
      Status s = runner.run(i, false, sc, true);
      readied.clear();
      if (s.ok()) runner.finish(i, waiting.get(), [&](int c) { readied.push_back(c); });
      lock.lock();
      if (!s.ok() && error.ok()) error = s;
      ready.insert(ready.end(), readied.begin(), readied.end());
      --unfinished;
      more.store(!ready.empty(), std::memory_order_release);
      // This thread takes one readied step itself: wake the others for the rest, or to leave.
      if (sleepers > 0 && (readied.size() > 1 || unfinished == 0 || !error.ok())) cv.notify_all();
    }
  });
  return error;
}

class TeamExecutor final : public Executor {
 public:
  // While the calling thread waits for a core for a tenth of the run or more, the machine is
  // still busy: the next runs keep the team loop (choose_executor); otherwise they go back to
  // the tuned choice once kBusyWindow has passed.
  Status run(const RunArgs& args, std::vector<Tensor>* outputs) const override {
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t delay0 = run_delay_ns();
    const Status s = steps::run_with_slots(args, outputs, run_team);
    const int64_t delay = run_delay_ns() - delay0;
    if (delay0 >= 0 && delay >= kBusyDelayNs && delay * 10 >= elapsed_ns(t0)) parallel_note_contended();
    return s;
  }

 private:
  static constexpr int64_t kBusyDelayNs = 200'000;
};

}  // namespace

bool machine_busy() { return parallel_contended_within(kBusyWindow); }

const Executor& executors::team() {
  static const TeamExecutor executor;
  return executor;
}

}  // namespace opforge
