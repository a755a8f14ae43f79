"""Datasets as ops (TensorFlow's design): in a graph, a Dataset is built as dataset ops
(TensorSliceDataset, MapDataset, BatchDatasetV2, ... opdefs/data) whose output is a variant
tensor, and an iterator is a resource of the Session (IteratorV2 + MakeIterator, or
OneShotIterator) read by IteratorGetNext, all run by the C++ runtime off the Python thread.

Each Dataset may carry ``_native``: a function ``build(graph) -> variant tensor`` making its
ops in ``graph``. Transformations with an op get one from the builders below (the Python
implementations register through ``implements``; ``_native_hook`` attaches the builder to
their result). A dataset made by a transformation without an op of its own (window,
group_by_window, cache to a file, from_generator, ...), or with SparseTensor components, runs
its Python pipeline inside a GeneratorDataset whose functions call Python (PyFunc), as
TensorFlow's from_generator does, so every iterator is an op.

Functions (map, filter, flat_map, interleave) are the graphs data/functions.py traces, added
to the process's function library (opforge/function.h) under a unique name.

``OPFORGE_PYTHON_DATA=1`` in the environment keeps graph iterators on the Python pipeline
(data/iterator_ops.py), the implementation before dataset ops.
"""

from __future__ import annotations

import itertools
import os
import threading

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.graph import Graph, GraphTensor, constant_node
from ..framework.tensor import Tensor as EagerTensor
from .dataset import Dataset, ScalarArg, implements

__all__ = ["enabled", "variant_tensor", "register_function"]

class NotNative(Exception):
    """The dataset (or a part of it) has no op form in the graph asked for."""


def enabled() -> bool:
    return os.environ.get("OPFORGE_PYTHON_DATA", "") != "1"


def register_function(graph: Graph, args, rets, hint: str) -> str:
    """Adds graph (arguments: the Placeholder tensors ``args``; results ``rets``) to the
    function library under a new name, which it returns."""
    from ..framework import function_library  # noqa: PLC0415
    return function_library.register(graph, args, rets, hint)


# ---- graph values a dataset op reads
def _tensor(graph, value, dtype=None):
    """value as a tensor of graph: a tensor of another graph only when it is a Const (copied),
    as a one-shot iterator's dataset function cannot read the program's placeholders."""
    graph_value = getattr(value, "_graph_element", None)
    if graph_value is not None and not isinstance(value, GraphTensor):
        value = graph_value()
    if isinstance(value, GraphTensor) and value.graph is not graph:
        if value.op.type != "Const":
            raise NotNative(f"{value.name} belongs to another graph")
        value = value.op.get_attr("value")
    if isinstance(value, GraphTensor):
        if dtype is not None and value.dtype != dtype:
            with graph.as_default():
                from ..ops import math_ops  # noqa: PLC0415
                return math_ops.cast(value, dtype)
        return value
    if isinstance(value, EagerTensor):
        value = value.numpy()
    arr = np.asarray(value)
    if arr.dtype.kind in "USO":
        return constant_node(graph, arr.astype(object), _dtypes.string)
    if dtype is not None:
        arr = arr.astype(dtype.as_numpy_dtype)
    return constant_node(graph, arr)


def _scalar(graph, arg, default=None):
    if isinstance(arg, ScalarArg):
        return _tensor(graph, arg.static if arg._tensor is None else arg._tensor, _dtypes.int64)
    return _tensor(graph, default if arg is None else arg, _dtypes.int64)


def _spec(ds):
    return {"output_types": [d.as_datatype_enum for d in ds._dtypes],
            "output_shapes": [None if s.dims is None else [-1 if x is None else int(x) for x in s.dims]
                              for s in ds._shapes]}


def _op(graph, op_type, inputs, attrs, name=None):
    with graph.as_default():
        return graph.create_op(op_type, inputs, attrs, name=name or op_type).outputs[0]


def variant_tensor(ds: Dataset, graph: Graph) -> GraphTensor:
    """The variant tensor of graph that holds ds (built once per graph)."""
    cache = ds.__dict__.setdefault("_variants", {})
    hit = cache.get(id(graph))
    if hit is not None and hit.graph is graph:
        return hit
    build = getattr(ds, "_native", None)
    if build is None or any(ds._sparse) or ds._window:
        build = _python_pipeline(ds)
    out = build(graph)
    cache[id(graph)] = out
    return out


