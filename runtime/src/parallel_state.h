// What the thread pool (parallel.cc) knows of the machine's load, for tests and the step
// tracer: not part of the installed API.
#pragma once

#include <cstdint>

namespace opforge {

// Whether parallel regions currently run on their calling thread alone because a recent
// region waited out a worker the OS had descheduled (other processes wanted the cores).
bool parallel_contended();

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
