"""Recurrent-network cells (TensorFlow 1's tf.nn.rnn_cell); rnn.py runs them over time.

Cells own their variables, created on the first call under the cell's scope with TF1's names
("rnn/basic_lstm_cell/kernel", "rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias", ...) and
initializers (Glorot-uniform kernels; zero biases, GRU gate biases one), and compute what
TF1's cells compute, gate order included (LSTM: i, j, f, o), so a TF1 program gets the same
function.
"""

from __future__ import annotations

import collections
import contextlib

import numpy as np

from ..framework import dtypes as _dtypes
from .. import ops as _ops
from ..framework.control_flow import _flatten, _pack
from ..framework.api import device as _device_scope
from ..framework.graph import GraphTensor, _explicit_graph
from . import initializers as _initializers

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper",
           "ResidualWrapper", "DeviceWrapper", "LSTMStateTuple"]

LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))
LSTMStateTuple.dtype = property(lambda self: self.c.dtype)


# ------------------------------------------------------------------------- variables


def _glorot_uniform(shape, dtype):
    """TensorFlow's default kernel initializer (get_variable's): Glorot-uniform random ops,
    seeded as every random initializer is (layers/initializers.py)."""
    return _initializers.glorot_uniform_initializer()(shape, dtype)


def _user_init(initializer):
    """A user's initializer (a tf initializer, or any callable(shape, dtype)) as (shape, dtype)
    -> value; an initializer class is instantiated first, as get_variable does."""
    init = initializer() if isinstance(initializer, type) else initializer
    return lambda shape, dtype: init(shape, dtype=dtype)


def _variable(scope: str, name: str, shape, dtype, init):
    """A trainable variable called scope/name, outside any control-flow context (a cell first
    called inside dynamic_rnn's loop must not create its variables in the loop)."""
    from ..framework.variables import Variable  # noqa: PLC0415
    graph = _explicit_graph()

    def value():  # called by Variable under the variable's name, so in the same context
        if not callable(init):
            return np.full(shape, init, dtype.as_numpy_dtype)
        if graph is None:
            return init(shape, dtype)
        with graph.name_scope("Initializer"):
            return init(shape, dtype)

    if graph is None:
        return Variable(value, name=f"{scope}/{name}", dtype=dtype)
    saved = graph._cf_context
    graph._cf_context = None
    try:
        with graph.name_scope(None), graph.control_dependencies(None):
            return Variable(value, name=f"{scope}/{name}/", dtype=dtype)
    finally:
        graph._cf_context = saved


def _current_scope() -> str:
    graph = _explicit_graph()
    return graph._name_stack if graph is not None else ""


# ------------------------------------------------------------------------- cells


class RNNCell:
    """The base of the cells: ``cell(inputs, state) -> (output, new_state)``."""

    _default_name = "rnn_cell"

    def __init__(self, num_units=None, name=None, dtype=None):
        self._num_units = num_units
        self._name = name or self._default_name
        self._dtype = dtype
        self._built = False
        self._scope = None
        self.variables = []

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def zero_state(self, batch_size, dtype):
        return _pack(self.state_size, [_ops.zeros_like(_ops.fill(_shape_vec(batch_size, n), _zero(dtype)))
                                       for n in _flatten(self.state_size)]) \
            if isinstance(self.state_size, (tuple, list)) else \
            _ops.fill(_shape_vec(batch_size, self.state_size), _zero(dtype))

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            batch_size = _batch_size(inputs)
            dtype = dtype or inputs.dtype
        return self.zero_state(batch_size, dtype)

    def _build_once(self, input_depth: int, dtype, scope: str) -> None:
        if not self._built:
            self._scope = f"{scope}/{self._name}" if scope else self._name
            self.build(input_depth, dtype)
            self._built = True

    def _add(self, name, shape, dtype, init):
        v = _variable(self._scope, name, shape, dtype, init)
        self.variables.append(v)
        return v

    @property
    def trainable_variables(self):
        return list(self.variables)

    trainable_weights = trainable_variables
    weights = trainable_variables

    def __call__(self, inputs, state, scope=None):
        depth = _static_depth(inputs, self._name)
        dtype = _dtypes.as_dtype(inputs.dtype)
        self._build_once(depth, dtype, scope if scope is not None else _current_scope_for_cell())
        return self.call(inputs, state)


