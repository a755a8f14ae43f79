"""``of.config.threading``: the one CPU thread budget (TensorFlow's ``tf.config.threading``).

Every CPU kernel and every GEMM share one budget of threads (OpenBLAS runs single-threaded
inside opforge's pool, never beside it): the number of cores, or ``OPFORGE_NUM_THREADS``, or
what ``set_intra_op_parallelism_threads`` sets. Idle workers sleep on a condition variable;
they never spin, so they leave the cores to other processes.
"""

from __future__ import annotations

import os

from .. import _C

_inter_op_threads = 0


def get_intra_op_parallelism_threads() -> int:
    """Threads one op may use (0 means the default was never changed, as in TensorFlow)."""
    return _C.num_threads() if _intra_set else 0


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Sets the thread budget of kernels and the BLAS; 0 restores the default (the cores, or
    ``OPFORGE_NUM_THREADS``)."""
    global _intra_set
    n = int(num_threads)
    if n < 0:
        raise ValueError(f"set_intra_op_parallelism_threads: num_threads must be >= 0, got {n}")
    _C.set_num_threads(n)
    _intra_set = n != 0


def get_inter_op_parallelism_threads() -> int:
    return _inter_op_threads


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Accepted for TensorFlow programs. opforge runs a graph's nodes one after another on the
    calling thread (each node uses the intra-op budget), so independent nodes of one run do not
    overlap; concurrent Session.run calls from several threads do."""
    global _inter_op_threads
    n = int(num_threads)
    if n < 0:
        raise ValueError(f"set_inter_op_parallelism_threads: num_threads must be >= 0, got {n}")
    _inter_op_threads = n


def num_threads() -> int:
    """The threads kernels use now."""
    return _C.num_threads()


_intra_set = bool(os.environ.get("OPFORGE_NUM_THREADS"))
