"""Eager reverse-mode autodiff: GradientTape records ops as they run, then walks them back
through the generated gradient bindings."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from .. import _C
from ..framework.errors import InvalidArgumentError
from . import registry
from .helpers import zeros_for_missing_grad

_active: list[GradientTape] = []


@dataclass
class OpRecord:
    """One recorded op: what gradient functions receive as ``op``."""

    type: str
    inputs: tuple  # per input argument: a Tensor, or a list of Tensors
    outputs: tuple  # per output argument
    attrs: dict
    gradient_op_type: str | None = None  # a custom gradient's registered name (custom_gradient)

    @property
    def name(self) -> str:
        return self.type


def _flatten(groups) -> list:
    out = []
    for g in groups:
        if isinstance(g, (list, tuple)):
            out.extend(g)
        else:
            out.append(g)
    return out


def _record(handle, inputs, attrs, result) -> None:
    flat_in = None
    for tape in _active:
        if not tape._recording:
            continue
        if flat_in is None:
            flat_in = _flatten(inputs)
        if not any(id(t) in tape._tracked for t in flat_in):
            continue
        if isinstance(result, tuple):
            outputs = result
        else:
            outputs = (result,)
        rec = OpRecord(_C.op_name(handle), tuple(inputs), outputs, attrs)
        tape._records.append(rec)
        for t in _flatten(outputs):
            tape._tracked[id(t)] = t


def variable_accessed(variable) -> None:
    """An eager trainable variable was read by an op: tapes that watch accessed variables
    start tracking its current value."""
    for tape in _active:
        if tape._recording and tape._watch_accessed_variables:
            t = variable._value
            tape._tracked[id(t)] = t
            if variable not in tape._variables:
                tape._variables.append(variable)


def _sync_hook() -> None:
    _C.set_record(_record if any(t._recording for t in _active) else None)


class GradientTape:
    """Records operations for automatic differentiation (TensorFlow's tf.GradientTape).

    Inside ``with GradientTape() as tape:``, ops whose inputs are watched (``tape.watch(x)``)
    or computed from watched tensors are recorded; ``tape.gradient(target, sources)`` then
    returns d(sum of target)/d(source) for each source.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._records: list[OpRecord] = []
        self._tracked: dict[int, object] = {}
        self._recording = False
        self._used = False
        self._variables: list = []

    def __enter__(self) -> GradientTape:
        self._recording = True
        _active.append(self)
        _sync_hook()
        return self

    def __exit__(self, *exc) -> None:
        self._recording = False
        if self in _active:
            _active.remove(self)
        _sync_hook()

    def watch(self, tensor) -> None:
        """Tracks tensor (or a nested list of tensors) so ops using it are recorded."""
        for t in tensor if isinstance(tensor, (list, tuple)) else [tensor]:
            if isinstance(t, (list, tuple)):
                self.watch(t)
                continue
            t = getattr(t, "_tape_handle", lambda: t)()
            if not isinstance(t, _C.Tensor):
                raise InvalidArgumentError(f"GradientTape.watch: expected a Tensor, got {type(t).__name__}")
            self._tracked[id(t)] = t

    def watched_variables(self):
        return list(self._variables)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded."""
        was = self._recording
        self._recording = False
        _sync_hook()
        try:
            yield
        finally:
            self._recording = was
            _sync_hook()

    def reset(self) -> None:
        self._records.clear()
        self._tracked = {k: v for k, v in self._tracked.items()}

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """Gradients of target (a tensor or list; lists are summed) with respect to sources.

        Returns the same structure as sources; a source the target does not depend on gets
        None (or zeros with ``unconnected_gradients="zero"``).
        """
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True
        from .. import ops  # noqa: PLC0415

        targets = list(target) if isinstance(target, (list, tuple)) else [target]
        single = not isinstance(sources, (list, tuple))
        srcs = [sources] if single else list(sources)
        srcs = [getattr(s, "_tape_handle", lambda s=s: s)() for s in srcs]
        grads: dict[int, object] = {}

        def accumulate(t, g):
            key = id(t)
            grads[key] = g if key not in grads else ops.add_v2(grads[key], g)

        if output_gradients is None:
            output_gradients = [None] * len(targets)
        elif not isinstance(output_gradients, (list, tuple)):
            output_gradients = [output_gradients]
        for t, og in zip(targets, output_gradients):
            accumulate(t, og if og is not None else ops.ones_like(t))

        was_recording = self._recording
        self._recording = False  # gradient ops go on outer tapes only (higher-order grads)
        _sync_hook()
        try:
            for rec in reversed(self._records):
                outs = _flatten(rec.outputs)
                if not any(id(o) in grads for o in outs):
                    continue
                grad_type = rec.gradient_op_type or rec.type
                if registry.is_not_differentiable(grad_type):
                    continue
                fn = registry.get_gradient(grad_type)
                out_grads = [grads.get(id(o)) for o in outs]
                out_grads = [g if g is not None else zeros_for_missing_grad(o) for g, o in zip(out_grads, outs)]
                in_grads = fn(rec, out_grads)
                for arg, g in zip(rec.inputs, in_grads):
                    if g is None:
                        continue
                    if isinstance(arg, (list, tuple)):
                        for a, ga in zip(arg, g):
                            if ga is not None:
                                accumulate(a, ga)
                    else:
                        accumulate(arg, g)
        finally:
            self._recording = was_recording
            _sync_hook()
        result = []
        for s in srcs:
            g = grads.get(id(s))
            if g is None and unconnected_gradients == "zero":
                g = ops.zeros_like(s)
            result.append(g)
        if not self._persistent:
            self._records = []
        return result[0] if single else result
