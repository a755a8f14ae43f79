"""``tf.data`` basics for graphs, as TensorFlow 1 programs use them.

A Dataset describes a pipeline of elements (a tensor, or a tuple/dict of tensors):
``from_tensor_slices``, ``from_tensors``, ``range``, then ``map``, ``filter``, ``shuffle``,
``batch``, ``repeat``, ``take``, ``skip``, ``prefetch``. In a graph, an iterator
(``make_one_shot_iterator``, ``make_initializable_iterator``) gives ``get_next()`` tensors;
each ``Session.run`` that needs them takes the next element, and one past the end raises
OutOfRangeError, as in TensorFlow. Running ``iterator.initializer`` (re)starts the pipeline,
reading the tensors the dataset was made from (placeholders included) in that run.

The pipeline runs on the host, element by element, in NumPy: the Session feeds each element
to the ``get_next`` nodes, which are placeholders of the graph (feeding them by hand, as
some programs do to evaluate on other data, works as for any placeholder). A ``map`` or
``filter`` function is traced once into a graph of its own, as TensorFlow traces it into a
function, and runs in a Session of its own for each element.
"""

from __future__ import annotations

import threading

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..framework.control_flow import _flatten, _pack
from ..framework.graph import Graph, GraphTensor, get_default_graph
from ..framework.tensor import Tensor as EagerTensor
from ..framework.tensor import TensorShape

__all__ = ["Dataset", "Iterator", "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes"]


def _rebuild(structure, flat):
    """structure with its leaves replaced, in order, by flat."""
    return _pack(structure, flat)


# ------------------------------------------------------------------------- Dataset


