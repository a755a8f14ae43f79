"""TensorFlow 1's API over opforge: ``import opforge.compat.v1 as tf``.

As in TF1, values are built into a graph (the default graph unless another is entered) and
computed by a Session: ``tf.constant``, ``tf.placeholder``, ``tf.Variable`` and
``tf.get_variable`` create graph nodes; the math functions add nodes when given graph values.
"""

from __future__ import annotations

import builtins
import types

import numpy as np

import opforge as _of
from opforge import ops as _ops
from opforge.dtypes import (  # noqa: F401
    DType, as_dtype, bfloat16, double, float16, float32, float64, half, int8, int16, int32, int64, uint8,
)
from opforge.errors import *  # noqa: F401,F403
from opforge.framework.graph import Graph, constant_node, get_default_graph, reset_default_graph  # noqa: F401
from opforge.framework.session import InteractiveSession, Session, get_default_session  # noqa: F401
from opforge.framework.variables import (  # noqa: F401
    RefVariable, global_variables, global_variables_initializer, trainable_variables, variables_initializer,
)
from opforge.framework.api import control_dependencies, device, group, name_scope, no_op, placeholder  # noqa: F401
from opforge.gradients.graph_grad import gradients  # noqa: F401
from opforge.framework.graph_def import GraphDef, import_graph_def  # noqa: F401
from opforge.framework.graph_def import (  # noqa: F401  (Session(config=...); the optimizer reads rewrite_options)
    ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RewriterConfig,
)
from opforge.math_api import (  # noqa: F401
    add, cast, divide, matmul, multiply, ones, reduce_max, reduce_mean, reduce_sum, reshape, square,  # reduce_*: TF1 spellings below
    subtract, transpose, zeros,
)
from opforge import nn as _nn  # issue 4 (nn)
from opforge import train as _train
from opforge import raw_ops  # noqa: F401  (tf.compat.v1.raw_ops: every op, library ops too)
from opforge.op_library import load_op_library  # noqa: F401  (tf.load_op_library)
from opforge.framework.control_flow import case, while_loop  # noqa: F401
from opforge.einsum import einsum  # noqa: F401
from opforge.dtypes import variant  # noqa: F401

bool = _of.bool_  # noqa: A001


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """tf.compat.v1.cond: fn1/fn2 are the deprecated spellings of true_fn/false_fn; without
    strict, a branch result that is a one-element list is unpacked (TF1's rule)."""
    true_fn = _legacy("true_fn", true_fn, "fn1", fn1)
    false_fn = _legacy("false_fn", false_fn, "fn2", fn2)
    out = _of.cond(pred, true_fn, false_fn, name=name)
    if not strict and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out
Tensor = _of.GraphTensor
Operation = _of.Operation

# Element-wise and array ops under their TensorFlow names.
abs = _ops.abs  # noqa: A001
exp, log, sqrt, tanh, sigmoid, negative = _ops.exp, _ops.log, _ops.sqrt, _ops.tanh, _ops.sigmoid, _ops.neg
maximum, minimum, pow = _ops.maximum, _ops.minimum, _ops.pow  # noqa: A001
equal, less, greater = _ops.equal, _ops.less, _ops.greater
identity, fill, zeros_like, ones_like, add_n = _ops.identity, _ops.fill, _ops.zeros_like, _ops.ones_like, _ops.add_n
shape, size, rank = _ops.shape, _ops.size, _ops.rank
assign, assign_add, assign_sub = _ops.assign, _ops.assign_add, _ops.assign_sub


# ---- math ops (issue 4): TensorFlow 1's names (tf.sin, tf.reduce_prod, tf.floordiv, ...)
from opforge import math  # noqa: E402
from opforge.math import (  # noqa: E402,F401
    acos, acosh, asin, asinh, atan, atan2, atanh, ceil, clip_by_value, cos, cosh,
    cumsum, erf, expm1, floor, floordiv, floormod, greater_equal, is_finite, is_nan, less_equal,
    log1p, logical_and, logical_not, logical_or, logical_xor, not_equal, reciprocal, round, rsqrt, sign, sin, sinh, squared_difference, tan,
    truediv,
)
mod = math.floormod


# ---- TensorFlow 1's legacy keywords (reduction_indices, keep_dims, dimension, dim): the same
# functions, TF1's signatures.

