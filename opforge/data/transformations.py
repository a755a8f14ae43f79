"""Dataset transformations that reorder, group or keep elements (no function of the user's):
batch, padded_batch, unbatch, repeat, shuffle, take, skip, shard, concatenate, window and
cache, with TensorFlow's element shapes (static shapes included) and errors."""

from __future__ import annotations

import os
import struct

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.control_flow import _flatten
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.graph import GraphTensor, get_default_graph
from ..framework.tensor import TensorShape
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, ScalarArg, _state, implements

__all__ = ["batch", "padded_batch", "unbatch", "repeat", "shuffle", "take", "skip", "shard", "concatenate",
           "window", "cache"]


def _positive(value, what, op):
    value = int(value)
    if value < 1:
        raise InvalidArgumentError(f"{what} must be positive, got {value}", op)
    return value


def _batched_count(count, size, drop_remainder):
    if size is None:
        return UNKNOWN_CARDINALITY if count != INFINITE_CARDINALITY else count
    if count < 0:
        return count
    return count // size if drop_remainder else -(-count // size)


def _stack(parts, op):
    try:
        return np.stack(parts)
    except ValueError:
        shapes = sorted({tuple(np.shape(p)) for p in parts})
        raise InvalidArgumentError(f"Cannot batch tensors with different shapes in component: first element "
                                   f"had shape {list(shapes[0])} and another had shape {list(shapes[-1])}; "
                                   "use padded_batch", op) from None


def _stack_sparse(parts, op):
    """SparseTensorValues batched as TensorFlow batches them: one more (leading) dimension, the
    dense shape the largest of each dimension."""
    from ..framework.sparse_tensor import SparseTensorValue  # noqa: PLC0415
    ranks = {len(p.dense_shape) for p in parts}
    if len(ranks) != 1:
        raise InvalidArgumentError(f"Cannot batch SparseTensors of different ranks {sorted(ranks)}", op)
    rank = ranks.pop()
    shape = np.max(np.stack([np.asarray(p.dense_shape, np.int64) for p in parts]), axis=0) if rank else \
        np.zeros(0, np.int64)
    indices = [np.concatenate([np.full((len(p.values), 1), i, np.int64),
                               np.asarray(p.indices, np.int64).reshape(-1, rank)], axis=1) for i, p in enumerate(parts)]
    return SparseTensorValue(np.concatenate(indices).reshape(-1, rank + 1), np.concatenate([p.values for p in parts]),
                             np.concatenate([[len(parts)], shape]).astype(np.int64))


@implements
def batch(ds, batch_size, drop_remainder=False):
    ds._no_windows("batch")
    arg = ScalarArg(batch_size, "batch_size", "BatchDataset", 1)
    stackers = [_stack_sparse if sp else _stack for sp in ds._sparse]

    def elements(values):
        batch_size = arg.get(values)
        chunk = []
        for element in ds._elements(values):
            chunk.append(element)
            if len(chunk) == batch_size:
                yield [stack(parts, "BatchDataset") for parts, stack in zip(zip(*chunk), stackers)]
                chunk = []
        if chunk and not drop_remainder:
            yield [stack(parts, "BatchDataset") for parts, stack in zip(zip(*chunk), stackers)]
    lead = arg.static if drop_remainder else None
    return ds._derive(elements, shapes=[TensorShape(None) if s.dims is None else [lead, *s.dims] for s in ds._shapes],
                      sources=arg.sources, cardinality=_batched_count(ds._cardinality, arg.static, drop_remainder))


def _padding_value(value, dtype, op):
    """A padding value as an array of dtype, or a graph tensor (read when the iteration starts)."""
    graph_value = getattr(value, "_graph_element", None)
    if graph_value is not None and not isinstance(value, GraphTensor):
        value = graph_value()
    if isinstance(value, GraphTensor):
        if value.dtype != dtype or value.shape.rank not in (None, 0):
            raise InvalidArgumentError(f"padding value {value.name} ({value.dtype.name} {value.shape}) must be a "
                                       f"scalar of the component's type {dtype.name}", op)
        return value
    if value is None:
        return np.array(b"" if dtype == _dtypes.string else 0, dtype=object if dtype == _dtypes.string
                        else dtype.as_numpy_dtype)
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.ndim != 0:
        raise InvalidArgumentError(f"padding values must be scalars, got shape {list(arr.shape)}", op)
    if dtype == _dtypes.string:
        return np.array(arr.item() if isinstance(arr.item(), bytes) else str(arr.item()).encode(), dtype=object)
    if arr.dtype.kind in "OUS":
        raise InvalidArgumentError(f"padding value {arr.item()!r} does not match the component's type {dtype.name}",
                                   op)
    return arr.astype(dtype.as_numpy_dtype)