class Dataset:
    """A pipeline of elements. ``_elements(values)`` yields each element as its flat list of
    NumPy arrays; ``values`` holds the values of the graph tensors the pipeline reads
    (``_sources``), taken when its iterator is initialized."""

    def __init__(self, elements, structure, dtypes, shapes, sources=()):
        self._elements = elements
        self._structure = structure
        self._dtypes = list(dtypes)
        self._shapes = [TensorShape(s) for s in shapes]
        self._sources = list(sources)

    # ---- what an element looks like
    @property
    def output_types(self):
        return _rebuild(self._structure, self._dtypes)

    @property
    def output_shapes(self):
        return _rebuild(self._structure, self._shapes)

    element_spec = property(lambda self: _rebuild(self._structure, list(zip(self._shapes, self._dtypes))))

    def _derive(self, elements, structure=None, dtypes=None, shapes=None):
        return Dataset(elements, self._structure if structure is None else structure,
                       self._dtypes if dtypes is None else dtypes, self._shapes if shapes is None else shapes,
                       self._sources)

    # ---- sources
    @staticmethod
    def from_tensor_slices(tensors):
        """One element per row of the given tensors (which share their first dimension)."""
        return Dataset._from(tensors, sliced=True)

    @staticmethod
    def from_tensors(tensors):
        """A single element: the given tensors."""
        return Dataset._from(tensors, sliced=False)

    @staticmethod
    def _from(tensors, sliced):
        if isinstance(tensors, list):
            tensors = tuple(tensors) if any(isinstance(t, (GraphTensor, EagerTensor)) for t in tensors) \
                else np.asarray(tensors)
        leaves = _flatten(tensors)
        sources, dtypes, shapes, getters = [], [], [], []
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
                dtypes.append(_dtypes.as_dtype(arr.dtype))
                dims = list(arr.shape)
                getters.append(lambda values, a=arr: a)
            if sliced:
                if dims is not None and len(dims) == 0:
                    raise InvalidArgumentError("from_tensor_slices: every component needs at least one dimension",
                                               "TensorSliceDataset")
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
        return Dataset(elements, structure, dtypes, shapes, sources)

    @staticmethod
    def range(*args, output_type=_dtypes.int64):
        """0, 1, ... (Python's range arguments)."""
        r = range(*[int(a) for a in args])
        npdt = _dtypes.as_dtype(output_type).as_numpy_dtype

        def elements(values):
            for i in r:
                yield [np.asarray(i, npdt)]
        return Dataset(elements, 0, [_dtypes.as_dtype(output_type)], [[]])

    @staticmethod
    def zip(datasets):
        """Elements of several datasets side by side (a tuple, or a dict, of their elements)."""
        parts = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets[k] for k in sorted(datasets)]

        def elements(values):
            for items in zip(*[d._elements(values) for d in parts]):
                yield [leaf for item in items for leaf in item]
        structure = tuple(d._structure for d in parts) if isinstance(datasets, (tuple, list)) else \
            {k: d._structure for k, d in zip(sorted(datasets), parts)}
        return Dataset(elements, structure, [t for d in parts for t in d._dtypes],
                       [s.dims for d in parts for s in d._shapes], [s for d in parts for s in d._sources])

    # ---- transformations
    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked into batches of batch_size (the last one smaller unless
        drop_remainder)."""
        batch_size = int(batch_size)
        if batch_size < 1:
            raise InvalidArgumentError(f"batch_size must be positive, got {batch_size}", "BatchDataset")

        def elements(values):
            chunk = []
            for element in self._elements(values):
                chunk.append(element)
                if len(chunk) == batch_size:
                    yield [np.stack(parts) for parts in zip(*chunk)]
                    chunk = []
            if chunk and not drop_remainder:
                yield [np.stack(parts) for parts in zip(*chunk)]
        lead = batch_size if drop_remainder else None
        return self._derive(elements, shapes=[None if s.dims is None else [lead, *s.dims] for s in self._shapes])

    def repeat(self, count=None):
        """The elements count times (forever with None or -1)."""
        count = None if count is None or int(count) < 0 else int(count)

        def elements(values):
            epoch = 0
            while count is None or epoch < count:
                any_element = False
                for element in self._elements(values):
                    any_element = True
                    yield element
                if not any_element:
                    return
                epoch += 1
        return self._derive(elements)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Elements drawn at random from a buffer of buffer_size (a full shuffle when it holds
        them all); each pass (repeat) shuffles anew unless reshuffle_each_iteration=False."""
        from ..ops.random_ops import get_seed  # noqa: PLC0415
        buffer_size = int(buffer_size)
        if buffer_size < 1:
            raise InvalidArgumentError(f"buffer_size must be positive, got {buffer_size}", "ShuffleDataset")
        s1, s2 = get_seed(seed, get_default_graph())
        fixed = (s1, s2) != (0, 0)
        reshuffle = reshuffle_each_iteration is not False
        state = {"passes": 0}

        def elements(values):
            if fixed:
                rng = np.random.default_rng([s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF, state["passes"] if reshuffle else 0])
            else:
                rng = np.random.default_rng()
            state["passes"] += 1
            buffer = []
            for element in self._elements(values):
                if len(buffer) < buffer_size:
                    buffer.append(element)
                    continue
                i = int(rng.integers(len(buffer)))
                yield buffer[i]
                buffer[i] = element
            while buffer:
                yield buffer.pop(int(rng.integers(len(buffer))))
        return self._derive(elements)

    def take(self, count):
        count = int(count)

        def elements(values):
            for i, element in enumerate(self._elements(values)):
                if count >= 0 and i >= count:
                    return
                yield element
        return self._derive(elements)

    def skip(self, count):
        count = int(count)

        def elements(values):
            for i, element in enumerate(self._elements(values)):
                if count < 0 or i >= count:
                    yield element
        return self._derive(elements)

    def prefetch(self, buffer_size):
        """The same elements (the pipeline runs when an element is asked for)."""
        del buffer_size
        return self

    def cache(self, filename=""):
        del filename
        return self

    def map(self, map_func, num_parallel_calls=None, deterministic=None):
        """map_func applied to each element (a tuple element is passed as separate arguments)."""
        del num_parallel_calls, deterministic
        fn = _TracedFunction(map_func, self, "map")
        return Dataset(lambda values: (fn(e) for e in self._elements(values)), fn.structure, fn.dtypes,
                       fn.shapes, self._sources)

    def filter(self, predicate):
        """The elements for which predicate is true."""
        fn = _TracedFunction(predicate, self, "filter")
        if fn.dtypes != [_dtypes.bool_] or fn.shapes[0].rank not in (None, 0):
            raise InvalidArgumentError("filter: the predicate must return a scalar bool tensor", "FilterDataset")

        def elements(values):
            for element in self._elements(values):
                if bool(fn(element)[0]):
                    yield element
        return self._derive(elements)

    # ---- iterators
    def make_one_shot_iterator(self):
        if self._sources:
            raise InvalidArgumentError(
                "a one-shot iterator cannot read graph tensors (placeholders): use make_initializable_iterator",
                "MakeIterator")
        return Iterator(self, initializable=False)

    def make_initializable_iterator(self, shared_name=None):
        del shared_name
        return Iterator(self, initializable=True)

    def __iter__(self):
        """Eager iteration (TF2): each element as of.Tensor values."""
        from ..framework.tensor import convert_to_tensor  # noqa: PLC0415
        if self._sources:
            raise InvalidArgumentError("a dataset made from graph tensors is iterated in a Session", "Dataset")
        for element in self._elements({}):
            yield _rebuild(self._structure, [convert_to_tensor(a, d) for a, d in zip(element, self._dtypes)])