def _legacy(new_name, new, old_name, old):
    """TensorFlow's deprecated_argument_lookup: the value given under either spelling."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new


def _v1_reduction(fn):
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
        axis = _legacy("axis", axis, "reduction_indices", reduction_indices)
        keepdims = _legacy("keepdims", keepdims, "keep_dims", keep_dims)
        return fn(input_tensor, axis=axis, keepdims=builtins.bool(keepdims), name=name)
    reduce.__name__ = reduce.__qualname__ = fn.__name__
    reduce.__doc__ = fn.__doc__
    return reduce


reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod, reduce_all, reduce_any = (
    _v1_reduction(f) for f in (reduce_sum, reduce_mean, reduce_max, math.reduce_min, math.reduce_prod,
                               math.reduce_all, math.reduce_any))


def argmax(input, axis=None, name=None, dimension=None, output_type=int64):  # noqa: A002
    return math.argmax(input, _legacy("axis", axis, "dimension", dimension), output_type=output_type, name=name)


def argmin(input, axis=None, name=None, dimension=None, output_type=int64):  # noqa: A002
    return math.argmin(input, _legacy("axis", axis, "dimension", dimension), output_type=output_type, name=name)


def arg_max(input, dimension, output_type=int64, name=None):  # noqa: A002
    return math.argmax(input, dimension, output_type=output_type, name=name)


def arg_min(input, dimension, output_type=int64, name=None):  # noqa: A002
    return math.argmin(input, dimension, output_type=output_type, name=name)


where_v2 = _ops.select_v2  # tf.compat.v1.where_v2 (tf.where with broadcasting)
# ---- end math ops


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A Const node in the default graph."""
    return constant_node(get_default_graph(), _of.framework.tensor.constant(value, dtype=dtype, shape=shape), name=name)


def Variable(initial_value=None, dtype=None, name=None, trainable=True, **kwargs):  # noqa: N802
    if isinstance(dtype, builtins.bool):  # TF1's second positional parameter was `trainable`
        trainable, dtype = dtype, None
    return RefVariable(initial_value, dtype=dtype, name=name, trainable=trainable, **kwargs)


# ---- initializers and get_variable


class _Initializer:
    def __call__(self, shape, dtype):
        raise NotImplementedError


class constant_initializer(_Initializer):  # noqa: N801
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype):
        v = np.asarray(self.value, dtype=dtype.as_numpy_dtype)
        return np.broadcast_to(v, shape).copy() if v.size == 1 else v.reshape(shape)


class zeros_initializer(_Initializer):  # noqa: N801
    def __call__(self, shape, dtype):
        return np.zeros(shape, dtype.as_numpy_dtype)


class ones_initializer(_Initializer):  # noqa: N801
    def __call__(self, shape, dtype):
        return np.ones(shape, dtype.as_numpy_dtype)


class random_normal_initializer(_Initializer):  # noqa: N801
    def __init__(self, mean=0.0, stddev=1.0, seed=None):
        self.mean, self.stddev, self.rng = mean, stddev, np.random.default_rng(seed)

    def __call__(self, shape, dtype):
        return self.rng.normal(self.mean, self.stddev, shape).astype(dtype.as_numpy_dtype)


