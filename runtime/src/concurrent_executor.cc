// The concurrent executor (independent ready steps at once, one thread each, where their
// measured times say that beats one step at a time over all threads) and the choice between it,
// the straight-line executor and the team loop (team_executor.cc).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "executor.h"
#include "opforge/device.h"
#include "opforge/kernel.h"
#include "opforge/parallel.h"
#include "session_impl.h"
#include "src/parallel_state.h"
#include "step_runner.h"

namespace opforge {

namespace {

std::atomic<int> g_concurrent{static_cast<int>(ConcurrentExecutor::kAuto)};

// The runs at one feed shape that time the two executors against each other (Session::run).
constexpr int kFirstTuningRun = 3, kLastTuningRun = 10;
// Feed shapes a plan tunes for; runs at further shapes (a graph fed ever-new shapes) go one
// step at a time.
constexpr size_t kMaxTunedShapes = 64;

// What handing a group of steps to the threads costs (a parallel region), in nanoseconds.
constexpr int64_t kGroupOverheadNs = 5'000;

// The thread that runs graph runs' collective steps (ops that exchange data with the job's
// other processes), one process-wide, in the order they are handed to it.
class CollectiveThread {
 public:
  static CollectiveThread& get() {
    static CollectiveThread* t = new CollectiveThread;  // never destroyed: its thread may be waiting at exit
    return *t;
  }
  std::future<void> submit(std::function<void()> fn) {
    std::packaged_task<void()> task(std::move(fn));
    std::future<void> done = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
    return done;
  }

 private:
  CollectiveThread() {
    std::thread([this] {
      for (;;) {
        std::packaged_task<void()> task;
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [this] { return !queue_.empty(); });
          task = std::move(queue_.front());
          queue_.pop_front();
        }
        task();
      }
    }).detach();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> queue_;
};

// The time n threads take over `work` (each item on one thread), longest first, each to the
// thread with the least so far.
int64_t makespan(const std::vector<int64_t>& work, int threads) {
  std::vector<int64_t> load(static_cast<size_t>(threads), 0);
  for (int64_t w : work) *std::min_element(load.begin(), load.end()) += w;
  return *std::max_element(load.begin(), load.end());
}

}  // namespace

ConcurrentExecutor concurrent_executor() {
  return static_cast<ConcurrentExecutor>(g_concurrent.load(std::memory_order_relaxed));
}
void set_concurrent_executor(ConcurrentExecutor mode) { g_concurrent.store(static_cast<int>(mode)); }

Status steps::run_with_slots(const RunArgs& args, std::vector<Tensor>* outputs, StepLoop loop) {
  const Plan& plan = args.plan;
  std::vector<Tensor> values(static_cast<size_t>(plan.num_slots));
  std::vector<Variable*> refs(static_cast<size_t>(plan.num_slots), nullptr);
  for (size_t i = 0; i < args.feeds.size(); ++i) values[static_cast<size_t>(plan.feed_slots[i])] = args.feeds[i].second;
  OPF_RETURN_IF_ERROR(loop(plan, args.resources, args.tracer, values, refs));
  outputs->clear();
  for (size_t i = 0; i < args.fetches.size(); ++i) {
    const size_t s = static_cast<size_t>(plan.fetch_slots[i]);
    if (refs[s] != nullptr && !values[s].initialized()) {  // a fetched variable: its value now
      outputs->emplace_back();
      OPF_RETURN_IF_ERROR(exec::read_variable(refs[s], args.graph.node(args.fetches[i].node).name, &outputs->back()));
    } else {
      outputs->push_back(values[s]);
    }
  }
  return Status::OK();
}