class _TracedFunction:
    """A map/filter function traced once into a graph of its own (placeholders for the element's
    components) and run in a Session of its own per element."""

    def __init__(self, fn, dataset, what):
        from ..framework.session import Session  # noqa: PLC0415
        self._graph = Graph()
        with self._graph.as_default():
            self._inputs = [self._graph.create_op(
                "Placeholder", [], {"dtype": d.as_datatype_enum,
                                    "shape": None if s.dims is None else [-1 if x is None else x for x in s.dims]},
                name="arg").outputs[0] for d, s in zip(dataset._dtypes, dataset._shapes)]
            element = _rebuild(dataset._structure, self._inputs)
            if isinstance(element, tuple) and not hasattr(element, "_fields"):
                result = fn(*element)
            else:
                result = fn(element)
            flat = _flatten(result)
            outputs = []
            for leaf in flat:
                if hasattr(leaf, "_graph_element") and not isinstance(leaf, GraphTensor):
                    leaf = leaf._graph_element()  # a variable
                elif not isinstance(leaf, GraphTensor):
                    leaf = _constant(self._graph, leaf)
                if leaf.graph is not self._graph:
                    raise InvalidArgumentError(f"{what}: the function uses a tensor of another graph ({leaf.name}); "
                                               "opforge traces it on its own", what)
                outputs.append(leaf)
        self.structure = result if not isinstance(result, GraphTensor) else 0
        self.dtypes = [t.dtype for t in outputs]
        self.shapes = [t.shape for t in outputs]
        self._outputs = outputs
        self._session = Session(graph=self._graph)
        self._lock = threading.Lock()

    def __call__(self, element):
        with self._lock:
            out = self._session.run(self._outputs, dict(zip(self._inputs, element)))
        return [np.asarray(v) for v in out]


def _constant(graph, value):
    from ..framework.graph import to_graph_tensor  # noqa: PLC0415
    return to_graph_tensor(graph, value)


# ------------------------------------------------------------------------- iterators


