// Collectives over MPI (see collective.h).
#include "src/collective.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "opforge/half.h"

#ifdef OPFORGE_WITH_MPI
#include <mpi.h>
#endif

namespace opforge {
namespace collective {
namespace {

#ifdef OPFORGE_WITH_MPI
// The record every process contributes before a collective: kind, keys, group size, dtype,
// rank and dims of its tensor, and (reductions) merge and final op.
constexpr int kRecordLen = 16;
constexpr int kMaxDims = 8;
enum Field { kKind = 0, kGroupKey, kInstanceKey, kGroupSize, kDType, kRank, kDims, kMergeOp = kDims + kMaxDims };

const char* kind_name(int64_t k) {
  switch (static_cast<Kind>(k)) {
    case Kind::kReduce:
      return "an all-reduce";
    case Kind::kGather:
      return "an all-gather";
    case Kind::kBcastSend:
      return "a broadcast (sending)";
    case Kind::kBcastRecv:
      return "a broadcast (receiving)";
  }
  return "an unknown collective";
}

const char* merge_name(int64_t m) {
  switch (static_cast<Merge>(m / 2)) {
    case Merge::kAdd:
      return m % 2 ? "Add/Div" : "Add/Id";
    case Merge::kMul:
      return m % 2 ? "Mul/Div" : "Mul/Id";
    case Merge::kMin:
      return m % 2 ? "Min/Div" : "Min/Id";
    case Merge::kMax:
      return m % 2 ? "Max/Div" : "Max/Id";
  }
  return "?";
}

bool is_bcast(int64_t k) {
  return k == static_cast<int64_t>(Kind::kBcastSend) || k == static_cast<int64_t>(Kind::kBcastRecv);
}

Status make_record(const Request& r, DType dtype, const Shape& shape, int64_t* rec) {
  std::fill(rec, rec + kRecordLen, int64_t{0});
  if (shape.rank() > kMaxDims) {
    return errors::Unimplemented(r.op, ": collectives take tensors of rank <= ", kMaxDims, ", got ", shape.to_string());
  }
  rec[kKind] = static_cast<int64_t>(r.kind);
  rec[kGroupKey] = r.group_key;
  rec[kInstanceKey] = r.instance_key;
  rec[kGroupSize] = r.group_size;
  rec[kDType] = static_cast<int64_t>(dtype);
  rec[kRank] = shape.rank();
  for (int d = 0; d < shape.rank(); ++d) rec[kDims + d] = shape.dim(d);
  if (r.kind == Kind::kReduce) rec[kMergeOp] = static_cast<int64_t>(r.merge) * 2 + (r.divide ? 1 : 0);
  return Status::OK();
}

// "float32[4,5]" of a record.
std::string tensor_of(const int64_t* rec) {
  std::string s = dtype_name(static_cast<DType>(rec[kDType])) + "[";
  for (int64_t d = 0; d < rec[kRank]; ++d) s += (d ? "," : "") + std::to_string(rec[kDims + d]);
  return s + "]";
}

bool same_dims(const int64_t* a, const int64_t* b, int from) {
  if (a[kRank] != b[kRank]) return false;
  for (int64_t d = from; d < a[kRank]; ++d)
    if (a[kDims + d] != b[kDims + d]) return false;
  return true;
}

// Checks that the records of all `size` processes describe one collective; every process
// reaches the same verdict (and message) from the same records. Sets *root for a broadcast.
Status check_records(const Request& r, const std::vector<int64_t>& all, int size, int* root) {
  const auto rec = [&](int p) { return &all[static_cast<size_t>(p) * kRecordLen]; };
  const int64_t* first = rec(0);
  const std::string at =
      errors::StrCat(r.op, " (group_key ", first[kGroupKey], ", instance_key ", first[kInstanceKey], "): ");
  for (int p = 1; p < size; ++p) {
    const int64_t* o = rec(p);
    const bool same_kind = o[kKind] == first[kKind] || (is_bcast(o[kKind]) && is_bcast(first[kKind]));
    if (!same_kind || o[kGroupKey] != first[kGroupKey] || o[kInstanceKey] != first[kInstanceKey]) {
      return errors::InvalidArgument(
          at, "the processes are at different collectives: rank 0 runs ", kind_name(first[kKind]), " with group_key ",
          first[kGroupKey], " and instance_key ", first[kInstanceKey], ", rank ", p, " runs ", kind_name(o[kKind]),
          " with group_key ", o[kGroupKey], " and instance_key ", o[kInstanceKey],
          " (every process must run the same collectives in the same order)");
    }
  }
  for (int p = 0; p < size; ++p) {
    if (rec(p)[kGroupSize] != size) {
      return errors::InvalidArgument(at, "rank ", p, " passes group_size ", rec(p)[kGroupSize], " but the job has ",
                                     size, " processes: opforge's collectives span every process of the MPI job");
    }
  }
  for (int p = 1; p < size; ++p) {
    if (rec(p)[kDType] != first[kDType]) {
      return errors::InvalidArgument(at, "rank 0 passes ", tensor_of(first), " but rank ", p, " passes ",
                                     tensor_of(rec(p)), ": the dtypes must match");
    }
  }
  if (first[kKind] == static_cast<int64_t>(Kind::kReduce)) {
    for (int p = 1; p < size; ++p) {
      if (!same_dims(rec(p), first, 0)) {
        return errors::InvalidArgument(at, "rank 0 passes ", tensor_of(first), " but rank ", p, " passes ",
                                       tensor_of(rec(p)), ": an all-reduce needs the same shape on every process");
      }
      if (rec(p)[kMergeOp] != first[kMergeOp]) {
        return errors::InvalidArgument(at, "rank 0 reduces with ", merge_name(first[kMergeOp]), " but rank ", p,
                                       " with ", merge_name(rec(p)[kMergeOp]));
      }
    }
  } else if (first[kKind] == static_cast<int64_t>(Kind::kGather)) {
    for (int p = 0; p < size; ++p) {
      if (rec(p)[kRank] < 1 || !same_dims(rec(p), first, 1)) {
        return errors::InvalidArgument(at, "rank 0 passes ", tensor_of(first), " but rank ", p, " passes ",
                                       tensor_of(rec(p)),
                                       ": an all-gather needs tensors of rank >= 1 that differ only in dimension 0");
      }
    }
  } else {
    std::vector<int> senders;
    for (int p = 0; p < size; ++p)
      if (rec(p)[kKind] == static_cast<int64_t>(Kind::kBcastSend)) senders.push_back(p);
    if (senders.size() != 1) {
      std::string who;
      for (int p : senders) who += (who.empty() ? "" : ", ") + std::to_string(p);
      return errors::InvalidArgument(at, "a broadcast needs exactly one sending process, got ", senders.size(),
                                     senders.empty() ? "" : " (ranks " + who + ")");
    }
    *root = senders[0];
    for (int p = 0; p < size; ++p) {
      if (!same_dims(rec(p), rec(*root), 0)) {
        return errors::InvalidArgument(at, "rank ", *root, " sends ", tensor_of(rec(*root)), " but rank ", p,
                                       " expects ", tensor_of(rec(p)));
      }
    }
  }
  return Status::OK();
}

// out = in op out, element-wise, for the dtypes MPI has no reduction for (computed in float).
template <typename T>
void reduce_into(Merge m, const T* in, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float a = static_cast<float>(in[i]), b = static_cast<float>(out[i]);
    float v = 0;
    switch (m) {
      case Merge::kAdd:
        v = a + b;
        break;
      case Merge::kMul:
        v = a * b;
        break;
      case Merge::kMin:
        v = std::min(a, b);
        break;
      case Merge::kMax:
        v = std::max(a, b);
        break;
    }
    out[i] = T(v);
  }
}

// final_op Div: output /= group_size (integer division for integers, as TensorFlow's Div;
// 16-bit floats divide in float).
void divide(Tensor* t, int64_t by) {
  visit_dtype(t->dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_arithmetic_v<T>) {
      using C = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
      T* p = t->data<T>();
      for (int64_t i = 0; i < t->num_elements(); ++i) p[i] = static_cast<T>(static_cast<C>(p[i]) / static_cast<C>(by));
    } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      T* p = t->data<T>();
      for (int64_t i = 0; i < t->num_elements(); ++i) p[i] = T(static_cast<float>(p[i]) / static_cast<float>(by));
    }
  });
}