def _current_scope_for_cell() -> str:
    return _cell_scope[-1] if _cell_scope else _current_scope()


_cell_scope: list[str] = []


@contextlib.contextmanager
def cell_scope(name: str):
    """Cells first called inside make their variables under ``name`` (dynamic_rnn's "rnn/...")."""
    _cell_scope.append(name)
    try:
        yield
    finally:
        _cell_scope.pop()


def _zero(dtype):
    return np.zeros((), _dtypes.as_dtype(dtype).as_numpy_dtype)


def _shape_vec(batch_size, n):
    if isinstance(batch_size, (int, np.integer)):
        return np.array([batch_size, n], np.int32)
    return _ops.concat_v2([_ops.reshape(_ops.cast(batch_size, _dtypes.int32), np.array([1], np.int32)),
                           np.array([n], np.int32)], np.int32(0))


def _batch_size(x):
    dims = list(x.shape) if not isinstance(x, GraphTensor) else x.shape.dims
    if dims is not None and dims[0] is not None:
        return int(dims[0])
    return _dim(x, 0)


def _dim(x, i):
    """Dimension i of x as an int32 scalar tensor (its size when the graph runs)."""
    return _ops.strided_slice(_ops.shape(x), np.array([i], np.int32), np.array([i + 1], np.int32),
                              np.array([1], np.int32), shrink_axis_mask=1)


def _static_depth(x, cell_name):
    dims = x.shape.dims if isinstance(x, GraphTensor) else list(x.shape)
    if dims is None or dims[-1] is None:
        raise ValueError(f"{cell_name}: the last dimension of the inputs must be known, got shape {x.shape}")
    return int(dims[-1])


def _linear(args, kernel, bias):
    x = args[0] if len(args) == 1 else _ops.concat_v2(list(args), np.int32(1))
    y = _ops.mat_mul(x, kernel)
    return _ops.bias_add(y, bias) if bias is not None else y


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""

    _default_name = "basic_rnn_cell"

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        super().__init__(num_units, name, dtype)
        self._activation = activation or _ops.tanh

    def build(self, depth, dtype):
        n = self._num_units
        self._kernel = self._add("kernel", (depth + n, n), dtype, _glorot_uniform)
        self._bias = self._add("bias", (n,), dtype, 0.0)

    def call(self, inputs, state):
        out = self._activation(_linear([inputs, state], self._kernel, self._bias))
        return out, out


class BasicLSTMCell(RNNCell):
    """TF1's BasicLSTMCell: gates i, j, f, o from W [inputs, h] + b; c' = c sigmoid(f +
    forget_bias) + sigmoid(i) tanh(j); h' = tanh(c') sigmoid(o). State (c, h)."""

    _default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None,
                 name=None, dtype=None):
        super().__init__(num_units, name, dtype)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or _ops.tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    def zero_state(self, batch_size, dtype):
        if self._state_is_tuple:
            n = self._num_units
            return LSTMStateTuple(_ops.fill(_shape_vec(batch_size, n), _zero(dtype)),
                                  _ops.fill(_shape_vec(batch_size, n), _zero(dtype)))
        return _ops.fill(_shape_vec(batch_size, 2 * self._num_units), _zero(dtype))

    def build(self, depth, dtype):
        n = self._num_units
        self._kernel = self._add("kernel", (depth + n, 4 * n), dtype, _glorot_uniform)
        self._bias = self._add("bias", (4 * n,), dtype, 0.0)

    def _split_state(self, state):
        if self._state_is_tuple:
            return state[0], state[1]
        c, h = _ops.split(np.int32(1), state, num_split=2)
        return c, h

    def _join_state(self, c, h):
        return LSTMStateTuple(c, h) if self._state_is_tuple else _ops.concat_v2([c, h], np.int32(1))

    def call(self, inputs, state):
        c, h = self._split_state(state)
        gates = _linear([inputs, h], self._kernel, self._bias)
        i, j, f, o = _ops.split(np.int32(1), gates, num_split=4)
        forget = _ops.add_v2(f, np.asarray(self._forget_bias, f.dtype.as_numpy_dtype))
        new_c = _ops.add_v2(_ops.mul(c, _ops.sigmoid(forget)), _ops.mul(_ops.sigmoid(i), self._activation(j)))
        new_h = _ops.mul(self._activation(new_c), _ops.sigmoid(o))
        return new_h, self._join_state(new_c, new_h)