class glorot_uniform_initializer(_Initializer):  # noqa: N801
    """Uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, shape, dtype):
        shape = tuple(shape)
        if len(shape) == 0:
            fan_in = fan_out = 1
        elif len(shape) == 1:
            fan_in = fan_out = shape[0]
        else:
            receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
            fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
        limit = np.sqrt(6.0 / max(1, fan_in + fan_out))
        return self.rng.uniform(-limit, limit, shape).astype(dtype.as_numpy_dtype)


_variable_store: dict[tuple[int, str], RefVariable] = {}
_scope_stack: list[tuple[str, object]] = []  # (name, reuse: None, True or AUTO_REUSE)


def get_variable(name, shape=None, dtype=float32, initializer=None, trainable=True, **kwargs):
    """Gets an existing variable (under reuse) or creates one with an initializer
    (glorot_uniform by default, as in TF1)."""
    g = get_default_graph()
    prefix = "/".join(s for s, _ in _scope_stack)
    full = f"{prefix}/{name}" if prefix else name
    key = (id(g), full)
    reuse = None
    for _, r in _scope_stack:  # reuse is inherited by inner scopes
        if r is not None and r is not False:
            reuse = r
    if key in _variable_store:
        if reuse is None:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True "
                             f"or reuse=tf.AUTO_REUSE in VarScope?")
        return _variable_store[key]
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable().")
    dtype = as_dtype(dtype)
    if initializer is None:
        initializer = glorot_uniform_initializer()
    if isinstance(initializer, _Initializer):
        value = initializer(tuple(shape or ()), dtype)
    elif callable(initializer):
        value = initializer(shape, dtype)
    else:
        value = np.asarray(initializer, dtype.as_numpy_dtype)
    v = RefVariable(value, dtype=dtype, name=full + "/", trainable=trainable)  # "/": absolute name
    _variable_store[key] = v
    return v


AUTO_REUSE = "auto_reuse"


class variable_scope:  # noqa: N801
    def __init__(self, name_or_scope, reuse=None, default_name=None):
        self.name = name_or_scope or default_name
        self.reuse = reuse

    def __enter__(self):
        _scope_stack.append((self.name, self.reuse if self.reuse else None))
        self._ns = get_default_graph().name_scope(self.name)
        self._ns.__enter__()
        return self

    def __exit__(self, *exc):
        self._ns.__exit__(*exc)
        _scope_stack.pop()


def initialize_all_variables():
    return global_variables_initializer()


def disable_eager_execution():
    """Accepted for compatibility: compat.v1 builds graphs already."""


def disable_v2_behavior():
    """Accepted for compatibility."""


# ---- namespaces

# ---- nn (issue 4): tf.compat.v1.nn names and TF1 signatures, from opforge/nn.py
nn = _nn.compat_v1_namespace()
image = __import__("opforge.image", fromlist=["compat_v1_namespace"]).compat_v1_namespace()
train = types.SimpleNamespace(
    GradientDescentOptimizer=_train.GradientDescentOptimizer,
    MomentumOptimizer=_train.MomentumOptimizer,
    AdamOptimizer=_train.AdamOptimizer,
    Optimizer=_train.Optimizer,
    write_graph=_train.write_graph,
    read_graph=_train.read_graph,
    get_global_step=_train.get_global_step,
    get_or_create_global_step=_train.get_or_create_global_step,
    create_global_step=_train.create_global_step,
)
initializers = types.SimpleNamespace(
    constant=constant_initializer, zeros=zeros_initializer, ones=ones_initializer,
    glorot_uniform=glorot_uniform_initializer, random_normal=random_normal_initializer,
    global_variables=global_variables_initializer,
)


# ---- array and random ops (issue 4, array/random area) ------------------------------------
from opforge import array_api as _array_api  # noqa: E402
from opforge import random_api as _random_api  # noqa: E402

concat, stack, unstack, split = _array_api.concat, _array_api.stack, _array_api.unstack, _array_api.split
slice, strided_slice = _array_api.slice, _array_api.strided_slice  # noqa: A001
gather, gather_nd, scatter_nd = _array_api.gather, _array_api.gather_nd, _array_api.scatter_nd
pad, tile, broadcast_to = _array_api.pad, _array_api.tile, _array_api.broadcast_to
squeeze, one_hot = _array_api.squeeze, _array_api.one_hot  # squeeze takes TF1's squeeze_dims too


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    return _array_api.expand_dims(input, _legacy("axis", axis, "dim", dim), name=name)
reverse = reverse_v2 = _array_api.reverse
where, stop_gradient = _array_api.where, _array_api.stop_gradient
unsorted_segment_sum = _ops.unsorted_segment_sum
newaxis = None


def set_random_seed(seed):
    """Sets the default graph's random seed (tf.set_random_seed)."""
    _random_api.set_graph_seed(get_default_graph(), seed)


def _in_default_graph(fn):
    """TF1 random ops are graph nodes of the default graph, seeded from its seed."""
    def wrapped(*args, **kwargs):
        g = get_default_graph()
        with g.as_default():
            return fn(*args, _graph=g, **kwargs)
    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


random_normal = _in_default_graph(_random_api.normal)
random_uniform = _in_default_graph(_random_api.uniform)
truncated_normal = _in_default_graph(_random_api.truncated_normal)
random_shuffle = _in_default_graph(_random_api.shuffle)


def _stateless_in_default_graph(fn):
    def wrapped(*args, **kwargs):
        with get_default_graph().as_default():
            return fn(*args, **kwargs)
    wrapped.__name__, wrapped.__doc__ = fn.__name__, fn.__doc__
    return wrapped


random = types.SimpleNamespace(
    normal=random_normal, uniform=random_uniform, truncated_normal=truncated_normal,
    shuffle=random_shuffle, set_random_seed=set_random_seed,
    stateless_uniform=_stateless_in_default_graph(_random_api.stateless_uniform),
    stateless_normal=_stateless_in_default_graph(_random_api.stateless_normal),
    stateless_truncated_normal=_stateless_in_default_graph(_random_api.stateless_truncated_normal),
)
