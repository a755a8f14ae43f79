"""TensorFlow 1's API over opforge: ``import opforge.compat.v1 as tf``.

As in TF1, values are built into a graph (the default graph unless another is entered) and
computed by a Session: ``tf.constant``, ``tf.placeholder``, ``tf.Variable`` and
``tf.get_variable`` create graph nodes; the math functions add nodes when given graph values.
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

import opforge as _of
from opforge import ops as _ops
from opforge.framework.dtypes import (  # noqa: F401
    DType, bfloat16, double, float16, float32, float64, half, int8, int16, int32, int64, uint8,
)
from opforge.framework.errors import *  # noqa: F401,F403
from opforge.framework.errors import UnimplementedError
from opforge.framework.graph import Graph, constant_node, get_default_graph, reset_default_graph  # noqa: F401
from opforge.framework.session import InteractiveSession, Session, get_default_session  # noqa: F401
from opforge.framework.variables import (  # noqa: F401
    RefVariable, global_variables_initializer, variables_initializer,
)
from opforge.framework.tf2_behavior import create_variable as _create_variable
from opforge.framework import api as _api
from opforge.framework.api import control_dependencies, group, name_scope, no_op, placeholder  # noqa: F401
from opforge.gradients.graph_grad import gradients  # noqa: F401
from opforge.io.graph_def import GraphDef  # noqa: F401
from opforge.io.importer import import_graph_def  # noqa: F401
from opforge.io.graph_def import (  # noqa: F401  (Session(config=...); the optimizer reads rewrite_options)
    ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RewriterConfig, RunMetadata, RunOptions,
)
from opforge.ops.math_ops import (  # noqa: F401
    add, cast, divide, multiply, ones, reduce_max, reduce_mean, reduce_sum, reshape, square,  # reduce_*: TF1 spellings below
    subtract, zeros,
)
from opforge.ops import raw_ops  # noqa: F401  (tf.compat.v1.raw_ops: every op, library ops too)
from opforge.ops.op_library import load_library as _load_library, load_op_library as _load_op_library
from opforge.framework.control_flow import case, while_loop  # noqa: F401
from opforge.ops.einsum_ops import einsum  # noqa: F401
from opforge.ops.tensor_array_ops import TensorArray as _TensorArray
from opforge.compat._namespace import graph_class, in_default_graph
from opforge.framework.dtypes import resource, string, variant  # noqa: F401
from opforge import timeline  # noqa: F401  (TensorFlow's tensorflow.python.client.timeline)

bool = _of.bool_  # noqa: A001


# ---- TensorFlow 1's argument names over opforge's functions
def global_variables(scope=None):
    """The global variables of the default graph, those whose names match scope if given."""
    return get_default_graph().get_collection("variables", scope)


def trainable_variables(scope=None):
    """The trainable variables of the default graph, those whose names match scope if given."""
    return get_default_graph().get_collection("trainable_variables", scope)


def device(device_name_or_function):
    """tf.device: ops built inside are placed on the device."""
    return _api.device(device_name_or_function)


def load_op_library(library_filename):
    """tf.load_op_library: loads an op library (its ops appear in tf.raw_ops)."""
    return _load_op_library(library_filename)


def load_library(library_location):
    """tf.load_library: loads the op library at library_location, or every one (*.so) in that
    folder; their ops appear in tf.raw_ops."""
    _load_library(library_location)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros of tensor's shape, of dtype if given (tf.zeros_like; optimize is a TF hint); for a
    string tensor, empty strings (its elements cut to length 0)."""
    if not hasattr(tensor, "dtype") or isinstance(tensor, np.ndarray):  # Python/NumPy strings too
        probe = np.asarray(tensor)
        if probe.dtype.kind in "SU" or (probe.dtype == object and probe.size and
                                        all(isinstance(v, (bytes, str)) for v in probe.flat)):
            tensor = constant(tensor)
    if getattr(tensor, "dtype", None) == string and dtype in (None, string):
        return _ops.substr(tensor, np.int32(0), np.int32(0), name=name)
    out = _ops.zeros_like(tensor, name=None if dtype is not None else name)
    return out if dtype is None else _ops.cast(out, dtype, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones of tensor's shape, of dtype if given (tf.ones_like; optimize is a TF hint)."""
    out = _ops.ones_like(tensor, name=None if dtype is not None else name)
    return out if dtype is None else _ops.cast(out, dtype, name=name)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """tf.transpose (conjugate changes nothing: opforge's dtypes are real)."""
    return _of.transpose(a, perm, name=name)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, output_type=None, name=None):
    """tf.matmul; a_is_sparse and b_is_sparse are TF's hints (the product is the same);
    output_type other than the inputs' dtype is not supported."""
    if output_type is not None and _of.as_dtype(output_type) != _of.as_dtype(getattr(a, "dtype", output_type)):
        raise UnimplementedError("matmul: output_type other than the inputs' dtype is not supported", "MatMul")
    return _of.matmul(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b, name=name)

