"""TensorFlow's collective ops (tensorflow/python/ops/collective_ops.py): all-reduce, all-gather
and broadcast across the processes of a job, with the group and instance keys the caller picks.

opforge runs them over MPI: a group is every process of the job (``mpirun -np N``), so
``group_size`` is N; a group of one process runs without MPI. opforge.distribute builds
Horovod's API on these ops and picks the keys itself.
"""

from __future__ import annotations

from .. import ops as _ops
from ..framework import dtypes as _dtypes

__all__ = [
    "all_gather", "all_gather_v2", "all_reduce", "all_reduce_v2", "broadcast_recv", "broadcast_recv_v2",
    "broadcast_send", "broadcast_send_v2",
]


def _no_ordering_token(ordering_token):
    if ordering_token is not None:
        raise NotImplementedError("collective ops: ordering tokens (TF2 resource ordering) are not supported; "
                                  "opforge's executors run a graph's collectives in one order on every process")


def all_reduce(t, group_size, group_key, instance_key, merge_op="Add", final_op="Id", subdiv_offsets=(0,),
               communication_hint="auto", timeout=0):
    """The element-wise reduction of `t` over the group (CollectiveReduce, keys as attrs)."""
    return _ops.collective_reduce(t, group_size=group_size, group_key=group_key, instance_key=instance_key,
                                  merge_op=merge_op, final_op=final_op, subdiv_offsets=list(subdiv_offsets),
                                  communication_hint=communication_hint.lower(), timeout_seconds=timeout)


def all_reduce_v2(t, group_size, group_key, instance_key, merge_op="Add", final_op="Id", communication_hint="auto",
                  timeout=0, ordering_token=None, max_subdivs_per_device=-1, name=None):
    """The element-wise reduction of `t` over the group (CollectiveReduceV2, keys as tensors)."""
    _no_ordering_token(ordering_token)
    return _ops.collective_reduce_v2(t, group_size, group_key, instance_key, merge_op=merge_op, final_op=final_op,
                                     communication_hint=communication_hint.lower(), timeout_seconds=timeout,
                                     max_subdivs_per_device=max_subdivs_per_device, name=name)


def all_gather(t, group_size, group_key, instance_key, communication_hint="auto", timeout=0):
    """The group's tensors concatenated along dimension 0 (CollectiveGather, keys as attrs)."""
    return _ops.collective_gather(t, group_size=group_size, group_key=group_key, instance_key=instance_key,
                                  shape=t.shape, communication_hint=communication_hint.lower(),
                                  timeout_seconds=timeout)


def all_gather_v2(t, group_size, group_key, instance_key, communication_hint="auto", timeout=0, ordering_token=None,
                  name=None):
    """The group's tensors concatenated along dimension 0 (CollectiveGatherV2; the first
    dimensions may differ between processes)."""
    _no_ordering_token(ordering_token)
    return _ops.collective_gather_v2(t, group_size, group_key, instance_key,
                                     communication_hint=communication_hint.lower(), timeout_seconds=timeout,
                                     name=name)


def broadcast_send(t, shape, dtype, group_size, group_key, instance_key, communication_hint="auto", timeout=0):
    """Sends `t` to the group's other processes (CollectiveBcastSend); returns `t`."""
    if _dtypes.as_dtype(dtype) != _dtypes.as_dtype(t.dtype):
        raise ValueError(f"broadcast_send: dtype {dtype!r} does not match the tensor's {t.dtype!r}")
    return _ops.collective_bcast_send(t, group_size=group_size, group_key=group_key, instance_key=instance_key,
                                      shape=shape, communication_hint=communication_hint.lower(),
                                      timeout_seconds=timeout)


def broadcast_send_v2(t, group_size, group_key, instance_key, communication_hint="auto", timeout=0):
    """Sends `t` to the group's other processes (CollectiveBcastSendV2); returns `t`."""
    return _ops.collective_bcast_send_v2(t, group_size, group_key, instance_key,
                                         communication_hint=communication_hint.lower(), timeout_seconds=timeout)


def broadcast_recv(shape, dtype, group_size, group_key, instance_key, communication_hint="auto", timeout=0):
    """The tensor the group's sending process broadcasts (CollectiveBcastRecv)."""
    return _ops.collective_bcast_recv(T=_dtypes.as_dtype(dtype), group_size=group_size, group_key=group_key,
                                      instance_key=instance_key, shape=shape,
                                      communication_hint=communication_hint.lower(), timeout_seconds=timeout)


def broadcast_recv_v2(shape, dtype, group_size, group_key, instance_key, communication_hint="auto", timeout=0):
    """The tensor the group's sending process broadcasts (CollectiveBcastRecvV2, shape a tensor)."""
    return _ops.collective_bcast_recv_v2(group_size, group_key, instance_key, shape, T=_dtypes.as_dtype(dtype),
                                         communication_hint=communication_hint.lower(), timeout_seconds=timeout)
