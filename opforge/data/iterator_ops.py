"""Iterators over datasets in graphs (TensorFlow 1's tf.data.Iterator): one-shot,
initializable, reinitializable (``Iterator.from_structure`` + ``make_initializer``) and
feedable (``Iterator.from_string_handle`` + ``string_handle()``).

``get_next()`` gives tensors (placeholders of the graph, so feeding them by hand works as for any
placeholder) that the Session feeds with the iterator's next element in each run that needs
them. As in TensorFlow, where an iterator is a resource of the Session, its position belongs to
the Session: two Sessions on one graph iterate independently, and running an initializer in
one Session restarts that Session's iteration only. An initializer reads the tensors the
dataset was made from (placeholders, variables, tensors its functions capture) in that run.
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.control_flow import _flatten
from ..framework.errors import FailedPreconditionError, InvalidArgumentError, OutOfRangeError
from ..framework.graph import GraphTensor, constant_node, get_default_graph
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import TensorShape
from .dataset import Dataset, _rebuild, implements

__all__ = ["Iterator", "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
           "get_output_shapes", "get_output_classes"]

_handle_ids = itertools.count(1)


def _structure_of(types, shapes):
    """(structure, flat dtypes, flat shapes) from nested output_types / output_shapes."""
    flat_types = [_dtypes.as_dtype(t) for t in _flatten(types)]
    if shapes is None:
        flat_shapes = [TensorShape(None)] * len(flat_types)
    else:
        flat_shapes = [TensorShape(s) for s in _flatten_shapes(shapes)]
    if len(flat_shapes) != len(flat_types):
        raise InvalidArgumentError(f"output_shapes has {len(flat_shapes)} components, output_types "
                                   f"{len(flat_types)}", "Iterator")
    structure = 0 if not isinstance(types, (tuple, list, dict)) else types
    return structure, flat_types, flat_shapes


def _sparse_flags(output_classes, types):
    """Which components output_classes (nested like output_types) makes SparseTensors."""
    if output_classes is None:
        return [False] * len(types)
    flags = [c is SparseTensor for c in _flatten(output_classes)]
    if len(flags) != len(types):
        raise InvalidArgumentError(f"output_classes has {len(flags)} components, output_types {len(types)}",
                                   "Iterator")
    return flags


def _flatten_shapes(shapes):
    if shapes is None or isinstance(shapes, TensorShape) or (
            isinstance(shapes, (list, tuple)) and all(d is None or isinstance(d, (int, np.integer)) for d in shapes)):
        return [shapes]
    if isinstance(shapes, dict):
        return [s for k in sorted(shapes) for s in _flatten_shapes(shapes[k])]
    return [s for x in shapes for s in _flatten_shapes(x)]


@implements
class Iterator:
    """An iterator in a graph. Made by ``dataset.make_one_shot_iterator()`` and
    ``make_initializable_iterator()``, ``Iterator.from_structure`` and
    ``Iterator.from_string_handle``."""

    def __init__(self, graph, structure, dtypes, shapes, dataset=None, handle=None, sparse=None):
        self._graph = graph
        self._sparse = list(sparse) if sparse is not None else [False] * len(dtypes)
        self._structure = structure
        self._dtypes = list(dtypes)
        self._shapes = [TensorShape(s) if not isinstance(s, TensorShape) else s for s in shapes]
        self._dataset = dataset  # a one-shot iterator's
        self._handle = handle  # a feedable iterator's string handle tensor
        self._initializer = None
        self._string_handle = None
        self._states = weakref.WeakKeyDictionary()  # Session -> its _Iteration
        self._lock = threading.Lock()
        _runtime(graph).iterators.add(self)

    @classmethod
    def _for_dataset(cls, dataset: Dataset, initializable: bool, shared_name=None):
        dataset._no_windows("an iterator")
        from . import native  # noqa: PLC0415
        if native.enabled():
            from .native_iterator import NativeIterator  # noqa: PLC0415
            try:
                return NativeIterator.for_dataset(dataset, initializable, shared_name)
            except native.NotNative:  # a one-shot iterator over the program's tensors: the Python pipeline
                pass
        it = cls(dataset._graph(), dataset._structure, dataset._dtypes, dataset._shapes,
                 dataset=None if initializable else dataset, sparse=dataset._sparse)
        if initializable:
            it._initializer = it.make_initializer(dataset, name="MakeIterator")
        return it

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """A reinitializable iterator: no dataset yet; ``make_initializer(dataset)`` gives an op
        that (re)starts it on any dataset of this structure."""
        structure, types, shapes = _structure_of(output_types, output_shapes)
        from . import native  # noqa: PLC0415
        if native.enabled():
            from .native_iterator import NativeIterator  # noqa: PLC0415
            return NativeIterator.from_structure(structure, types, shapes, _sparse_flags(output_classes, types),
                                                 shared_name)
        return Iterator(get_default_graph(), structure, types, shapes, sparse=_sparse_flags(output_classes, types))

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """A feedable iterator: each run takes the next element of the iterator whose
        ``string_handle()`` value ``string_handle`` (a string tensor, usually a placeholder) has."""
        if not isinstance(string_handle, GraphTensor) or string_handle.dtype != _dtypes.string:
            raise InvalidArgumentError("from_string_handle takes a scalar string tensor", "IteratorFromStringHandle")
        structure, types, shapes = _structure_of(output_types, output_shapes)
        from . import native  # noqa: PLC0415
        if native.enabled():
            from .native_iterator import NativeIterator  # noqa: PLC0415
            return NativeIterator.from_string_handle(string_handle, structure, types, shapes,
                                                     _sparse_flags(output_classes, types))
        return Iterator(string_handle.graph, structure, types, shapes, handle=string_handle,
                        sparse=_sparse_flags(output_classes, types))

    output_types = property(lambda self: _rebuild(self._structure, self._dtypes))
    output_shapes = property(lambda self: _rebuild(self._structure, self._shapes))
    output_classes = property(lambda self: _rebuild(self._structure, [SparseTensor if sp else GraphTensor
                                                                       for sp in self._sparse]))
    element_spec = property(lambda self: _rebuild(self._structure, list(zip(self._shapes, self._dtypes))))

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that (re)starts this iterator on dataset in the Session that runs it."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"make_initializer takes a Dataset, got {type(dataset).__name__}")
        dataset._no_windows("an iterator")
        if dataset._dtypes != self._dtypes or dataset._sparse != self._sparse:
            raise TypeError(f"Expected output types {self.output_types} but got dataset with output types "
                            f"{dataset.output_types}.")
        for mine, theirs in zip(self._shapes, dataset._shapes):
            if not mine.is_compatible_with(theirs):
                raise TypeError(f"Expected output shapes compatible with {self.output_shapes} but got dataset with "
                                f"output shapes {dataset.output_shapes}.")
        with self._graph.as_default():
            op = self._graph.create_op("NoOp", [], {}, name=name or "make_initializer")
        _runtime(self._graph).initializers[op._id] = (self, dataset)
        return op

    def get_next(self, name=None):
        """Tensors that take the next element in each Session.run that needs them."""
        outputs, leaves = [], []
        g = self._graph
        with g.as_default(), g.name_scope(name or "IteratorGetNext"):
            for i, (d, s, sp) in enumerate(zip(self._dtypes, self._shapes, self._sparse)):
                shape = None if s.dims is None else [-1 if x is None else x for x in s.dims]
                if sp:  # a SparseTensor fed its three parts
                    rank = None if s.dims is None else len(s.dims)
                    parts = [g.create_op("Placeholder", [], {"dtype": dt.as_datatype_enum, "shape": sh},
                                         name=f"component_{i}/{n}").outputs[0]
                             for dt, sh, n in ((_dtypes.int64, [-1, -1 if rank is None else rank], "indices"),
                                               (d, [-1], "values"), (_dtypes.int64, [-1 if rank is None else rank],
                                                                     "dense_shape"))]
                    outputs.extend(parts)
                    leaves.append(SparseTensor(*parts))
                else:
                    outputs.append(g.create_op("Placeholder", [], {"dtype": d.as_datatype_enum, "shape": shape},
                                               name=f"component_{i}").outputs[0])
                    leaves.append(outputs[-1])
        _runtime(g).add_get_next(self, outputs)
        return _rebuild(self._structure, leaves)

    def string_handle(self, name=None):
        """A string tensor naming this iterator, to feed to a from_string_handle iterator."""
        if self._handle is not None:
            return self._handle
        if self._string_handle is None:
            value = f"opforge-iterator-{next(_handle_ids)}".encode()
            _runtime(self._graph).handles[value] = self
            with self._graph.as_default():
                self._string_handle = constant_node(self._graph, np.array(value, dtype=object), _dtypes.string,
                                                    name=name or "IteratorToStringHandle")
        return self._string_handle

    # ---- run time (the Session's pipeline hook)
    def _initialize(self, session, dataset, values):
        with self._lock:
            old = self._states.get(session)
            self._states[session] = _Iteration(dataset._elements(values))
        if old is not None:
            old.close()

    def _close(self, session):
        with self._lock:
            old = self._states.pop(session, None)
        if old is not None:
            old.close()

    def _next(self, session, feeds=None):
        element = self._element(session, feeds)
        if not any(self._sparse):
            return element
        return [part for value, sp in zip(element, self._sparse) for part in (value if sp else (value,))]

    def _element(self, session, feeds=None):
        if self._handle is not None:
            return self._target(session, feeds)._element(session)
        with self._lock:
            iteration = self._states.get(session)
            if iteration is None:
                if self._dataset is None:
                    raise FailedPreconditionError("GetNext() failed because the iterator has not been initialized. "
                                                  "Ensure that you have run the initializer operation for this "
                                                  "iterator before getting the next element.", "IteratorGetNext")
                iteration = self._states[session] = _Iteration(self._dataset._elements, self._dataset._sources,
                                                               session)
        return iteration.next()

    def _target(self, session, feeds):
        """The iterator a feedable iterator's handle names in this run."""
        ref = self._handle._ref()
        value = next((v for r, v in feeds or () if r == ref), None)
        value = session.run(self._handle) if value is None else value.numpy()
        value = np.asarray(value, dtype=object).reshape(-1)
        if value.size != 1:
            raise InvalidArgumentError("the iterator handle must be a scalar string", "IteratorFromStringHandle")
        key = value[0] if isinstance(value[0], bytes) else str(value[0]).encode()
        target = _runtime(self._graph).handles.get(key)
        if target is None:
            raise InvalidArgumentError(f"{key!r} is not the string handle of an iterator of this graph",
                                       "IteratorFromStringHandle")
        if target._dtypes != self._dtypes or target._sparse != self._sparse:
            raise InvalidArgumentError(f"The iterator of handle {key!r} gives {target.output_types}, this one "
                                       f"expects {self.output_types}", "IteratorFromStringHandle")
        return target