# tf.TensorArray: builds into the default graph, its constructor too.
TensorArray = graph_class(_TensorArray)
TensorArray.__init__ = in_default_graph(_TensorArray.__init__)


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """tf.compat.v1.cond: fn1/fn2 are the deprecated spellings of true_fn/false_fn; without
    strict, a branch result that is a one-element list is unpacked (TF1's rule)."""
    true_fn = _legacy("true_fn", true_fn, "fn1", fn1)
    false_fn = _legacy("false_fn", false_fn, "fn2", fn2)
    out = _of.cond(pred, true_fn, false_fn, name=name)
    if not strict and isinstance(out, (list, builtins.tuple)) and len(out) == 1:  # (tf.tuple shadows tuple)
        return out[0]
    return out
Tensor = _of.GraphTensor
Operation = _of.Operation

# Element-wise and array ops under their TensorFlow names.
abs = _ops.abs  # noqa: A001
exp, log, sqrt, tanh, sigmoid, negative = _ops.exp, _ops.log, _ops.sqrt, _ops.tanh, _ops.sigmoid, _ops.neg
maximum, minimum, pow = _ops.maximum, _ops.minimum, _ops.pow  # noqa: A001
equal, less, greater = _ops.equal, _ops.less, _ops.greater
identity, fill, add_n = _ops.identity, _ops.fill, _ops.add_n
shape, size, rank = _ops.shape, _ops.size, _ops.rank
assign, assign_add, assign_sub = _ops.assign, _ops.assign_add, _ops.assign_sub


# ---- math ops (issue 4): TensorFlow 1's names (tf.sin, tf.reduce_prod, tf.floordiv, ...)
from opforge.ops import math  # noqa: E402
from opforge.ops import math as _math_ops  # noqa: E402  (`math` becomes tf.math below)
from opforge.ops.math import (  # noqa: E402,F401
    acos, acosh, asin, asinh, atan, atan2, atanh, ceil, clip_by_value, cos, cosh,
    cumsum, erf, expm1, floor, floordiv, floormod, greater_equal, is_finite, is_nan, less_equal,
    log1p, logical_and, logical_not, logical_or, logical_xor, not_equal, reciprocal, round, rsqrt, sign, sin, sinh, squared_difference, tan,
    truediv,
)
mod = math.floormod


# ---- TensorFlow 1's legacy keywords (reduction_indices, keep_dims, dimension, dim): the same
# functions, TF1's signatures.

from opforge.compat._namespace import legacy_argument as _legacy  # noqa: E402


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
    return _math_ops.argmax(input, _legacy("axis", axis, "dimension", dimension), output_type=output_type, name=name)


def argmin(input, axis=None, name=None, dimension=None, output_type=int64):  # noqa: A002
    return _math_ops.argmin(input, _legacy("axis", axis, "dimension", dimension), output_type=output_type, name=name)


def arg_max(input, dimension, output_type=int64, name=None):  # noqa: A002
    return _math_ops.argmax(input, dimension, output_type=output_type, name=name)


def arg_min(input, dimension, output_type=int64, name=None):  # noqa: A002
    return _math_ops.argmin(input, dimension, output_type=output_type, name=name)


def where_v2(condition, x=None, y=None, name=None):
    """tf.compat.v1.where_v2: elements of x where condition, else of y, broadcasting all three;
    with neither x nor y, the indices where condition is true."""
    if x is None and y is None:
        return _array_api.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be given, or neither")
    return _ops.select_v2(condition, x, y, name=name)
