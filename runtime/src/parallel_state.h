// What the thread pool (parallel.cc) knows of the machine's load, for tests and the step
// tracer: not part of the installed API.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace opforge {

// Whether parallel regions currently run on their calling thread alone because a recent
// region waited out a worker the OS had descheduled (other processes wanted the cores).
bool parallel_contended();

// One turn of a spin-wait: the CPU's pause hint (the core stays this thread's).
void cpu_relax();

// Whether a region waited out a descheduled worker within the last `window`: how the Session
// tells a machine other processes keep busy (regions themselves go inline for a shorter while).
bool parallel_contended_within(std::chrono::milliseconds window);

// Counts as a region that waited out a descheduled worker, for parallel_contended_within only:
// the team loop's report that the OS kept its thread waiting for a core (it has no regions
// that could see a straggler).
void parallel_note_contended();

// Runs fn(t) once for each of the num_threads() threads, t = 0 on the calling thread and the
// rest on the pool's workers as they come free: for a loop that balances itself over threads
// (a shared queue of work), so it goes to the workers even while regions are contended. A part
// no worker has started when the caller's returns runs on the caller. Inside, parallel_for
// runs inline.
void parallel_team(const std::function<void(int)>& fn);

// Set (on the calling thread) around a region whose parts are not meant to take the same time
// (the concurrent executor's groups: one step per part), so that a long part is not taken
// for a descheduled worker.
struct UnevenParts {
  UnevenParts();
  ~UnevenParts();
  UnevenParts(const UnevenParts&) = delete;
  UnevenParts& operator=(const UnevenParts&) = delete;
};

// Runs a parallel region of `parts` parts over the pool in which part 1 (when there is one)
// busy-waits `slow_part_us` microseconds, as a worker kept off its core would hold its part
// (and part 0, the caller's, 300 microseconds when slow_part_us > 0, so that a worker has
// claimed part 1 by then); returns how many distinct threads ran parts.
int parallel_probe(int parts, int64_t slow_part_us);

}  // namespace opforge
