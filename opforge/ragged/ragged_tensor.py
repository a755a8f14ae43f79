"""RaggedTensor: TensorFlow's tensor with rows of different lengths, as a composite of dense tensors.

As in TensorFlow, a RaggedTensor is flat ``values`` (a tensor, or for ragged_rank > 1 another
RaggedTensor) partitioned into rows by ``row_splits`` (int64 [nrows + 1], ascending from 0 to
len(values)): row i is ``values[row_splits[i]:row_splits[i + 1]]``. Every conversion
(from_row_lengths, from_value_rowids, from_tensor, to_tensor ...) is a composition of opforge's
dense ops, so it works eagerly and in a graph alike (the methods that need tf.ragged's operations,
to_tensor, to_sparse, indexing and the arithmetic operators, are attached by ragged_ops, as
TensorFlow attaches them); a Session fetches a RaggedTensor as a
``RaggedTensorValue`` of NumPy arrays, and a RaggedTensorValue may be fed to one (e.g. to
``ragged.placeholder``).
"""

from __future__ import annotations

import numpy as np

import opforge as _of
from opforge.framework import dtypes as _dtypes
from opforge.framework.graph import GraphTensor
from opforge.framework.tensor import Tensor as EagerTensor
from opforge.framework.tensor import TensorShape

__all__ = ["RaggedTensor", "RaggedTensorValue", "RaggedTensorSpec", "is_ragged"]


def _tensor(x, dtype=None):
    if isinstance(x, (GraphTensor, EagerTensor)):
        return x if dtype is None or x.dtype == dtype else _of.cast(x, dtype)
    return _of.constant(x, dtype=dtype)


def _static_len(t):
    """The static length of 1-D t, or None."""
    shape = TensorShape(t.shape)
    return None if shape.rank is None or shape.rank == 0 else shape[0]


def _nrows_of_splits(splits):
    n = _static_len(splits)
    return None if n is None else n - 1


