"""The rest of TensorFlow 1's API for ``opforge.compat.v1``: its namespaces (tf.nn, tf.train,
tf.layers, tf.losses, tf.metrics, tf.app, tf.flags, tf.gfile, tf.logging, ...), collections
and GraphKeys, and the top-level helpers TF1 programs use (tf.to_float, tf.range, tf.Print,
tf.clip_by_global_norm, ...). Each name is backed by opforge's own modules; this file gives
them TensorFlow 1's spelling."""

from __future__ import annotations

import builtins
import sys

import opforge as _of
from opforge.layers import initializers as _init
from opforge.layers import core as _layers
from opforge.layers import base as _layer_objects
from opforge.layers import losses as _losses
from opforge.ops import array_ops as _array
from opforge.ops import clip_ops as _clip
from opforge.ops import linalg_ops as _linalg
from opforge.ops import math_ops as _m
from opforge.layers import metrics as _metrics
from opforge.layers import metrics_more as _metrics_more
from opforge import data as _data
from opforge.data import input_pipeline as _input
from opforge.training import saver as _saver
from opforge import summary as _summary
from opforge.io import saved_model as _sm
from opforge.io.saved_model import main_op as _sm_main_op
from opforge.ops import nn as _nn
from opforge import ops as _ops
from opforge import training as _train
from opforge.layers import rnn as _rnn
from opforge.layers import rnn_cell as _rnn_cell
from opforge.compat._namespace import Namespace, graph_class, legacy_argument
from opforge.compat.v1 import _tf1_aliases as _more
from opforge.compat.v1 import _tf1_io, _tf1_train
from opforge.compat.v1._tf1_aliases import (  # noqa: F401  (TensorFlow 1's names, see _tf1_aliases)
    GIT_VERSION, GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER, VERSION,
    AttrValue, HistogramProto, LogMessage, MetaGraphDef, NameAttrList, NodeDef, SummaryMetadata, TensorInfo,
    __git_version__, __version__, all_variables, get_logger, get_seed, initialize_variables, is_numeric_tensor,
    make_ndarray, make_tensor_proto, no_regularizer, op_scope, scalar_mul,
)
from opforge.compat.v1._tf1_aliases import tensor_tuple as tuple  # noqa: A004,F401  (tf.tuple)
from opforge.compat.v1 import _tf1_image as _image_v1
from opforge.compat.v1 import _tf1_nn as _nn_v1
from opforge.framework.api import placeholder_with_default  # noqa: F401
from opforge.framework.graph import GraphTensor, get_default_graph
from opforge.framework.tensor import convert_to_tensor as _convert
from opforge.framework.tensor_shape import (  # noqa: F401 (tf.TensorShape, tf.Dimension, ...)
    Dimension, TensorShape, broadcast_static_shape, dimension_at_index, dimension_value,
)
from opforge.framework import tensor_shape as _ts
from opforge.util import compat as _ucompat
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
    "dimension_at_index", "broadcast_static_shape", "linalg", "io", "version", "random_crop", "extract_image_patches",
    "extract_volume_patches",
    "VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "__version__", "__git_version__", "AttrValue", "HistogramProto", "LogMessage", "MetaGraphDef", "NameAttrList",
    "NodeDef", "SummaryMetadata", "TensorInfo", "all_variables", "get_logger", "get_seed", "initialize_variables",
    "is_numeric_tensor", "make_ndarray", "make_tensor_proto", "no_regularizer", "op_scope", "scalar_mul", "tuple",
    "initialize_all_tables", "shape_n", "identity_n", "floor_div", "erfc", "space_to_batch_nd", "batch_to_space_nd",
    "executing_eagerly", "enable_eager_execution", "reduce_logsumexp", "cumprod", "boolean_mask", "segment_sum",
    "matrix_transpose", "eye", "diag", "diag_part", "trace", "accumulate_n", "batch_matmul", "squared_difference", "log_softmax", "softmax", "tables_initializer",
]

# tf.assert_*, tf.check_numerics, tf.map_fn, tf.foldl, ... (opforge/ops/check_ops.py, functional_ops.py)
globals().update({_n: getattr(_more, _n) for _n in _more.CHECKS_AND_FUNCTIONAL})
as_dtype = _more.as_dtype
__all__ += list(_more.CHECKS_AND_FUNCTIONAL) + ["as_dtype"]

