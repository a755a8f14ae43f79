"""The job (init, rank, size) and Horovod's collectives over opforge's collective ops."""

from __future__ import annotations

import atexit
import itertools
import sys

import numpy as np

from .. import _C
from ..framework import dtypes as _dtypes
from ..framework.graph import GraphTensor
from ..ops import collective_ops as _collective
from .compression import Compression

# Horovod's reduction ops.
Average, Sum, Min, Max, Product = "Average", "Sum", "Min", "Max", "Product"
_MERGE = {Average: ("Add", "Div"), Sum: ("Add", "Id"), Min: ("Min", "Id"), Max: ("Max", "Id"),
          Product: ("Mul", "Id")}

# Every collective of this module runs in the group of all processes.
_GROUP_KEY = 1
# Horovod's default fusion buffer (HOROVOD_FUSION_THRESHOLD): tensors are fused into
# all-reduces of at most this many bytes.
DEFAULT_FUSION_THRESHOLD_BYTES = 64 * 1024 * 1024

_state = {"hooked": False}
_eager_keys = itertools.count(0)
_EAGER_KEYS = 1024
_eager_key_tensors: dict = {}


def init(comm=None):
    """Starts MPI in this process (once); call it first, on every process of the job."""
    if comm is not None:
        raise NotImplementedError("opforge.distribute.init: sub-communicators are not supported; the job is every "
                                  "process started by mpirun")
    _C.distribute.init()
    if not _state["hooked"]:
        _state["hooked"] = True
        atexit.register(shutdown)
        previous = sys.excepthook

        def abort_job(exc_type, exc, tb):
            previous(exc_type, exc, tb)
            world = _C.distribute.world()
            if world["initialized"] and world["size"] > 1:
                _C.distribute.abort_job(1, f"rank {world['rank']} of {world['size']} failed with "
                                           f"{exc_type.__name__}: {exc}; opforge.distribute ends the job")

        sys.excepthook = abort_job


def shutdown():
    """Ends MPI (if opforge started it); collectives fail afterwards."""
    _C.distribute.finalize()


def _world():
    world = _C.distribute.world()
    if not world["initialized"]:
        raise ValueError("opforge.distribute has not been initialized; use opforge.distribute.init().")
    return world


def is_initialized() -> bool:
    return bool(_C.distribute.world()["initialized"])


def rank() -> int:
    """This process's rank in the job, 0 to size() - 1."""
    return _world()["rank"]


def size() -> int:
    """The number of processes in the job (mpirun -np)."""
    return _world()["size"]


def local_rank() -> int:
    """This process's rank among the processes on its machine."""
    return _world()["local_rank"]


def local_size() -> int:
    """The number of processes of the job on this machine."""
    return _world()["local_size"]


def mpi_built() -> bool:
    """Whether this opforge was built with MPI."""
    return bool(_C.distribute.built_with_mpi())


def mpi_enabled() -> bool:
    return mpi_built() and is_initialized()


def mpi_threads_supported() -> bool:
    """opforge starts MPI with MPI_THREAD_MULTIPLE and needs at least MPI_THREAD_SERIALIZED."""
    return mpi_built()


def _keys(tensor):
    """(group_size, group_key, instance_key) for the next collective on `tensor`. The instance
    keys count up per graph for graph tensors (every process builds the same graph in the same
    order, so the keys agree) and per process for eager calls. Eager calls get them as int32
    tensors, the group's cached: a Python int argument costs an eager op a conversion per call."""
    if isinstance(tensor, GraphTensor):
        graph = tensor.graph
        key = getattr(graph, "_distribute_instance_keys", 0) + 1
        graph._distribute_instance_keys = key
        return size(), _GROUP_KEY, key
    import opforge as of
    n = size()
    cached = _state.get("eager_group")
    if cached is None or cached[0] != n:
        cached = _state["eager_group"] = (n, of.constant(n, dtype=_dtypes.int32),
                                          of.constant(_GROUP_KEY, dtype=_dtypes.int32))
    # Eager instance keys cycle through _EAGER_KEYS cached tensors: consecutive collectives still
    # get different keys, so processes calling them in other orders are told so.
    k = next(_eager_keys) % _EAGER_KEYS + 1
    key = _eager_key_tensors.get(k)
    if key is None:
        key = _eager_key_tensors[k] = of.constant(k, dtype=_dtypes.int32)
    return cached[1], cached[2], key


def _reduce_op(average, op):
    if average is not None:
        if op is not None:
            raise ValueError("allreduce: give op or the deprecated average, not both")
        op = Average if average else Sum
    op = Average if op is None else op
    if op not in _MERGE:
        raise ValueError(f"allreduce: op must be one of {sorted(_MERGE)}, got {op!r}")
    return op