// The concurrent executor. Steps run in waves: a wave is every step whose inputs are ready.
// From the measured times of its steps (alone: over all threads; beside: on one thread while
// the others run other steps) a wave runs either step by step, each over all threads, or its
// k longest steps that way (k <= 2) and the rest at once, one thread each (their own
// parallel_for calls run inline), whichever the times say is quicker. A step not yet timed
// beside others is assumed to take 1.6x its time alone (so grouping gets tried where threads
// scale poorly), one never timed runs alone. Slots are dropped when their last reader has run
// (counted down at the end of each wave), and an input may be forwarded in place only when the
// step is its one reader left.
namespace {

using steps::Plan;
using steps::Readers;
using steps::Step;
using steps::StepRunner;
using steps::StepScratch;

Status run_steps(const Plan& plan, ResourceMgr* resources, StepTracer* tracer, std::vector<Tensor>& values,
                 std::vector<Variable*>& refs) {
  const size_t n = plan.steps.size();
  const Readers readers = steps::initial_readers(plan);
  const std::unique_ptr<std::atomic<int>[]> waiting = steps::initial_waits(plan);
  const StepRunner runner(plan, resources, tracer, values, refs, readers);
  std::vector<int> ready, wave;
  for (size_t i = 0; i < n; ++i)
    if (plan.steps[i].waits_on == 0) ready.push_back(static_cast<int>(i));
  std::mutex error_mu;
  Status error;
  StepScratch alone_scratch;
  // Runs step i. launch_error non-null: a step run on the collective thread. Its error goes
  // there (read once the launch is joined), not to `error`, which the wave loop reads unlocked;
  // and it never forwards an input (the reader counts are the wave loop's).
  const auto run_step = [&](int i, bool alone, StepScratch& sc, Status* launch_error) {
    const Status s = runner.run(i, alone, sc, launch_error == nullptr);
    if (s.ok()) return;
    if (launch_error != nullptr) {
      if (launch_error->ok()) *launch_error = s;
      return;
    }
    std::lock_guard<std::mutex> lock(error_mu);
    if (error.ok()) error = s;
  };
  const int threads = num_threads();
  const bool always = concurrent_executor() == ConcurrentExecutor::kAlways;
  struct Cost {
    int64_t beside, alone;
    int step;
  };
  std::vector<Cost> costs;
  std::vector<int64_t> work;
  // Runs a group of ready steps: some (longest first) alone over all threads, the rest at once,
  // one thread each, as the cost model says is quicker; `together` false: one at a time.
  const auto run_group = [&](std::vector<int>& group, bool together) -> Status {
    // The group's step times, read once (other runs of the plan may update them meanwhile),
    // longest first.
    costs.clear();
    bool timed = true;
    for (int i : group) {
      const int64_t a = plan.alone_ns[static_cast<size_t>(i)].load(std::memory_order_relaxed);
      const int64_t b = plan.beside_ns[static_cast<size_t>(i)].load(std::memory_order_relaxed);
      costs.push_back({b > 0 ? b : a * 8 / 5, a, i});
      timed = timed && (a > 0 || plan.steps[static_cast<size_t>(i)].precomputed);
    }
    if (together) {
      std::stable_sort(costs.begin(), costs.end(), [](const Cost& x, const Cost& y) { return x.beside > y.beside; });
      for (size_t k = 0; k < costs.size(); ++k) group[k] = costs[k].step;
    }
    // How many of the group's steps (longest first) run alone; the rest run at once.
    size_t first = group.size();
    if (!together) {
      // one at a time, in plan order
    } else if (group.size() >= 2 && always) {
      first = 0;
    } else if (group.size() >= 2 && timed) {
      int64_t best = 0;
      for (const Cost& c : costs) best += c.alone;
      int64_t head = 0;  // time of the steps run alone
      for (size_t k = 0; k <= 2 && k + 2 <= group.size(); ++k) {
        work.clear();
        for (size_t j = k; j < group.size(); ++j) work.push_back(costs[j].beside);
        const int64_t t = head + makespan(work, threads) + kGroupOverheadNs;
        if (t < best) {
          best = t;
          first = k;
        }
        head += costs[k].alone;
      }
    }
    for (size_t k = 0; k < std::min(first, group.size()); ++k) {
      run_step(group[k], true, alone_scratch, nullptr);
      if (!error.ok()) return error;
    }
    if (first < group.size()) {
      const int64_t count = static_cast<int64_t>(group.size() - first);
      const UnevenParts uneven;  // steps of different lengths, one per part
      parallel_for_parts(count, 1, static_cast<int>(count), [&](int64_t b, int64_t e) {
        StepScratch sc;
        for (int64_t k = b; k < e; ++k) run_step(group[first + static_cast<size_t>(k)], false, sc, nullptr);
      });
    }
    return error;
  };
  // Counts down what finished steps read, releases what nobody reads any more, and readies
  // their successors.
  const auto finish = [&](const std::vector<int>& steps) {
    for (int i : steps) runner.finish(i, waiting.get(), [&](int c) { ready.push_back(c); });
  };
  // Collective steps run on the collective thread, a wave's in plan order, while the next wave
  // computes; they are joined at the end of that next wave, or at once when nothing else is
  // ready. Waves depend only on the graph, so every process of a job hands its collectives
  // over in the same order (and Session::Impl::choose_executor never picks by timing for such
  // plans). `in_flight` holds at most two launches: the previous wave's and this one's.
  struct Launch {
    std::vector<int> steps;
    std::future<void> done;
    Status error;  // the first of its steps' errors (written by the collective thread)
  };
  std::deque<Launch> in_flight;
  struct JoinAtExit {  // an error return must not leave the collective thread using this frame
    std::deque<Launch>& launches;
    ~JoinAtExit() {
      for (Launch& l : launches)
        if (l.done.valid()) l.done.wait();
    }
  } join_at_exit{in_flight};
  const auto join_oldest = [&]() -> Status {
    Launch& l = in_flight.front();
    l.done.wait();
    const Status s = l.error;
    finish(l.steps);
    in_flight.pop_front();
    return s;
  };
  std::vector<int> writers, collectives;
  std::vector<Variable*> written;
  while (!ready.empty() || !in_flight.empty()) {
    if (ready.empty()) {
      OPF_RETURN_IF_ERROR(join_oldest());
      continue;
    }
    wave.swap(ready);
    ready.clear();
    if (plan.collectives) {
      collectives.clear();
      size_t kept_steps = 0;
      for (int i : wave) {
        if (plan.steps[static_cast<size_t>(i)].collective) {
          collectives.push_back(i);
        } else {
          wave[kept_steps++] = i;
        }
      }
      wave.resize(kept_steps);
      if (!collectives.empty()) {
        std::sort(collectives.begin(), collectives.end());
        in_flight.push_back({collectives, {}, Status()});
        Launch& launch = in_flight.back();  // (a deque: stays put while others are added or popped)
        launch.done = CollectiveThread::get().submit([&run_step, &launch] {
          StepScratch sc;
          for (int i : launch.steps) run_step(i, true, sc, &launch.error);
        });
      }
    }
    // Steps given a variable itself (a Ref argument: Assign, Apply*, Scatter*...) run after the
    // wave's other steps, which may read the variables they change; writers of one variable
    // run one at a time, in plan order.
    writers.clear();
    written.clear();
    size_t kept = 0;
    for (int i : wave) {
      const Step& st = plan.steps[static_cast<size_t>(i)];
      bool writes = false;
      for (size_t k = 0; k < st.pass_ref.size(); ++k) {
        if (!st.pass_ref[k]) continue;
        writes = true;
        written.push_back(refs[static_cast<size_t>(st.input_slots[k])]);
      }
      if (writes) {
        writers.push_back(i);
      } else {
        wave[kept++] = i;
      }
    }
    wave.resize(kept);
    std::sort(written.begin(), written.end());
    const bool distinct = std::adjacent_find(written.begin(), written.end()) == written.end();
    std::sort(writers.begin(), writers.end());
    OPF_RETURN_IF_ERROR(run_group(wave, true));
    OPF_RETURN_IF_ERROR(run_group(writers, distinct));
    wave.insert(wave.end(), writers.begin(), writers.end());
    finish(wave);
    wave.clear();
    if (in_flight.size() > 1 || (!in_flight.empty() && collectives.empty())) {
      // the previous wave's collectives (this wave launched none, or its own are the newer)
      OPF_RETURN_IF_ERROR(join_oldest());
    }
  }
  return Status::OK();
}

class ConcurrentWaveExecutor final : public Executor {
 public:
  Status run(const RunArgs& args, std::vector<Tensor>* outputs) const override {
    return steps::run_with_slots(args, outputs, run_steps);
  }
};

}  // namespace