class LSTMCell(BasicLSTMCell):
    """TF1's LSTMCell: BasicLSTMCell plus optional peepholes (w_f_diag, w_i_diag, w_o_diag),
    cell clipping and an output projection (num_proj, proj_clip)."""

    _default_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0,
                 state_is_tuple=True, activation=None, reuse=None, name=None, dtype=None):
        super().__init__(num_units, forget_bias, state_is_tuple, activation, reuse, name, dtype)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._initializer = initializer

    @property
    def state_size(self):
        h = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, h) if self._state_is_tuple else self._num_units + h

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def zero_state(self, batch_size, dtype):
        if self._state_is_tuple:
            return LSTMStateTuple(_ops.fill(_shape_vec(batch_size, self._num_units), _zero(dtype)),
                                  _ops.fill(_shape_vec(batch_size, self.output_size), _zero(dtype)))
        return _ops.fill(_shape_vec(batch_size, self.state_size), _zero(dtype))

    def _kernel_init(self):
        if self._initializer is None:
            return _glorot_uniform
        return _user_init(self._initializer)

    def build(self, depth, dtype):
        n, h = self._num_units, self.output_size
        self._kernel = self._add("kernel", (depth + h, 4 * n), dtype, self._kernel_init())
        self._bias = self._add("bias", (4 * n,), dtype, 0.0)
        if self._use_peepholes:
            self._w_f = self._add("w_f_diag", (n,), dtype, self._kernel_init())
            self._w_i = self._add("w_i_diag", (n,), dtype, self._kernel_init())
            self._w_o = self._add("w_o_diag", (n,), dtype, self._kernel_init())
        if self._num_proj is not None:
            self._proj = self._add("projection/kernel", (n, self._num_proj), dtype, self._kernel_init())

    def _split_state(self, state):
        if self._state_is_tuple:
            return state[0], state[1]
        n = self._num_units
        c = _ops.slice(state, np.array([0, 0], np.int32), np.array([-1, n], np.int32))
        h = _ops.slice(state, np.array([0, n], np.int32), np.array([-1, self.output_size], np.int32))
        return c, h

    def call(self, inputs, state):
        c, h = self._split_state(state)
        gates = _linear([inputs, h], self._kernel, self._bias)
        i, j, f, o = _ops.split(np.int32(1), gates, num_split=4)
        fb = np.asarray(self._forget_bias, f.dtype.as_numpy_dtype)
        if self._use_peepholes:
            new_c = _ops.add_v2(
                _ops.mul(_ops.sigmoid(_ops.add_v2(_ops.add_v2(f, fb), _ops.mul(self._w_f, c))), c),
                _ops.mul(_ops.sigmoid(_ops.add_v2(i, _ops.mul(self._w_i, c))), self._activation(j)))
        else:
            new_c = _ops.add_v2(_ops.mul(_ops.sigmoid(_ops.add_v2(f, fb)), c),
                                _ops.mul(_ops.sigmoid(i), self._activation(j)))
        if self._cell_clip is not None:
            clip = np.asarray(self._cell_clip, new_c.dtype.as_numpy_dtype)
            new_c = _ops.clip_by_value(new_c, -clip, clip)
        if self._use_peepholes:
            m = _ops.mul(_ops.sigmoid(_ops.add_v2(o, _ops.mul(self._w_o, new_c))), self._activation(new_c))
        else:
            m = _ops.mul(_ops.sigmoid(o), self._activation(new_c))
        if self._num_proj is not None:
            m = _ops.mat_mul(m, self._proj)
            if self._proj_clip is not None:
                clip = np.asarray(self._proj_clip, m.dtype.as_numpy_dtype)
                m = _ops.clip_by_value(m, -clip, clip)
        return m, self._join_state(new_c, m)


