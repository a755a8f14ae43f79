"""More of TensorFlow 1's names over what opforge already has (issue 32's API-surface work):
the version constants, the protocol buffer classes, deprecated aliases, tf.linalg and tf.io
as far as opforge's ops reach, and TF1's argument names where opforge's functions spell them
differently. Each name maps onto one opforge function; the behaviour lives there."""

from __future__ import annotations

import logging as _logging

import numpy as np

import opforge as _of
from opforge import ops as _ops
from opforge.framework import api as _api
from opforge.framework import dtypes as _dtypes
from opforge.framework import variables as _variables
from opforge.framework.graph import GraphTensor, get_default_graph
from opforge.generated.proto.tensorflow.core.example import example_pb2 as _example_pb2
from opforge.generated.proto.tensorflow.core.example import feature_pb2 as _feature_pb2
from opforge.generated.proto.tensorflow.core.framework import attr_value_pb2 as _attr_value_pb2
from opforge.generated.proto.tensorflow.core.framework import node_def_pb2 as _node_def_pb2
from opforge.generated.proto.tensorflow.core.framework import summary_pb2 as _summary_pb2
from opforge.generated.proto.tensorflow.core.protobuf import meta_graph_pb2 as _meta_graph_pb2
from opforge.generated.proto.tensorflow.core.protobuf import saver_pb2 as _saver_pb2
from opforge.generated.proto.tensorflow.core.util import event_pb2 as _event_pb2
from opforge.io import graph_def as _graph_def
from opforge.ops import array_ops as _array
from opforge.ops import clip_ops as _clip
from opforge.ops import linalg_ops as _linalg
from opforge.ops import math_ops as _m
from opforge.ops import nn as _nn
from opforge.ops import random_ops as _random
from opforge.training import saver as _saver
from opforge.ops.check_ops import (  # noqa: F401  (tf.assert_*, tf.check_numerics, ...)
    assert_equal, assert_greater, assert_greater_equal, assert_integer, assert_less, assert_less_equal, assert_near,
    assert_negative, assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
    assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in, assert_same_float_dtype,
    assert_scalar, assert_type, check_numerics, is_non_decreasing, is_strictly_increasing,
)
from opforge.ops.functional_ops import foldl, foldr, map_fn, scan  # noqa: F401
from opforge.ops.histogram_ops import (  # noqa: F401
    bincount, confusion_matrix, histogram_fixed_width, histogram_fixed_width_bins, is_inf, rint, segment_mean,
    unsorted_segment_mean, unsorted_segment_sqrt_n,
)
from opforge.ops.manip_ops import (  # noqa: F401
    argsort, batch_gather, batch_to_space, depth_to_space, invert_permutation, reverse_sequence, roll, sort,
    space_to_batch, space_to_depth,
)
from opforge.ops.check_ops import add_check_numerics_ops, ensure_shape  # noqa: F401
from opforge.ops.manip_ops import broadcast_dynamic_shape  # noqa: F401
from opforge.ops.math import saturate_cast  # noqa: F401
from opforge.framework.control_flow import switch_case  # noqa: F401
from opforge.ops.clip_ops import clip_by_average_norm  # noqa: F401
from opforge.framework.template import make_template  # noqa: F401
from opforge.framework.variable_scope import get_variable as _get_variable
from opforge.framework.collections import GraphKeys as _GraphKeys
from opforge.layers.initializers import uniform_unit_scaling_initializer  # noqa: F401
from opforge.ops.math import divide_no_nan as div_no_nan  # noqa: F401  (tf.div_no_nan)
from opforge.gradients.helpers import constant_value as _constant_value
from opforge.compat._namespace import legacy_argument

CHECKS_AND_FUNCTIONAL = (
    "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer", "assert_less", "assert_less_equal",
    "assert_near", "assert_negative", "assert_non_negative", "assert_non_positive", "assert_none_equal",
    "assert_positive", "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
    "assert_same_float_dtype", "assert_scalar", "assert_type", "check_numerics", "is_non_decreasing",
    "is_strictly_increasing", "foldl", "foldr", "map_fn", "scan", "div_no_nan", "get_static_value",
    "verify_tensor_all_finite", "bincount", "confusion_matrix", "histogram_fixed_width", "histogram_fixed_width_bins",
    "is_inf", "rint", "segment_mean", "unsorted_segment_mean", "unsorted_segment_sqrt_n", "argsort", "batch_gather",
    "batch_to_space", "depth_to_space", "invert_permutation", "roll", "sort", "space_to_batch", "space_to_depth",
    "parallel_stack", "reverse_sequence", "ensure_shape", "clip_by_average_norm", "make_template",
    "get_local_variable", "uniform_unit_scaling_initializer", "add_check_numerics_ops", "broadcast_dynamic_shape",
    "saturate_cast", "switch_case",
)