#endif  // OPFORGE_WITH_MPI

void copy_into(const Tensor& from, Tensor* to) {
  const size_t bytes = static_cast<size_t>(from.num_elements()) * dtype_size(from.dtype());
  if (bytes && to->raw_data() != from.raw_data()) std::memcpy(to->raw_data(), from.raw_data(), bytes);
}

#ifndef OPFORGE_WITH_MPI
Status no_mpi(const Request& r) {
  return errors::FailedPrecondition(
      r.op, ": group_size ", r.group_size,
      " needs MPI, and this opforge was built without it: install OpenMPI (Debian/Ubuntu: apt-get install "
      "libopenmpi-dev openmpi-bin) and reinstall opforge (pip install .), then start the job with mpirun -np ",
      r.group_size);
}
#else

struct State {
  std::mutex mu;  // one collective (or init) at a time
  World world;
  bool started_by_us = false;
  std::string broken;  // why the job's collectives cannot go on (a timed-out collective), or ""
  MPI_Op half_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  MPI_Op bf16_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
};
State& state() {
  static State* s = new State;  // never destroyed: used by atexit's finalize
  return *s;
}

Status mpi_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return Status::OK();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return errors::Internal(what, " failed: ", std::string(text, static_cast<size_t>(len)));
}

template <typename T, Merge M>
void mpi_reduce_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  reduce_into<T>(M, static_cast<const T*>(in), static_cast<T*>(inout), *len);
}

