"""Iterators as ops (TensorFlow 1's tf.data.Iterator over dataset ops, data/native.py): an
iterator is a resource of the Session that runs it, so each Session has its own position.

- one-shot: OneShotIterator, whose dataset_factory function makes the dataset at the first
  run in each Session;
- initializable / reinitializable: IteratorV2, started by a MakeIterator op per dataset
  (``initializer``, ``make_initializer``);
- feedable: IteratorFromStringHandleV2 over the string handle (IteratorToStringHandle) of
  another iterator, fed each run.

``get_next()`` is IteratorGetNext; at the end of the dataset a run that needs it raises
OutOfRangeError. A SparseTensor component travels as its indices, values and dense shape.
"""

from __future__ import annotations

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.graph import Graph, GraphTensor, get_default_graph
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import TensorShape
from . import native
from .dataset import Dataset, _rebuild

__all__ = ["NativeIterator"]


def _flat_spec(dtypes, shapes, sparse):
    """The op-level element spec: a sparse component as (indices, values, dense_shape)."""
    types, dims = [], []
    for d, s, sp in zip(dtypes, shapes, sparse):
        if sp:
            rank = -1 if s.dims is None else len(s.dims)
            types += [_dtypes.int64, d, _dtypes.int64]
            dims += [[-1, rank], [-1], [rank]]
        else:
            types.append(d)
            dims.append(None if s.dims is None else [-1 if x is None else int(x) for x in s.dims])
    return {"output_types": [t.as_datatype_enum for t in types], "output_shapes": dims}


class NativeIterator:
    """An iterator over dataset ops. Made by ``for_dataset`` (one-shot, initializable),
    ``from_structure`` and ``from_string_handle``; the API is tf.data.Iterator's."""

    def __init__(self, graph: Graph, structure, dtypes, shapes, sparse, handle: GraphTensor):
        self._graph = graph
        self._structure = structure
        self._dtypes = list(dtypes)
        self._shapes = [s if isinstance(s, TensorShape) else TensorShape(s) for s in shapes]
        self._sparse = list(sparse)
        self._handle = handle  # the iterator resource
        self._initializer = None
        self._string_handle = None

    @classmethod
    def for_dataset(cls, dataset: Dataset, initializable: bool, shared_name=None):
        """An initializable iterator (IteratorV2 + MakeIterator), or a one-shot one
        (OneShotIterator). NotNative when a one-shot iterator's dataset reads tensors of the
        program's graph other than constants."""
        graph = dataset._graph()
        spec = _flat_spec(dataset._dtypes, dataset._shapes, dataset._sparse)
        if initializable:
            handle = cls._resource(graph, "IteratorV2", dict(spec, shared_name=shared_name or "", container=""))
            it = cls(graph, dataset._structure, dataset._dtypes, dataset._shapes, dataset._sparse, handle)
            it._initializer = it.make_initializer(dataset, name="MakeIterator")
            return it
        factory = Graph()
        variant = native.variant_tensor(dataset, factory)
        fname = native.register_function(factory, [], [variant], "make_dataset")
        handle = cls._resource(graph, "OneShotIterator", dict(spec, dataset_factory=fname))
        return cls(graph, dataset._structure, dataset._dtypes, dataset._shapes, dataset._sparse, handle)

    @staticmethod
    def _resource(graph, op_type, attrs, inputs=()):
        with graph.as_default():
            return graph.create_op(op_type, list(inputs), attrs, name=op_type).outputs[0]

    @classmethod
    def from_structure(cls, structure, dtypes, shapes, sparse, shared_name=None):
        graph = get_default_graph()
        spec = _flat_spec(dtypes, shapes, sparse)
        handle = cls._resource(graph, "IteratorV2", dict(spec, shared_name=shared_name or "", container=""))
        return cls(graph, structure, dtypes, shapes, sparse, handle)

    @classmethod
    def from_string_handle(cls, string_handle, structure, dtypes, shapes, sparse):
        graph = string_handle.graph
        spec = _flat_spec(dtypes, shapes, sparse)
        handle = cls._resource(graph, "IteratorFromStringHandleV2", spec, [string_handle])
        it = cls(graph, structure, dtypes, shapes, sparse, handle)
        it._string_handle = string_handle
        return it

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
        """A MakeIterator op (re)starting this iterator on dataset in the Session that runs it."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"make_initializer takes a Dataset, got {type(dataset).__name__}")
        if dataset._window:
            raise InvalidArgumentError("an iterator: the elements are windows (datasets); use flat_map or "
                                       "interleave on them", "MakeIterator")
        if dataset._dtypes != self._dtypes or dataset._sparse != self._sparse:
            raise TypeError(f"Expected output types {self.output_types} but got dataset with output types "
                            f"{dataset.output_types}.")
        for mine, theirs in zip(self._shapes, dataset._shapes):
            if not mine.is_compatible_with(theirs):
                raise TypeError(f"Expected output shapes compatible with {self.output_shapes} but got dataset with "
                                f"output shapes {dataset.output_shapes}.")
        variant = native.variant_tensor(dataset, self._graph)
        with self._graph.as_default():
            return self._graph.create_op("MakeIterator", [variant, self._handle], {},
                                         name=name or "make_initializer")

    def get_next(self, name=None):
        """The next element: tensors of an IteratorGetNext op."""
        g = self._graph
        spec = _flat_spec(self._dtypes, self._shapes, self._sparse)
        with g.as_default():
            outputs = g.create_op("IteratorGetNext", [self._handle], spec, name=name or "IteratorGetNext").outputs
        leaves, at = [], 0
        for sp in self._sparse:
            if sp:
                leaves.append(SparseTensor(*outputs[at:at + 3]))
                at += 3
            else:
                leaves.append(outputs[at])
                at += 1
        return _rebuild(self._structure, leaves)

    def string_handle(self, name=None):
        """A string tensor naming this iterator (its name in the Session's resources), to feed
        to a from_string_handle iterator."""
        if self._string_handle is None:
            with self._graph.as_default():
                self._string_handle = self._graph.create_op("IteratorToStringHandle", [self._handle], {},
                                                            name=name or "IteratorToStringHandle").outputs[0]
        return self._string_handle