class RaggedTensorValue:
    """The value of a RaggedTensor: NumPy ``values`` (or a nested RaggedTensorValue) and
    ``row_splits`` (what ``Session.run`` returns for a RaggedTensor)."""

    def __init__(self, values, row_splits):
        self._values = values
        self._row_splits = np.asarray(row_splits)

    values = property(lambda self: self._values)
    row_splits = property(lambda self: self._row_splits)

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensorValue):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensorValue):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self):
        inner = tuple(self.flat_values.shape[1:])
        return (len(self._row_splits) - 1,) + (None,) * self.ragged_rank + inner

    def to_list(self):
        """The value as nested Python lists (bytes for strings), as TF's to_list."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensorValue) else list(
            np.asarray(self._values).tolist())
        s = self._row_splits
        return [values[int(s[i]):int(s[i + 1])] for i in range(len(s) - 1)]

    def __repr__(self):
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"

    # Session.run: a RaggedTensorValue fed to a RaggedTensor feeds its flat values and splits.
    def _feed_parts(self):
        return (self.flat_values, *self.nested_row_splits)


class RaggedTensor:
    """A tensor with ragged rows: ``values`` partitioned by ``row_splits``. Build one with the
    ``from_*`` factories (the constructor is TensorFlow's internal one)."""

    def __init__(self, values, row_partition=None, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_partition

    # ---- factories
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``."""
        if not isinstance(values, RaggedTensor):
            values = _tensor(values)
        row_splits = _tensor(row_splits)
        if row_splits.dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError(f"row_splits must be int32 or int64, got {row_splits.dtype.name}")
        row_splits = _of.cast(row_splits, _dtypes.int64) if row_splits.dtype != _dtypes.int64 else row_splits
        rank = TensorShape(row_splits.shape).rank
        if rank is not None and rank != 1:
            raise ValueError(f"row_splits must have rank 1, got shape {row_splits.shape}")
        if validate and isinstance(row_splits, EagerTensor):
            s = row_splits.numpy()
            nvals = _nrows(values) if isinstance(values, RaggedTensor) else values.shape[0]
            nvals = int(nvals.numpy()) if isinstance(nvals, EagerTensor) else nvals
            if len(s) == 0 or s[0] != 0 or np.any(np.diff(s) < 0) or (nvals is not None and s[-1] != nvals):
                raise _of.errors.InvalidArgumentError(
                    f"Arguments to from_row_splits do not form a valid RaggedTensor: row_splits "
                    f"{s.tolist()} must start at 0, be sorted and end at the number of values ({nvals})", "RaggedTensor")
        return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Row i has ``row_lengths[i]`` values."""
        lengths = _tensor(row_lengths, _dtypes.int64)
        splits = _of.concat([_of.zeros([1], _dtypes.int64), _of.cumsum(lengths)], 0)
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        starts = _tensor(row_starts, _dtypes.int64)
        return cls.from_row_splits(values, _of.concat([starts, _of.reshape(_nrows(values), [1])], 0), validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        limits = _tensor(row_limits, _dtypes.int64)
        return cls.from_row_splits(values, _of.concat([_of.zeros([1], _dtypes.int64), limits], 0), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value j is in row ``value_rowids[j]`` (sorted); ``nrows`` defaults to max + 1."""
        rowids = _tensor(value_rowids, _dtypes.int64)
        if nrows is None:
            nrows = _of.reduce_max(_of.concat([rowids, [-1]], 0)) + 1
        return cls.from_row_splits(values, segment_ids_to_row_splits(rowids, nrows), validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None, name=None, validate=True):
        nested_nrows = [None] * len(nested_value_rowids) if nested_nrows is None else list(nested_nrows)
        result = flat_values
        for rowids, n in reversed(list(zip(nested_value_rowids, nested_nrows))):
            result = cls.from_value_rowids(result, rowids, n, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=_dtypes.int64):
        """The rows of dense ``tensor`` (rank >= ragged_rank + 1), each cut to ``lengths[i]`` or
        with its trailing ``padding`` removed (at most one of the two)."""
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        tensor = _tensor(tensor)
        rank = TensorShape(tensor.shape).rank
        if rank is not None and rank <= ragged_rank:
            raise ValueError(f"tensor must have rank > ragged_rank ({ragged_rank}), got shape {tensor.shape}")
        if ragged_rank > 1:  # the inner dims first, over the flattened outer rows
            shape = _of.shape(tensor, out_type=_dtypes.int64)
            inner = cls.from_tensor(_of.reshape(tensor, _of.concat([[-1], shape[2:]], 0)), padding=padding,
                                    ragged_rank=ragged_rank - 1)
            return cls.from_uniform_row_length(inner, shape[1], nrows=shape[0])
        shape = _of.shape(tensor, out_type=_dtypes.int64)
        nrows, ncols = shape[0], shape[1]
        values = _of.reshape(tensor, _of.concat([[-1], shape[2:]], 0))
        if lengths is None and padding is None:
            return cls.from_uniform_row_length(values, ncols, nrows=nrows)
        if padding is not None:
            keep = _of.not_equal(tensor, _tensor(padding, tensor.dtype))
            if rank is None or rank > 2:
                keep = _of.reduce_any(_of.reshape(keep, _of.stack([nrows, ncols, -1])), axis=2)
            cols = _of.range(_of.constant(1, _dtypes.int64), ncols + 1)
            nonpad_cols = _of.where(keep, _of.broadcast_to(cols, _of.shape(keep, out_type=_dtypes.int64)),
                                    _of.zeros_like(_of.cast(keep, _dtypes.int64)))
            zero_col = _of.zeros(_of.stack([nrows, _of.constant(1, _dtypes.int64)]), _dtypes.int64)
            lengths = _of.reduce_max(_of.concat([nonpad_cols, zero_col], 1), axis=1)
        lengths = _of.minimum(_tensor(lengths, _dtypes.int64), ncols)
        mask = _of.sequence_mask(lengths, ncols)
        return cls.from_row_lengths(_of.boolean_mask(tensor, mask), lengths, validate=False)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        width = _tensor(uniform_row_length, _dtypes.int64)
        if nrows is None:
            nrows = _nrows(values) // _of.maximum(width, 1)
        nrows = _tensor(nrows, _dtypes.int64)
        return cls.from_row_splits(values, _of.range(nrows + 1) * width, validate=False)

    # ---- structure
    values = property(lambda self: self._values)
    row_splits = property(lambda self: self._row_splits)
    row_splits_dtype = property(lambda self: _dtypes.int64)

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    dtype = property(lambda self: self.flat_values.dtype)

    @property
    def graph(self):
        return getattr(self.flat_values, "graph", None)

    @property
    def shape(self) -> TensorShape:
        """[nrows, None (ragged) ..., flat_values' inner dims]."""
        inner = TensorShape(self.flat_values.shape)
        inner_dims = [] if inner.rank is None else list(inner)[1:]
        return TensorShape([_nrows_of_splits(self._row_splits)] + [None] * self.ragged_rank + inner_dims)

    def get_shape(self):
        return self.shape

    def nrows(self, out_type=None, name=None):
        n = _of.shape(self._row_splits, out_type=_dtypes.int64)[0] - 1
        return n if out_type is None or out_type == _dtypes.int64 else _of.cast(n, out_type)

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The length of each row (axis 1), or a RaggedTensor of the lengths at a deeper axis."""
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis < 1 or not isinstance(self._values, RaggedTensor):
            raise ValueError(f"row_lengths: axis {axis} is out of range for ragged_rank {self.ragged_rank}")
        return self.with_values(self._values.row_lengths(axis - 1))

    def nested_row_lengths(self, name=None):
        return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    def value_rowids(self, name=None):
        return row_splits_to_segment_ids(self._row_splits)

    def nested_value_rowids(self, name=None):
        return tuple(row_splits_to_segment_ids(s) for s in self.nested_row_splits)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The shape of the smallest dense tensor holding this one: int64 [rank]."""
        dims = [_of.reshape(self.nrows(), [1])]
        v, splits = self._values, self._row_splits
        while True:
            lengths = splits[1:] - splits[:-1]
            dims.append(_of.reshape(_of.reduce_max(_of.concat([lengths, [0]], 0)), [1]))
            if not isinstance(v, RaggedTensor):
                break
            splits, v = v.row_splits, v.values
        dims.append(_of.shape(v, out_type=_dtypes.int64)[1:])
        shape = _of.concat(dims, 0)
        if out_type is not None and out_type != _dtypes.int64:
            shape = _of.cast(shape, out_type)
        return shape if axis is None else _of.gather(shape, axis)

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits, internal=True)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values if isinstance(new_values, RaggedTensor) else _tensor(new_values))

    def with_row_splits_dtype(self, dtype):
        return self

    # ---- conversion
    def to_list(self):
        """Eagerly: the value as nested Python lists."""
        return self.numpy_value().to_list()

    def numpy_value(self):
        if not isinstance(self._row_splits, EagerTensor):
            raise ValueError("RaggedTensor.to_list() is only available eagerly; fetch it with Session.run "
                             "(a RaggedTensorValue) in a graph")
        v = self._values.numpy_value() if isinstance(self._values, RaggedTensor) else self._values.numpy()
        return RaggedTensorValue(v, self._row_splits.numpy())

    def numpy(self):
        """Eagerly: an object array of the rows (as TF's RaggedTensor.numpy)."""
        rows = self.to_list()
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = np.asarray(r)
        return out

    def eval(self, feed_dict=None, session=None):
        from opforge.framework.default_session import default_session  # noqa: PLC0415
        return (session or default_session()).run(self, feed_dict)

    # Session.run: a RaggedTensor fetches (and feeds) as its flat values and nested splits.
    def _fetch_components(self):
        def rebuild(parts):
            value = parts[0]
            for splits in reversed(parts[1:]):
                value = RaggedTensorValue(value, splits)
            return value
        return (self.flat_values, *self.nested_row_splits), rebuild

    def __repr__(self):
        if isinstance(self._row_splits, EagerTensor):
            return f"<tf.RaggedTensor {self.to_list()}>"
        return f"tf.RaggedTensor(values={self._values!r}, row_splits={self._row_splits!r})"

    def __len__(self):
        n = self.shape[0]
        if n is None:
            raise TypeError("len() of a RaggedTensor with an unknown number of rows")
        return n


class RaggedTensorSpec:
    """The type of a RaggedTensor: shape, dtype, ragged_rank (as tf.RaggedTensorSpec)."""

    def __init__(self, shape=None, dtype=_dtypes.float32, ragged_rank=None, row_splits_dtype=_dtypes.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        if ragged_rank is None:
            if self._shape.rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = self._shape.rank - 1
        if self._shape.rank is not None and not 0 <= ragged_rank < max(self._shape.rank, 1):
            raise ValueError(f"ragged_rank must be >= 0 and < the rank of shape {self._shape}, got {ragged_rank}")
        self._ragged_rank = ragged_rank
        self._row_splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)
    value_type = property(lambda self: RaggedTensor)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank)

    def is_compatible_with(self, other):
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other.dtype
                and self._ragged_rank == other.ragged_rank and self._shape.is_compatible_with(other.shape))

    def __eq__(self, other):
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other.dtype and
                self._ragged_rank == other.ragged_rank and self._shape.as_list() == other.shape.as_list()
                if self._shape.rank is not None else isinstance(other, RaggedTensorSpec) and other.shape.rank is None)

    def __hash__(self):
        return hash((self._dtype, self._ragged_rank))

    def __repr__(self):
        return (f"RaggedTensorSpec(TensorShape({self._shape.as_list() if self._shape.rank is not None else None}), "
                f"tf.{self._dtype.name}, {self._ragged_rank}, tf.{self._row_splits_dtype.name})")


