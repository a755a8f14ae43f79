"""Data-parallel training over MPI, spelled as Horovod's TensorFlow API.

    import opforge.compat.v1 as tf
    import opforge.distribute as hvd

    hvd.init()
    opt = hvd.DistributedOptimizer(tf.train.MomentumOptimizer(0.01 * hvd.size(), 0.9))
    train_op = opt.minimize(loss)            # gradients averaged over the processes
    sess.run(hvd.broadcast_global_variables(0))  # every process starts from rank 0's weights

launched with ``mpirun -np N python train.py``. The collectives are TensorFlow's collective
ops (CollectiveReduceV2, CollectiveGatherV2, CollectiveBcastSendV2 / RecvV2; opforge.ops.
collective_ops) over MPI; this module picks their keys, fuses small tensors into one
all-reduce (grouped_allreduce), and ends the whole job when one process fails (an uncaught
exception aborts the MPI job, so the others never wait for it).
"""

from __future__ import annotations

from .mpi_ops import (
    Average, Max, Min, Product, Sum, allgather, allreduce, broadcast, broadcast_global_variables,
    broadcast_variables, grouped_allreduce, init, is_initialized, local_rank, local_size, mpi_built, mpi_enabled,
    mpi_threads_supported, rank, shutdown, size,
)
from .compression import Compression
from .optimizer import BroadcastGlobalVariablesHook, DistributedGradientTape, DistributedOptimizer

__all__ = [
    "Average", "BroadcastGlobalVariablesHook", "Compression", "DistributedGradientTape", "DistributedOptimizer", "Max",
    "Min", "Product", "Sum", "allgather", "allreduce", "broadcast", "broadcast_global_variables", "broadcast_variables",
    "grouped_allreduce", "init", "is_initialized", "local_rank", "local_size", "mpi_built", "mpi_enabled",
    "mpi_threads_supported", "rank", "shutdown", "size",
]