# ---- end math ops


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A Const node in the default graph."""
    return constant_node(get_default_graph(), _of.framework.tensor.constant(value, dtype=dtype, shape=shape), name=name)


def Variable(initial_value=None, trainable=None, collections=None, validate_shape=True,  # noqa: N802
             caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None, import_scope=None,
             constraint=None, use_resource=None, synchronization=None, aggregation=None, shape=None):
    """A graph variable, with TensorFlow 1's parameters in TF1's order (``tf.Variable(0.2,
    'weight')`` passes 'weight' as ``trainable``, as TF1 does)."""
    return _create_variable(RefVariable, initial_value=initial_value, dtype=dtype, name=name,
                            trainable=True if trainable is None else builtins.bool(trainable), collections=collections,
                            validate_shape=validate_shape, caching_device=caching_device, variable_def=variable_def,
                            expected_shape=expected_shape, import_scope=import_scope, constraint=constraint,
                            use_resource=use_resource, synchronization=synchronization, aggregation=aggregation,
                            shape=shape)  # through tf.variable_creator_scope's creators


# ---- initializers, variable scopes and get_variable
from opforge.layers.initializers import (  # noqa: E402,F401
    constant_initializer, glorot_normal_initializer, glorot_uniform_initializer, identity_initializer,
    ones_initializer, orthogonal_initializer, random_normal_initializer, random_uniform_initializer,
    truncated_normal_initializer, variance_scaling_initializer, zeros_initializer,
)
from opforge.framework.variable_scope import (  # noqa: E402,F401
    AUTO_REUSE, VariableScope, get_variable, get_variable_scope, variable_scope,
)
variable_op_scope = variable_scope


def initialize_all_variables():
    return global_variables_initializer()


def disable_eager_execution():
    """Accepted for compatibility: compat.v1 builds graphs already."""


def disable_v2_behavior():
    """Accepted for compatibility."""


# ---- array and random ops (issue 4, array/random area) ------------------------------------
from opforge.ops import array_ops as _array_api  # noqa: E402
from opforge.ops import random_ops as _random_api  # noqa: E402

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
unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod = (
    _ops.unsorted_segment_max, _ops.unsorted_segment_min, _ops.unsorted_segment_prod)
segment_max, segment_min, segment_prod = math.segment_max, math.segment_min, math.segment_prod
newaxis = None


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 (TF1's name)
    """input_ passed through; each run writes message and the data tensors to stderr (tf.Print)."""
    return _ops.print(input_, list(data), message=message or "", first_n=-1 if first_n is None else int(first_n),
                      summarize=3 if summarize is None else int(summarize), name=name)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 (TF1's name)
    """An op that fails the run with InvalidArgumentError, listing data, when condition is false
    (tf.Assert); run it, or make other ops depend on it with control_dependencies."""
    return _ops.assert_(condition, list(data), summarize=3 if summarize is None else int(summarize), name=name)


def set_random_seed(seed):
    """Sets the default graph's random seed (tf.set_random_seed)."""
    _random_api.set_graph_seed(get_default_graph(), seed)


