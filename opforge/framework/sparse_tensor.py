"""SparseTensor: TensorFlow's COO representation of a sparse tensor, three dense tensors.

``indices`` (int64 [N, rank]: the position of each value), ``values`` ([N]) and ``dense_shape``
(int64 [rank]). Eagerly they are eager tensors; in a graph, graph tensors, and a Session fetches
a SparseTensor as a ``SparseTensorValue`` (and a SparseTensorValue may be fed to one, e.g. to
``sparse_placeholder``), as in TensorFlow.
"""

from __future__ import annotations

import collections

import numpy as np

from . import dtypes as _dtypes
from .api import constant, placeholder
from .graph import GraphTensor
from .tensor import Tensor as EagerTensor
from .tensor import TensorShape

__all__ = ["IndexedSlices", "SparseTensor", "SparseTensorValue", "sparse_placeholder", "is_sparse"]


class SparseTensorValue(collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])):
    """The value of a SparseTensor: three NumPy arrays (what ``Session.run`` returns)."""

    __slots__ = ()

    def __repr__(self):
        return f"SparseTensorValue(indices={self.indices!r}, values={self.values!r}, dense_shape={self.dense_shape!r})"


def _as_tensor(value, dtype=None):
    if isinstance(value, (GraphTensor, EagerTensor)):
        if dtype is not None and value.dtype != dtype:
            raise TypeError(f"SparseTensor: expected a {dtype.name} tensor, got {value.dtype.name}")
        return value
    if dtype is None and isinstance(value, (list, tuple)) and not value:
        dtype = _dtypes.float32
    return constant(value, dtype=dtype)


class SparseTensor:
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` in a tensor of shape
    ``dense_shape``; every other element is zero (or the default a conversion names)."""

    def __init__(self, indices, values, dense_shape):
        self._indices = _as_tensor(indices, _dtypes.int64)
        self._values = _as_tensor(values)
        self._dense_shape = _as_tensor(dense_shape, _dtypes.int64)
        for name, t, rank in (("indices", self._indices, 2), ("values", self._values, 1),
                              ("dense_shape", self._dense_shape, 1)):
            known = TensorShape(t.shape).rank
            if known is not None and known != rank:
                raise ValueError(f"SparseTensor: {name} must have rank {rank}, got shape {t.shape}")

    @classmethod
    def from_value(cls, value):
        """A SparseTensor from a SparseTensorValue (or a SparseTensor, returned as is)."""
        if isinstance(value, SparseTensor):
            return value
        return cls(np.asarray(value.indices, np.int64), value.values, np.asarray(value.dense_shape, np.int64))

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)

    @property
    def graph(self):
        return getattr(self._values, "graph", None)

    @property
    def op(self):
        return self._values.op

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: known where dense_shape is a constant (always eagerly)."""
        if isinstance(self._dense_shape, EagerTensor):
            return TensorShape([int(d) for d in self._dense_shape.numpy()])
        op = self._dense_shape.op
        if op.type == "Const":
            return TensorShape([int(d) for d in np.asarray(op.get_attr("value")).reshape(-1)])
        rank = TensorShape(self._dense_shape.shape)
        return TensorShape(None if rank.rank is None or rank[0] is None else [None] * int(rank[0]))

    def get_shape(self) -> TensorShape:
        return self.shape

    def eval(self, feed_dict=None, session=None):
        from .default_session import default_session
        return (session or default_session()).run(self, feed_dict)

    def numpy(self) -> SparseTensorValue:
        """Eagerly: the value as a SparseTensorValue of NumPy arrays."""
        return SparseTensorValue(self._indices.numpy(), self._values.numpy(), self._dense_shape.numpy())

    # Session.run: a SparseTensor fetches (and feeds) as its three tensors.
    def _fetch_components(self):
        return (self._indices, self._values, self._dense_shape), lambda parts: SparseTensorValue(*parts)

    def __repr__(self):
        return f"SparseTensor(indices={self._indices!r}, values={self._values!r}, dense_shape={self._dense_shape!r})"


def is_sparse(x) -> bool:
    """Whether x is a SparseTensor or a SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """A SparseTensor fed at Session.run time (feed it a SparseTensorValue or a
    (indices, values, dense_shape) tuple). ``shape``, when given, is the dense shape's rank
    (and, where fully known, its value)."""
    prefix = name or "SparseTensor"
    rank = None if shape is None else len(shape)
    indices = placeholder(_dtypes.int64, [None, rank], name=f"{prefix}/indices")
    values = placeholder(dtype, [None], name=f"{prefix}/values")
    if shape is not None and all(d is not None for d in shape):
        dense_shape = constant(np.asarray(shape, np.int64), name=f"{prefix}/shape")
    else:
        dense_shape = placeholder(_dtypes.int64, [rank], name=f"{prefix}/shape")
    return SparseTensor(indices, values, dense_shape)


class IndexedSlices:
    """TensorFlow's IndexedSlices: the rows ``values[i]`` of a dense tensor of shape
    ``dense_shape`` at ``indices[i]``. opforge's gradients are dense tensors, so TF1 code that
    checks ``isinstance(grad, tf.IndexedSlices)`` takes its dense path; a program may still build
    one and convert it (``of.convert_to_tensor`` is not defined for it: use ``to_dense``)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = _as_tensor(values)
        self._indices = _as_tensor(indices)
        self._dense_shape = None if dense_shape is None else _as_tensor(dense_shape, _dtypes.int64) \
            if not isinstance(dense_shape, (GraphTensor, EagerTensor)) else dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: getattr(self._values, "graph", None))
    op = property(lambda self: self._values.op)
    name = property(lambda self: getattr(self._values, "name", None))

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._values.shape)

    def to_dense(self):
        """The dense tensor: rows of values scattered (added where indices repeat) into zeros."""
        from .. import ops  # noqa: PLC0415
        if self._dense_shape is None:
            raise ValueError("IndexedSlices.to_dense needs dense_shape")
        return ops.unsorted_segment_sum(self._values, self._indices,
                                        ops.gather_v2(self._dense_shape, np.int64(0), np.int32(0)))

    def __repr__(self):
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}, dense_shape={self._dense_shape!r})"
