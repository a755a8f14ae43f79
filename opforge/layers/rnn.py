"""Running recurrent cells over time (TensorFlow 1's tf.nn.dynamic_rnn family); the cells are
in rnn_cell.py.

``dynamic_rnn`` runs the cell in an ``of.while_loop`` over time (a graph loop in graphs, a
Python loop eagerly): step t reads input t, the outputs are collected in a TensorList and
stacked at the end. With ``sequence_length``, steps past a sequence's end output zeros and
carry its state unchanged. Gradients flow through the loop (while_loop's gradient) and the
TensorList. ``static_rnn`` unrolls the cell over a Python list of inputs;
``bidirectional_dynamic_rnn`` runs a second loop over the reversed sequences.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..ops.manip_ops import reverse_sequence
from ..framework.control_flow import _flatten, _pack, while_loop
from ..framework import dtypes as _dtypes
from ..framework.graph import GraphTensor, _explicit_graph
from . import rnn_cell as _cells
from .rnn_cell import _batch_size, _dim

# ------------------------------------------------------------------------- running cells


def _time_major(x, time_major):
    return x if time_major else _ops.transpose(x, np.array([1, 0] + list(range(2, _rank(x))), np.int32))


def _rank(x):
    r = x.shape.rank if isinstance(x, GraphTensor) else len(x.shape)
    if r is None:
        raise ValueError("dynamic_rnn: the rank of the inputs must be known")
    return r


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` ([batch, time, depth], or [time, batch,
    depth] with time_major). Returns (outputs, final_state); outputs has the inputs' layout."""
    del swap_memory
    from ..framework.graph import to_graph_tensor  # noqa: PLC0415
    from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
    graph = _explicit_graph()
    flat_inputs = _flatten(inputs)
    if len(flat_inputs) != 1:
        raise NotImplementedError("dynamic_rnn: nested inputs are not supported yet")
    x = flat_inputs[0]
    x = to_graph_tensor(graph, x) if graph is not None else convert_to_tensor(x)
    scope = scope or "rnn"
    with (graph.name_scope(scope) if graph is not None else _null()) as _:
        xt = _time_major(x, time_major)  # [time, batch, depth]
        batch = _static_dim(xt, 1) if _static_dim(xt, 1) is not None else _dim(xt, 1)
        if initial_state is None:
            if dtype is None:
                raise ValueError("If there is no initial_state, you must give a dtype.")
            state = cell.zero_state(batch, dtype)
        else:
            state = initial_state
        n_steps = _dim(xt, 0)
        seq = None if sequence_length is None else _ops.cast(sequence_length, _dtypes.int32)
        steps_static, batch_static = _static_dim(xt, 0), _static_dim(xt, 1)
        element_shape = np.array([-1 if batch_static is None else batch_static, cell.output_size], np.int32) \
            if isinstance(cell.output_size, int) else np.int32(-1)
        out_list = _ops.tensor_list_reserve(element_shape, n_steps, element_dtype=x.dtype)
        scope_name = graph._name_stack if graph is not None else scope
        flat_state = _flatten(state)

        def body(t, outputs, *flat):
            prev = _pack(state, list(flat))
            x_t = _ops.gather_v2(xt, t, np.int32(0))
            with _cells.cell_scope(scope_name):
                out, new_state = cell(x_t, prev)
            new_flat = _flatten(new_state)
            if seq is not None:
                done = _ops.greater_equal(t, seq)  # [batch]: this sequence has ended
                mask = _ops.expand_dims(done, np.int32(1))
                out = _ops.select_v2(mask, _ops.zeros_like(out), out)
                new_flat = [_ops.select_v2(mask, p, n) for p, n in zip(flat, new_flat)]
            outputs = _ops.tensor_list_set_item(outputs, t, out)
            return [t + 1, outputs] + new_flat

        results = while_loop(lambda t, *_: t < n_steps, body, [np.int32(0), out_list] + flat_state,
                             parallel_iterations=parallel_iterations or 32)
        _, outputs, *final = results
        outputs = _ops.tensor_list_stack(outputs, element_shape, element_dtype=x.dtype)
        if isinstance(outputs, GraphTensor) and steps_static is not None:
            outputs.set_shape([steps_static] + list(outputs.shape.dims or [None, None])[1:])  # one output per step
        outputs = _time_major(outputs, time_major)
    return outputs, _pack(state, list(final))