def allreduce(tensor, average=None, device_dense="", device_sparse="", compression=None, op=None,
              prescale_factor=1.0, postscale_factor=1.0, name=None):
    """The element-wise reduction of `tensor` over the processes (Average by default)."""
    import opforge as of
    op = _reduce_op(average, op)
    compression = compression or Compression.none
    t, ctx = compression.compress(tensor)
    if prescale_factor != 1.0:
        t = t * of.cast(prescale_factor, t.dtype)
    merge, final = _MERGE[op]
    out = _collective.all_reduce_v2(t, *_keys(t), merge_op=merge, final_op=final, name=name)
    if postscale_factor != 1.0:
        out = out * of.cast(postscale_factor, out.dtype)
    return compression.decompress(out, ctx)


def _static_bytes(t):
    shape = t.shape.as_list() if hasattr(t.shape, "as_list") else list(t.shape)
    if shape is None or any(d is None or d < 0 for d in shape):
        return None
    return int(np.prod(shape, dtype=np.int64)) * _dtypes.as_dtype(t.dtype).size


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="", compression=None, op=None,
                      prescale_factor=1.0, postscale_factor=1.0, fusion_threshold_bytes=DEFAULT_FUSION_THRESHOLD_BYTES):
    """allreduce of each tensor, with tensors of one dtype fused (in order) into all-reduces of at
    most fusion_threshold_bytes: one exchange for many small gradients instead of one each."""
    tensors = list(tensors)
    buckets: list[list[int]] = []
    open_bucket: dict = {}  # dtype -> (bucket index, bytes)
    for i, t in enumerate(tensors):
        nbytes = _static_bytes(t)
        key = _dtypes.as_dtype(t.dtype)
        if nbytes is None or nbytes >= fusion_threshold_bytes:
            buckets.append([i])
            continue
        b = open_bucket.get(key)
        if b is None or b[1] + nbytes > fusion_threshold_bytes:
            buckets.append([i])
            open_bucket[key] = (len(buckets) - 1, nbytes)
        else:
            buckets[b[0]].append(i)
            open_bucket[key] = (b[0], b[1] + nbytes)
    out = [None] * len(tensors)
    kw = dict(average=average, compression=compression, op=op, prescale_factor=prescale_factor,
              postscale_factor=postscale_factor)
    for bucket in buckets:
        if len(bucket) == 1:
            out[bucket[0]] = allreduce(tensors[bucket[0]], **kw)
            continue
        for i, r in zip(bucket, _fused_allreduce([tensors[i] for i in bucket], **kw)):
            out[i] = r
    return out


def _fused_allreduce(tensors, average=None, compression=None, op=None, prescale_factor=1.0, postscale_factor=1.0):
    """allreduce of tensors of one dtype as one exchange (the _CollectiveReduceGroup op packs
    them into one buffer)."""
    import opforge as of
    from .. import ops as _ops
    op = _reduce_op(average, op)
    compression = compression or Compression.none
    packed = [compression.compress(t) for t in tensors]
    ts = [t for t, _ in packed]
    if prescale_factor != 1.0:
        ts = [t * of.cast(prescale_factor, t.dtype) for t in ts]
    merge, final = _MERGE[op]
    outs = _ops._collective_reduce_group(ts, *_keys(ts[0]), merge_op=merge, final_op=final,
                                         name="CollectiveReduceGroup")  # (a node name cannot start with "_")
    if postscale_factor != 1.0:
        outs = [o * of.cast(postscale_factor, o.dtype) for o in outs]
    return [compression.decompress(o, ctx) for o, (_, ctx) in zip(outs, packed)]


def allgather(tensor, name=None):
    """Every process's `tensor` concatenated along dimension 0 in rank order (the first
    dimensions may differ)."""
    return _collective.all_gather_v2(tensor, *_keys(tensor), name=name)


def broadcast(tensor, root_rank, name=None):
    """`tensor` of process root_rank, on every process."""
    import opforge as of
    n = size()
    if not 0 <= root_rank < n:
        raise ValueError(f"broadcast: root_rank {root_rank} is not a rank of this job of {n} processes")
    if n == 1:
        return of.identity(tensor, name=name)
    group_size, group_key, key = _keys(tensor)
    if rank() == root_rank:
        return _collective.broadcast_send_v2(tensor, group_size, group_key, key)
    return _collective.broadcast_recv_v2(of.shape(tensor), tensor.dtype, group_size, group_key, key)


def broadcast_variables(variables, root_rank):
    """One op assigning every variable the value it has on process root_rank."""
    import opforge as of
    return of.group(*[v.assign(broadcast(v.value() if hasattr(v, "value") else v, root_rank)) for v in variables])


def broadcast_global_variables(root_rank):
    """broadcast_variables of the default graph's global variables."""
    import opforge as of
    return broadcast_variables(of.global_variables(), root_rank)