# ---- versions ------------------------------------------------------------------------------
# opforge.compat.v1 follows the tf.compat.v1 API of this TensorFlow release (the surface in
# tests/data/tf1_api_surface.json); programs that compare tf.__version__ see that release.
VERSION = __version__ = "2.21.0"
GIT_VERSION = __git_version__ = f"opforge-{_of.__version__}"  # not a TensorFlow build: says so
# GraphDef versions opforge writes and reads (TensorFlow's own numbers for the same format).
GRAPH_DEF_VERSION = _graph_def.PRODUCER_VERSION
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

# ---- protocol buffers (TensorFlow's messages, opforge's generated classes) ------------------
AttrValue, NameAttrList = _attr_value_pb2.AttrValue, _attr_value_pb2.NameAttrList
NodeDef = _node_def_pb2.NodeDef
HistogramProto, SummaryMetadata = _summary_pb2.HistogramProto, _summary_pb2.SummaryMetadata
LogMessage, TaggedRunMetadata = _event_pb2.LogMessage, _event_pb2.TaggedRunMetadata
MetaGraphDef, TensorInfo = _meta_graph_pb2.MetaGraphDef, _meta_graph_pb2.TensorInfo
SaverDef = _saver_pb2.SaverDef
Example, SequenceExample = _example_pb2.Example, _example_pb2.SequenceExample
Feature, Features, FeatureList, FeatureLists = (_feature_pb2.Feature, _feature_pb2.Features, _feature_pb2.FeatureList,
                                               _feature_pb2.FeatureLists)
BytesList, FloatList, Int64List = _feature_pb2.BytesList, _feature_pb2.FloatList, _feature_pb2.Int64List


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """A TensorProto holding values (tf.make_tensor_proto): cast to dtype, reshaped (or, with
    allow_broadcast or a single value, broadcast) to shape."""
    arr = np.asarray(values, dtype=None if dtype is None else _dtypes.as_dtype(dtype).as_numpy_dtype)
    if dtype is None:
        dtype = _dtypes.as_dtype(arr.dtype)
    if shape is not None:
        shape = [int(d) for d in shape]
        if verify_shape and list(arr.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {arr.shape}.")
        if arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        elif arr.size == 1 or allow_broadcast:
            arr = np.broadcast_to(arr, shape)
        else:
            raise ValueError(f"Too many elements provided. Needed at most {int(np.prod(shape))}, but received "
                             f"{arr.size}")
    return _graph_def.ndarray_to_proto(np.ascontiguousarray(arr), _dtypes.as_dtype(dtype))


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds (tf.make_ndarray)."""
    return _graph_def.tensor_from_proto(tensor).numpy()


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None, synchronization=None, aggregation=None):
    """tf.get_local_variable: get_variable in the LOCAL_VARIABLES collection, not trainable."""
    del trainable  # always False, as TensorFlow's
    return _get_variable(name, shape, dtype, initializer, regularizer, False,
                         list(collections or []) + [_GraphKeys.LOCAL_VARIABLES], caching_device, partitioner,
                         validate_shape, use_resource, custom_getter, constraint, synchronization, aggregation)


def parallel_stack(values, name="parallel_stack"):
    """The values stacked along a new first axis (tf.parallel_stack computes what tf.stack does)."""
    return _array.stack(values, 0, name=name)


def get_static_value(tensor, partial=False):
    """tensor's value as a NumPy array when it is known while the graph is built (a constant,
    a NumPy value, an eager tensor), else None (tf.get_static_value; opforge folds no ops here,
    so it knows fewer values than TensorFlow, never different ones)."""
    del partial
    return _constant_value(tensor)


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """t, checked when run for NaN and infinity (tf.verify_tensor_all_finite: check_numerics)."""
    return check_numerics(legacy_argument("x", x, "t", t), legacy_argument("message", message, "msg", msg), name)


def as_dtype(type_value):
    """The DType for a DType, a NumPy dtype, a name or a DataType number (tf.as_dtype)."""
    return _dtypes.as_dtype(type_value)


def NewCheckpointReader(filepattern):  # noqa: N802 (TensorFlow's name)
    """A reader of the checkpoint at filepattern (tf.train.NewCheckpointReader)."""
    return _saver.NewCheckpointReader(filepattern)


# ---- deprecated aliases and small helpers ---------------------------------------------------


def all_variables():
    """tf.all_variables: TF1's old name of global_variables()."""
    return _variables.global_variables()


def initialize_variables(var_list, name="init"):
    """tf.initialize_variables: TF1's old name of variables_initializer."""
    return _variables.variables_initializer(var_list, name=name)