template <typename T>
void make_ops(MPI_Op* ops) {
  MPI_Op_create(&mpi_reduce_fn<T, Merge::kAdd>, 1, &ops[0]);
  MPI_Op_create(&mpi_reduce_fn<T, Merge::kMul>, 1, &ops[1]);
  MPI_Op_create(&mpi_reduce_fn<T, Merge::kMin>, 1, &ops[2]);
  MPI_Op_create(&mpi_reduce_fn<T, Merge::kMax>, 1, &ops[3]);
}

Status init_locked(State& s) {
  if (s.world.initialized) return Status::OK();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return errors::FailedPrecondition("MPI has been finalized in this process");
  int initialized = 0, provided = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    OPF_RETURN_IF_ERROR(
        mpi_status(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread"));
    s.started_by_us = true;
    std::atexit(finalize);
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    return errors::FailedPrecondition("MPI gives thread level ", provided,
                                      ": opforge's collectives need MPI_THREAD_SERIALIZED or more");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.world.size);
  MPI_Comm local;
  OPF_RETURN_IF_ERROR(
      mpi_status(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s.world.rank, MPI_INFO_NULL, &local),
                 "MPI_Comm_split_type"));
  MPI_Comm_rank(local, &s.world.local_rank);
  MPI_Comm_size(local, &s.world.local_size);
  MPI_Comm_free(&local);
  make_ops<half>(s.half_ops);
  make_ops<bfloat16>(s.bf16_ops);
  s.world.initialized = true;
  return Status::OK();
}

// Waits for a non-blocking MPI call, at most r.timeout_seconds; a timeout leaves the call
// pending, so the job's collectives are marked broken.
Status wait(State& s, const Request& r, MPI_Request* req, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  for (int spins = 0;; ++spins) {
    int done = 0;
    OPF_RETURN_IF_ERROR(mpi_status(MPI_Test(req, &done, MPI_STATUS_IGNORE), what));
    if (done) return Status::OK();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > r.timeout_seconds) {
      s.broken = errors::StrCat(r.op, " (group_key ", r.group_key, ", instance_key ", r.instance_key,
                                ") timed out after ", r.timeout_seconds, " s");
      return errors::DeadlineExceeded(r.op, " (group_key ", r.group_key, ", instance_key ", r.instance_key, "): rank ",
                                      s.world.rank, " waited ", r.timeout_seconds,
                                      " s (timeout_seconds) for the other processes of the job to join ", what,
                                      "; a process has stopped or runs other collectives");
    }
    if (spins > 64) std::this_thread::yield();
  }
}

// Exchanges the records; returns the broadcast root in *root.
Status negotiate(State& s, const Request& r, DType dtype, const Shape& shape, std::vector<int64_t>* all, int* root) {
  if (!s.broken.empty()) {
    return errors::FailedPrecondition(r.op, ": the job's collectives cannot go on: ", s.broken);
  }
  int64_t rec[kRecordLen];
  OPF_RETURN_IF_ERROR(make_record(r, dtype, shape, rec));
  all->assign(static_cast<size_t>(s.world.size) * kRecordLen, 0);
  if (r.timeout_seconds > 0) {
    MPI_Request req;
    OPF_RETURN_IF_ERROR(mpi_status(
        MPI_Iallgather(rec, kRecordLen, MPI_INT64_T, all->data(), kRecordLen, MPI_INT64_T, MPI_COMM_WORLD, &req),
        "MPI_Iallgather"));
    OPF_RETURN_IF_ERROR(wait(s, r, &req, "the collective"));
  } else {
    OPF_RETURN_IF_ERROR(
        mpi_status(MPI_Allgather(rec, kRecordLen, MPI_INT64_T, all->data(), kRecordLen, MPI_INT64_T, MPI_COMM_WORLD),
                   "MPI_Allgather"));
  }
  return check_records(r, *all, s.world.size, root);
}