def _in_default_graph(fn):
    """TF1 random ops are graph nodes of the default graph, seeded from its seed."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        g = get_default_graph()
        with g.as_default():
            return fn(*args, _graph=g, **kwargs)
    return wrapped


random_normal = _in_default_graph(_random_api.normal)
random_uniform = _in_default_graph(_random_api.uniform)
truncated_normal = _in_default_graph(_random_api.truncated_normal)
random_shuffle = _in_default_graph(_random_api.shuffle)
multinomial = _in_default_graph(_random_api.multinomial)
from opforge.ops import random_distributions as _random_dist  # noqa: E402  (Gamma, Poisson)
from opforge.ops import candidate_sampling_ops as _cs  # noqa: E402  (candidate samplers)
random_gamma = _in_default_graph(_random_dist.gamma)
random_poisson = _in_default_graph(_random_dist.poisson)


from opforge.compat.v1._tf1 import *  # noqa: E402,F401,F403  (the rest of TF1's API and its namespaces)
from opforge.compat.v1._tf1_io import *  # noqa: E402,F401,F403  (records, parsing, SparseTensor, linalg)
from opforge.compat.v1._tf1_strings import *  # noqa: E402,F401,F403  (tf.strings, tf.sparse and their TF1 names)
from opforge.compat.v1._tf1_ragged import *  # noqa: E402,F401,F403  (tf.RaggedTensor, tf.ragged, unicode strings)
from opforge.compat.v1._tf1_feature_column import *  # noqa: E402,F401,F403  (tf.feature_column)
from opforge.compat.v1._tf1_arrayops import *  # noqa: E402,F401,F403  (guarantee_const, timestamp, repeat, bitwise)
from opforge.compat.v1._tf1_script import *  # noqa: E402,F401,F403  (py_func, custom gradients)
from opforge.compat.v1 import _tf1_losses_nn  # noqa: E402,F401  (more tf.losses and tf.nn names)
from opforge.compat.v1._tf1_trainmisc import *  # noqa: E402,F401,F403  (producers, accumulators, tf.sets, ...)
from opforge.compat.v1._tf1_linop import *  # noqa: E402,F401,F403  (LinearOperators, sqrtm, tf.conv, raw_rnn)
from opforge.compat.v1._tf1_moreops import *  # noqa: E402,F401,F403  (TensorScatter*, dynamic_partition/stitch, init queries)
from opforge.compat.v1._tf1_miscops import *  # noqa: E402,F401,F403  (serialize/parse_tensor, fractional pools, samplers)
from opforge.compat.v1._tf1_miscops import random_names as _tf1_miscops_random  # noqa: E402
from opforge.compat.v1._tf1_spectral import *  # noqa: E402,F401,F403  (complex dtypes, FFTs, tf.signal)
from opforge.compat.v1._tf1_quantization import *  # noqa: E402,F401,F403  (tf.quantize, fake_quant_*, quantized dtypes)
from opforge.compat.v1._tf1_test import test  # noqa: E402,F401
from opforge.compat.v1._tf1_lookup import lookup  # noqa: E402,F401  (tf.lookup tables)
from opforge.compat.v1._tf1_runtime import *  # noqa: E402,F401,F403  (partitioners, tensor conversions)
from opforge.compat.v1._tf1_train import (  # noqa: E402,F401
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue, queue,
)
from opforge.compat.v1._tf1_namespaces import (  # noqa: E402,F401
    CXX11_ABI_FLAG, CXX_VERSION, MONOLITHIC_BUILD, graph_util, resource_loader, sysconfig,
)
from opforge.ops.array_ops import unique, unique_with_counts  # noqa: E402,F401
from opforge.ops.state_ops import (  # noqa: E402,F401  (sparse updates of variables)
    batch_scatter_update, scatter_add, scatter_div, scatter_max, scatter_min, scatter_mul, scatter_nd_add,
    scatter_nd_sub, scatter_nd_update, scatter_sub, scatter_update,
)
from opforge.compat._namespace import Namespace  # noqa: E402
from opforge.compat._namespace import missing as _missing, wrap_module_functions as _wrap  # noqa: E402

for _n in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all", "reduce_any",
           "argmax", "argmin", "matmul"):  # tf.compat.v1.math spells them with TF1's keywords too
    setattr(math, _n, in_default_graph(globals()[_n]))  # noqa: F405
linalg.matmul = in_default_graph(matmul)  # noqa: F405

# Whole files as string tensors and glob patterns (ReadFile, WriteFile, MatchingFiles).
read_file, write_file, matching_files = _ops.read_file, _ops.write_file, _ops.matching_files
io.read_file, io.write_file, io.matching_files = (  # noqa: F405
    in_default_graph(read_file), in_default_graph(write_file), in_default_graph(matching_files))

random = Namespace(
    "random", normal=random_normal, uniform=random_uniform, truncated_normal=truncated_normal,
    shuffle=random_shuffle, set_random_seed=set_random_seed,
    stateless_uniform=_random_api.stateless_uniform, stateless_normal=_random_api.stateless_normal,
    stateless_truncated_normal=_random_api.stateless_truncated_normal, get_seed=get_seed,  # noqa: F405
    multinomial=multinomial, categorical=_in_default_graph(_random_api.categorical),
    gamma=random_gamma, poisson=random_poisson, stateless_gamma=_random_dist.stateless_gamma,
    stateless_poisson=_random_dist.stateless_poisson, **_tf1_miscops_random(),
    **{_n: _in_default_graph(getattr(_cs, _n)) for _n in _cs.__all__ if _n != "compute_accidental_hits"},
)
for _n in _cs.__all__:  # tf.nn's spellings of the candidate samplers
    setattr(nn, _n, _in_default_graph(getattr(_cs, _n)))  # noqa: F405

# tf.debugging: the checks under their tf.* and tf.math.* names.
_DEBUGGING = ("Assert", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer", "assert_less",
              "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive",
              "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank", "assert_rank_at_least",
              "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_type", "check_numerics",
              "is_numeric_tensor", "is_non_decreasing", "is_strictly_increasing")
debugging = Namespace("debugging", {n: globals()[n] for n in _DEBUGGING}, builds_graph=False,
                      is_finite=math.is_finite, is_inf=math.is_inf, is_nan=math.is_nan,  # noqa: F405
                      assert_all_finite=verify_tensor_all_finite)  # noqa: F405

from opforge.compat.v1 import _tf1_tf2era  # noqa: E402  (tf.nest, tf.function, Checkpoint, random.Generator, ...)
_tf1_tf2era.install(globals())

# Every function builds into the default graph, as TensorFlow 1's do.
_wrap(globals(), skip={"reset_default_graph", "get_default_graph", "disable_eager_execution",
                       "disable_v2_behavior", "enable_eager_execution", "executing_eagerly"})


def __getattr__(name):
    """A name opforge lacks: TensorFlow's AttributeError, saying opforge does not have it yet."""
    raise _missing("", name)
