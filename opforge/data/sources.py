"""Datasets whose elements come from Python or the file system: ``from_generator`` (a Python
generator's values, checked against the declared types and shapes as TensorFlow checks them)
and ``list_files`` (the files matching glob patterns, matched when the iteration starts)."""

from __future__ import annotations

import glob
import os

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.control_flow import _flatten
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.tensor import Tensor as EagerTensor
from ..framework.tensor import TensorShape
from .dataset import UNKNOWN_CARDINALITY, Dataset, implements
from .iterator_ops import _structure_of
from .transformations import shuffle as _shuffle

__all__ = ["from_generator", "list_files"]


def _spec_leaves(output_signature):
    """(structure, dtypes, shapes) from a TF2 output_signature (objects with .dtype, .shape)."""
    leaves = _flatten(output_signature)
    return [_dtypes.as_dtype(s.dtype) for s in leaves], [TensorShape(s.shape) for s in leaves]


def _convert(value, dtype, shape, op):
    if dtype == _dtypes.string:
        arr = np.asarray(value, dtype=object)
        arr = np.vectorize(lambda v: v if isinstance(v, bytes) else str(v).encode(), otypes=[object])(arr) \
            if arr.size else arr
    else:
        try:
            arr = np.asarray(value)
            if arr.dtype.kind in "OUS":
                raise TypeError
            if arr.dtype != dtype.as_numpy_dtype:
                if arr.dtype.kind == "f" and dtype.is_integer:
                    raise TypeError
                arr = arr.astype(dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"TypeError: `generator` yielded an element that could not be converted to "
                                       f"the expected type. The expected type was {dtype.name}, but the yielded "
                                       f"element was {value!r}.", op) from None
    if not shape.is_compatible_with(TensorShape(list(arr.shape))):
        raise InvalidArgumentError(f"`generator` yielded an element of shape {list(arr.shape)} where an element of "
                                   f"shape {shape} was expected.", op)
    return arr


@implements
def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None):
    """TensorFlow's Dataset.from_generator: ``generator(*args)`` is called anew for each pass;
    each value it yields is an element (a structure like output_types). ``args``: values or
    tensors (graph tensors are read when the iterator is initialized) passed as NumPy values."""
    op = "GeneratorDataset"
    if not callable(generator):
        raise TypeError("from_generator: generator must be callable")
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("from_generator: give output_signature, or output_types (and output_shapes), not both")
        structure = output_signature if isinstance(output_signature, (tuple, list, dict)) else 0
        dtypes, shapes = _spec_leaves(output_signature)
    else:
        if output_types is None:
            raise TypeError("from_generator: output_types (or output_signature) is required")
        structure, dtypes, shapes = _structure_of(output_types, output_shapes)
    sources, getters = [], []
    for a in list(args or ()):
        graph_value = getattr(a, "_graph_element", None)
        if graph_value is not None and not isinstance(a, GraphTensor):
            a = graph_value()
        if isinstance(a, GraphTensor):
            sources.append(a)
            getters.append(lambda values, t=a: values[t])
        else:
            v = a.numpy() if isinstance(a, EagerTensor) else np.asarray(a)
            getters.append(lambda values, v=v: v)
    single = not isinstance(structure, (tuple, list, dict))

    def elements(values):
        call_args = [g(values) for g in getters]
        for item in generator(*call_args):
            flat = [item] if single else _match(item, structure, [])
            if len(flat) != len(dtypes):
                raise InvalidArgumentError(f"`generator` yielded an element with {len(flat)} components where "
                                           f"{len(dtypes)} were expected", op)
            yield [_convert(v, d, s, op) for v, d, s in zip(flat, dtypes, shapes)]
    return Dataset(elements, structure, dtypes, shapes, sources, UNKNOWN_CARDINALITY)


def _match(item, structure, out: list) -> list:
    """The leaves of item, which must have structure's nesting (a list given for a tuple is
    accepted), appended to out in the dataset's order."""
    if isinstance(structure, dict):
        if not isinstance(item, dict) or sorted(item) != sorted(structure):
            raise InvalidArgumentError(f"`generator` yielded {item!r}, which does not match the structure "
                                       f"{structure}", "GeneratorDataset")
        for k in sorted(structure):
            _match(item[k], structure[k], out)
    elif isinstance(structure, (tuple, list)):
        if not isinstance(item, (tuple, list)) or len(item) != len(structure):
            raise InvalidArgumentError(f"`generator` yielded {item!r}, which does not match the structure "
                                       f"{structure}", "GeneratorDataset")
        for i, s in zip(item, structure):
            _match(i, s, out)
    else:
        out.append(item)
    return out


def _patterns(value, values):
    if isinstance(value, GraphTensor):
        value = values[value]
    if isinstance(value, EagerTensor):
        value = value.numpy()
    arr = np.asarray(value, dtype=object).reshape(-1)
    return [os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v) for v in arr]


@implements
def list_files(file_pattern, shuffle=None, seed=None):
    """TensorFlow's Dataset.list_files: the names (scalar strings) of the files matching the
    patterns, sorted, and shuffled (each pass anew) unless shuffle=False. No match is an
    InvalidArgumentError when the iteration starts."""
    sources = []
    if isinstance(file_pattern, GraphTensor):
        if file_pattern.dtype != _dtypes.string:
            raise InvalidArgumentError("list_files: file_pattern must be strings", "MatchingFilesDataset")
        sources = [file_pattern]

    def elements(values):
        patterns = _patterns(file_pattern, values)
        names = sorted({n for p in patterns for n in glob.glob(p)})
        if not names:
            raise InvalidArgumentError(f"No files matched pattern: {', '.join(patterns)}", "MatchingFilesDataset")
        for n in names:
            yield [np.array(n.encode(), dtype=object)]
    ds = Dataset(elements, 0, [_dtypes.string], [[]], sources)
    if shuffle is False:
        return ds
    with (sources[0].graph if sources else get_default_graph()).as_default():
        return _shuffle(ds, 1 << 30, seed, True)  # a buffer holding every name: a full shuffle
