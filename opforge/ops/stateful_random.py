"""Random number generators with explicit state (TensorFlow's tf.random.Generator and its
seed helpers: create_rng_state, split, fold_in, get/set_global_generator).

A Generator's state is a variable of int64: ``[counter, 0, key]`` for Philox (shape [3]),
``[counter, key]`` for ThreeFry (shape [2]), as TensorFlow lays them out
(create_rng_state(1, "philox") is [1, 0, 0]). Each draw advances the counter by one (an
AssignAdd: in a graph, each run of the draw advances it, as TF's stateful ops) and samples with
opforge's stateless ops (StatelessRandomNormal, StatelessRandomUniform(Int),
StatelessTruncatedNormal) keyed by the pair (new counter, key). The same initial state gives the
same numbers; different counters give independent streams. The numbers are not TensorFlow's
(TF's stateful Philox kernels read the state differently); their distributions are.
"""

from __future__ import annotations

import enum
import os

import numpy as np

from .. import _C  # noqa: F401  (the runtime is loaded before any op is built)
from ..framework import dtypes as _dtypes
from ..framework import graph as _graph
from ..framework.graph import GraphTensor
from . import random_ops as _random

__all__ = ["Algorithm", "Generator", "create_rng_state", "fold_in", "get_global_generator", "set_global_generator",
           "split"]

_INT64_SEED_RANGE = (-(2 ** 62), 2 ** 62)  # seeds drawn from 2^63 values
_INT32_SEED_RANGE = (-(2 ** 31), 2 ** 31 - 1)