class _Iteration:
    """One Session's pass through an iterator's dataset: its generator, and a lock (a
    generator runs on one thread at a time; other Sessions are not held up)."""

    def __init__(self, elements, sources=None, session=None):
        """elements: a generator; or, for a one-shot iterator, the dataset's _elements
        function, started on the values of its sources (constants) at the first element."""
        self._elements = elements
        self._start = (sources, session) if sources is not None else None
        self._lock = threading.Lock()

    def next(self):
        with self._lock:
            if self._start is not None:
                sources, session = self._start
                self._start = None
                values = dict(zip(sources, session.run(list(sources)))) if sources else {}
                self._elements = self._elements(values)
            try:
                return next(self._elements)
            except StopIteration:
                raise OutOfRangeError("End of sequence", "IteratorGetNext") from None

    def close(self):
        """Ends the generator (its finally blocks stop the background threads it started)."""
        with self._lock:
            if self._start is None:
                self._elements.close()


def make_one_shot_iterator(dataset):
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


class _Runtime:
    """Per graph: which nodes are iterator initializers and get_next outputs. Session.run asks
    it, before running, what to feed (the next element of each iterator the run needs) and
    what else to fetch (the tensors an initializer reads)."""

    def __init__(self, graph):
        self.graph = graph
        self.initializers: dict[int, tuple] = {}  # node id -> (iterator, dataset)
        self.get_next: dict[int, tuple] = {}  # node id -> (source, its group of outputs)
        self.actions: dict[int, tuple] = {}  # node id -> (tensors to fetch, fn(session, their values))
        self.handles: dict[bytes, Iterator] = {}
        self.iterators = weakref.WeakSet()
        self._needs_cache: dict = {}

    def add_get_next(self, source, outputs):
        """outputs: the nodes one get_next() made; source._next(session) gives their values
        (input_pipeline.py's readers and batches are sources too)."""
        for t in outputs:
            self.get_next[t.op._id] = (source, outputs)
        self._needs_cache.clear()

    def add_action(self, op, tensors, fn):
        """A node whose run fetches ``tensors`` too and then calls fn(session, their values)
        (data/queues.py: enqueue and close)."""
        self.actions[op._id] = (list(tensors), fn)
        self._needs_cache.clear()

    def session_closed(self, session):
        for iterator in list(self.iterators):
            iterator._close(session)
        for hook in list(getattr(self, "close_hooks", ())):
            hook(session)

    def _reachable(self, elements, fed: frozenset) -> set:
        key = (tuple(e._ref() if isinstance(e, GraphTensor) else ("op", e._id) for e in elements), fed,
               len(self.get_next), len(self.initializers), len(self.actions))
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

    def before_run(self, session, elements, feeds):
        """(feeds to add, tensors to fetch too, what to do with their values after the run).
        feeds: the run's (tensor ref, value) pairs."""
        fed = frozenset(r for r, _ in feeds)
        reached = self._reachable(elements, fed)
        action_ops = sorted(reached & self.actions.keys())
        if action_ops:  # what an action fetches runs too, with the get_next values it needs
            reached = reached | self._reachable([t for i in action_ops for t in self.actions[i][0]], fed)
        fetches, inits = [], []
        for op_id in reached & self.initializers.keys():
            iterator, dataset = self.initializers[op_id]
            inits.append((iterator, dataset))
            fetches.extend(dataset._sources)
        groups = {}
        for op_id in reached & self.get_next.keys():
            source, outputs = self.get_next[op_id]
            groups[id(outputs)] = (source, outputs)
        actions = []
        for op_id in action_ops:
            tensors, fn = self.actions[op_id]
            actions.append((fn, len(tensors)))
            fetches.extend(tensors)
        extra_feeds = []
        for source, outputs in groups.values():
            element = source._next(session, feeds) if isinstance(source, Iterator) else source._next(session)
            extra_feeds.extend(zip(outputs, element))

        def after(values):
            pos = 0
            for iterator, dataset in inits:
                n = len(dataset._sources)
                iterator._initialize(session, dataset, dict(zip(dataset._sources, values[pos:pos + n])))
                pos += n
            for fn, n in actions:
                fn(session, values[pos:pos + n])
                pos += n
        return extra_feeds, fetches, after


def _runtime(graph) -> _Runtime:
    if graph._data_pipeline is None:
        graph._data_pipeline = _Runtime(graph)
    return graph._data_pipeline