class Iterator:
    """An iterator over a dataset in a graph (TensorFlow 1's tf.data.Iterator)."""

    def __init__(self, dataset: Dataset, initializable: bool):
        self._dataset = dataset
        self._graph = dataset._sources[0].graph if dataset._sources else get_default_graph()
        self._lock = threading.Lock()
        self._elements = None if initializable else dataset._elements({})
        runtime = _runtime(self._graph)
        with self._graph.as_default():
            self._initializer = self._graph.create_op("NoOp", [], {}, name="MakeIterator")
        runtime.initializers[self._initializer._id] = self

    output_types = property(lambda self: self._dataset.output_types)
    output_shapes = property(lambda self: self._dataset.output_shapes)
    initializer = property(lambda self: self._initializer)

    def get_next(self, name=None):
        """Tensors that take the next element in each Session.run that needs them."""
        ds = self._dataset
        outputs = []
        with self._graph.as_default(), self._graph.name_scope(name or "IteratorGetNext"):
            for i, (d, s) in enumerate(zip(ds._dtypes, ds._shapes)):
                shape = None if s.dims is None else [-1 if x is None else x for x in s.dims]
                outputs.append(self._graph.create_op("Placeholder", [], {"dtype": d.as_datatype_enum, "shape": shape},
                                                     name=f"component_{i}").outputs[0])
        _runtime(self._graph).add_get_next(self, outputs)
        return _rebuild(ds._structure, outputs)

    def _initialize(self, values):
        with self._lock:
            self._elements = self._dataset._elements(values)

    def _next(self, session):
        del session  # the pipeline reads nothing from the graph after initialization
        with self._lock:
            if self._elements is None:
                raise FailedPreconditionError("GetNext() failed because the iterator has not been initialized. "
                                              "Ensure that you have run the initializer operation for this iterator "
                                              "before getting the next element.", "IteratorGetNext")
            try:
                return next(self._elements)
            except StopIteration:
                raise OutOfRangeError("End of sequence", "IteratorGetNext") from None


def make_one_shot_iterator(dataset):
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


class _Runtime:
    """Per graph: which nodes are iterator initializers and get_next outputs. Session.run asks
    it, before running, what to feed (the next element of each iterator the run needs) and
    what else to fetch (the tensors an initializer reads)."""

    def __init__(self, graph):
        self.graph = graph
        self.initializers: dict[int, Iterator] = {}
        self.get_next: dict[int, tuple[Iterator, list]] = {}  # node id -> (iterator, its group)
        self._needs_cache: dict = {}

    def add_get_next(self, iterator, outputs):
        """outputs: the nodes one get_next() made; iterator._next(session) gives their values."""
        for t in outputs:
            self.get_next[t.op._id] = (iterator, outputs)
        self._needs_cache.clear()

    def _reachable(self, elements, fed: frozenset) -> set:
        key = (tuple(e._ref() if isinstance(e, GraphTensor) else ("op", e._id) for e in elements), fed,
               len(self.get_next), len(self.initializers))
        hit = self._needs_cache.get(key)
        if hit is not None:
            return hit
        seen, stack = set(), [e.op if isinstance(e, GraphTensor) else e for e in elements
                              if not (isinstance(e, GraphTensor) and e._ref() in fed)]
        while stack:
            op = stack.pop()
            if op._id in seen:
                continue
            seen.add(op._id)
            for t in op.inputs:
                if t._ref() not in fed:
                    stack.append(t.op)
            stack.extend(op.control_inputs)
        self._needs_cache[key] = seen
        return seen

    def before_run(self, session, elements, fed_refs):
        """(feeds to add, tensors to fetch too, what to do with their values after the run)."""
        reached = self._reachable(elements, frozenset(fed_refs))
        feeds, fetches, inits = [], [], []
        for op_id in reached & self.initializers.keys():
            iterator = self.initializers[op_id]
            inits.append(iterator)
            fetches.extend(iterator._dataset._sources)
        groups = {}
        for op_id in reached & self.get_next.keys():
            iterator, outputs = self.get_next[op_id]
            groups[id(outputs)] = (iterator, outputs)
        for iterator, outputs in groups.values():
            element = iterator._next(session)
            feeds.extend(zip(outputs, element))

        def after(values):
            pos = 0
            for iterator in inits:
                n = len(iterator._dataset._sources)
                iterator._initialize(dict(zip(iterator._dataset._sources, values[pos:pos + n])))
                pos += n
        return feeds, fetches, after


def _runtime(graph) -> _Runtime:
    if graph._data_pipeline is None:
        graph._data_pipeline = _Runtime(graph)
    return graph._data_pipeline