def is_ragged(x) -> bool:
    return isinstance(x, (RaggedTensor, RaggedTensorValue))


def _nrows(values):
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return _of.shape(values, out_type=_dtypes.int64)[0]


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value: ``repeat(range(nrows), row_lengths)``."""
    splits = _tensor(splits)
    out_type = splits.dtype if out_type is None else _dtypes.as_dtype(out_type)
    lengths = splits[1:] - splits[:-1]
    ids = _of.repeat(_of.range(_of.shape(lengths, out_type=splits.dtype)[0]), lengths)
    return ids if ids.dtype == out_type else _of.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits of sorted segment ids: ``[0] + cumsum(bincount(segment_ids, num_segments))``."""
    ids = _tensor(segment_ids)
    out_type = _dtypes.int64 if out_type is None else _dtypes.as_dtype(out_type)
    ids = _of.cast(ids, _dtypes.int64)
    if num_segments is None:
        num_segments = _of.reduce_max(_of.concat([ids, [-1]], 0)) + 1
    num_segments = _tensor(num_segments, _dtypes.int64)
    lengths = _of.unsorted_segment_sum(_of.ones_like(ids), ids, num_segments)
    splits = _of.concat([_of.zeros([1], _dtypes.int64), _of.cumsum(lengths)], 0)
    return splits if out_type == _dtypes.int64 else _of.cast(splits, out_type)
