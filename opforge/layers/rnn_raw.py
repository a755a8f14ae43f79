"""TensorFlow 1's lower-level RNN drivers: ``raw_rnn`` (the caller's loop_fn decides each step's
input, state and emitted output, and when each sequence is finished) and
``static_state_saving_rnn`` (a static_rnn whose initial state is read from, and whose final state is
written back to, a state saver). Both are compositions of while_loop / static_rnn, as in TF."""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..framework.control_flow import _flatten, _pack, while_loop
from ..framework.graph import _explicit_graph
from ..ops.math import reduce_all
from ..ops.tensor_array_ops import TensorArray
from . import rnn_cell as _cells
from .rnn import _null, static_rnn

__all__ = ["raw_rnn", "static_state_saving_rnn"]


def _where_finished(finished, if_finished, otherwise):
    """select(finished[b], if_finished[b, ...], otherwise[b, ...]) for tensors of any rank >= 1."""
    rank = otherwise.shape.rank
    mask = finished
    for _ in range((rank or 1) - 1):
        mask = _ops.expand_dims(mask, np.int32(-1))
    return _ops.select_v2(mask, if_finished, otherwise)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs ``cell`` under the control of ``loop_fn`` (tf.nn.raw_rnn).

    ``loop_fn(time, cell_output, cell_state, loop_state)`` returns ``(finished, next_input,
    next_cell_state, emit_output, next_loop_state)``; it is first called with time 0 and None for
    the rest, and then gives the initial input and state, and (as emit_output) the structure of
    what is emitted (None: the cell's output). Steps run while any sequence is unfinished; a
    finished sequence emits zeros and keeps its state. Returns ``(emit_ta, final_state,
    final_loop_state)``, emit_ta a TensorArray per emitted tensor (one step each)."""
    del swap_memory
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    graph = _explicit_graph()
    scope = scope or "rnn"
    with (graph.name_scope(scope) if graph is not None else _null()):
        scope_name = graph._name_stack if graph is not None else scope
        time = np.int32(0)
        finished, next_input, initial_state, emit_structure, loop_state = loop_fn(time, None, None, None)
        if initial_state is None:
            raise ValueError("loop_fn must return the initial cell state at time 0")
        flat_input, flat_state = _flatten(next_input), _flatten(initial_state)
        if emit_structure is not None:
            flat_emit = [_ops.zeros_like(e) for e in _flatten(emit_structure)]
        else:  # the cell's output: its size from the cell, its batch from the state
            sizes = _flatten(cell.output_size)
            batch = _ops.shape(flat_state[0])[:1]
            zero = np.zeros((), flat_state[0].dtype.as_numpy_dtype)
            flat_emit = [_ops.fill(_ops.concat_v2([batch, np.asarray([s], np.int32)], np.int32(0)), zero)
                         for s in sizes]
            emit_structure = cell.output_size
        flat_loop = [] if loop_state is None else _flatten(loop_state)
        tas = [TensorArray(e.dtype, size=0, dynamic_size=True, element_shape=e.shape) for e in flat_emit]
        n_in, n_state, n_ta = len(flat_input), len(flat_state), len(tas)

        def cond(t, done, *rest):
            return _ops.logical_not(reduce_all(done))

        def body(t, done, *rest):
            inputs = _pack(next_input, list(rest[:n_in]))
            state = _pack(initial_state, list(rest[n_in:n_in + n_state]))
            emit_tas = list(rest[n_in + n_state:n_in + n_state + n_ta])
            lstate = None if loop_state is None else _pack(loop_state, list(rest[n_in + n_state + n_ta:]))
            with _cells.cell_scope(scope_name):
                output, cell_state = cell(inputs, state)
            nxt_finished, nxt_input, nxt_state, emit, nxt_loop = loop_fn(t + 1, output, cell_state, lstate)
            emit = output if emit is None else emit
            new_state = [_where_finished(done, s, n) for s, n in zip(_flatten(state), _flatten(nxt_state))]
            new_emit = [_where_finished(done, z, e) for z, e in zip(flat_emit, _flatten(emit))]
            emit_tas = [ta.write(t, e) for ta, e in zip(emit_tas, new_emit)]
            done = _ops.logical_or(done, nxt_finished)
            more_loop = [] if loop_state is None else _flatten(nxt_loop)
            return [t + 1, done] + _flatten(nxt_input) + new_state + emit_tas + more_loop

        results = while_loop(cond, body, [time, finished] + flat_input + flat_state + tas + flat_loop,
                             parallel_iterations=parallel_iterations or 32)
        rest = results[2:]
        final_state = _pack(initial_state, list(rest[n_in:n_in + n_state]))
        emit_tas = _pack(emit_structure, list(rest[n_in + n_state:n_in + n_state + n_ta]))
        final_loop = None if loop_state is None else _pack(loop_state, list(rest[n_in + n_state + n_ta:]))
    return emit_tas, final_state, final_loop


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """static_rnn over ``inputs`` starting from ``state_saver.state(name)`` and saving the final
    state with ``state_saver.save_state(name, value)`` before the last output and the state are
    returned (tf.nn.static_state_saving_rnn). ``state_name`` has the structure of the cell's state
    (a string for a single tensor)."""
    from ..framework.api import control_dependencies  # noqa: PLC0415
    state_is_tuple = isinstance(cell.state_size, (tuple, list))
    name_is_tuple = isinstance(state_name, (tuple, list))
    if state_is_tuple != name_is_tuple:
        raise ValueError(f"state_name should be the same type as cell.state_size. state_name: {state_name!r}, "
                         f"cell.state_size: {cell.state_size!r}")
    names = _flatten(state_name) if name_is_tuple else [state_name]
    if state_is_tuple:
        if len(names) != len(_flatten(cell.state_size)):
            raise ValueError(f"state_name {state_name!r} does not match the structure of cell.state_size "
                             f"{cell.state_size!r}")
        initial_state = _pack(cell.state_size, [state_saver.state(n) for n in names])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state, sequence_length=sequence_length,
                                scope=scope)
    flat_state = _flatten(state) if state_is_tuple else [state]
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flat_state)]
    with control_dependencies(saves):
        outputs[-1] = _pack(outputs[-1], [_ops.identity(o) for o in _flatten(outputs[-1])])
        flat_state = [_ops.identity(s) for s in flat_state]
    return outputs, (_pack(state, flat_state) if state_is_tuple else flat_state[0])