def _unary(op_type, extra=(), attrs=None):
    """A builder of ``op_type(input_dataset, *extra(graph))``."""
    def make(ds_in, out):
        def build(graph):
            inputs = [variant_tensor(ds_in, graph)] + [f(graph) for f in extra]
            return _op(graph, op_type, inputs, dict(_spec(out), **(attrs or {})))
        return build
    return make


# ---- builders: name of the Python implementation -> builder(result, *its arguments)
_BUILDERS: dict = {}


def _builder(name):
    def register(fn):
        _BUILDERS[name] = fn
        return fn
    return register


@implements
def _native_hook(name, result, args):
    """Called with each transformation's result: attaches its op-graph builder."""
    make = _BUILDERS.get(name)
    if (make is not None and isinstance(result, Dataset) and "_native" not in result.__dict__
            and not any(result is a for a in args)):  # (prefetch(0) returns its input)
        try:
            result._native = make(result, *args)
        except NotNative:
            result._native = None
    return result


@_builder("from_tensors")
def _from_tensors(out, leaves, sliced):
    def build(graph):
        comps = [_tensor(graph, leaf, d) for leaf, d in zip(leaves, out._dtypes)]
        if sliced:
            attrs = {"Toutput_types": [d.as_datatype_enum for d in out._dtypes],
                     "output_shapes": _spec(out)["output_shapes"]}
            return _op(graph, "TensorSliceDataset", [comps], attrs)
        attrs = {"Toutput_types": [d.as_datatype_enum for d in out._dtypes],
                 "output_shapes": _spec(out)["output_shapes"]}
        return _op(graph, "TensorDataset", [comps], attrs)
    return build


@_builder("range")
def _range(out, bounds):
    def build(graph):
        vals = [_scalar(graph, b) for b in bounds]
        if len(vals) == 1:
            vals = [_tensor(graph, 0, _dtypes.int64), vals[0]]
        if len(vals) == 2:
            vals.append(_tensor(graph, 1, _dtypes.int64))
        return _op(graph, "RangeDataset", vals, _spec(out))
    return build


@_builder("zip")
def _zip(out, parts):
    def build(graph):
        return _op(graph, "ZipDataset", [[variant_tensor(p, graph) for p in parts]], _spec(out))
    return build


@_builder("concatenate")
def _concatenate(out, ds, other):
    def build(graph):
        return _op(graph, "ConcatenateDataset", [variant_tensor(ds, graph), variant_tensor(other, graph)], _spec(out))
    return build


@_builder("batch")
def _batch(out, ds, batch_size, drop_remainder=False):
    return _unary("BatchDatasetV2", (lambda g: _scalar(g, batch_size), lambda g: _tensor(g, bool(drop_remainder))))(
        ds, out)


@_builder("repeat")
def _repeat(out, ds, count=None):
    return _unary("RepeatDataset", (lambda g: _scalar(g, count, -1),))(ds, out)


@_builder("take")
def _take(out, ds, count):
    return _unary("TakeDataset", (lambda g: _scalar(g, count),))(ds, out)


@_builder("skip")
def _skip(out, ds, count):
    return _unary("SkipDataset", (lambda g: _scalar(g, count),))(ds, out)


@_builder("shard")
def _shard(out, ds, num_shards, index):
    return _unary("ShardDataset", (lambda g: _scalar(g, num_shards), lambda g: _scalar(g, index)))(ds, out)


@_builder("prefetch")
def _prefetch(out, ds, buffer_size):
    return _unary("PrefetchDataset", (lambda g: _scalar(g, buffer_size),))(ds, out)


@_builder("shuffle")
def _shuffle(out, ds, buffer_size, seed=None, reshuffle_each_iteration=None):
    from ..ops.random_ops import get_seed  # noqa: PLC0415
    s1, s2 = get_seed(seed, ds._graph()) if seed is not None or ds._graph().seed is not None else (0, 0)
    reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
    return _unary("ShuffleDataset", (lambda g: _scalar(g, buffer_size), lambda g: _tensor(g, s1 or 0, _dtypes.int64),
                                      lambda g: _tensor(g, s2 or 0, _dtypes.int64)),
                  {"reshuffle_each_iteration": reshuffle})(ds, out)


