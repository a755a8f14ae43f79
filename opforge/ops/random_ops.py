"""``of.random``: seeded random tensors (TensorFlow's tf.random), over the random ops.

Seeds follow TensorFlow: an op gets the pair (global seed, op seed). With a global seed
(``of.random.set_seed``) and no op seed, op seeds are drawn from a counter, so a program that
sets the global seed is reproducible; with only an op seed, the global seed is a fixed
default; with neither, the stream is non-deterministic. Stateful ops continue their stream on
every call (eagerly per (op, seed pair), in graphs per node and Session); ``set_seed``
restarts the eager streams. The stateless functions are pure functions of their seed.
"""

from __future__ import annotations

import contextlib
import numbers
import types

import numpy as np

from .. import _C
from .. import ops as _ops
from ..framework.dtypes import as_dtype, int64
from ..framework.graph import GraphTensor, _explicit_graph

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1

_state = types.SimpleNamespace(seed=None, counter=0)


def set_seed(seed):
    """Sets the global random seed (tf.random.set_seed). Inside ``with graph.as_default()``
    it sets that graph's seed too (tf.compat.v1.set_random_seed)."""
    _state.seed = None if seed is None else int(seed)
    _state.counter = 0
    _C.reset_random_streams()
    g = _explicit_graph()
    if g is not None:
        set_graph_seed(g, seed)


def set_graph_seed(graph, seed):
    """The graph-level seed of TensorFlow 1 (graph.seed)."""
    graph.seed = None if seed is None else int(seed)
    graph._random_op_counter = 0


def get_seed(op_seed=None, graph=None):
    """(seed, seed2) for an op, as TensorFlow's random_seed.get_seed. graph=None: the graph
    being built if any, else the eager global seed."""
    graph = graph if graph is not None else _explicit_graph()
    if graph is not None:
        global_seed = graph.seed
        if global_seed is None:
            global_seed = _state.seed
    else:
        global_seed = _state.seed
    if global_seed is not None:
        if op_seed is None:
            if graph is not None:
                op_seed = graph._random_op_counter
                graph._random_op_counter = op_seed + 1
            else:
                op_seed = _state.counter
                _state.counter += 1
        seeds = (int(global_seed), int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return 0, 0
    if seeds == (0, 0):
        return 0, _MAXINT32
    wrap = lambda v: int(np.int64(np.uint64(v % 2**64)))  # noqa: E731 (int64 attr range)
    return wrap(seeds[0]), wrap(seeds[1])


def _shape(shape):
    if isinstance(shape, (list, tuple)) and not any(isinstance(d, GraphTensor) for d in shape):
        return np.asarray(shape, dtype=np.int64).astype(np.int32) if all(
            0 <= int(d) < 2**31 for d in shape) else np.asarray(shape, dtype=np.int64)
    if isinstance(shape, numbers.Integral):
        return np.asarray([shape], np.int32)
    return shape


def _is_one(v):
    return isinstance(v, numbers.Number) and v == 1


def _is_zero(v):
    return isinstance(v, numbers.Number) and v == 0


def _const(v, npdt):
    return v if hasattr(v, "dtype") and not isinstance(v, np.ndarray) else np.asarray(v).astype(npdt)


def _sampled(sample, scale, shift, dtype, name, default, graph=None):
    """sample(name) * scale + shift, skipping the identity parts, named as TensorFlow names
    its samplers: in a graph, under the scope ``name`` (else ``default``), the add (or the
    last op) named for the scope itself, so that ``name:0`` is the scaled value."""
    npdt = dtype.as_numpy_dtype
    scaled, shifted = not _is_one(scale), not _is_zero(shift)
    g = graph if graph is not None else _explicit_graph()
    with g.name_scope(name or default) if g is not None else contextlib.nullcontext() as scope:
        scale = scale() if callable(scale) else scale  # an op (a span of tensor bounds): in the scope
        x = sample(scope if not (scaled or shifted) else None)
        if scaled:
            x = _ops.mul(x, _const(scale, npdt), name=scope if not shifted else None)
        if shifted:
            x = _ops.add_v2(x, _const(shift, npdt), name=scope)
        return x


def _seeds(seed, graph):
    return get_seed(seed, graph)


def uniform(shape, minval=0, maxval=None, dtype="float32", seed=None, name=None, _graph=None):
    """Uniform values in [minval, maxval) (tf.random.uniform). Integer dtypes need maxval."""
    dtype = as_dtype(dtype)
    s1, s2 = _seeds(seed, _graph)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"uniform: maxval must be given for dtype {dtype.name}")
        npdt = dtype.as_numpy_dtype
        lo = minval if hasattr(minval, "dtype") and not isinstance(minval, np.ndarray) else np.asarray(minval).astype(npdt)
        hi = maxval if hasattr(maxval, "dtype") and not isinstance(maxval, np.ndarray) else np.asarray(maxval).astype(npdt)
        return _ops.random_uniform_int(_shape(shape), lo, hi, seed=s1, seed2=s2, name=name)
    maxval = 1 if maxval is None else maxval
    if isinstance(maxval, numbers.Number) and isinstance(minval, numbers.Number):
        span = maxval - minval
    else:  # tensor bounds: the span is an op of the scope
        span = lambda: _ops.sub(maxval, minval, name="sub")  # noqa: E731
    return _sampled(lambda n: _ops.random_uniform(_shape(shape), dtype, seed=s1, seed2=s2, name=n),
                    span, minval, dtype, name, "random_uniform", _graph)


def normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None, _graph=None):
    """Normal values (tf.random.normal)."""
    dtype = as_dtype(dtype)
    s1, s2 = _seeds(seed, _graph)
    return _sampled(lambda n: _ops.random_standard_normal(_shape(shape), dtype, seed=s1, seed2=s2, name=n),
                    stddev, mean, dtype, name, "random_normal", _graph)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None, _graph=None):
    """Normal values cut at two standard deviations (tf.random.truncated_normal)."""
    dtype = as_dtype(dtype)
    s1, s2 = _seeds(seed, _graph)
    return _sampled(lambda n: _ops.truncated_normal(_shape(shape), dtype, seed=s1, seed2=s2, name=n),
                    stddev, mean, dtype, name, "truncated_normal", _graph)


def shuffle(value, seed=None, name=None, _graph=None):
    """Shuffles along the first dimension (tf.random.shuffle)."""
    s1, s2 = _seeds(seed, _graph)
    return _ops.random_shuffle(value, seed=s1, seed2=s2, name=name)


def _seed_tensor(seed):
    if isinstance(seed, (list, tuple)):
        return np.asarray(seed, np.int64)
    return seed


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype="float32", name=None):
    """Deterministic uniform values: a pure function of shape and seed (shape [2])."""
    dtype = as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError(f"stateless_uniform: maxval must be given for dtype {dtype.name}")
        npdt = dtype.as_numpy_dtype
        return _ops.stateless_random_uniform_int(_shape(shape), _seed_tensor(seed), np.asarray(minval).astype(npdt),
                                                 np.asarray(maxval).astype(npdt), name=name)
    maxval = 1 if maxval is None else maxval
    return _sampled(lambda n: _ops.stateless_random_uniform(_shape(shape), _seed_tensor(seed), dtype=dtype, name=n),
                    maxval - minval, minval, dtype, name, "stateless_random_uniform")


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32", name=None):
    dtype = as_dtype(dtype)
    return _sampled(lambda n: _ops.stateless_random_normal(_shape(shape), _seed_tensor(seed), dtype=dtype, name=n),
                    stddev, mean, dtype, name, "stateless_random_normal")


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32", name=None):
    dtype = as_dtype(dtype)
    return _sampled(lambda n: _ops.stateless_truncated_normal(_shape(shape), _seed_tensor(seed), dtype=dtype,
                                                              name=n),
                    stddev, mean, dtype, name, "stateless_truncated_normal")


__all__ = ["set_seed", "get_seed", "uniform", "normal", "truncated_normal", "shuffle",
           "stateless_uniform", "stateless_normal", "stateless_truncated_normal"]


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None,
                                  _graph=None):
    """Samples classes from [0, range_max) with a log-uniform (Zipfian) distribution
    (tf.random.log_uniform_candidate_sampler): returns (sampled_candidates,
    true_expected_count, sampled_expected_count)."""
    s1, s2 = _seeds(seed, _graph)
    true_classes = true_classes if hasattr(true_classes, "dtype") and not isinstance(true_classes, np.ndarray) \
        else np.asarray(true_classes, np.int64)
    if getattr(true_classes, "dtype", None) != int64:
        true_classes = _ops.cast(true_classes, int64)
    return tuple(_ops.log_uniform_candidate_sampler(true_classes, num_true=int(num_true), num_sampled=int(num_sampled),
                                                    unique=bool(unique), range_max=int(range_max), seed=s1, seed2=s2,
                                                    name=name))


def categorical(logits, num_samples, dtype=None, seed=None, name=None, _graph=None):
    """num_samples draws per row of logits [batch, classes] from the categorical distribution
    softmax(logits) (tf.random.categorical): the Gumbel-max trick, argmax(logits + G) with
    G = -log(-log(U)) for uniform U, which samples that distribution exactly."""
    out_dtype = as_dtype(dtype or "int64")
    logits = logits if hasattr(logits, "dtype") and not isinstance(logits, np.ndarray) else \
        _ops.identity(np.asarray(logits, np.float32))
    ftype = as_dtype(logits.dtype)
    shape = _ops.shape(logits)
    batch = _ops.strided_slice(shape, np.array([0], np.int32), np.array([1], np.int32), np.array([1], np.int32))
    classes = _ops.strided_slice(shape, np.array([1], np.int32), np.array([2], np.int32), np.array([1], np.int32))
    draw_shape = _ops.concat_v2([batch, np.asarray([num_samples], np.int32) if not hasattr(num_samples, "dtype")
                                 else _ops.reshape(_ops.cast(num_samples, "int32"), np.array([1], np.int32)),
                                 classes], np.int32(0))
    tiny = np.finfo(ftype.as_numpy_dtype).tiny
    u = uniform(draw_shape, minval=tiny, maxval=1.0, dtype=ftype, seed=seed, _graph=_graph)
    gumbel = _ops.neg(_ops.log(_ops.neg(_ops.log(u))))
    scores = _ops.add_v2(_ops.expand_dims(logits, np.int32(1)), gumbel)
    return _ops.arg_max(scores, np.int32(2), output_type=out_dtype, name=name)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None, _graph=None):
    """tf.random.multinomial: categorical with TF1's argument order."""
    return categorical(logits, num_samples, output_dtype, seed, name, _graph=_graph)