# tf.lgamma, tf.betainc, ... (opforge/ops/special_math_ops.py); tf.linalg's Python compositions
# (opforge/ops/linalg_compositions.py) and their top-level spellings tf.cross, tf.matrix_solve_ls
from opforge.ops import special_math_ops as _special  # noqa: E402
from opforge.ops import linalg_compositions as _lc  # noqa: E402
globals().update({_n: getattr(_special, _n) for _n in _special.TF1_TOP_LEVEL})
__all__ += list(_special.TF1_TOP_LEVEL)
_lc_names = {_n: getattr(_lc, _n) for _n in _lc.__all__}
cross, matrix_solve_ls = _lc.cross, _lc.lstsq
__all__ += ["cross", "matrix_solve_ls"]

# ---- collections ---------------------------------------------------------------------------


from opforge.framework.collections import GraphKeys  # noqa: E402,F401  (tf.GraphKeys)


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
    """An op running the table initializers of the default graph (its TABLE_INITIALIZERS: tf.lookup
    tables' initializers go there); a NoOp if it has none."""
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


realdiv = _ops.real_div
div, truncatediv, truncatemod = _m.div, _m.truncatediv, _m.truncatemod
range, linspace, tensordot = _m.range, _m.linspace, _m.tensordot  # noqa: A001
lin_space = linspace
sequence_mask, meshgrid, matrix_transpose = _array.sequence_mask, _array.meshgrid, _array.matrix_transpose
clip_by_norm, clip_by_global_norm, global_norm = _clip.clip_by_norm, _clip.clip_by_global_norm, _clip.global_norm
cumprod, log_sigmoid, segment_sum = _m.cumprod, _m.log_sigmoid, _m.segment_sum
eye, trace = _linalg.eye, _linalg.trace
diag, diag_part = _linalg.tensor_diag, _linalg.tensor_diag_part  # TF1's tf.diag is tf.linalg.tensor_diag


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype="int64", name=None, reduction_indices=None,
                  keep_dims=None, input=None):  # noqa: A002
    """tf.compat.v1.count_nonzero: of.math.count_nonzero under TF1's argument names."""
    return _m.count_nonzero(legacy_argument("input_tensor", input_tensor, "input", input),
                            legacy_argument("axis", axis, "reduction_indices", reduction_indices),
                            legacy_argument("keepdims", keepdims, "keep_dims", keep_dims), dtype, name)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """tf.compat.v1.norm: of.norm with TF1's keep_dims."""
    return _linalg.norm(tensor, ord, axis, legacy_argument("keepdims", keepdims, "keep_dims", keep_dims), name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """tf.compat.v1.reduce_logsumexp: of.math.reduce_logsumexp with TF1's argument names."""
    return _m.reduce_logsumexp(input_tensor, legacy_argument("axis", axis, "reduction_indices", reduction_indices),
                               builtins.bool(legacy_argument("keepdims", keepdims, "keep_dims", keep_dims)), name)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """tf.compat.v1.boolean_mask: of.boolean_mask with TF1's positional order (name before axis)."""
    return _array.boolean_mask(tensor, mask, axis, name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    return _ops.add_n(list(inputs), name=name)


def batch_matmul(x, y, adj_x=False, adj_y=False, name=None):
    return _ops.batch_mat_mul_v2(x, y, adj_x=adj_x, adj_y=adj_y, name=name)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    if isinstance(value, (GraphTensor, RefVariable)):
        return value
    return _ops.identity(_convert(value, dtype or preferred_dtype or dtype_hint), name=name)


def is_tensor(x):
    return isinstance(x, (GraphTensor, RefVariable, _of.Tensor))


def executing_eagerly():
    """False: compat.v1 programs build graphs."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    raise NotImplementedError("opforge.compat.v1 builds graphs: for eager code use `import opforge as of`")


squared_difference = _ops.squared_difference
softmax, log_softmax = _nn_v1.softmax, _nn_v1.log_softmax



# ---- tf.app, tf.flags, tf.gfile, tf.logging --------------------------------------------------

from opforge.compat.v1 import _platform  # noqa: E402

app, flags, gfile, logging = _platform.app, _platform.flags, _platform.gfile, _platform.logging

# ---- namespaces ---------------------------------------------------------------------------------

identity_n, floor_div, erfc = _ops.identity_n, _ops.floor_div, _ops.erfc
space_to_batch_nd, batch_to_space_nd = _ops.space_to_batch_nd, _ops.batch_to_space_nd


def shape_n(input, out_type="int32", name=None):  # noqa: A002 (TensorFlow's names)
    """The shapes of the tensors in input, one shape tensor each (tf.shape_n)."""
    with get_default_graph().name_scope(name or "ShapeN"):
        return [_ops.shape(x, out_type=out_type) for x in input]


def initialize_all_tables(name="init_all_tables"):
    """tf.initialize_all_tables: TF1's old name of tables_initializer."""
    return tables_initializer(name)


nn = Namespace("nn", _nn_v1.names(), crelu=_more.crelu, atrous_conv2d=_more.atrous_conv2d,
               max_pool_v2=_more.max_pool_v2, avg_pool_v2=_more.avg_pool_v2,
               sufficient_statistics=_nn.sufficient_statistics, normalize_moments=_nn.normalize_moments,
               weighted_moments=_nn.weighted_moments, log_poisson_loss=_nn.log_poisson_loss,
               max_pool1d=_nn.max_pool1d, avg_pool1d=_nn.avg_pool1d,
               conv3d_backprop_filter=_ops.conv3d_backprop_filter_v2,
               conv3d_backprop_filter_v2=_ops.conv3d_backprop_filter_v2,
               depthwise_conv2d_native_backprop_filter=_ops.depthwise_conv2d_native_backprop_filter,
               depthwise_conv2d_native_backprop_input=_ops.depthwise_conv2d_native_backprop_input,
               depthwise_conv2d_backprop_filter=_ops.depthwise_conv2d_native_backprop_filter,
               depthwise_conv2d_backprop_input=_ops.depthwise_conv2d_native_backprop_input)
nn.rnn_cell = Namespace("nn.rnn_cell", {k: graph_class(v) if isinstance(v, type) and issubclass(v, _rnn_cell.RNNCell) else v
                                        for k, v in vars(_rnn.rnn_cell).items() if not k.startswith("_")})
image = Namespace("image", _image_v1.names())
train = Namespace(
    "train", _tf1_train.train_names() | _tf1_train.queue_runner_names(),
    Optimizer=_train.Optimizer, GradientDescentOptimizer=_train.GradientDescentOptimizer,
    MomentumOptimizer=_train.MomentumOptimizer, AdamOptimizer=_train.AdamOptimizer,
    RMSPropOptimizer=_train.RMSPropOptimizer, AdagradOptimizer=_train.AdagradOptimizer,
    AdadeltaOptimizer=_train.AdadeltaOptimizer, FtrlOptimizer=_train.FtrlOptimizer,
    write_graph=_train.write_graph, read_graph=_train.read_graph, get_global_step=_train.get_global_step,
    get_or_create_global_step=_train.get_or_create_global_step, create_global_step=_train.create_global_step,
    global_step=_train.global_step, exponential_decay=_train.exponential_decay,
    inverse_time_decay=_train.inverse_time_decay, natural_exp_decay=_train.natural_exp_decay,
    linear_cosine_decay=_train.linear_cosine_decay, cosine_decay_restarts=_train.cosine_decay_restarts,
    ExponentialMovingAverage=_train.ExponentialMovingAverage, remove_checkpoint=_train.remove_checkpoint,
    get_checkpoint_mtimes=_train.get_checkpoint_mtimes, checkpoints_iterator=_train.checkpoints_iterator,
    generate_checkpoint_state_proto=_train.generate_checkpoint_state_proto,
    assert_global_step=_train.assert_global_step,
    polynomial_decay=_train.polynomial_decay, piecewise_constant=_train.piecewise_constant,
    piecewise_constant_decay=_train.piecewise_constant, cosine_decay=_train.cosine_decay,
    Coordinator=_train.Coordinator,
    string_input_producer=_input.string_input_producer, batch=_input.batch, shuffle_batch=_input.shuffle_batch,
    Saver=_train.Saver, latest_checkpoint=_train.latest_checkpoint, get_checkpoint_state=_train.get_checkpoint_state,
    checkpoint_exists=_train.checkpoint_exists, update_checkpoint_state=_train.update_checkpoint_state,
    list_variables=_train.list_variables, load_checkpoint=_train.load_checkpoint,
    load_variable=_train.load_variable, NewCheckpointReader=_more.NewCheckpointReader,
    export_meta_graph=_train.export_meta_graph, import_meta_graph=_train.import_meta_graph,
    CheckpointState=_saver.CheckpointState, SaverDef=_more.SaverDef, Example=_more.Example,
    SequenceExample=_more.SequenceExample, Feature=_more.Feature, Features=_more.Features,
    FeatureList=_more.FeatureList, FeatureLists=_more.FeatureLists, BytesList=_more.BytesList,
    FloatList=_more.FloatList, Int64List=_more.Int64List,
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
    uniform_unit_scaling=_init.uniform_unit_scaling_initializer,
)
layers = Namespace("layers", {n: getattr(_layers, n) for n in _layers.__all__}
                   | {n: graph_class(getattr(_layer_objects, n)) if n != "InputSpec" else _layer_objects.InputSpec
                      for n in _layer_objects.__all__})
losses = Namespace(
    "losses", {n: getattr(_losses, n) for n in (
        "Reduction", "compute_weighted_loss", "absolute_difference", "mean_squared_error", "huber_loss", "log_loss",
        "hinge_loss", "cosine_distance", "sigmoid_cross_entropy", "softmax_cross_entropy",
        "sparse_softmax_cross_entropy", "add_loss", "get_losses", "get_regularization_loss",
        "get_regularization_losses", "get_total_loss")})
metrics = Namespace("metrics", {n: getattr(m, n) for m in (_metrics, _metrics_more) for n in m.__all__})
summary = Namespace("summary", {n: getattr(_summary, n) for n in _summary.__all__},
                    TaggedRunMetadata=_more.TaggedRunMetadata, FileWriterCache=_tf1_train.FileWriterCache)
data = Namespace("data", {n: getattr(_data, n) for n in _data.__all__})
linalg = Namespace("linalg", _more.linalg_names() | _tf1_io.linalg_names() | _lc_names, norm=norm, matmul=_m.matmul,
                   diag=_linalg.diag, diag_part=_linalg.diag_part)
io = Namespace("io", _tf1_io.io_names() | _image_v1.io_names() | _tf1_train.queue_names(), decode_csv=_input.decode_csv, write_graph=_train.write_graph,
               gfile=_of.io.gfile)
version = Namespace("version", VERSION=VERSION, GIT_VERSION=GIT_VERSION, GRAPH_DEF_VERSION=GRAPH_DEF_VERSION,
                    GRAPH_DEF_VERSION_MIN_CONSUMER=GRAPH_DEF_VERSION_MIN_CONSUMER,
                    GRAPH_DEF_VERSION_MIN_PRODUCER=GRAPH_DEF_VERSION_MIN_PRODUCER)
decode_csv, TextLineReader = _input.decode_csv, _input.TextLineReader
random_crop, extract_image_patches = _image_v1.random_crop, _image_v1.extract_image_patches  # tf.random_crop, ...
extract_volume_patches = _image_v1.extract_volume_patches
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
                 softplus=_ops.softplus, l2_normalize=_nn.l2_normalize, in_top_k=_nn.in_top_k,
                 erfc=_ops.erfc, softmax=_nn_v1.softmax, log_softmax=_nn_v1.log_softmax,
                 zero_fraction=_nn.zero_fraction, accumulate_n=accumulate_n, scalar_mul=scalar_mul,
                 unsorted_segment_sum=_ops.unsorted_segment_sum, is_non_decreasing=_more.is_non_decreasing,
                 is_strictly_increasing=_more.is_strictly_increasing)
dtypes = Namespace("dtypes", {n: getattr(_of.dtypes, n) for n in dir(_of.dtypes) if not n.startswith("_")})
# tf.compat: the helpers, and tf.compat.v1 (this module itself: programs written for the TF1 -> TF2
# transition spell tf.compat.v1.Session even under TF1).
compat = Namespace("compat", {n: getattr(_ucompat, n) for n in _ucompat.__dict__ if not n.startswith("_")
                              and n not in ("annotations", "contextlib", "datetime", "numbers", "os", "np")},
                   dimension_value=_ts.dimension_value, dimension_at_index=_ts.dimension_at_index,
                   v1=sys.modules["opforge.compat.v1"], builds_graph=False)
saved_model = Namespace(
    "saved_model", {n: getattr(_sm, n) for n in (
        "builder", "constants", "signature_constants", "signature_def_utils", "tag_constants", "utils",
        "simple_save", "build_signature_def", "predict_signature_def", "classification_signature_def",
        "regression_signature_def", "is_valid_signature", "build_tensor_info", "get_tensor_from_tensor_info",
        "maybe_saved_model_directory", "contains_saved_model")}
    | {n: getattr(m, n) for m in (_sm.constants, _sm.tag_constants, _sm.signature_constants) for n in dir(m)
       if n.isupper()},
    builds_graph=False,
    # TF1's tf.saved_model.load is the loader's load(sess, tags, export_dir); opforge's own
    # of.saved_model.load(export_dir) returns a LoadedModel.
    loader=Namespace("saved_model.loader", load=_sm.loader.load,
                     maybe_saved_model_directory=_sm.loader.maybe_saved_model_directory, builds_graph=False),
    load=_sm.loader.load, Builder=_sm.SavedModelBuilder,
    main_op=Namespace("saved_model.main_op", main_op=_sm_main_op.main_op,
                      main_op_with_restore=_sm_main_op.main_op_with_restore),
    main_op_with_restore=_sm_main_op.main_op_with_restore,
)

