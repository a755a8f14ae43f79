"""tf.GradientTape in graph mode and eagerly (TensorFlow 1 programs' tf.GradientTape).

Eagerly it is opforge's tape (gradients/tape.py). In a graph, ops are graph nodes, so the tape
remembers which nodes were built while it was recording (inside ``with tape:`` and outside
``stop_recording()``), which tensors it watches (``watch``) and which trainable variables
recorded ops read (with ``watch_accessed_variables``). ``gradient`` is then tf.gradients with
every tensor made by a node the tape did not record treated as a constant (stop_gradients):
gradients flow only through recorded nodes, from watched sources, as TensorFlow's tape gives
them. A source the tape does not watch gets None (zeros with unconnected_gradients="zero").
A non-persistent tape computes one set of gradients, as TF's.
"""

from __future__ import annotations

import contextlib

from ..framework import graph as _graph
from ..framework.eager_scope import in_eager_scope
from ..framework.graph import GraphTensor
from ..util import nest
from . import tape as _eager_tape
from .graph_grad import gradients as _graph_gradients

__all__ = ["GradientTape"]


def _is_graph_variable(value) -> bool:
    return hasattr(value, "_variable_op") and hasattr(value, "_ref")


class GradientTape:
    """Records operations for automatic differentiation (tf.GradientTape), in graph mode (graph
    nodes built while recording) and eagerly (opforge's tape)."""

    _use_default_graph = False  # compat.v1's tape records into the default graph outside any graph

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._eager = _eager_tape.GradientTape(persistent, watch_accessed_variables)
        self._graph = None
        self._ranges: list[list] = []  # [first op id, end op id or None] while recording
        self._watched: list = []  # graph tensors and variables
        self._recording = False
        self._used = False

    # ---- recording
    def _next_op_id(self, g) -> int:
        ops = g.get_operations()
        return ops[-1]._id + 1 if ops else 0

    def _start(self):
        g = _graph._explicit_graph()
        if g is None and self._use_default_graph and not in_eager_scope():
            g = _graph.get_default_graph()
        if g is not None:
            if self._graph is None:
                self._graph = g
            if g is self._graph:
                self._ranges.append([self._next_op_id(g), None])
        self._recording = True

    def _stop(self):
        if self._graph is not None and self._ranges and self._ranges[-1][1] is None:
            self._ranges[-1][1] = self._next_op_id(self._graph)
        self._recording = False

    def __enter__(self):
        self._eager.__enter__()
        self._start()
        return self

    def __exit__(self, *exc):
        self._stop()
        self._eager.__exit__(*exc)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops built inside are not recorded (gradients do not flow through them)."""
        if not self._recording:
            raise ValueError("Tape.stop_recording() only applies when the tape is recording.")
        self._stop()
        with self._eager.stop_recording():
            try:
                yield
            finally:
                self._start()

    def reset(self):
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        recording = self._recording
        if recording:
            self._stop()
        self._ranges = []
        self._watched = []
        self._eager.reset()
        if recording:
            self._start()

    def watch(self, tensor):
        """Watches the tensors and variables of a (nested) structure."""
        for t in nest.flatten(tensor):
            if isinstance(t, GraphTensor) or _is_graph_variable(t):
                if self._graph is None:
                    self._graph = t.graph
                self._watched.append(t)
            else:
                self._eager.watch(t)

    def _recorded(self, op) -> bool:
        return any(lo <= op._id and (hi is None or op._id < hi) for lo, hi in self._ranges)

    def watched_variables(self):
        """The variables the tape watches: those watched explicitly and the trainable ones that
        recorded ops read (with watch_accessed_variables)."""
        out = [v for v in self._watched if _is_graph_variable(v)]
        if self._graph is not None and self._watch_accessed_variables:
            reads = {}
            for v in self._graph.get_collection("trainable_variables"):
                reads[id(v._ref)] = v
                reads[id(v.value())] = v
            for op in self._graph.get_operations():
                if self._recorded(op):
                    for t in op.inputs:
                        v = reads.get(id(t))
                        if v is not None and all(v is not w for w in out):
                            out.append(v)
        return tuple(out) if self._graph is not None else tuple(self._eager.watched_variables())

    # ---- gradients
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum of target)/d(source) for each source in the (nested) sources, as their
        structure; None (or zeros) for sources the tape does not watch or target does not
        depend on through recorded ops."""
        flat_targets = nest.flatten(target)
        if not any(isinstance(t, GraphTensor) for t in flat_targets):
            return self._eager.gradient(target, sources, output_gradients, unconnected_gradients)
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True
        flat_sources = nest.flatten(sources)
        watched = {id(w) for w in self._watched}
        watched |= {id(v) for v in self.watched_variables()}
        watched_sources = [s for s in flat_sources if id(s) in watched]
        grads = {}
        if watched_sources:
            grads = dict(zip((id(s) for s in watched_sources),
                             self._graph_gradient(flat_targets, watched_sources, output_gradients,
                                                  unconnected_gradients)))
        from .. import ops  # noqa: PLC0415
        out = []
        for s in flat_sources:
            g = grads.get(id(s))
            if g is None and str(getattr(unconnected_gradients, "value", unconnected_gradients)).lower() == "zero":
                g = ops.zeros_like(s.value() if _is_graph_variable(s) else s)
            out.append(g)
        return nest.pack_sequence_as(sources, out)

    def _graph_gradient(self, targets, sources, output_gradients, unconnected_gradients):
        g = self._graph
        source_tensors, source_ops = set(), set()
        for s in sources:  # a variable: its reference and its snapshot read (made with it) both lead on
            for t in ((s._ref, s.value()) if _is_graph_variable(s) else (s,)):
                source_tensors.add(id(t))
                source_ops.add(id(t.op))
        stop = []
        for op in g.get_operations():
            if self._recorded(op) or id(op) in source_ops:
                continue
            stop.extend(t for t in op.outputs if id(t) not in source_tensors)
        grad_ys = None if output_gradients is None else nest.flatten(output_gradients)
        return _graph_gradients(targets, list(sources), grad_ys=grad_ys, stop_gradients=stop,
                                unconnected_gradients=unconnected_gradients)