def _static_dim(x, i):
    dims = x.shape.dims if isinstance(x, GraphTensor) else list(x.shape)
    return None if dims is None else dims[i]


class _null:
    def __enter__(self):
        return ""

    def __exit__(self, *exc):
        return False


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs ``cell`` over a Python list of [batch, depth] inputs, unrolled. Returns (outputs,
    final_state), outputs a list."""
    if not inputs:
        raise ValueError("static_rnn: inputs must not be empty")
    graph = _explicit_graph()
    scope = scope or "rnn"
    with (graph.name_scope(scope) if graph is not None else _null()):
        scope_name = graph._name_stack if graph is not None else scope
        state = initial_state if initial_state is not None else cell.zero_state(_batch_size(inputs[0]), dtype)
        seq = None if sequence_length is None else _ops.cast(sequence_length, _dtypes.int32)
        outputs = []
        for t, x in enumerate(inputs):
            with _cells.cell_scope(scope_name):
                out, new_state = cell(x, state)
            if seq is not None:
                mask = _ops.expand_dims(_ops.greater_equal(np.int32(t), seq), np.int32(1))
                out = _ops.select_v2(mask, _ops.zeros_like(out), out)
                new_state = _pack(state, [_ops.select_v2(mask, p, n)
                                          for p, n in zip(_flatten(state), _flatten(new_state))])
            outputs.append(out)
            state = new_state
    return outputs, state


def _reverse_sequences(x, seq, time_major):
    """x with each sequence's first seq[b] steps reversed (all steps without seq)."""
    xt = _time_major(x, time_major)
    if seq is None:
        r = _ops.reverse_v2(xt, np.array([0], np.int32))
    else:
        r = reverse_sequence(xt, seq, seq_axis=0, batch_axis=1)
    return _time_major(r, time_major)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """A forward and a backward dynamic_rnn. Returns ((output_fw, output_bw), (state_fw,
    state_bw)); output_bw is in input order (each sequence reversed back)."""
    graph = _explicit_graph()
    with (graph.name_scope(scope or "bidirectional_rnn") if graph is not None else _null()):
        out_fw, st_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                    parallel_iterations, swap_memory, time_major, scope="fw")
        rev = _reverse_sequences(inputs, sequence_length, time_major)
        out_bw, st_bw = dynamic_rnn(cell_bw, rev, sequence_length, initial_state_bw, dtype,
                                    parallel_iterations, swap_memory, time_major, scope="bw")
        out_bw = _reverse_sequences(out_bw, sequence_length, time_major)
    return (out_fw, out_bw), (st_fw, st_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """A forward and a backward static_rnn over a list of [batch, depth] inputs (tf.nn.
    static_bidirectional_rnn). Returns (outputs, state_fw, state_bw), each output the forward
    and backward outputs of its step concatenated (the backward ones in input order)."""
    if not inputs:
        raise ValueError("static_bidirectional_rnn: inputs must not be empty")
    graph = _explicit_graph()
    with (graph.name_scope(scope or "bidirectional_rnn") if graph is not None else _null()):
        out_fw, st_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length, scope="fw")
        rev = _ops.unpack(_reverse_sequences(_ops.pack(list(inputs), axis=0), sequence_length, True),
                          num=len(inputs), axis=0)
        out_bw, st_bw = static_rnn(cell_bw, list(rev), initial_state_bw, dtype, sequence_length, scope="bw")
        out_bw = _ops.unpack(_reverse_sequences(_ops.pack(out_bw, axis=0), sequence_length, True),
                             num=len(inputs), axis=0)
        outputs = [_ops.concat_v2([f, b], np.int32(1)) for f, b in zip(out_fw, out_bw)]
    return outputs, st_fw, st_bw


# the tf.nn.rnn_cell namespace
rnn_cell = type("rnn_cell", (), {name: getattr(_cells, name) for name in _cells.__all__})