class Algorithm(enum.Enum):
    """The random number algorithm of a Generator (tf.random.Algorithm)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _algorithm(alg) -> Algorithm:
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, Algorithm):
        return Algorithm.PHILOX if alg is Algorithm.AUTO_SELECT else alg
    if isinstance(alg, str):
        key = alg.lower()
        if key in ("philox", "auto_select"):
            return Algorithm.PHILOX
        if key == "threefry":
            return Algorithm.THREEFRY
    elif isinstance(alg, (int, np.integer)) and int(alg) in (1, 2, 3):
        return _algorithm(Algorithm(int(alg)))
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are philox, threefry, "
                     f"auto_select (or Algorithm members)")


def _state_size(alg: Algorithm) -> int:
    return 3 if alg is Algorithm.PHILOX else 2


def _words(seed) -> list[int]:
    """seed (a non-negative int, or a list of ints) as 64-bit words, least significant first."""
    if isinstance(seed, (list, tuple, np.ndarray)):
        return [int(s) for s in np.asarray(seed).ravel()]
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    words = []
    while True:
        words.append(seed & (2 ** 64 - 1))
        seed >>= 64
        if not seed:
            return words


def create_rng_state(seed, alg):
    """The state a Generator of algorithm alg seeded with seed starts from, as an int64 NumPy
    array (tf.random.create_rng_state)."""
    size = _state_size(_algorithm(alg))
    words = _words(seed)[:size]
    words += [0] * (size - len(words))
    return np.asarray(words, np.uint64).astype(np.int64)


class Generator:
    """A random number generator with its state in a variable (tf.random.Generator)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` may be given")
            alg, state = copy_from.algorithm, copy_from._read_state()
        if state is None:
            raise ValueError("Generator: give `state` (or use Generator.from_seed / from_non_deterministic_state)")
        self._alg = _algorithm(alg)
        state = np.asarray(state, np.int64).ravel() if not isinstance(state, GraphTensor) else state
        size = _state_size(self._alg)
        if not isinstance(state, GraphTensor) and state.shape != (size,):
            raise ValueError(f"Generator: the state of {self._alg.name} has {size} elements, got {state.shape}")
        from ..framework.variables import Variable  # noqa: PLC0415  (a graph or an eager variable)
        self._state_var = Variable(state, dtype=_dtypes.int64, name="StateVar", trainable=False)

    # ---- constructors
    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state create_rng_state(seed, alg) gives."""
        alg = _algorithm(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        alg = _algorithm(alg)
        words = np.frombuffer(os.urandom(8 * _state_size(alg)), np.int64)
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator with this key (a scalar) and counter ([2] for Philox, [1] for ThreeFry)."""
        alg = _algorithm(alg)
        counter = [int(c) for c in np.asarray(counter).ravel()]
        if len(counter) != _state_size(alg) - 1:
            raise ValueError(f"from_key_counter: the counter of {alg.name} has {_state_size(alg) - 1} elements")
        return cls(state=counter + [int(np.asarray(key))], alg=alg)

    # ---- state
    state = property(lambda self: self._state_var)
    algorithm = property(lambda self: self._alg.value)

    @property
    def key(self):
        """The key part of the state (its last element)."""
        from . import array_ops  # noqa: PLC0415
        return array_ops.gather(self._state_var.value(), np.int32(_state_size(self._alg) - 1))

    def _graph_mode(self) -> bool:
        return hasattr(self._state_var, "_variable_op")

    def _read_state(self):
        if self._graph_mode():
            return self._state_var.value()
        return self._state_var.numpy()

    def _advance(self, delta: int):
        """Adds delta to the counter; the new state (a tensor)."""
        from .. import ops  # noqa: PLC0415
        step = np.zeros(_state_size(self._alg), np.int64)
        step[0] = delta
        if self._graph_mode():
            return ops.assign_add(self._state_var, step)
        self._state_var.assign_add(step)
        return self._state_var.value()

    def _next_seed(self):
        """Advances the counter by one: the seed pair (counter, key) of this draw."""
        from .. import ops  # noqa: PLC0415
        new = self._advance(1)
        return ops.gather_v2(new, np.asarray([0, _state_size(self._alg) - 1], np.int32), np.int32(0))

    def skip(self, delta):
        """Advances the counter by delta draws; returns the new state."""
        return self._advance(int(delta))

    def reset(self, state):
        """Sets the state (graph: returns the Assign)."""
        from .. import ops  # noqa: PLC0415
        state = np.asarray(state, np.int64)
        if self._graph_mode():
            return ops.assign(self._state_var, state)
        self._state_var.assign(state)
        return None

    def reset_from_seed(self, seed):
        return self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        return self.reset([int(c) for c in np.asarray(counter).ravel()] + [int(np.asarray(key))])

    # ---- draws
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values of mean and stddev."""
        return _random.stateless_normal(shape, self._next_seed(), mean, stddev, dtype, name=name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        """Normal values cut at two standard deviations (drawn again beyond)."""
        return _random.stateless_truncated_normal(shape, self._next_seed(), mean, stddev, dtype, name=name)

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        """Uniform values in [minval, maxval) (maxval 1 for floats; required for integers)."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer and maxval is None:
            return self.uniform_full_int(shape, dtype, name)
        return _random.stateless_uniform(shape, self._next_seed(), minval, maxval, dtype, name=name)

    def uniform_full_int(self, shape, dtype=_dtypes.int64, name=None):
        """Integers over (nearly) the dtype's whole range: 2^32 values for int32, 2^63 for int64."""
        dtype = _dtypes.as_dtype(dtype)
        lo, hi = _INT64_SEED_RANGE if dtype == _dtypes.int64 else _INT32_SEED_RANGE
        return _random.stateless_uniform(shape, self._next_seed(), lo, hi, dtype, name=name)

    def make_seeds(self, count=1):
        """count new seeds for stateless ops, as the columns of a [2, count] int64 tensor."""
        from .. import ops  # noqa: PLC0415
        return ops.transpose(self.uniform_full_int([count, 2], _dtypes.int64), np.asarray([1, 0], np.int32))

    def split(self, count=1):
        """count new generators whose states are drawn from this one (this one advances)."""
        if self._graph_mode():
            raise NotImplementedError("Generator.split in a graph: the new generators' states are values of this "
                                      "one's draws, known only in a Session; split eagerly, or use make_seeds "
                                      "with the stateless ops")
        seeds = np.asarray(self.uniform_full_int([count, _state_size(self._alg)], _dtypes.int64).numpy())
        return [Generator(state=s, alg=self._alg) for s in seeds]


# ---- stateless seed helpers

def split(seed, num=2, alg="auto_select"):
    """num new seeds ([num, 2], seed's dtype) derived from seed (tf.random.split)."""
    _algorithm(alg)
    from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
    seed_t = seed if hasattr(seed, "dtype") else convert_to_tensor(np.asarray(seed))
    dtype = _dtypes.as_dtype(seed_t.dtype)
    lo, hi = _INT64_SEED_RANGE if dtype == _dtypes.int64 else _INT32_SEED_RANGE
    return _random.stateless_uniform([int(num), 2], seed_t, lo, hi, dtype)


def fold_in(seed, data, alg="auto_select"):
    """A new seed [draw from seed, data], of data's dtype (tf.random.fold_in)."""
    _algorithm(alg)
    from .. import ops  # noqa: PLC0415
    from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
    data_t = data if hasattr(data, "dtype") else convert_to_tensor(np.asarray(data))
    dtype = _dtypes.as_dtype(data_t.dtype)
    lo, hi = _INT64_SEED_RANGE if dtype == _dtypes.int64 else _INT32_SEED_RANGE
    drawn = _random.stateless_uniform([], seed, lo, hi, dtype)
    return ops.pack([drawn, data_t])


_global_generator: list = []  # [generator, set by set_global_generator]


def get_global_generator():
    """The process's generator: the one set_global_generator gave, else one made from
    non-deterministic state on first use (made again when it lives in a graph other than the
    default one, whose Sessions could not run it)."""
    if _global_generator and _global_generator[1]:
        return _global_generator[0]
    if not _global_generator or (_global_generator[0]._graph_mode() and
                                 _global_generator[0].state.graph is not _graph.get_default_graph()):
        _global_generator[:] = [Generator.from_non_deterministic_state(), False]
    return _global_generator[0]


def set_global_generator(generator):
    """Replaces the process's generator (tf.random.set_global_generator)."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator: expected a Generator, got {type(generator).__name__}")
    _global_generator[:] = [generator, True]
