"""``tf.data``'s Dataset, as TensorFlow 1 programs use it in graphs (and TF2 programs eagerly).

A Dataset describes a pipeline of elements (a tensor, or a tuple/dict of tensors): sources
(``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``, ``list_files``, the
file readers of readers.py) and transformations (``map``, ``filter``, ``batch``,
``padded_batch``, ``shuffle``, ``repeat``, ``flat_map``, ``interleave``, ``window``, ...,
transformations.py and parallel.py). An iterator (iterator_ops.py) gives ``get_next()``
tensors; each ``Session.run`` that needs them takes the next element, and one past the end
raises OutOfRangeError, as in TensorFlow.

A dataset runs on the host, in NumPy, as a chain of Python generators: ``_elements(values)``
yields each element as its flat list of arrays. ``values`` maps the graph tensors the pipeline
reads (``_sources``: placeholders, variables, tensors a function captures) to their values,
taken when the iterator is initialized; it also holds the state of one iteration (a cache's
contents, a shuffle's pass count), so that every iterator, and every Session, has its own.
``map(num_parallel_calls)``, ``interleave(num_parallel_calls)`` and ``prefetch`` run on
background threads (parallel.py); functions are traced into graphs (functions.py).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.control_flow import _flatten, _pack
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import Tensor as EagerTensor
from ..framework.tensor import TensorShape

__all__ = ["Dataset", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "window_dataset"]

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


# The implementations of Dataset's methods live in the modules that import this one
# (transformations.py, parallel.py, sources.py, iterator_ops.py, experimental.py); each
# registers its functions here by name, so that this module imports none of them.
_IMPLEMENTATIONS: dict = {}


def implements(function):
    """Registers function (or class) as the implementation Dataset's methods call by its name."""
    _IMPLEMENTATIONS[function.__name__] = function
    return function


def _impl(name):
    fn = _IMPLEMENTATIONS[name]
    if isinstance(fn, type):  # a class (Iterator, Options, ...)
        return fn
    return lambda *args: _native_hook(name, fn(*args), args)


def _native_hook(name, result, args):
    """Gives result its op form (data/native.py), when that module has a builder for name."""
    hook = _IMPLEMENTATIONS.get("_native_hook")
    return result if hook is None else hook(name, result, args)


def _rebuild(structure, flat):
    """structure with its leaves replaced, in order, by flat."""
    return _pack(structure, flat)


def _state(values, owner, default):
    """The per-iteration state ``owner`` keeps in ``values`` (made from ``default()`` once)."""
    key = ("state", id(owner))
    if key not in values:
        values[key] = default()
    return values[key]


