"""Static shapes: TensorShape and TensorFlow 1's Dimension.

A TensorShape is a possibly partially known shape: unknown rank (``dims is None``) or a tuple
of sizes where None is an unknown size. Indexing it gives the size of one dimension:

- a known size is a ``Dimension`` that is also an ``int``: ``shape[1] == 3``, ``range(shape[1])``
  (TensorFlow 2) and ``shape[1].value`` (TensorFlow 1) all work;
- an unknown size is ``None``, as in TensorFlow 2. (TensorFlow 1 gave ``Dimension(None)``;
  TensorFlow's switch between the two, disable_v2_tensorshape, is left out: flipping it would
  change what opforge's own shape code reads. ``dimension_value(shape[0])`` works either way.)

Dimension follows TensorFlow's tensor_shape.Dimension: arithmetic and comparisons where an
unknown operand makes the result unknown (``Dimension(None) + 1`` is ``Dimension(None)``,
``Dimension(None) < 3`` is None), ``merge_with``, ``is_compatible_with``.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

def _size(value):
    """A dimension's size as int or None: from Dimension, int-like or None; ValueError else."""
    if value is None:
        return None
    if isinstance(value, Dimension):
        return value.value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        if hasattr(value, "__index__") and not isinstance(value, (float, np.floating)):
            return int(value.__index__())
        raise TypeError(f"Dimension value must be integer or None, got {value!r} of type {type(value).__name__}")
    return int(value)


class Dimension:
    """The size of one dimension, or unknown (TensorFlow's tf.Dimension). ``Dimension(3)`` is an
    int as well (a known dimension); ``Dimension(None)`` is unknown."""

    def __new__(cls, value=None):
        size = _size(value)
        if size is None:
            return object.__new__(Dimension)
        if size < 0:
            raise ValueError(f"Dimension {size} must be >= 0")
        return int.__new__(KnownDimension, size)

    def __init__(self, value=None):
        pass

    @property
    def value(self):
        return None

    def __repr__(self):
        return f"Dimension({self.value})"

    def __str__(self):
        return "?" if self.value is None else str(self.value)

    def __int__(self):
        raise TypeError("an unknown Dimension has no integer value")

    __index__ = __int__

    def __hash__(self):
        return hash(None)

    # -- comparisons: None (unknown) when either side is unknown, as TensorFlow's
    def _compare(self, other, op):
        try:
            other = other.value if isinstance(other, Dimension) else _size(other)
        except TypeError:
            return NotImplemented  # a float: Python compares it with the int
        if self.value is None or other is None:
            return None
        return op(self.value, other)

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        return self._compare(other, operator.ne)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    # -- arithmetic: unknown in, unknown out
    def _arith(self, other, op):
        try:
            other = other.value if isinstance(other, Dimension) else _size(other)
        except TypeError:
            return NotImplemented
        if self.value is None or other is None:
            return Dimension(None)
        return Dimension(op(self.value, other))

    def __add__(self, other):
        return self._arith(other, operator.add)

    def __radd__(self, other):
        return self._arith(other, lambda a, b: b + a)

    def __sub__(self, other):
        return self._arith(other, operator.sub)

    def __rsub__(self, other):
        return self._arith(other, lambda a, b: b - a)

    def __mul__(self, other):
        return self._arith(other, operator.mul)

    def __rmul__(self, other):
        return self._arith(other, lambda a, b: b * a)

    def __floordiv__(self, other):
        return self._arith(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._arith(other, lambda a, b: b // a)

    def __mod__(self, other):
        return self._arith(other, operator.mod)

    def __rmod__(self, other):
        return self._arith(other, lambda a, b: b % a)

    def __bool__(self):
        return bool(self.value)

    # -- shape-inference helpers
    def is_compatible_with(self, other) -> bool:
        other = as_dimension(other)
        return self.value is None or other.value is None or self.value == other.value

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other) -> Dimension:
        """The dimension both describe (the known one of a known and an unknown); ValueError
        when both are known and differ."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self.value if self.value is not None else other.value)


class KnownDimension(int, Dimension):
    """A known dimension: an int with TensorFlow 1's Dimension API (``.value``, merge_with, ...)."""

    @property
    def value(self):
        return int(self)

    __int__ = int.__int__
    __index__ = int.__index__
    __hash__ = int.__hash__
    __repr__ = Dimension.__repr__
    __str__ = int.__repr__
    __format__ = int.__format__
    __bool__ = int.__bool__
    for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__", "__sub__",
                  "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__"):
        locals()[_name] = getattr(Dimension, _name)
    del _name

    def __reduce__(self):
        return (Dimension, (int(self),))


def as_dimension(value) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The size as int, or None when unknown (tf.dimension_value): works for a Dimension, an int
    or None, whichever TensorShape indexing gave."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index) -> Dimension:
    """Dimension ``index`` of ``shape`` as a Dimension, unknown when the rank is (tf.dimension_at_index)."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape.dims[index])


def _dim_out(size):
    """What indexing a TensorShape gives for a size (int or None)."""
    return None if size is None else int.__new__(KnownDimension, size)


class TensorShape:
    """A possibly partially known shape: ``dims`` is a tuple of ints and Nones, or None.

    Built from a list or tuple of sizes (ints, Dimensions or None), another TensorShape, None
    (unknown rank) or a single int (a one-dimensional shape, as TensorFlow reads ``shape=5``)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        elif dims is not None and not isinstance(dims, (list, tuple)):
            try:
                dims = list(dims)
            except TypeError:
                dims = [dims]  # a bare size: TensorFlow's TensorShape(5) is [5]
        if dims is None:
            self._dims = None
            return
        sizes = []
        for d in dims:
            s = _size(d)
            sizes.append(None if s is None or s < 0 else s)
        self._dims = tuple(sizes)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """The sizes as a tuple of ints and Nones (None: unknown rank)."""
        return self._dims

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_compatible_with(self, other) -> bool:
        """Whether a value could have both shapes (unknown dims and ranks match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> TensorShape:
        """The shape with what both know; ValueError when they are incompatible."""
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape compatible with both (sizes they agree on, else unknown)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def assert_has_rank(self, rank) -> None:
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank) -> TensorShape:
        """This shape with rank ``rank`` (unknown dims if the rank was unknown); ValueError if
        it has another rank."""
        return self.merge_with(TensorShape([None] * rank))

    def with_rank_at_least(self, rank) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def concatenate(self, other) -> TensorShape:
        """This shape's dims followed by ``other``'s (unknown rank if either is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(list(self._dims) + list(other._dims))

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter([_dim_out(d) for d in self._dims])

    def __getitem__(self, i):
        if self._dims is None:
            return TensorShape(None) if isinstance(i, slice) else _dim_out(None)
        if isinstance(i, slice):
            return TensorShape(self._dims[i])
        return _dim_out(self._dims[i])

    def __eq__(self, other):
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            try:
                return self._dims is not None and self._dims == TensorShape(other)._dims
            except TypeError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        return "(" + ", ".join("None" if d is None else str(d) for d in self._dims) + \
            ("," if len(self._dims) == 1 else "") + ")"


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    """A shape of unknown rank, or of rank ``rank`` with every size unknown."""
    return TensorShape(None if rank is None else [None] * rank)


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The static shape of broadcasting shape_x against shape_y (tf.broadcast_static_shape);
    ValueError when they cannot broadcast."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    a, b = list(x.dims), list(y.dims)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for p, q in zip(a, b):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)  # unknown against a known size > 1: that size, or the program fails
        elif q is None or p == q:
            out.append(p)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)