const Executor& executors::concurrent() {
  static const ConcurrentWaveExecutor executor;
  return executor;
}

// A concurrent plan's first runs at a feed shape time both executors: runs 0-2 one step at a
// time (warm-up: first allocations, derived constants; they give the concurrent executor its
// step times), runs 3-10 alternating one step at a time / concurrent; from run 11 on, the
// quicker by its best run goes on (concurrent only when at least 3% quicker). Wall time
// decides, so what the step times cannot see (cache locality, contention for memory) counts too.
Session::Impl::ExecutorChoice Session::Impl::choose_executor(const Plan& plan,
                                                             const std::vector<std::pair<TensorRef, Tensor>>& feeds) {
  ExecutorChoice choice;
  const ConcurrentExecutor mode = concurrent_executor();
  if (plan.collectives) {
    // Every process of the job must run the collectives in one order: the waves' (which
    // overlap them with computation), or plan order; never a choice made by timing.
    choice.concurrent = plan.concurrent && mode != ConcurrentExecutor::kOff;
    return choice;
  }
  if (!plan.concurrent || num_threads() <= 1 || mode == ConcurrentExecutor::kOff) return choice;
  if (mode == ConcurrentExecutor::kAlways) {
    choice.concurrent = true;
    return choice;
  }
  // A busy machine (a region lately waited out a worker the OS had descheduled): fork-join
  // regions then run inline, one thread for the whole run, so a stateless plan runs on the team
  // loop, which keeps the second thread busy with whole steps wherever the graph has
  // independent ones. The tuned choice returns once regions have seen no straggler for a while.
  if (plan.stateless && (mode == ConcurrentExecutor::kTeam || machine_busy())) {
    choice.team = true;
    return choice;
  }
  std::vector<int64_t> key;
  for (const auto& f : feeds) {
    key.push_back(f.second.rank());
    for (int d = 0; d < f.second.rank(); ++d) key.push_back(f.second.dim(d));
  }
  std::lock_guard<std::mutex> lock(plan.tuning_mu);
  auto it = plan.tuning.find(key);
  if (it == plan.tuning.end()) {
    if (plan.tuning.size() >= kMaxTunedShapes) return choice;
    it = plan.tuning.emplace(std::move(key), Plan::Tuning()).first;
  }
  Plan::Tuning& t = it->second;
  const int run = t.runs <= kLastTuningRun ? t.runs++ : t.runs;
  if (run > kLastTuningRun) {
    // (Both timed: a run can reach the decision before other threads' timing runs finish.)
    const bool timed_both = t.concurrent_ns != INT64_MAX && t.one_at_a_time_ns != INT64_MAX;
    choice.concurrent = timed_both && t.concurrent_ns < t.one_at_a_time_ns / 100 * 97;
  } else {
    choice.concurrent = run >= kFirstTuningRun && run % 2 == 0;
    if (run >= kFirstTuningRun) choice.timing = &t;  // map entries stay put: std::map
  }
  return choice;
}

}  // namespace opforge
