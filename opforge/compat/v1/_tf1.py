"""The rest of TensorFlow 1's API for ``opforge.compat.v1``: its namespaces (tf.nn, tf.train,
tf.layers, tf.losses, tf.metrics, tf.app, tf.flags, tf.gfile, tf.logging, ...), collections
and GraphKeys, and the top-level helpers TF1 programs use (tf.to_float, tf.range, tf.Print,
tf.clip_by_global_norm, ...). Each name is backed by opforge's own modules; this file gives
them TensorFlow 1's spelling."""

from __future__ import annotations

import builtins
import math as _pymath
import os
import sys

import numpy as np

import opforge as _of
from opforge.ops import image_ops as _image
from opforge.layers import initializers as _init
from opforge.layers import core as _layers
from opforge.layers import losses as _losses
from opforge.ops import math_ops as _m
from opforge.layers import metrics as _metrics
from opforge import data as _data
from opforge.data import input_pipeline as _input
from opforge.training import saver as _saver
from opforge import summary as _summary
from opforge.ops import nn as _nn
from opforge import ops as _ops
from opforge import training as _train
from opforge.layers import rnn as _rnn
from opforge.layers import rnn_cell as _rnn_cell
from opforge.compat._namespace import Namespace, graph_class
from opforge.framework.graph import GraphTensor, get_default_graph
from opforge.framework.tensor import TensorShape, convert_to_tensor as _convert
from opforge.framework.variables import RefVariable, global_variables_initializer, variables_initializer

__all__ = [
    # namespaces
    "nn", "image", "train", "initializers", "layers", "losses", "metrics", "app", "flags", "gfile", "logging",
    "GraphKeys", "errors", "math", "dtypes", "compat", "saved_model", "summary", "data", "decode_csv", "TextLineReader", "Summary", "Event", "SessionLog",
    # collections and variables
    "get_collection", "get_collection_ref", "add_to_collection", "add_to_collections", "local_variables",
    "local_variables_initializer", "model_variables", "moving_average_variables", "initialize_local_variables",
    # helpers
    "range", "linspace", "lin_space", "to_float", "to_double", "to_int32", "to_int64", "to_bfloat16", "div",
    "realdiv", "truncatediv", "truncatemod", "sequence_mask", "clip_by_norm", "clip_by_global_norm",
    "global_norm", "count_nonzero", "norm", "tensordot", "meshgrid", "log_sigmoid",
    "placeholder_with_default", "convert_to_tensor", "is_tensor", "TensorShape", "Dimension", "dimension_value",
    "executing_eagerly", "enable_eager_execution", "reduce_logsumexp", "cumprod", "boolean_mask", "segment_sum",
    "matrix_transpose", "eye", "diag", "diag_part", "trace", "accumulate_n", "batch_matmul", "ones_like", "zeros_like", "squared_difference", "log_softmax", "softmax", "tables_initializer",
]

# ---- collections ---------------------------------------------------------------------------


class GraphKeys:
    """The standard collection names (tf.GraphKeys)."""

    GLOBAL_VARIABLES = VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """The collection's list itself: appending to it adds to the collection."""
    return get_default_graph()._collections.setdefault(key, [])


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    for n in ([names] if isinstance(names, str) else names):
        add_to_collection(n, value)


def local_variables(scope=None):
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def local_variables_initializer():
    """An op initializing the local variables (metrics' state, among others)."""
    vs = local_variables()
    if vs:
        return variables_initializer(vs, name="init_1")
    return get_default_graph().create_op("NoOp", [], {}, name="init_1")


initialize_local_variables = local_variables_initializer


def tables_initializer(name="init_all_tables"):
    """An op running the table initializers (opforge has no lookup tables yet: a no-op unless
    something was added to TABLE_INITIALIZERS)."""
    inits = get_collection(GraphKeys.TABLE_INITIALIZERS)
    g = get_default_graph()
    with g.control_dependencies(inits):
        return g.create_op("NoOp", [], {}, name=name)


# ---- casts and arithmetic under TF1's names -----------------------------------------------


def _cast_to(dtype, default_name):
    def cast(x, name=default_name):
        return _ops.cast(x, dtype, name=name)
    cast.__name__ = default_name.lower()
    cast.__doc__ = f"x cast to {dtype} (TensorFlow 1's tf.{cast.__name__})."
    return cast


