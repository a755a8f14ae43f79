// Collective ops (TensorFlow's CollectiveReduceV2, CollectiveGatherV2, CollectiveBcastSendV2 /
// RecvV2 and their TF1 forms with the keys as attrs) over runtime/src/collective.h: the
// kernels turn their arguments into a collective::Request; the exchange, its checks across
// processes and the MPI calls are there.
#include <cstring>
#include <string>

#include "opforge/kernel.h"
#include "opforge/ops/collective/_collective_reduce_group.h"
#include "opforge/ops/collective/collective_bcast_recv.h"
#include "opforge/ops/collective/collective_bcast_recv_v2.h"
#include "opforge/ops/collective/collective_bcast_send.h"
#include "opforge/ops/collective/collective_bcast_send_v2.h"
#include "opforge/ops/collective/collective_gather.h"
#include "opforge/ops/collective/collective_gather_v2.h"
#include "opforge/ops/collective/collective_reduce.h"
#include "opforge/ops/collective/collective_reduce_v2.h"
#include "src/collective.h"

namespace opforge {
namespace {

using collective::Kind;
using collective::Merge;
using collective::Request;

// The keys of a V2 op (scalar int32 inputs) or a TF1 op (attrs). (The fused all-reduce has no
// timeout of its own beyond the attr, as the V2 ops.)
template <typename Args>
Status keys_from_inputs(const Args& a, Kind kind, Request* r) {
  for (const Tensor* t : {&a.group_size, &a.group_key, &a.instance_key}) {
    if (t->num_elements() != 1) {
      return a.ctx.error("group_size, group_key and instance_key must be scalars, got a tensor of shape ",
                         t->shape().to_string());
    }
  }
  r->op = Args::kOpName;
  r->kind = kind;
  r->group_size = a.group_size.template scalar<int32_t>();
  r->group_key = a.group_key.template scalar<int32_t>();
  r->instance_key = a.instance_key.template scalar<int32_t>();
  r->timeout_seconds = a.timeout_seconds;
  if (r->group_size < 1) return a.ctx.error("group_size must be >= 1, got ", r->group_size);
  return Status::OK();
}

template <typename Args>
Status keys_from_attrs(const Args& a, Kind kind, Request* r) {
  r->op = Args::kOpName;
  r->kind = kind;
  r->group_size = a.group_size;
  r->group_key = a.group_key;
  r->instance_key = a.instance_key;
  r->timeout_seconds = a.timeout_seconds;
  if (r->group_size < 1) return a.ctx.error("group_size must be >= 1, got ", r->group_size);
  return Status::OK();
}

template <typename Args>
Status no_ordering_tokens(const Args& a) {
  if (a.Nordering_token != 0) {
    return a.ctx.error("ordering tokens (Nordering_token ", a.Nordering_token, ") are not supported");
  }
  return Status::OK();
}

Merge merge_of(const std::string& m) {
  if (m == "Mul") return Merge::kMul;
  if (m == "Min") return Merge::kMin;
  if (m == "Max") return Merge::kMax;
  return Merge::kAdd;  // the opdef allows only these four
}

template <typename Args>
Status reduce(Args& a, Request& r) {
  r.merge = merge_of(a.merge_op);
  r.divide = a.final_op == "Div";
  return collective::all_reduce(r, a.input, &a.data);
}

template <typename T>
Status CollectiveReduceV2Cpu(ops::CollectiveReduceV2Args& a) {
  OPF_RETURN_IF_ERROR(no_ordering_tokens(a));
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_inputs(a, Kind::kReduce, &r));
  return reduce(a, r);
}

template <typename T>
Status CollectiveReduceCpu(ops::CollectiveReduceArgs& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_attrs(a, Kind::kReduce, &r));
  return reduce(a, r);
}