@_builder("padded_batch")
def _padded_batch(out, ds, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
    pads = out.__dict__.pop("_padding", None)  # set by transformations.padded_batch: (shapes, values)
    if pads is None:
        raise NotNative("padded_batch without its resolved padding")
    shapes, values = pads

    def build(graph):
        attrs = {"Toutput_types": [d.as_datatype_enum for d in out._dtypes],
                 "output_shapes": _spec(out)["output_shapes"]}
        shape_ts = [_tensor(graph, np.asarray([-1 if d is None else d for d in s], np.int64), _dtypes.int64)
                    for s in shapes]
        value_ts = [_tensor(graph, v, d) for v, d in zip(values, ds._dtypes)]
        return _op(graph, "PaddedBatchDatasetV2",
                   [variant_tensor(ds, graph), _scalar(graph, batch_size), shape_ts, value_ts,
                    _tensor(graph, bool(drop_remainder))], attrs)
    return build


def _traced_function(fn, hint):
    """The library name of a traced function (data/functions.py) with dense arguments."""
    name = getattr(fn, "_library_name", None)
    if name is None:
        if any(len(phs) != 1 for phs in fn._inputs) or fn._windows:
            raise NotNative("a function of SparseTensor or window components")
        rets = list(fn._outputs)
        if getattr(fn, "dataset", None) is not None:
            rets = [variant_tensor(fn.dataset, fn.graph)]
        elif len(rets) != len(getattr(fn, "_groups", rets)):
            raise NotNative("a function returning SparseTensors")
        name = register_function(fn.graph, [phs[0] for phs in fn._inputs] + list(fn._capture_inputs), rets, hint)
        fn._library_name = name
    return name


def _captured(graph, fn):
    return [_tensor(graph, t) for t in fn.captured]


@_builder("map_dataset")
def _map(out, ds, map_func, num_parallel_calls=None, deterministic=None, skip_errors=False):
    fn = out.__dict__.get("_traced")
    if fn is None or skip_errors:
        raise NotNative("map without its traced function")
    fname = _traced_function(fn, "map")

    def build(graph):
        attrs = dict(_spec(out), f=fname, Targuments=[t.dtype.as_datatype_enum for t in fn.captured])
        inputs = [variant_tensor(ds, graph), _captured(graph, fn)]
        if num_parallel_calls is None:
            return _op(graph, "MapDataset", inputs, attrs)
        return _op(graph, "ParallelMapDatasetV2", inputs + [_scalar(graph, num_parallel_calls)], attrs)
    return build


@_builder("filter_dataset")
def _filter(out, ds, predicate, skip_errors=False):
    fn = out.__dict__.get("_traced")
    if fn is None or skip_errors:
        raise NotNative("filter without its traced function")
    fname = _traced_function(fn, "filter")

    def build(graph):
        attrs = dict(_spec(out), predicate=fname, Targuments=[t.dtype.as_datatype_enum for t in fn.captured])
        return _op(graph, "FilterDataset", [variant_tensor(ds, graph), _captured(graph, fn)], attrs)
    return build


@_builder("interleave")
def _interleave(out, ds, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                deterministic=None, what="interleave"):
    fn = out.__dict__.get("_traced")
    if fn is None:
        raise NotNative("interleave without its traced function")
    fname = _traced_function(fn, what)

    def build(graph):
        attrs = dict(_spec(out), f=fname, Targuments=[t.dtype.as_datatype_enum for t in fn.captured])
        inputs = [variant_tensor(ds, graph), _captured(graph, fn)]
        if what == "flat_map":
            return _op(graph, "FlatMapDataset", inputs, attrs)
        cycle = _scalar(graph, -1 if cycle_length is None else cycle_length)
        block = _scalar(graph, 1 if block_length is None else block_length)
        if num_parallel_calls is None:
            return _op(graph, "InterleaveDataset", inputs + [cycle, block], attrs)
        extra = [_scalar(graph, 1), _scalar(graph, 1), _scalar(graph, num_parallel_calls)]
        return _op(graph, "ParallelInterleaveDatasetV4", inputs + [cycle, block] + extra, attrs)
    return build


_record_functions: dict = {}


def _record_function(op_type, compression, buffer_size, fixed):
    """The library function making op_type's dataset of one file (for parallel reads)."""
    key = (op_type, compression, buffer_size, fixed)
    name = _record_functions.get(key)
    if name is None:
        g = Graph()
        with g.as_default():
            path = g.create_op("Placeholder", [], {"dtype": _dtypes.string.as_datatype_enum, "shape": []},
                               name="filename").outputs[0]
            ds = _record_op(g, op_type, path, compression, buffer_size, fixed)
        name = _record_functions[key] = register_function(g, [path], [ds], "read_one_file")
    return name


def _record_op(graph, op_type, files, compression, buffer_size, fixed):
    comp = _tensor(graph, np.asarray(compression or "", dtype=object), _dtypes.string)
    buf = _tensor(graph, 0 if buffer_size is None else int(buffer_size), _dtypes.int64)
    if fixed is None:
        return _op(graph, op_type, [files, comp, buf], {})
    header, record, footer = (_tensor(graph, v, _dtypes.int64) for v in fixed)
    return _op(graph, op_type, [files, header, record, footer, buf, comp], {})


@_builder("records")
def _records(out, op_type, filenames, compression, buffer_size, fixed=None, cycle=1):
    """TFRecordDataset / TextLineDataset / FixedLengthRecordDatasetV2 over the given files
    (fixed: (header, record, footer) bytes); with cycle > 1, that many files at a time (a
    parallel interleave over the file names, as TensorFlow reads num_parallel_reads files)."""
    def build(graph):
        files = _tensor(graph, filenames if isinstance(filenames, GraphTensor) else
                        np.asarray(_file_names(filenames), dtype=object), _dtypes.string)
        if cycle == 1:
            return _record_op(graph, op_type, files, compression, buffer_size, fixed)
        flat = _op(graph, "Reshape", [files, _tensor(graph, np.asarray([-1], np.int32))], {})
        names = _op(graph, "TensorSliceDataset", [[flat]],
                    {"Toutput_types": [_dtypes.string.as_datatype_enum], "output_shapes": [[]]})
        fname = _record_function(op_type, compression, buffer_size, fixed)
        attrs = dict(_spec(out), f=fname, Targuments=[])
        n = _scalar(graph, cycle)
        return _op(graph, "ParallelInterleaveDatasetV4",
                   [names, [], n, _scalar(graph, 1), _scalar(graph, 1), _scalar(graph, 1), n], attrs)
    return build


def _file_names(value):
    from .readers import _names  # noqa: PLC0415
    return _names(value)


# ---- the Python pipeline as a GeneratorDataset
class _PassValues(dict):
    """The values one pass of a Python pipeline reads (data/dataset.py): its sources' values,
    and the state its transformations keep across passes (a shuffle's pass count), which
    lives on in ``persistent`` for the next pass (a repeat starts the pipeline again)."""

    def __init__(self, persistent, items):
        super().__init__(persistent)
        self.update(items)
        self._persistent = persistent

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if isinstance(key, tuple) and key and key[0] == "state":
            self._persistent[key] = value


_iterations: dict = {}
_iterations_lock = threading.Lock()
_ids = itertools.count(1)


def _python_pipeline(ds):
    """A builder running ds's Python pipeline in a GeneratorDataset (PyFunc calls), for
    datasets without an op form. SparseTensor components travel as their three parts."""
    from ..ops import script_ops  # noqa: PLC0415
    sources = list(ds._sources)
    flat_dtypes = []
    for d, sp in zip(ds._dtypes, ds._sparse):
        flat_dtypes.extend([_dtypes.int64, d, _dtypes.int64] if sp else [d])

    persistent: dict = {}

    def start(*values):
        key = next(_ids)
        gen = ds._elements(_PassValues(persistent, zip(sources, values)))
        with _iterations_lock:
            _iterations[key] = gen
        return np.int64(key)

    def next_element(key):
        with _iterations_lock:
            gen = _iterations.get(int(key))
        element = next(gen, None) if gen is not None else None
        if element is None:
            raise OutOfRangeError("End of sequence", "GeneratorDataset")
        flat = []
        for value, d, sp in zip(element, ds._dtypes, ds._sparse):
            parts = [value.indices, value.values, value.dense_shape] if sp else [value]
            dts = [_dtypes.int64, d, _dtypes.int64] if sp else [d]
            for part, dt in zip(parts, dts):
                flat.append(np.asarray(part, dtype=object) if dt == _dtypes.string
                            else np.asarray(part, dtype=dt.as_numpy_dtype))
        return flat

    def finish(key):
        with _iterations_lock:
            gen = _iterations.pop(int(key), None)
        if gen is not None:
            gen.close()
        return np.int64(key)

    tokens = [script_ops._register(f) for f in (start, next_element, finish)]

    def function(token, arg_dtypes, tout, hint):
        g = Graph()
        with g.as_default():
            args = [g.create_op("Placeholder", [], {"dtype": d.as_datatype_enum, "shape": None},
                                name=f"arg_{i}").outputs[0] for i, d in enumerate(arg_dtypes)]
            op = g.create_op("PyFunc", [args], {"token": token, "Tin": [d.as_datatype_enum for d in arg_dtypes],
                                                 "Tout": [d.as_datatype_enum for d in tout]})
        return register_function(g, args, list(op.outputs), hint)

    src_dtypes = [s.dtype for s in sources]
    init = function(tokens[0], src_dtypes, [_dtypes.int64], "generator_init")
    nxt = function(tokens[1], [_dtypes.int64], flat_dtypes, "generator_next")
    fin = function(tokens[2], [_dtypes.int64], [_dtypes.int64], "generator_finalize")
    flat_shapes = []
    for s, sp in zip(ds._shapes, ds._sparse):
        flat_shapes.extend([[-1, -1], [-1], [-1]] if sp else
                           [None if s.dims is None else [-1 if x is None else int(x) for x in s.dims]])

    def build(graph):
        srcs = [_tensor(graph, s) for s in sources]
        attrs = {"init_func": init, "next_func": nxt, "finalize_func": fin,
                 "Tinit_func_args": [d.as_datatype_enum for d in src_dtypes], "Tnext_func_args": [],
                 "Tfinalize_func_args": [], "output_types": [d.as_datatype_enum for d in flat_dtypes],
                 "output_shapes": flat_shapes}
        return _op(graph, "GeneratorDataset", [srcs, [], []], attrs)
    return build


# ---- datasets made by ops the program calls (an op library's dataset op)
def _eager_elements(variant, dtypes, shapes):
    """The elements of an eager dataset variant, read by a C++ iterator (a flat list of arrays each)."""
    from ..ops import raw_ops  # noqa: PLC0415
    spec = {"output_types": [d.as_datatype_enum for d in dtypes],
            "output_shapes": [None if s.dims is None else [-1 if x is None else int(x) for x in s.dims]
                              for s in shapes]}
    it = raw_ops.AnonymousIteratorV3(**spec)
    raw_ops.MakeIterator(dataset=variant, iterator=it)
    while True:
        try:
            element = raw_ops.IteratorGetNext(iterator=it, **spec)
        except OutOfRangeError:
            return
        yield [t._numpy() for t in (element if isinstance(element, (list, tuple)) else [element])]


def from_variant(variant, structure):
    """The Dataset a variant tensor holds (TensorFlow's tf.data.experimental.from_variant):
    ``variant`` is the output of a dataset op (e.g. an op library's own reader), ``structure``
    its element_spec (a TensorSpec, or a tuple/dict of them). In a graph the dataset is that op;
    eagerly it iterates in C++."""
    from ..framework.type_spec import TensorSpec  # noqa: PLC0415
    from .dataset import _rebuild  # noqa: PLC0415
    from ..framework.control_flow import _flatten  # noqa: PLC0415
    leaves = _flatten(structure)
    if not leaves or not all(isinstance(s, TensorSpec) for s in leaves):
        raise TypeError("from_variant: structure must be a TensorSpec or a tuple/dict of TensorSpecs")
    dtypes = [s.dtype for s in leaves]
    shapes = [s.shape for s in leaves]
    if variant.dtype != _dtypes.variant:
        raise InvalidArgumentError(f"from_variant: expected a variant tensor, got {variant.dtype.name}", "from_variant")
    if isinstance(variant, GraphTensor):
        def elements(values):
            raise InvalidArgumentError("this dataset is made by a graph op: iterate it with a graph iterator "
                                       "(make_one_shot_iterator / make_initializable_iterator)", variant.op.type)
        sources = [variant]
    else:
        def elements(values):
            yield from _eager_elements(variant, dtypes, shapes)
        sources = []
    ds = Dataset(elements, _rebuild(structure, list(range(len(leaves)))) if not isinstance(structure, TensorSpec)
                 else 0, dtypes, shapes, sources)
    ds._structure = structure if not isinstance(structure, TensorSpec) else 0

    def build(graph):
        if not isinstance(variant, GraphTensor) or variant.graph is not graph:
            raise NotNative("a dataset variant of another graph")
        return variant
    ds._native = build
    return ds


def to_variant(dataset):
    """The variant tensor of ``dataset`` in the default graph (TensorFlow's
    tf.data.experimental.to_variant)."""
    from ..framework.graph import get_default_graph  # noqa: PLC0415
    return variant_tensor(dataset, get_default_graph())