to_float = _cast_to("float32", "ToFloat")
to_double = _cast_to("float64", "ToDouble")
to_int32 = _cast_to("int32", "ToInt32")
to_int64 = _cast_to("int64", "ToInt64")
to_bfloat16 = _cast_to("bfloat16", "ToBFloat16")


def div(x, y, name=None):
    """Python 2 division: floor division for integers, true division for floats (tf.div)."""
    x, y = _pair(x, y)
    if x.dtype.is_integer:
        return _ops.floor_div(x, y, name=name)
    return _ops.real_div(x, y, name=name)


def _pair(x, y):
    if not isinstance(x, (GraphTensor, RefVariable)) and isinstance(y, (GraphTensor, RefVariable)):
        x = _ops.cast(_const(x, y.dtype), y.dtype)
    elif not isinstance(x, (GraphTensor, RefVariable)):
        x = _ops.identity(_convert(x))
    if not isinstance(y, (GraphTensor, RefVariable)):
        y = _const(y, x.dtype)
    return x, y


def _const(v, dtype):
    return np.asarray(v, _of.as_dtype(dtype).as_numpy_dtype)


def realdiv(x, y, name=None):
    return _ops.real_div(x, y, name=name)


def truncatediv(x, y, name=None):
    """Integer division rounding toward zero (C semantics)."""
    x, y = _pair(x, y)
    q = _ops.floor_div(_ops.abs(x), _ops.abs(y))
    neg = _ops.not_equal(_ops.less(x, _const(0, x.dtype)), _ops.less(y, _const(0, y.dtype)))
    return _ops.select_v2(neg, _ops.neg(q), q, name=name)


def truncatemod(x, y, name=None):
    x, y = _pair(x, y)
    return _ops.sub(x, _ops.mul(truncatediv(x, y), y), name=name)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """[start, start + delta, ...) up to limit (tf.range; range(n) counts from 0)."""
    if limit is None:
        start, limit = 0, start
    vals = [start, limit, delta]
    if dtype is None:
        dts = [v.dtype for v in vals if hasattr(v, "dtype") and not isinstance(v, np.ndarray)]
        if dts:
            dtype = builtins.max(dts, key=lambda d: (d.is_floating, d.size))
        elif any(isinstance(v, float) for v in vals):
            dtype = _of.float32
        else:
            dtype = _of.int32
    dtype = _of.as_dtype(dtype)
    vals = [_ops.cast(v, dtype) if hasattr(v, "dtype") and not isinstance(v, np.ndarray) and v.dtype != dtype
            else (v if hasattr(v, "dtype") and not isinstance(v, np.ndarray) else _const(v, dtype)) for v in vals]
    return _ops.range(*vals, name=name)


def linspace(start, stop, num, name=None, axis=0):
    """num evenly spaced values from start to stop inclusive."""
    start = start if hasattr(start, "dtype") and not isinstance(start, np.ndarray) else np.float32(start)
    dt = start.dtype
    stop = stop if hasattr(stop, "dtype") and not isinstance(stop, np.ndarray) else _const(stop, dt)
    if isinstance(num, int):
        if num < 1:
            raise ValueError(f"linspace: num must be positive, got {num}")
        steps = _const(builtins.max(num - 1, 1), dt)
        idx = _const(np.arange(num), dt)
    else:
        steps = _ops.cast(_ops.maximum(_ops.sub(num, np.int32(1)), np.int32(1)), dt)
        idx = _ops.cast(_ops.range(np.int32(0), num, np.int32(1)), dt)
    step = _ops.real_div(_ops.sub(stop, start), steps)
    return _ops.add_v2(start, _ops.mul(idx, step), name=name)


lin_space = linspace


def sequence_mask(lengths, maxlen=None, dtype="bool", name=None):
    """mask[..., j] = j < lengths[...]."""
    lengths = lengths if hasattr(lengths, "dtype") and not isinstance(lengths, np.ndarray) else \
        np.asarray(lengths, np.int32)
    if maxlen is None:
        maxlen = _m.reduce_max(lengths)
    maxlen = maxlen if hasattr(maxlen, "dtype") and not isinstance(maxlen, np.ndarray) else \
        np.asarray(maxlen, lengths.dtype.as_numpy_dtype if hasattr(lengths.dtype, "as_numpy_dtype") else lengths.dtype)
    lt = lengths.dtype if hasattr(lengths.dtype, "as_numpy_dtype") else _of.as_dtype(lengths.dtype)
    row = _ops.range(np.asarray(0, lt.as_numpy_dtype), _ops.cast(maxlen, lt), np.asarray(1, lt.as_numpy_dtype))
    mask = _ops.less(row, _ops.expand_dims(lengths, np.int32(-1)))
    return mask if _of.as_dtype(dtype) == _of.bool_ else _ops.cast(mask, dtype, name=name)