def get_logger():
    """The logger tf.logging writes to (tf.get_logger)."""
    return _logging.getLogger("tensorflow")


def no_regularizer(_):
    """A regularizer that adds nothing (tf.no_regularizer: get_variable(regularizer=...))."""
    return None


def is_numeric_tensor(tensor):
    """Whether tensor is a tensor of a numeric (not string, not variant) dtype."""
    if not isinstance(tensor, (GraphTensor, _variables.RefVariable, _of.Tensor)):
        return False
    dtype = _dtypes.as_dtype(tensor.dtype)
    return dtype not in (_dtypes.string, _dtypes.variant)


def tensor_tuple(tensors, name=None, control_inputs=None):
    """The tensors, each passed through an identity that waits for all of them (and for
    control_inputs): tf.tuple, for reading several values as of the same moment."""
    g = get_default_graph()
    with g.name_scope(name or "tuple"):
        gate = _api.group(*[t for t in tensors if t is not None], *(control_inputs or ()))
        with g.control_dependencies([gate]):
            return [None if t is None else _ops.identity(t) for t in tensors]


def op_scope(values, name, default_name=None):
    """tf.op_scope: TF1's old spelling of name_scope(name, default_name, values)."""
    return _api.name_scope(name, default_name, values)


def scalar_mul(scalar, x, name=None):
    """scalar * x for a scalar (tf.scalar_mul); a tensor of rank > 0 as scalar is a ValueError."""
    shape = getattr(scalar, "shape", np.shape(scalar))
    rank = shape.rank if hasattr(shape, "rank") else len(shape)
    if rank not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {shape}")
    return _m.multiply(scalar, x, name=name)


def get_seed(op_seed):
    """(graph-level seed, op-level seed) for an op given op_seed (tf.get_seed)."""
    return _random.get_seed(op_seed, get_default_graph())


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: concat([relu(x), relu(-x)], axis) (tf.nn.crelu)."""
    with get_default_graph().name_scope(name or "CRelu"):
        return _array.concat([_ops.relu(features), _ops.relu(_ops.neg(features))], axis)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with holes: conv2d of stride 1 with dilations rate (tf.nn.atrous_conv2d)."""
    return _nn.conv2d(value, filters, [1, 1, 1, 1], padding, "NHWC", [1, rate, rate, 1], name)


def pool_v2(kind):
    def pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
        rank = len(input.shape) if getattr(input.shape, "rank", 1) is not None else None
        if rank == 5:
            return (_nn.max_pool3d if kind == "max" else _nn.avg_pool3d)(
                input, ksize, strides, padding, data_format or "NDHWC", name)
        return (_nn.max_pool2d if kind == "max" else _nn.avg_pool2d)(
            input, ksize, strides, padding, data_format or "NHWC", name)
    pool.__name__ = f"{kind}_pool_v2"
    pool.__doc__ = f"tf.nn.{kind}_pool_v2: {kind} pooling of a 4-D (NHWC) or 5-D (NDHWC) input."
    return pool


max_pool_v2, avg_pool_v2 = pool_v2("max"), pool_v2("avg")


# ---- tf.linalg (the linear algebra opforge has; the linalg ops to come are in absent.py) ----


def adjoint(matrix, name=None):
    """The conjugate transpose of the innermost two dims; opforge's dtypes are real, so the
    transpose (tf.linalg.adjoint)."""
    return _array.matrix_transpose(matrix, name=name)


def linalg_names() -> dict:
    return dict(
        adjoint=adjoint, transpose=_array.matrix_transpose, matrix_transpose=_array.matrix_transpose, einsum=_of.einsum,
        eye=_linalg.eye, trace=_linalg.trace, tensor_diag=_linalg.tensor_diag,
        tensor_diag_part=_linalg.tensor_diag_part, tensordot=_m.tensordot, global_norm=_clip.global_norm,
        l2_normalize=_nn.l2_normalize,
    )


# ---- tf.logging extras --------------------------------------------------------------------

_log = _logging.getLogger("tensorflow")


def vlog(level, msg, *args):
    """Logs msg at the numeric level (tf.logging.vlog)."""
    _log.log(level, msg, *args)


def log_if(level, msg, condition, *args):
    """Logs msg at level when condition holds (tf.logging.log_if)."""
    if condition:
        _log.log(level, msg, *args)


def flush():
    """Flushes the handlers of the tensorflow logger (tf.logging.flush)."""
    for h in _log.handlers:
        h.flush()


def TaskLevelStatusMessage(msg):  # noqa: N802 (TensorFlow's name)
    """Logs a status message (tf.logging.TaskLevelStatusMessage)."""
    _log.error(msg)