class Dataset:
    """A pipeline of elements. ``_elements(values)`` yields each element as its flat list of
    NumPy arrays; ``_cardinality`` is its number of elements when known statically (else
    UNKNOWN_CARDINALITY; INFINITE_CARDINALITY for a dataset without end). A window dataset's
    components (``_window``) are nested datasets: each element gives, per component, the list
    of that component's values in the window."""

    def __init__(self, elements, structure, dtypes, shapes, sources=(), cardinality=UNKNOWN_CARDINALITY,
                 window=False, sparse=None):
        self._elements = elements
        # per component: a SparseTensor (its value in an element: a SparseTensorValue of arrays)
        self._sparse = list(sparse) if sparse is not None else [False] * len(dtypes)
        self._structure = structure
        self._dtypes = list(dtypes)
        self._shapes = [TensorShape(s) if not isinstance(s, TensorShape) else s for s in shapes]
        self._sources = _unique(sources)
        self._cardinality = int(cardinality)
        self._window = window
        self._options = None  # with_options' Options
        self._lenient = None  # map/filter: makes this dataset with failing elements left out (ignore_errors)

    # ---- what an element looks like
    @property
    def output_types(self):
        return _rebuild(self._structure, self._dtypes)

    @property
    def output_shapes(self):
        return _rebuild(self._structure, self._shapes)

    @property
    def output_classes(self):
        return _rebuild(self._structure, [Dataset if self._window else SparseTensor if sp else GraphTensor
                                          for sp in self._sparse])

    element_spec = property(lambda self: _rebuild(self._structure, list(zip(self._shapes, self._dtypes))))

    def _derive(self, elements, structure=None, dtypes=None, shapes=None, sources=(), cardinality=None,
                window=None):
        """A dataset over this one: the same element description unless given."""
        return Dataset(elements, self._structure if structure is None else structure,
                       self._dtypes if dtypes is None else dtypes, self._shapes if shapes is None else shapes,
                       self._sources + list(sources), UNKNOWN_CARDINALITY if cardinality is None else cardinality,
                       self._window if window is None else window, self._sparse)

    def _no_sparse(self, what):
        if any(self._sparse):
            raise InvalidArgumentError(f"{what}: opforge does not support SparseTensor components here yet "
                                       "(batch, map, filter, shuffle, repeat and iterators do)", what)

    def _no_windows(self, what):
        if self._window:
            raise InvalidArgumentError(f"{what}: the elements are windows (datasets); use flat_map or interleave "
                                       "on them", what)

    # ---- sources
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row of the given tensors (which share their first dimension)."""
        return Dataset._from(tensors, sliced=True)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A single element: the given tensors."""
        return Dataset._from(tensors, sliced=False)

    @staticmethod
    def _from(tensors, sliced):
        tensors = _lists_as_arrays(tensors)
        leaves = _flatten(tensors)
        sources, dtypes, shapes, getters, rows, values = [], [], [], [], set(), []
        for leaf in leaves:
            graph_value = getattr(leaf, "_graph_element", None)
            if graph_value is not None and not isinstance(leaf, GraphTensor):
                leaf = graph_value()  # a variable: its value when the iterator is initialized
            if isinstance(leaf, GraphTensor):
                sources.append(leaf)
                dtypes.append(leaf.dtype)
                dims = leaf.shape.dims
                getters.append(lambda values, t=leaf: values[t])
            else:
                arr = leaf.numpy() if isinstance(leaf, EagerTensor) else np.asarray(leaf)
                if arr.dtype.kind in "US":
                    arr = arr.astype(object)
                dtypes.append(_dtypes.as_dtype(arr.dtype) if arr.dtype != object else _dtypes.string)
                dims = list(arr.shape)
                getters.append(lambda values, a=arr: a)
            values.append(leaf if isinstance(leaf, GraphTensor) else arr)
            if sliced:
                if dims is not None and len(dims) == 0:
                    raise InvalidArgumentError("from_tensor_slices: every component needs at least one dimension",
                                               "TensorSliceDataset")
                rows.add(None if dims is None or dims[0] is None else int(dims[0]))
                dims = None if dims is None else dims[1:]
            shapes.append(dims)

        def elements(values):
            arrays = [np.asarray(g(values)) for g in getters]
            if not sliced:
                yield arrays
                return
            n = {len(a) for a in arrays}
            if len(n) != 1:
                raise InvalidArgumentError(f"from_tensor_slices: components have different first dimensions "
                                           f"{[a.shape[0] for a in arrays]}", "TensorSliceDataset")
            for i in range(n.pop()):
                yield [a[i] for a in arrays]

        structure = tensors if not isinstance(tensors, np.ndarray) else 0
        count = 1 if not sliced else (rows.pop() if len(rows) == 1 and None not in rows else UNKNOWN_CARDINALITY)
        return _native_hook("from_tensors", Dataset(elements, structure, dtypes, shapes, sources, count),
                            (values, sliced))

    @staticmethod
    def range(*args, output_type=_dtypes.int64, name=None):
        """0, 1, ... (Python's range arguments; tensors are read when the iteration starts)."""
        if not 1 <= len(args) <= 3:
            raise InvalidArgumentError(f"range takes 1 to 3 arguments, got {len(args)}", "RangeDataset")
        bounds = [ScalarArg(a, "range argument", "RangeDataset") for a in args]
        if len(bounds) == 3 and bounds[2].static == 0:
            raise InvalidArgumentError("range: step must not be 0", "RangeDataset")
        npdt = _dtypes.as_dtype(output_type).as_numpy_dtype

        def elements(values):
            r = range(*[b.get(values) for b in bounds])
            for i in r:
                yield [np.asarray(i, npdt)]
        static = [b.static for b in bounds]
        count = len(range(*static)) if None not in static else UNKNOWN_CARDINALITY
        return _native_hook("range", Dataset(elements, 0, [_dtypes.as_dtype(output_type)], [[]],
                                             [t for b in bounds for t in b.sources], cardinality=count), (bounds,))

    @staticmethod
    def zip(datasets, name=None):
        """Elements of several datasets side by side (a tuple, or a dict, of their elements)."""
        parts = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets[k] for k in sorted(datasets)]
        for d in parts:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip takes a structure of Datasets, got {type(d).__name__}")

        def elements(values):
            for items in zip(*[d._elements(values) for d in parts]):
                yield [leaf for item in items for leaf in item]
        structure = tuple(d._structure for d in parts) if isinstance(datasets, (tuple, list)) else \
            {k: d._structure for k, d in zip(sorted(datasets), parts)}
        counts = [d._cardinality for d in parts]
        finite = [c for c in counts if c >= 0]
        count = min(finite) if finite else (INFINITE_CARDINALITY if counts and all(
            c == INFINITE_CARDINALITY for c in counts) else UNKNOWN_CARDINALITY)
        if UNKNOWN_CARDINALITY in counts and finite:
            count = UNKNOWN_CARDINALITY
        return _native_hook("zip", Dataset(elements, structure, [t for d in parts for t in d._dtypes],
                                           [s for d in parts for s in d._shapes],
                                           [s for d in parts for s in d._sources], count,
                                           window=any(d._window for d in parts),
                                           sparse=[sp for d in parts for sp in d._sparse]), (parts,))

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """The elements a Python generator yields (transformations.from_generator)."""
        return _impl("from_generator")(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching a glob pattern (or list of them), shuffled unless shuffle=False."""
        return _impl("list_files")(file_pattern, shuffle, seed)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index counting from start (int64)."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    # ---- transformations (transformations.py, parallel.py)
    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Consecutive elements stacked into batches of batch_size (the last one smaller unless
        drop_remainder)."""
        return _impl("batch")(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches whose components are padded to padded_shapes (unknown sizes: the batch's largest)."""
        return _impl("padded_batch")(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self, name=None):
        """Each element split along its first dimension."""
        return _impl("unbatch")(self)

    def repeat(self, count=None, name=None):
        """The elements count times (forever with None or -1)."""
        return _impl("repeat")(self, count)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Elements drawn at random from a buffer of buffer_size (a full shuffle when it holds
        them all); each pass (repeat) shuffles anew unless reshuffle_each_iteration=False."""
        return _impl("shuffle")(self, buffer_size, seed, reshuffle_each_iteration)

    def take(self, count, name=None):
        return _impl("take")(self, count)

    def skip(self, count, name=None):
        return _impl("skip")(self, count)

    def shard(self, num_shards, index, name=None):
        """Every num_shards-th element, starting at index."""
        return _impl("shard")(self, num_shards, index)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then dataset's (same structure and types)."""
        return _impl("concatenate")(self, dataset)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of size elements (each component a nested dataset), shift elements apart."""
        return _impl("window")(self, size, shift, stride, drop_remainder)

    def cache(self, filename="", name=None):
        """The elements, kept after the first full pass (in memory, or in a file) and replayed."""
        return _impl("cache")(self, filename)

    def prefetch(self, buffer_size, name=None):
        """The same elements, produced ahead on a background thread into a buffer of buffer_size."""
        return _impl("prefetch")(self, buffer_size)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """map_func applied to each element (a tuple element is passed as separate arguments);
        with num_parallel_calls (or AUTOTUNE), on that many threads."""
        return _impl("map_dataset")(self, map_func, num_parallel_calls, deterministic)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets map_func makes of each element, one after the other."""
        return _impl("interleave")(self, map_func, 1, 1, None, None, "flat_map")

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """The elements of the datasets map_func makes, cycle_length of them at a time,
        block_length elements from each in turn."""
        return _impl("interleave")(self, map_func, cycle_length, block_length, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """The elements for which predicate is true."""
        return _impl("filter_dataset")(self, predicate)

    def ignore_errors(self, log_warning=False, name=None):
        """The elements, without those whose map or filter function failed."""
        return _impl("ignore_errors")(self)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Elements grouped by key_func's int64 key; each group of window_size elements (or
        window_size_func(key)) becomes reduce_func(key, window dataset)'s elements."""
        return _impl("group_by_window")(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None):
        """Batches of elements of similar lengths: one batch size per length bucket."""
        return _impl("bucket_by_sequence_length")(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                                  padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                                  drop_remainder)

    def apply(self, transformation_func):
        """transformation_func(self) (tf.data.experimental's transformations)."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("apply: the transformation must return a Dataset")
        return result

    # ---- options and cardinality
    def options(self):
        return self._options if self._options is not None else _impl("Options")()

    def with_options(self, options, name=None):
        """The same dataset with options (deterministic: the default order of parallel maps)."""
        out = self._derive(self._elements, cardinality=self._cardinality)
        out._options = options if self._options is None else self._options.merge(options)
        return out

    def cardinality(self):
        """The number of elements as an int64 scalar tensor: INFINITE_CARDINALITY (-1) without
        end, UNKNOWN_CARDINALITY (-2) when it depends on the data."""
        from ..framework.graph import _explicit_graph, constant_node  # noqa: PLC0415
        from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
        graph = self._sources[0].graph if self._sources else _explicit_graph()
        value = np.int64(self._cardinality)
        return constant_node(graph, value, name="DatasetCardinality") if graph is not None \
            else convert_to_tensor(value)

    # ---- iterators (iterator_ops.py)
    def make_one_shot_iterator(self):
        _check_capturable(self._sources)
        return _impl("Iterator")._for_dataset(self, initializable=False)

    def make_initializable_iterator(self, shared_name=None):
        return _impl("Iterator")._for_dataset(self, initializable=True, shared_name=shared_name)

    def _graph(self):
        return self._sources[0].graph if self._sources else get_default_graph()

    def __iter__(self):
        """Eager iteration (TF2): each element as of.Tensor values."""
        from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
        self._no_windows("iteration")
        if self._sources:
            raise InvalidArgumentError("a dataset made from graph tensors is iterated in a Session", "Dataset")
        for element in self._elements({}):
            yield _rebuild(self._structure, [SparseTensor.from_value(a) if sp else convert_to_tensor(a, d)
                                             for a, d, sp in zip(element, self._dtypes, self._sparse)])

    def as_numpy_iterator(self):
        """Eager iteration with NumPy values."""
        return _impl("NumpyIterator")(self)


class ScalarArg:
    """A transformation's scalar argument (batch_size, count, ...): a number, or a tensor (a
    placeholder; a tensor of a dataset function's graph) read when the iteration starts.
    ``static``: the value when known while building, else None; ``sources``: the tensors to read."""

    def __init__(self, value, what, op, minimum=None):
        self.what, self.op, self._minimum = what, op, minimum
        graph_value = getattr(value, "_graph_element", None)
        if graph_value is not None and not isinstance(value, GraphTensor):
            value = graph_value()
        if isinstance(value, GraphTensor):
            if not value.dtype.is_integer or value.shape.rank not in (None, 0):
                raise InvalidArgumentError(f"{what} must be an integer scalar, got {value.dtype.name} {value.shape}",
                                           op)
            self._tensor, self.static, self.sources = value, None, [value]
        else:
            value = value.numpy() if isinstance(value, EagerTensor) else value
            self._tensor, self.static, self.sources = None, self._check(int(value)), []

    def _check(self, value: int) -> int:
        if self._minimum is not None and value < self._minimum:
            bound = "positive" if self._minimum == 1 else f"at least {self._minimum}"
            raise InvalidArgumentError(f"{self.what} must be {bound}, got {value}", self.op)
        return value

    def get(self, values) -> int:
        return self.static if self._tensor is None else self._check(int(np.asarray(values[self._tensor])))


_STATEFUL = ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "VariableV2", "Variable", "VarHandleOp",
             "RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "Multinomial",
             "RandomShuffle")


def _check_capturable(sources):
    """A one-shot iterator reads its dataset's tensors itself, at its first element in each
    Session: as in TensorFlow, they may not depend on placeholders, variables or random ops."""
    seen, stack = set(), [t.op for t in sources]
    while stack:
        op = stack.pop()
        if op._id in seen:
            continue
        seen.add(op._id)
        if op.type in _STATEFUL:
            kind = "placeholder" if op.type.startswith("Placeholder") else "stateful node"
            raise InvalidArgumentError(f"Cannot capture a {kind} (name:{op.name}, type:{op.type}) by value: a one-shot "
                                       "iterator cannot read it; use make_initializable_iterator", "MakeIterator")
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)


def _lists_as_arrays(structure):
    """A structure of tensors with its Python lists taken as tensors (as tf.data takes them;
    tuples and dicts are structure): a list of numbers or strings becomes an array of the
    dtype TensorFlow gives it, a list holding graph or eager tensors a tuple of them."""
    if isinstance(structure, dict):
        return {k: _lists_as_arrays(v) for k, v in structure.items()}
    if isinstance(structure, tuple) and not hasattr(structure, "_fields"):
        return tuple(_lists_as_arrays(v) for v in structure)
    if isinstance(structure, list):
        if any(isinstance(t, (GraphTensor, EagerTensor)) for t in _flatten(structure)):
            return tuple(structure)
        from ..framework.tensor import convert_to_tensor  # noqa: PLC0415  (TF's rules: ints int32, floats float32)
        return convert_to_tensor(structure).numpy()
    return structure


def _unique(sources) -> list:
    seen, out = set(), []
    for s in sources:
        if id(s) not in seen:
            seen.add(id(s))
            out.append(s)
    return out


def window_dataset(token, dtype, shape) -> Dataset:
    """The nested dataset standing for one window component inside a traced function: its
    elements are the list ``values[token]`` holds for the current window."""
    def elements(values):
        for v in values[token]:
            yield [v]
    return Dataset(elements, 0, [dtype], [shape])


def grouped_dataset(token, dataset) -> Dataset:
    """The dataset standing for group_by_window's window inside its traced reduce function:
    elements like dataset's, the list ``values[token]`` holds for the current window."""
    def elements(values):
        yield from values[token]
    return Dataset(elements, dataset._structure, dataset._dtypes, dataset._shapes, sparse=dataset._sparse)