def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of the tensors); None entries are skipped."""
    ts = [t for t in t_list if t is not None]
    return _ops.sqrt(_ops.add_n([_ops.mul(_ops.l2_loss(t), _const(2, t.dtype)) for t in ts]), name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm), the global norm)."""
    t_list = list(t_list)
    norm = use_norm if use_norm is not None else global_norm(t_list)
    dt = norm.dtype
    clip = clip_norm if hasattr(clip_norm, "dtype") and not isinstance(clip_norm, np.ndarray) else _const(clip_norm, dt)
    scale = _ops.mul(clip, _ops.minimum(_ops.reciprocal(norm), _ops.real_div(_const(1, dt), clip)))
    out = [None if t is None else _ops.mul(t, _ops.cast(scale, t.dtype) if t.dtype != dt else scale) for t in t_list]
    return out, norm


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm (over axes) is at most clip_norm."""
    sq = _m.reduce_sum(_ops.square(t), axes, keepdims=True)
    clip = _const(clip_norm, t.dtype) if not hasattr(clip_norm, "dtype") else clip_norm
    norm = _ops.sqrt(_ops.maximum(sq, _const(0, t.dtype)))
    scaled = _ops.real_div(_ops.mul(t, clip), _ops.maximum(norm, clip))
    return _ops.identity(scaled, name=name)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype="int64", name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002
    x = input_tensor if input_tensor is not None else input
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    nz = _ops.cast(_ops.not_equal(x, _const(0, x.dtype)), "int64")
    return _ops.cast(_m.reduce_sum(nz, axis, keepdims=keepdims), dtype, name=name)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    if ord in ("euclidean", "fro", 2, 2.0):
        return _ops.sqrt(_m.reduce_sum(_ops.square(tensor), axis, keepdims=keepdims), name=name)
    if ord in (1, 1.0):
        return _m.reduce_sum(_ops.abs(tensor), axis, keepdims=keepdims, name=name)
    if ord == np.inf:
        return _m.reduce_max(_ops.abs(tensor), axis, keepdims=keepdims, name=name)
    raise ValueError(f"norm: ord={ord!r} is not supported by opforge yet")


def tensordot(a, b, axes, name=None):
    """Contracts axes of a with axes of b (an int n: a's last n with b's first n)."""
    from opforge.ops.einsum_ops import einsum  # noqa: PLC0415
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, int):
        ax_a, ax_b = list(builtins.range(ra - axes, ra)), list(builtins.range(axes))
    else:
        ax_a, ax_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0])), \
            ([axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    letters = "abcdefghijklmnopqrstuvwxyz"
    sa = list(letters[:ra])
    sb = list(letters[ra:ra + rb])
    for i, j in zip(ax_a, ax_b):
        sb[j % rb] = sa[i % ra]
    out = [c for i, c in enumerate(sa) if i not in [x % ra for x in ax_a]] + \
          [c for j, c in enumerate(sb) if j not in [x % rb for x in ax_b]]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, name=name)


def meshgrid(*args, **kwargs):
    """Coordinate grids ("xy" indexing by default, as NumPy)."""
    indexing = kwargs.pop("indexing", "xy")
    ts = [a if hasattr(a, "dtype") and not isinstance(a, np.ndarray) else _ops.identity(_convert(a)) for a in args]
    n = len(ts)
    flat = [_ops.reshape(t, np.array([-1], np.int64)) for t in ts]
    sizes = [_ops.size(t) for t in flat]
    outs = []
    for i, t in enumerate(flat):
        shape = [1] * n
        shape[i] = -1
        if indexing == "xy" and n >= 2 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        r = _ops.reshape(t, np.array(shape, np.int64))
        target = list(sizes)
        if indexing == "xy" and n >= 2:
            target[0], target[1] = target[1], target[0]
        from opforge.ops.array_ops import stack  # noqa: PLC0415
        outs.append(_ops.mul(r, _ops.ones(stack(target), dtype=t.dtype) if hasattr(_ops, "ones") else
                             _ops.fill(stack(target), _const(1, t.dtype))))
    return outs


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    return _ops.neg(_ops.softplus(_ops.neg(x)), name=name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) computed around the maximum, so large values do not overflow."""
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    mx = _ops.stop_gradient(_m.reduce_max(input_tensor, axis, keepdims=True))
    mx = _ops.select_v2(_ops.is_finite(mx), mx, _ops.zeros_like(mx))
    out = _ops.add_v2(_ops.log(_m.reduce_sum(_ops.exp(_ops.sub(input_tensor, mx)), axis, keepdims=True)), mx)
    if not keepdims:
        from opforge.ops.array_ops import squeeze  # noqa: PLC0415
        out = squeeze(out, axis) if axis is not None else _ops.reshape(out, np.zeros(0, np.int64))
    return _ops.identity(out, name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product as exp(cumsum(log|x|)) with the signs tracked, exact for zeros."""
    from opforge.ops.math import cumsum  # noqa: PLC0415
    dt = x.dtype
    zero = _ops.equal(x, _const(0, dt))
    logs = _ops.log(_ops.select_v2(zero, _ops.ones_like(x), _ops.abs(x)))
    negs = _ops.cast(_ops.less(x, _const(0, dt)), dt)
    zs = _ops.cast(zero, dt)
    mag = _ops.exp(cumsum(logs, axis, exclusive=exclusive, reverse=reverse))
    sign = _ops.sub(_const(1, dt), _ops.mul(_const(2, dt), _ops.floor_mod(
        cumsum(negs, axis, exclusive=exclusive, reverse=reverse), _const(2, dt))))
    any_zero = _ops.greater(cumsum(zs, axis, exclusive=exclusive, reverse=reverse), _const(0, dt))
    return _ops.select_v2(any_zero, _ops.zeros_like(x), _ops.mul(mag, sign), name=name)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (rows) of tensor where mask is true."""
    axis = 0 if axis is None else axis
    mask = mask if hasattr(mask, "dtype") and not isinstance(mask, np.ndarray) else np.asarray(mask, bool)
    mrank = mask.shape.rank if hasattr(mask.shape, "rank") else np.ndim(mask)
    shape = _ops.shape(tensor, out_type="int64")
    from opforge.ops.array_ops import concat  # noqa: PLC0415
    lead = _ops.strided_slice(shape, np.array([0], np.int32), np.array([axis], np.int32), np.array([1], np.int32))
    rest = _ops.strided_slice(shape, np.array([axis + mrank], np.int32), np.array([0], np.int32),
                              np.array([1], np.int32), end_mask=1)
    flat = _ops.reshape(tensor, concat([lead, np.array([-1], np.int64), rest], 0))
    idx = _ops.reshape(_ops.where(_ops.reshape(mask, np.array([-1], np.int64))), np.array([-1], np.int64))
    return _ops.gather_v2(flat, idx, np.int32(axis), name=name)


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of data with equal (sorted) segment ids."""
    n = _ops.add_v2(_m.reduce_max(segment_ids), _const(1, segment_ids.dtype) if hasattr(segment_ids, "dtype")
                    else np.int32(1))
    return _ops.unsorted_segment_sum(data, segment_ids, n, name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    r = a.shape.rank
    perm = list(builtins.range(r - 2)) + [r - 1, r - 2]
    return _ops.transpose(a, np.array(perm, np.int32), name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    m = np.eye(num_rows, num_columns, dtype=_of.as_dtype(dtype).as_numpy_dtype)
    if batch_shape:
        m = np.broadcast_to(m, tuple(batch_shape) + m.shape).copy()
    return _ops.identity(m, name=name)


def diag(diagonal, name=None):
    """A square matrix with diagonal on its diagonal (rank-1 input)."""
    n = diagonal.shape.dims[0]
    if n is None:
        raise ValueError("diag: opforge needs the diagonal's length when the graph is built")
    return _ops.mul(_ops.expand_dims(diagonal, np.int32(0)), np.eye(n, dtype=diagonal.dtype.as_numpy_dtype),
                    name=name)


def diag_part(input, name=None):  # noqa: A002
    n = input.shape.dims[0]
    return _m.reduce_sum(_ops.mul(input, np.eye(n, dtype=input.dtype.as_numpy_dtype)), 1, name=name)


def trace(x, name=None):
    n = x.shape.dims[-1]
    return _m.reduce_sum(_ops.mul(x, np.eye(n, dtype=x.dtype.as_numpy_dtype)), [-2, -1], name=name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    return _ops.add_n(list(inputs), name=name)


def batch_matmul(x, y, adj_x=False, adj_y=False, name=None):
    return _ops.batch_mat_mul_v2(x, y, adj_x=adj_x, adj_y=adj_y, name=name)


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    """A tensor equal to input unless fed (any graph tensor can be fed in a Session)."""
    t = _ops.identity(input if hasattr(input, "dtype") and not isinstance(input, np.ndarray) else _convert(input),
                      name=name or "PlaceholderWithDefault")
    if shape is not None:
        t._shape = TensorShape(shape).merge_with(t.shape) if t.shape.rank is not None else TensorShape(shape)
    return t


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    if isinstance(value, (GraphTensor, RefVariable)):
        return value
    return _ops.identity(_convert(value, dtype or preferred_dtype or dtype_hint), name=name)


def is_tensor(x):
    return isinstance(x, (GraphTensor, RefVariable, _of.Tensor))


class Dimension:
    """One dimension of a TensorShape (TF1's tf.Dimension): .value is the size or None."""

    def __init__(self, value):
        self.value = None if value is None else int(value)

    def __int__(self):
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, Dimension) else other)

    def __repr__(self):
        return f"Dimension({self.value})"