// The fused all-reduce: the inputs packed into one buffer, one exchange, unpacked into the
// outputs (allocated from the inputs' shapes).
template <typename T>
Status CollectiveReduceGroupCpu(ops::_CollectiveReduceGroupArgs& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_inputs(a, Kind::kReduce, &r));
  r.merge = merge_of(a.merge_op);
  r.divide = a.final_op == "Div";
  int64_t total = 0;
  for (int i = 0; i < a.input.size; ++i) total += a.input[i].num_elements();
  Tensor packed;
  OPF_RETURN_IF_ERROR(Tensor::Allocate(a.T, Shape({total}), &packed));
  const size_t esize = dtype_size(a.T);
  size_t off = 0;
  for (int i = 0; i < a.input.size; ++i) {
    const size_t bytes = static_cast<size_t>(a.input[i].num_elements()) * esize;
    if (bytes) std::memcpy(static_cast<char*>(packed.raw_data()) + off, a.input[i].raw_data(), bytes);
    off += bytes;
  }
  OPF_RETURN_IF_ERROR(collective::all_reduce(r, packed, &packed));  // in place
  off = 0;
  for (int i = 0; i < a.input.size; ++i) {
    Tensor& out = a.ctx.output(i);
    const size_t bytes = static_cast<size_t>(out.num_elements()) * esize;
    if (bytes) std::memcpy(out.raw_data(), static_cast<const char*>(packed.raw_data()) + off, bytes);
    off += bytes;
  }
  return Status::OK();
}

// The gathers allocate their output: its first dimension is the sum of the processes'.
template <typename T>
Status CollectiveGatherV2Cpu(ops::CollectiveGatherV2Args& a) {
  OPF_RETURN_IF_ERROR(no_ordering_tokens(a));
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_inputs(a, Kind::kGather, &r));
  return collective::all_gather(r, a.input, &a.data);
}

template <typename T>
Status CollectiveGatherCpu(ops::CollectiveGatherArgs& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_attrs(a, Kind::kGather, &r));
  return collective::all_gather(r, a.input, &a.data);
}

// The senders output their input (the same buffer) once it is sent.
template <typename Args>
Status send(Args& a, const Request& r) {
  Tensor t = a.input;
  OPF_RETURN_IF_ERROR(collective::broadcast(r, &t));
  a.data = t;
  return Status::OK();
}

template <typename T>
Status CollectiveBcastSendV2Cpu(ops::CollectiveBcastSendV2Args& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_inputs(a, Kind::kBcastSend, &r));
  return send(a, r);
}

template <typename T>
Status CollectiveBcastSendCpu(ops::CollectiveBcastSendArgs& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_attrs(a, Kind::kBcastSend, &r));
  return send(a, r);
}

template <typename T>
Status CollectiveBcastRecvV2Cpu(ops::CollectiveBcastRecvV2Args& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_inputs(a, Kind::kBcastRecv, &r));
  return collective::broadcast(r, &a.data);
}

template <typename T>
Status CollectiveBcastRecvCpu(ops::CollectiveBcastRecvArgs& a) {
  Request r;
  OPF_RETURN_IF_ERROR(keys_from_attrs(a, Kind::kBcastRecv, &r));
  return collective::broadcast(r, &a.data);
}

#define OPF_REDUCIBLE bfloat16, float, half, double, int32_t, int64_t
#define OPF_GATHERABLE float, half, double, int32_t, int64_t
#define OPF_BROADCASTABLE bool, float, half, double, int32_t, int64_t

}  // namespace

OPFORGE_REGISTER_KERNEL(CollectiveReduceV2, CPU, CollectiveReduceV2Cpu, OPF_REDUCIBLE)
OPFORGE_REGISTER_KERNEL(CollectiveReduce, CPU, CollectiveReduceCpu, OPF_REDUCIBLE)
OPFORGE_REGISTER_KERNEL(_CollectiveReduceGroup, CPU, CollectiveReduceGroupCpu, OPF_REDUCIBLE)
OPFORGE_REGISTER_FORWARDING_KERNEL(CollectiveGatherV2, CPU, CollectiveGatherV2Cpu, OPF_GATHERABLE)
OPFORGE_REGISTER_FORWARDING_KERNEL(CollectiveGather, CPU, CollectiveGatherCpu, OPF_GATHERABLE)
OPFORGE_REGISTER_FORWARDING_KERNEL(CollectiveBcastSendV2, CPU, CollectiveBcastSendV2Cpu, OPF_BROADCASTABLE)
OPFORGE_REGISTER_FORWARDING_KERNEL(CollectiveBcastSend, CPU, CollectiveBcastSendCpu, OPF_BROADCASTABLE)
OPFORGE_REGISTER_KERNEL(CollectiveBcastRecvV2, CPU, CollectiveBcastRecvV2Cpu, OPF_BROADCASTABLE)
OPFORGE_REGISTER_KERNEL(CollectiveBcastRecv, CPU, CollectiveBcastRecvCpu, OPF_BROADCASTABLE)

}  // namespace opforge