// One collective under way: the state locked, MPI started, the group's size checked and the
// processes' records exchanged and checked (all; root: the broadcast's sender).
struct Exchange {
  std::unique_lock<std::mutex> lock;
  State* state = nullptr;
  std::vector<int64_t> all;
  int root = 0;
};

Status begin(const Request& r, DType dtype, const Shape& shape, Exchange* ex) {
  State& s = state();
  ex->lock = std::unique_lock<std::mutex>(s.mu);
  OPF_RETURN_IF_ERROR(init_locked(s));
  if (s.world.size != r.group_size) {
    return errors::InvalidArgument(r.op, ": group_size ", r.group_size, " but the job has ", s.world.size, " process",
                                   s.world.size == 1 ? "" : "es",
                                   ": opforge's collectives span every process of the MPI job (mpirun -np ",
                                   r.group_size, " ...)");
  }
  ex->state = &s;
  return negotiate(s, r, dtype, shape, &ex->all, &ex->root);
}

constexpr int64_t kChunk = int64_t{1} << 30;  // elements per MPI call (counts are ints)

#endif  // OPFORGE_WITH_MPI

}  // namespace

bool built_with_mpi() {
#ifdef OPFORGE_WITH_MPI
  return true;
#else
  return false;
#endif
}

Status init() {
#ifdef OPFORGE_WITH_MPI
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return init_locked(s);
#else
  return errors::FailedPrecondition(
      "opforge was built without MPI: install OpenMPI (Debian/Ubuntu: apt-get install libopenmpi-dev openmpi-bin) "
      "and reinstall opforge (pip install .)");
#endif
}

World world() {
#ifdef OPFORGE_WITH_MPI
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.world;
#else
  return World();
#endif
}

void finalize() {
#ifdef OPFORGE_WITH_MPI
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (s.started_by_us && initialized && !finalized) MPI_Finalize();
  s.world.initialized = false;
#endif
}

void abort_job(int code, const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
#ifdef OPFORGE_WITH_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
#endif
}

Status all_reduce(const Request& r, const Tensor& input, Tensor* output) {
  if (r.group_size == 1) {
    copy_into(input, output);
    return Status::OK();
  }
#ifdef OPFORGE_WITH_MPI
  Exchange ex;
  OPF_RETURN_IF_ERROR(begin(r, input.dtype(), input.shape(), &ex));
  State& s = *ex.state;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  const int m = static_cast<int>(r.merge) - 1;
  static const MPI_Op kBuiltin[4] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
  switch (input.dtype()) {
    case DType::kFloat:
      type = MPI_FLOAT;
      op = kBuiltin[m];
      break;
    case DType::kDouble:
      type = MPI_DOUBLE;
      op = kBuiltin[m];
      break;
    case DType::kInt32:
      type = MPI_INT32_T;
      op = kBuiltin[m];
      break;
    case DType::kInt64:
      type = MPI_INT64_T;
      op = kBuiltin[m];
      break;
    case DType::kHalf:
      type = MPI_UINT16_T;
      op = s.half_ops[m];
      break;
    case DType::kBFloat16:
      type = MPI_UINT16_T;
      op = s.bf16_ops[m];
      break;
    default:
      return errors::InvalidArgument(r.op, ": cannot reduce ", dtype_name(input.dtype()));
  }
  const size_t esize = dtype_size(input.dtype());
  const char* in = static_cast<const char*>(input.raw_data());
  char* out = static_cast<char*>(output->raw_data());
  const bool in_place = in == out;  // MPI_IN_PLACE: the output holds this process's values
  for (int64_t b = 0, n = input.num_elements(); b < n; b += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, n - b));
    const size_t off = static_cast<size_t>(b) * esize;
    if (r.timeout_seconds > 0) {
      MPI_Request req;
      OPF_RETURN_IF_ERROR(mpi_status(
          MPI_Iallreduce(in_place ? MPI_IN_PLACE : in + off, out + off, count, type, op, MPI_COMM_WORLD, &req),
          "MPI_Iallreduce"));
      OPF_RETURN_IF_ERROR(wait(s, r, &req, "the all-reduce"));
    } else {
      OPF_RETURN_IF_ERROR(
          mpi_status(MPI_Allreduce(in_place ? MPI_IN_PLACE : in + off, out + off, count, type, op, MPI_COMM_WORLD),
                     "MPI_Allreduce"));
    }
  }
  if (r.divide) divide(output, r.group_size);
  return Status::OK();