def dimension_value(dimension):
    return dimension.value if isinstance(dimension, Dimension) else dimension


def executing_eagerly():
    """False: compat.v1 programs build graphs."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    raise NotImplementedError("opforge.compat.v1 builds graphs: for eager code use `import opforge as of`")


ones_like, zeros_like = _ops.ones_like, _ops.zeros_like
squared_difference = _ops.squared_difference
softmax, log_softmax = _nn._v1_softmax, _nn._v1_log_softmax



# ---- tf.app, tf.flags, tf.gfile, tf.logging --------------------------------------------------

from opforge.compat.v1 import _platform  # noqa: E402

app, flags, gfile, logging = _platform.app, _platform.flags, _platform.gfile, _platform.logging

# ---- namespaces ---------------------------------------------------------------------------------

nn = Namespace("nn", vars(_nn.compat_v1_namespace()),
               sigmoid_cross_entropy_with_logits=_nn.sigmoid_cross_entropy_with_logits,
               weighted_cross_entropy_with_logits=_nn.weighted_cross_entropy_with_logits,
               l2_normalize=_nn.l2_normalize, moments=_nn.moments, embedding_lookup=_nn.embedding_lookup,
               in_top_k=_nn.in_top_k, xw_plus_b=_nn.xw_plus_b, relu_layer=_nn.relu_layer,
               zero_fraction=_nn.zero_fraction, conv2d_transpose=_nn.conv2d_transpose, conv1d=_nn.conv1d,
               log_sigmoid=log_sigmoid, softmax_v2=_nn.softmax, swish=lambda features, name=None: _ops.mul(
                   features, _ops.sigmoid(features), name=name),
               silu=lambda features, beta=1.0, name=None: _ops.mul(features, _ops.sigmoid(features), name=name),
               l2_loss=_nn.l2_loss, embedding_lookup_sparse=None)
del nn.embedding_lookup_sparse
nn.rnn_cell = Namespace("nn.rnn_cell", {k: graph_class(v) if isinstance(v, type) and issubclass(v, _rnn_cell.RNNCell) else v
                                        for k, v in vars(_rnn.rnn_cell).items() if not k.startswith("_")})
image = Namespace("image", vars(_image.compat_v1_namespace()))
train = Namespace(
    "train",
    Optimizer=_train.Optimizer, GradientDescentOptimizer=_train.GradientDescentOptimizer,
    MomentumOptimizer=_train.MomentumOptimizer, AdamOptimizer=_train.AdamOptimizer,
    RMSPropOptimizer=_train.RMSPropOptimizer, AdagradOptimizer=_train.AdagradOptimizer,
    AdadeltaOptimizer=_train.AdadeltaOptimizer, FtrlOptimizer=_train.FtrlOptimizer,
    write_graph=_train.write_graph, read_graph=_train.read_graph, get_global_step=_train.get_global_step,
    get_or_create_global_step=_train.get_or_create_global_step, create_global_step=_train.create_global_step,
    global_step=_train.global_step, exponential_decay=_train.exponential_decay,
    inverse_time_decay=_train.inverse_time_decay, natural_exp_decay=_train.natural_exp_decay,
    polynomial_decay=_train.polynomial_decay, piecewise_constant=_train.piecewise_constant,
    piecewise_constant_decay=_train.piecewise_constant, cosine_decay=_train.cosine_decay,
    Coordinator=_train.Coordinator, start_queue_runners=_train.start_queue_runners,
    string_input_producer=_input.string_input_producer, batch=_input.batch, shuffle_batch=_input.shuffle_batch,
    Saver=_train.Saver, latest_checkpoint=_train.latest_checkpoint, get_checkpoint_state=_train.get_checkpoint_state,
    checkpoint_exists=_train.checkpoint_exists, update_checkpoint_state=_train.update_checkpoint_state,
    list_variables=_train.list_variables, load_checkpoint=_train.load_checkpoint,
    load_variable=_train.load_variable, NewCheckpointReader=_train.NewCheckpointReader,
    export_meta_graph=_train.export_meta_graph, import_meta_graph=_train.import_meta_graph,
    CheckpointState=_saver.CheckpointState,
)
initializers = Namespace(
    "initializers", constant=_init.constant_initializer, zeros=_init.zeros_initializer, ones=_init.ones_initializer,
    glorot_uniform=_init.glorot_uniform_initializer, glorot_normal=_init.glorot_normal_initializer,
    random_normal=_init.random_normal_initializer, random_uniform=_init.random_uniform_initializer,
    truncated_normal=_init.truncated_normal_initializer, variance_scaling=_init.variance_scaling_initializer,
    orthogonal=_init.orthogonal_initializer, identity=_init.identity_initializer, he_normal=_init.he_normal,
    he_uniform=_init.he_uniform, lecun_normal=_init.lecun_normal, lecun_uniform=_init.lecun_uniform,
    global_variables=global_variables_initializer, local_variables=local_variables_initializer,
    variables=variables_initializer, tables_initializer=tables_initializer,
)
layers = Namespace("layers", {n: getattr(_layers, n) for n in _layers.__all__})
losses = Namespace(
    "losses", {n: getattr(_losses, n) for n in (
        "Reduction", "compute_weighted_loss", "absolute_difference", "mean_squared_error", "huber_loss", "log_loss",
        "hinge_loss", "cosine_distance", "sigmoid_cross_entropy", "softmax_cross_entropy",
        "sparse_softmax_cross_entropy", "add_loss", "get_losses", "get_regularization_loss",
        "get_regularization_losses", "get_total_loss")})
metrics = Namespace("metrics", {n: getattr(_metrics, n) for n in _metrics.__all__})
summary = Namespace("summary", {n: getattr(_summary, n) for n in _summary.__all__})
data = Namespace("data", {n: getattr(_data, n) for n in _data.__all__})
decode_csv, TextLineReader = _input.decode_csv, _input.TextLineReader
Summary, Event, SessionLog = _summary.Summary, _summary.Event, _summary.SessionLog
errors = Namespace("errors", {n: getattr(_of.errors, n) for n in dir(_of.errors)
                              if n.endswith("Error") and isinstance(getattr(_of.errors, n), type)})
math = Namespace("math", {n: getattr(_of.math, n) for n in dir(_of.math) if not n.startswith("_")
                          and callable(getattr(_of.math, n))},
                 log_sigmoid=log_sigmoid, reduce_logsumexp=reduce_logsumexp, count_nonzero=count_nonzero,
                 cumprod=cumprod, segment_sum=segment_sum, truediv=_of.math.truediv, divide=_m.divide,
                 reduce_sum=_m.reduce_sum, reduce_mean=_m.reduce_mean, reduce_max=_m.reduce_max,
                 add=_m.add, subtract=_m.subtract, multiply=_m.multiply, square=_m.square, sqrt=_ops.sqrt,
                 exp=_ops.exp, log=_ops.log, abs=_ops.abs, tanh=_ops.tanh, sigmoid=_ops.sigmoid,
                 maximum=_ops.maximum, minimum=_ops.minimum, equal=_ops.equal, pow=_ops.pow, negative=_ops.neg,
                 softplus=_ops.softplus, l2_normalize=_nn.l2_normalize, in_top_k=_nn.in_top_k)
dtypes = Namespace("dtypes", {n: getattr(_of.dtypes, n) for n in dir(_of.dtypes) if not n.startswith("_")})
compat = Namespace("compat", as_bytes=lambda s, encoding="utf-8": s.encode(encoding) if isinstance(s, str) else bytes(s),
                   as_text=lambda s, encoding="utf-8": s.decode(encoding) if isinstance(s, bytes) else str(s),
                   as_str=lambda s, encoding="utf-8": s.decode(encoding) if isinstance(s, bytes) else str(s))
saved_model = Namespace("saved_model")

_ = (os, sys, _pymath)
