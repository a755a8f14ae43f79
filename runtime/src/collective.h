// Collectives across the processes of a job: what the collective ops' kernels
// (kernels/cpu/collective) and opforge.distribute's bindings call. The transport is MPI
// (OpenMPI or any MPI-3 library found by CMake: OPFORGE_WITH_MPI); without it only groups of
// one process work, and larger ones fail with an error naming the package to install.
//
// Every collective first exchanges a small record per process (what it is, its keys, dtype and
// shape) with MPI_Allgather, so a process that runs another collective, or passes another dtype
// or shape, makes every process fail with the same InvalidArgument naming the ranks, instead of
// hanging or reducing garbage. One collective at a time per process (a mutex): the executors
// run a graph's collectives in one order on every process (concurrent_executor.cc).
#pragma once

#include <cstdint>
#include <string>

#include "opforge/status.h"
#include "opforge/tensor.h"

namespace opforge {
namespace collective {

enum class Kind : int64_t { kReduce = 1, kGather = 2, kBcastSend = 3, kBcastRecv = 4 };
enum class Merge : int64_t { kAdd = 1, kMul = 2, kMin = 3, kMax = 4 };

// What one process passes to a collective op.
struct Request {
  const char* op = "";  // the op's name, for messages
  Kind kind = Kind::kReduce;
  int64_t group_size = 1, group_key = 0, instance_key = 0;
  double timeout_seconds = 0;  // > 0: fail with DeadlineExceeded after waiting this long
  Merge merge = Merge::kAdd;   // kReduce
  bool divide = false;         // kReduce: final_op Div
};

struct World {
  bool initialized = false;            // MPI has been started (by opforge or another library)
  int rank = 0, size = 1;              // in MPI_COMM_WORLD
  int local_rank = 0, local_size = 1;  // among the processes on this machine
};

// Whether this build has MPI.
bool built_with_mpi();
// Starts MPI once per process (MPI_Init_thread, or joins an MPI another library started);
// FailedPrecondition when built without MPI.
Status init();
World world();
// Ends MPI if opforge started it (idempotent; also run at exit).
void finalize();
// Ends the whole job (MPI_Abort) after printing `message` to stderr; returns only without MPI.
void abort_job(int code, const std::string& message);

// input -> output (allocated by the caller, input's dtype and shape; may be input itself): the
// element-wise reduction over the group, divided by group_size for final_op Div.
Status all_reduce(const Request& r, const Tensor& input, Tensor* output);
// input -> *output (allocated here): the group's inputs concatenated along dimension 0.
Status all_gather(const Request& r, const Tensor& input, Tensor* output);
// kBcastSend: sends `tensor`; kBcastRecv: receives into `tensor` (allocated by the caller with
// the dtype and shape expected).
Status broadcast(const Request& r, Tensor* tensor);

}  // namespace collective
}  // namespace opforge
