"""Horovod's training wrappers: DistributedOptimizer (TF1 graphs), DistributedGradientTape
(eager), BroadcastGlobalVariablesHook, and gradient Compression."""

from __future__ import annotations

from ..training.optimizers import Optimizer
from . import mpi_ops
from .compression import Compression


def _reduce_gradients(grads, op, compression, gradient_predivide_factor, fusion_threshold_bytes):
    """grads (None where a variable has none) reduced over the processes, fused."""
    if gradient_predivide_factor != 1.0 and op != mpi_ops.Average:
        raise ValueError("gradient_predivide_factor needs op=Average")
    present = [i for i, g in enumerate(grads) if g is not None]
    prescale = 1.0 / gradient_predivide_factor
    postscale = gradient_predivide_factor
    reduced = mpi_ops.grouped_allreduce([grads[i] for i in present], op=op, compression=compression,
                                        prescale_factor=prescale, postscale_factor=postscale,
                                        fusion_threshold_bytes=fusion_threshold_bytes)
    out = list(grads)
    for i, r in zip(present, reduced):
        out[i] = r
    return out


class DistributedOptimizer(Optimizer):
    """Wraps a TF1 optimizer: compute_gradients averages the gradients over the processes
    (fused all-reduces) before apply_gradients applies them, so every process takes the same step."""

    def __init__(self, optimizer, name=None, use_locking=False, device_dense="", device_sparse="",
                 compression=Compression.none, sparse_as_dense=False, backward_passes_per_step=1,
                 op=mpi_ops.Average, gradient_predivide_factor=1.0,
                 fusion_threshold_bytes=mpi_ops.DEFAULT_FUSION_THRESHOLD_BYTES):
        if backward_passes_per_step != 1:
            raise NotImplementedError("DistributedOptimizer: backward_passes_per_step > 1 (local gradient "
                                      "accumulation) is not supported")
        super().__init__(use_locking, name or f"Distributed{type(optimizer).__name__}")
        self._optimizer = optimizer
        self._op = mpi_ops._reduce_op(None, op)
        self._compression = compression
        self._predivide = gradient_predivide_factor
        self._fusion = fusion_threshold_bytes

    def compute_gradients(self, *args, **kwargs):
        grads_and_vars = self._optimizer.compute_gradients(*args, **kwargs)
        grads = _reduce_gradients([g for g, _ in grads_and_vars], self._op, self._compression, self._predivide,
                                  self._fusion)
        return [(g, v) for g, (_, v) in zip(grads, grads_and_vars)]

    def apply_gradients(self, *args, **kwargs):
        return self._optimizer.apply_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._optimizer.variables(*args, **kwargs)


class DistributedGradientTape:
    """Wraps an of.GradientTape: gradient() returns the gradients averaged over the processes."""

    def __init__(self, gradtape, device_dense="", device_sparse="", compression=Compression.none,
                 sparse_as_dense=False, op=mpi_ops.Average, gradient_predivide_factor=1.0,
                 fusion_threshold_bytes=mpi_ops.DEFAULT_FUSION_THRESHOLD_BYTES):
        self._tape = gradtape
        self._op = mpi_ops._reduce_op(None, op)
        self._compression = compression
        self._predivide = gradient_predivide_factor
        self._fusion = fusion_threshold_bytes

    def __getattr__(self, name):
        return getattr(self._tape, name)

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def gradient(self, target, sources, output_gradients=None, **kwargs):
        grads = self._tape.gradient(target, sources, output_gradients=output_gradients, **kwargs)
        single = not isinstance(grads, (list, tuple))
        grads = [grads] if single else list(grads)
        reduced = _reduce_gradients(grads, self._op, self._compression, self._predivide, self._fusion)
        return reduced[0] if single else reduced


class BroadcastGlobalVariablesHook:
    """Horovod's session hook: after the session is created (and the variables initialized),
    every process takes rank root_rank's variables. With a plain Session, call
    ``hook.begin()`` before finalizing the graph and ``hook.after_create_session(sess, None)``
    after running the initializer (or run broadcast_global_variables(root_rank) yourself)."""

    def __init__(self, root_rank, device=""):
        self.root_rank = root_rank
        self.bcast_op = None

    def begin(self):
        import opforge as of
        if self.bcast_op is None or self.bcast_op.graph is not of.get_default_graph():
            self.bcast_op = mpi_ops.broadcast_global_variables(self.root_rank)

    def after_create_session(self, session, coord):
        if self.bcast_op is None:
            self.begin()
        session.run(self.bcast_op)

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        return None

    def end(self, session):
        return None