class GRUCell(RNNCell):
    """TF1's GRUCell: r, u = sigmoid(W_g [x, h] + b_g); c = tanh(W_c [x, r h] + b_c);
    h' = u h + (1 - u) c."""

    _default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None):
        super().__init__(num_units, name, dtype)
        self._activation = activation or _ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, depth, dtype):
        n = self._num_units
        kernel = _user_init(self._kernel_initializer) if self._kernel_initializer is not None else _glorot_uniform
        bias = _user_init(self._bias_initializer) if self._bias_initializer is not None else None
        self._gate_kernel = self._add("gates/kernel", (depth + n, 2 * n), dtype, kernel)
        self._gate_bias = self._add("gates/bias", (2 * n,), dtype, bias or 1.0)
        self._candidate_kernel = self._add("candidate/kernel", (depth + n, n), dtype, kernel)
        self._candidate_bias = self._add("candidate/bias", (n,), dtype, bias or 0.0)

    def call(self, inputs, state):
        value = _ops.sigmoid(_linear([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = _ops.split(np.int32(1), value, num_split=2)
        c = self._activation(_linear([inputs, _ops.mul(r, state)], self._candidate_kernel, self._candidate_bias))
        one = np.asarray(1.0, u.dtype.as_numpy_dtype)
        new_h = _ops.add_v2(_ops.mul(u, state), _ops.mul(_ops.sub(one, u), c))
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Cells stacked: cell k reads cell k-1's output; the state is the tuple of their states."""

    _default_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        super().__init__(None, None)
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not state_is_tuple:
            raise NotImplementedError("MultiRNNCell(state_is_tuple=False) is deprecated in TF1 and not supported")
        self._cells = list(cells)

    @property
    def state_size(self):
        return tuple(c.state_size for c in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        return tuple(c.zero_state(batch_size, dtype) for c in self._cells)

    @property
    def variables(self):
        return [v for c in self._cells for v in c.variables]

    @variables.setter
    def variables(self, value):
        pass

    def __call__(self, inputs, state, scope=None):
        base = scope if scope is not None else _current_scope_for_cell()
        base = f"{base}/{self._name}" if base else self._name
        out, new_states = inputs, []
        for k, (cell, s) in enumerate(zip(self._cells, state)):
            out, ns = cell(out, s, scope=f"{base}/cell_{k}")
            new_states.append(ns)
        return out, tuple(new_states)


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and (new) state, with keep probabilities."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None, dropout_state_filter_visitor=None):
        super().__init__(None, None)
        if variational_recurrent:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True) is not supported yet")
        self._cell = cell
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)
        self._seed = seed

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)

    @property
    def variables(self):
        return self._cell.variables

    @variables.setter
    def variables(self, value):
        pass

    def _drop(self, x, keep):
        from ..ops.nn_impl import dropout  # noqa: PLC0415
        if isinstance(keep, (int, float)) and keep == 1.0:
            return x
        return dropout(x, rate=_ops.sub(np.asarray(1.0, x.dtype.as_numpy_dtype), keep)
                       if not isinstance(keep, (int, float)) else 1.0 - keep, seed=self._seed)

    def __call__(self, inputs, state, scope=None):
        inputs = self._drop(inputs, self._keep[0])
        out, new_state = self._cell(inputs, state, scope=scope)
        out = self._drop(out, self._keep[1])
        if not (isinstance(self._keep[2], (int, float)) and self._keep[2] == 1.0):
            new_state = _pack(new_state, [self._drop(s, self._keep[2]) for s in _flatten(new_state)])
        return out, new_state


class DeviceWrapper(RNNCell):
    """Runs a cell's ops on a device (tf.nn.rnn_cell.DeviceWrapper)."""

    def __init__(self, cell, device):
        super().__init__(None, None)
        self._cell, self._device = cell, device

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size, dtype):
        with _device_scope(self._device):
            return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        with _device_scope(self._device):
            return self._cell(inputs, state, scope=scope)


class ResidualWrapper(RNNCell):
    """The cell's output plus its input."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(None, None)
        self._cell = cell
        self._fn = residual_fn or (lambda i, o: _ops.add_v2(i, o))

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        out, new_state = self._cell(inputs, state, scope=scope)
        return self._fn(inputs, out), new_state