@implements
def padded_batch(ds, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
    """TensorFlow's PaddedBatchDatasetV2: per component, each element padded (at the end of each
    dimension) to the padded shape; a padded size of None or -1 takes the batch's largest."""
    op = "PaddedBatchDataset"
    ds._no_windows("padded_batch")
    ds._no_sparse("padded_batch")
    arg = ScalarArg(batch_size, "batch_size", op, 1)
    n = len(ds._dtypes)
    if padded_shapes is None:
        if any(s.dims is None for s in ds._shapes):
            raise InvalidArgumentError("padded_batch: padded_shapes is required when a component's rank is unknown",
                                       op)
        targets = [TensorShape([None] * s.rank) for s in ds._shapes]
    else:
        flat = _flat_shapes(padded_shapes, ds)
        if len(flat) != n:
            raise InvalidArgumentError(f"padded_batch: padded_shapes has {len(flat)} components, the elements {n}", op)
        targets = []
        for given, have in zip(flat, ds._shapes):
            ok = given.dims is None or have.dims is None or (len(given.dims) == len(have.dims) and all(
                g is None or h is None or g >= h for g, h in zip(given.as_list(), have.as_list())))
            if not ok:
                raise InvalidArgumentError(f"The padded shape {given} is not compatible with the shape {have} of "
                                           "the corresponding input component", op)
            targets.append(given)
    if padding_values is None:
        pads = [_padding_value(None, d, op) for d in ds._dtypes]
    else:
        pads = [_padding_value(v, d, op) for v, d in
                zip(_by_structure(padding_values, ds._structure, lambda v: v, "padding_values"), ds._dtypes)]

    def pad(parts, target, value):
        shapes = [np.shape(p) for p in parts]
        ranks = {len(s) for s in shapes}
        if len(ranks) != 1 or (target.dims is not None and ranks != {len(target.dims)}):
            raise InvalidArgumentError("padded_batch: the elements of a component have different ranks", op)
        size = [max(s[k] for s in shapes) for k in range(ranks.pop())]
        if target.dims is not None:
            for k, t in enumerate(target.as_list()):
                if t is not None:
                    if size[k] > t:
                        raise InvalidArgumentError(f"Attempted to pad to a smaller size than the input element "
                                                   f"(dimension {k}: {size[k]} > {t})", op)
                    size[k] = t
        out = np.empty([len(parts), *size], dtype=parts[0].dtype if np.asarray(parts[0]).dtype != object else object)
        out[...] = value
        for i, p in enumerate(parts):
            out[(i, *[slice(0, d) for d in np.shape(p)])] = p
        return out

    pad_sources = [p for p in pads if isinstance(p, GraphTensor)]

    def elements(values):
        batch_size = arg.get(values)
        fill = [np.asarray(values[p]) if isinstance(p, GraphTensor) else p for p in pads]
        chunk = []
        for element in ds._elements(values):
            chunk.append(element)
            if len(chunk) == batch_size:
                yield [pad([np.asarray(p) for p in parts], t, v) for parts, t, v in zip(zip(*chunk), targets, fill)]
                chunk = []
        if chunk and not drop_remainder:
            yield [pad([np.asarray(p) for p in parts], t, v) for parts, t, v in zip(zip(*chunk), targets, fill)]
    lead = arg.static if drop_remainder else None
    out = ds._derive(elements, shapes=[TensorShape([lead, *t.as_list()]) if t.dims is not None else TensorShape(None)
                                       for t in targets],
                     sources=arg.sources + pad_sources,
                     cardinality=_batched_count(ds._cardinality, arg.static, drop_remainder))
    if all(t.dims is not None for t in targets):
        out._padding = ([t.as_list() for t in targets], pads)  # for its op form (data/native.py)
    return out


def _as_shape(s) -> TensorShape:
    if hasattr(s, "numpy"):
        s = [int(d) for d in np.ravel(s.numpy())]
    if isinstance(s, (list, tuple)):
        s = [None if d is None or getattr(d, "value", d) is None or int(getattr(d, "value", d)) < 0
             else int(getattr(d, "value", d)) for d in s]
    elif isinstance(s, (int, np.integer)):
        s = [None if int(s) < 0 else int(s)]
    return TensorShape(s)


def _by_structure(given, structure, leaf, what) -> list:
    """given (nested like the elements' structure) as one leaf(value) per component."""
    out = []

    def walk(g, s):
        if isinstance(s, dict):
            if not isinstance(g, dict) or sorted(g) != sorted(s):
                raise InvalidArgumentError(f"padded_batch: {what} does not match the elements' structure",
                                           "PaddedBatchDataset")
            for k in sorted(s):
                walk(g[k], s[k])
        elif isinstance(s, (list, tuple)):
            if not isinstance(g, (list, tuple)) or len(g) != len(s):
                raise InvalidArgumentError(f"padded_batch: {what} does not match the elements' structure",
                                           "PaddedBatchDataset")
            for x, y in zip(g, s):
                walk(x, y)
        else:
            out.append(leaf(g))
    walk(given, structure)
    return out


def _flat_shapes(padded_shapes, ds) -> list:
    """padded_shapes (nested like the elements: lists, TensorShapes; -1 or None for sizes the
    batch decides) as one TensorShape per component."""
    return _by_structure(padded_shapes, ds._structure, _as_shape, "padded_shapes")


@implements
def unbatch(ds):
    ds._no_windows("unbatch")
    ds._no_sparse("unbatch")
    for s in ds._shapes:
        if s.dims is not None and len(s.dims) == 0:
            raise InvalidArgumentError("unbatch: every component needs at least one dimension", "UnbatchDataset")

    def elements(values):
        for element in ds._elements(values):
            arrays = [np.asarray(a) for a in element]
            n = {a.shape[0] for a in arrays}
            if len(n) != 1:
                raise InvalidArgumentError(f"unbatch: the components' first dimensions differ: "
                                           f"{[a.shape[0] for a in arrays]}", "UnbatchDataset")
            for i in range(n.pop()):
                yield [a[i] for a in arrays]
    return ds._derive(elements, shapes=[TensorShape(None) if s.dims is None else s.dims[1:] for s in ds._shapes])


@implements
def repeat(ds, count=None):
    arg = ScalarArg(-1 if count is None else count, "count", "RepeatDataset")

    def elements(values):
        count = arg.get(values)
        epoch = 0
        while count < 0 or epoch < count:
            any_element = False
            for element in ds._elements(values):
                any_element = True
                yield element
            if not any_element:
                return
            epoch += 1
    c, count = ds._cardinality, arg.static
    if count is None:
        card = UNKNOWN_CARDINALITY if c != 0 else 0
    elif count < 0:
        card = 0 if c == 0 else (INFINITE_CARDINALITY if c != UNKNOWN_CARDINALITY else UNKNOWN_CARDINALITY)
    else:
        card = c * count if c >= 0 else (0 if count == 0 else c)
    return ds._derive(elements, sources=arg.sources, cardinality=card)


def _uniforms(rng):
    """Uniform draws in [0, 1), drawn from rng in blocks (a draw per element costs more than
    the shuffle itself)."""
    while True:
        yield from rng.random(4096).tolist()


@implements
def shuffle(ds, buffer_size, seed=None, reshuffle_each_iteration=None):
    from ..ops.random_ops import get_seed  # noqa: PLC0415
    arg = ScalarArg(buffer_size, "buffer_size", "ShuffleDataset", 1)
    s1, s2 = get_seed(seed, get_default_graph())
    fixed = (s1, s2) != (0, 0)
    reshuffle = reshuffle_each_iteration is not False
    state_key = object()
    # without reshuffling, every pass of one iteration repeats the first pass's order
    first_seed = np.random.SeedSequence().entropy

    def elements(values):
        passes = _state(values, state_key, lambda: [0])
        if fixed:
            rng = np.random.default_rng([s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF, passes[0] if reshuffle else 0])
        else:
            rng = np.random.default_rng(None if reshuffle else [first_seed & 0xFFFFFFFF, len(passes)])
        passes[0] += 1
        buffer_size = arg.get(values)
        buffer = []
        uniform = _uniforms(rng)
        for element in ds._elements(values):
            if len(buffer) < buffer_size:
                buffer.append(element)
                continue
            i = int(next(uniform) * len(buffer))
            yield buffer[i]
            buffer[i] = element
        while buffer:
            i = int(next(uniform) * len(buffer))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()
    return ds._derive(elements, sources=arg.sources, cardinality=ds._cardinality)


@implements
def take(ds, count):
    arg = ScalarArg(count, "count", "TakeDataset")

    def elements(values):
        count = arg.get(values)
        if count == 0:
            return
        for i, element in enumerate(ds._elements(values)):
            yield element
            if 0 <= count <= i + 1:
                return
    c, count = ds._cardinality, arg.static
    if count is None:
        card = 0 if c == 0 else UNKNOWN_CARDINALITY
    else:
        card = c if count < 0 else (count if c == INFINITE_CARDINALITY else (min(c, count) if c >= 0 else
                                                                             UNKNOWN_CARDINALITY))
    return ds._derive(elements, sources=arg.sources, cardinality=card)


@implements
def skip(ds, count):
    arg = ScalarArg(count, "count", "SkipDataset")

    def elements(values):
        count = arg.get(values)
        for i, element in enumerate(ds._elements(values)):
            if 0 <= count <= i:
                yield element
    c, count = ds._cardinality, arg.static
    if count is None:
        card = UNKNOWN_CARDINALITY if c != INFINITE_CARDINALITY else c
    else:
        card = (0 if count < 0 else max(c - count, 0)) if c >= 0 else c
    return ds._derive(elements, sources=arg.sources, cardinality=card)


@implements
def shard(ds, num_shards, index):
    shards, at = ScalarArg(num_shards, "num_shards", "ShardDataset"), ScalarArg(index, "index", "ShardDataset")

    def checked(values):
        n, i = shards.get(values), at.get(values)
        if n < 1:
            raise InvalidArgumentError(f"Number of shards must be greater than zero (currently num_shards = {n})",
                                       "ShardDataset")
        if not 0 <= i < n:
            raise InvalidArgumentError(f"Index must be between 0 and {n - 1} (currently index = {i})", "ShardDataset")
        return n, i

    if shards.static is not None and at.static is not None:
        checked({})

    def elements(values):
        n, index = checked(values)
        for i, element in enumerate(ds._elements(values)):
            if i % n == index:
                yield element
    c, n, i = ds._cardinality, shards.static, at.static
    card = (c // n + (1 if i < c % n else 0)) if c >= 0 and n is not None and i is not None else \
        (c if c == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY)
    return ds._derive(elements, sources=shards.sources + at.sources, cardinality=card)


@implements
def concatenate(ds, other):
    if not isinstance(other, Dataset):
        raise TypeError(f"concatenate takes a Dataset, got {type(other).__name__}")
    if ds._dtypes != other._dtypes or _flatten(_shape_of(ds._structure)) != _flatten(_shape_of(other._structure)) \
            or ds._window != other._window:
        raise TypeError(f"Incompatible dataset elements: {ds.output_types} and {other.output_types}")

    def elements(values):
        yield from ds._elements(values)
        yield from other._elements(values)
    shapes = [a.most_specific_compatible_shape(b) for a, b in zip(ds._shapes, other._shapes)]
    a, b = ds._cardinality, other._cardinality
    card = INFINITE_CARDINALITY if INFINITE_CARDINALITY in (a, b) else (
        UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in (a, b) else a + b)
    return ds._derive(elements, shapes=shapes, sources=other._sources, cardinality=card)


def _shape_of(structure):
    """The nesting of a structure, leaves replaced by 0 (to compare structures)."""
    if isinstance(structure, dict):
        return [(k, _shape_of(structure[k])) for k in sorted(structure)]
    if isinstance(structure, (list, tuple)):
        return [_shape_of(x) for x in structure]
    return 0


@implements
def window(ds, size, shift=None, stride=1, drop_remainder=False):
    """TensorFlow's WindowDataset: window k holds the elements k*shift, k*shift+stride, ...
    (size of them; fewer at the end unless drop_remainder). Each component is a nested
    dataset, for flat_map/interleave."""
    ds._no_windows("window")
    ds._no_sparse("window")
    op = "WindowDataset"
    size = _positive(size, "size", op)
    shift = size if shift is None else _positive(shift, "shift", op)
    stride = _positive(stride, "stride", op)
    span = (size - 1) * stride + 1

    def elements(values):
        buffer = []
        start = 0  # index of buffer[0] in the input
        source = ds._elements(values)
        done = False
        next_start = 0
        while True:
            while not done and start + len(buffer) < next_start + span:
                try:
                    buffer.append(next(source))
                except StopIteration:
                    done = True
            rel = next_start - start
            picked = buffer[rel:rel + span:stride] if rel < len(buffer) else []
            if not picked or (drop_remainder and len(picked) < size):
                return
            yield [[e[k] for e in picked] for k in range(len(ds._dtypes))]
            next_start += shift
            drop = min(next_start - start, len(buffer))
            del buffer[:drop]
            start += drop
    c = ds._cardinality
    if c >= 0:
        card = (max(0, (c - span) // shift + 1) if c >= span else 0) if drop_remainder else -(-c // shift)
    else:
        card = c
    return ds._derive(elements, cardinality=card, window=True)


# ---- cache ----

_MAGIC = b"OFCACHE1"


def _write_array(f, arr):
    arr = np.asarray(arr)
    if arr.dtype == object:
        items = [v if isinstance(v, bytes) else str(v).encode() for v in arr.ravel()]
        f.write(struct.pack("<B", 1) + struct.pack("<I", arr.ndim) + struct.pack(f"<{arr.ndim}q", *arr.shape))
        f.write(struct.pack(f"<{len(items)}Q", *[len(v) for v in items]))
        f.write(b"".join(items))
        return
    dt = arr.dtype.str.encode()
    f.write(struct.pack("<B", 0) + struct.pack("<B", len(dt)) + dt + struct.pack("<I", arr.ndim)
            + struct.pack(f"<{arr.ndim}q", *arr.shape))
    f.write(np.ascontiguousarray(arr).tobytes())


def _read_exact(f, n, path):
    data = f.read(n)
    if len(data) != n:
        from ..framework.errors import DataLossError  # noqa: PLC0415
        raise DataLossError(f"{path}: the cache file is truncated")
    return data


def _read_array(f, path):
    (kind,) = struct.unpack("<B", _read_exact(f, 1, path))
    if kind == 1:
        (ndim,) = struct.unpack("<I", _read_exact(f, 4, path))
        shape = struct.unpack(f"<{ndim}q", _read_exact(f, 8 * ndim, path))
        count = int(np.prod(shape))
        lengths = struct.unpack(f"<{count}Q", _read_exact(f, 8 * count, path))
        blob = _read_exact(f, sum(lengths), path)
        out, pos = np.empty(count, dtype=object), 0
        for i, n in enumerate(lengths):
            out[i] = blob[pos:pos + n]
            pos += n
        return out.reshape(shape)
    (n,) = struct.unpack("<B", _read_exact(f, 1, path))
    dt = np.dtype(_read_exact(f, n, path).decode())
    (ndim,) = struct.unpack("<I", _read_exact(f, 4, path))
    shape = struct.unpack(f"<{ndim}q", _read_exact(f, 8 * ndim, path))
    data = _read_exact(f, int(np.prod(shape)) * dt.itemsize, path)
    return np.frombuffer(data, dt).reshape(shape).copy()


def _cache_file(filename):
    return os.fspath(filename) + ".ofcache"


def _read_cache(path, n_components):
    with open(path, "rb") as f:
        if f.read(len(_MAGIC)) != _MAGIC:
            from ..framework.errors import DataLossError  # noqa: PLC0415
            raise DataLossError(f"{path} is not an opforge dataset cache file")
        while True:
            mark = f.read(1)
            if not mark:
                return
            yield [_read_array(f, path) for _ in range(n_components)]


@implements
def cache(ds, filename=""):
    """TensorFlow's CacheDataset: the first complete pass of an iteration is kept (in memory,
    or in the file ``filename`` + ".ofcache", written as the pass goes and renamed into place
    when it completes) and later passes replay it. A file cache outlives the program: a
    dataset cached to an existing file reads the file instead of its input."""
    ds._no_windows("cache")
    if filename:
        ds._no_sparse("cache to a file")
    filename = "" if filename is None else os.fspath(filename.numpy() if hasattr(filename, "numpy") else filename)
    if isinstance(filename, bytes):
        filename = filename.decode()
    state_key = object()
    n = len(ds._dtypes)

    def memory(values):
        kept = _state(values, state_key, lambda: {"elements": None})
        if kept["elements"] is not None:
            yield from kept["elements"]
            return
        seen = []
        for element in ds._elements(values):
            seen.append(element)
            yield element
        kept["elements"] = seen

    def in_file(values):
        path = _cache_file(filename)
        if os.path.exists(path):
            yield from _read_cache(path, n)
            return
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise NotFoundError(f"{folder}: cannot write the cache file {path}: no such directory", "CacheDataset")
        tmp = f"{path}.{os.getpid()}.{id(values)}.tmp"
        complete = False
        try:
            with open(tmp, "wb") as f:
                f.write(_MAGIC)
                for element in ds._elements(values):
                    f.write(b"E")
                    for a in element:
                        _write_array(f, a)
                    yield element
            complete = True
            os.replace(tmp, path)
        finally:
            if not complete and os.path.exists(tmp):
                os.remove(tmp)
    return ds._derive(in_file if filename else memory, cardinality=ds._cardinality)