#else
  return no_mpi(r);
#endif
}

Status all_gather(const Request& r, const Tensor& input, Tensor* output) {
  if (input.rank() < 1) return errors::InvalidArgument(r.op, ": the input must have rank >= 1, got a scalar");
  if (r.group_size == 1) {
    OPF_RETURN_IF_ERROR(Tensor::Allocate(input.dtype(), input.shape(), output));
    copy_into(input, output);
    return Status::OK();
  }
#ifdef OPFORGE_WITH_MPI
  Exchange ex;
  OPF_RETURN_IF_ERROR(begin(r, input.dtype(), input.shape(), &ex));
  State& s = *ex.state;
  int64_t row_bytes = static_cast<int64_t>(dtype_size(input.dtype()));
  for (int d = 1; d < input.rank(); ++d) row_bytes *= input.dim(d);
  std::vector<int> counts(static_cast<size_t>(s.world.size)), displs(static_cast<size_t>(s.world.size));
  int64_t rows = 0, offset = 0;
  for (int p = 0; p < s.world.size; ++p) {
    const int64_t n = ex.all[static_cast<size_t>(p) * kRecordLen + kDims];
    const int64_t bytes = n * row_bytes;
    if (bytes > INT_MAX || offset > INT_MAX) {
      return errors::Unimplemented(r.op, ": all-gathers of more than 2 GiB are not supported");
    }
    counts[static_cast<size_t>(p)] = static_cast<int>(bytes);
    displs[static_cast<size_t>(p)] = static_cast<int>(offset);
    rows += n;
    offset += bytes;
  }
  std::vector<int64_t> dims = input.shape().dims();
  dims[0] = rows;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(input.dtype(), Shape(dims), output));
  const int mine = counts[static_cast<size_t>(s.world.rank)];
  if (r.timeout_seconds > 0) {
    MPI_Request req;
    OPF_RETURN_IF_ERROR(mpi_status(MPI_Iallgatherv(input.raw_data(), mine, MPI_BYTE, output->raw_data(), counts.data(),
                                                   displs.data(), MPI_BYTE, MPI_COMM_WORLD, &req),
                                   "MPI_Iallgatherv"));
    return wait(s, r, &req, "the all-gather");
  }
  return mpi_status(MPI_Allgatherv(input.raw_data(), mine, MPI_BYTE, output->raw_data(), counts.data(), displs.data(),
                                   MPI_BYTE, MPI_COMM_WORLD),
                    "MPI_Allgatherv");
#else
  return no_mpi(r);
#endif
}

Status broadcast(const Request& r, Tensor* tensor) {
  if (r.group_size == 1) {
    if (r.kind == Kind::kBcastRecv) {
      return errors::InvalidArgument(r.op, ": a broadcast receiver in a group of one process has no sender");
    }
    return Status::OK();
  }
#ifdef OPFORGE_WITH_MPI
  Exchange ex;
  OPF_RETURN_IF_ERROR(begin(r, tensor->dtype(), tensor->shape(), &ex));
  State& s = *ex.state;
  char* data = static_cast<char*>(tensor->raw_data());
  const int64_t bytes = tensor->num_elements() * static_cast<int64_t>(dtype_size(tensor->dtype()));
  for (int64_t b = 0; b < bytes; b += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, bytes - b));
    if (r.timeout_seconds > 0) {
      MPI_Request req;
      OPF_RETURN_IF_ERROR(
          mpi_status(MPI_Ibcast(data + b, count, MPI_BYTE, ex.root, MPI_COMM_WORLD, &req), "MPI_Ibcast"));
      OPF_RETURN_IF_ERROR(wait(s, r, &req, "the broadcast"));
    } else {
      OPF_RETURN_IF_ERROR(mpi_status(MPI_Bcast(data + b, count, MPI_BYTE, ex.root, MPI_COMM_WORLD), "MPI_Bcast"));
    }
  }
  return Status::OK();
#else
  return no_mpi(r);
#endif
}

}  // namespace collective
}  // namespace opforge
