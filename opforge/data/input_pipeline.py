"""TensorFlow 1's queue-based input pipelines: ``string_input_producer``, the readers
(``TextLineReader``, ``FixedLengthRecordReader``, ``TFRecordReader``, ``WholeFileReader``,
``IdentityReader``), ``tf.train.batch`` / ``shuffle_batch``.

TensorFlow runs these with queues filled by background threads (queue runners). opforge runs
them on demand, on the host, with the machinery of tf.data (data/iterator_ops.py): the
reader's ``key, value`` and the batch tensors are graph nodes that the Session feeds. Reading
a value takes the next record of the current file (the next file from the filename queue
when one ends); a batch runs the tensors it was built from ``batch_size`` times in the same Session,
each run taking the next record. When the filename queue's epochs are used up, the run
raises OutOfRangeError, as TensorFlow does. ``start_queue_runners`` and ``Coordinator`` are
there for programs that call them; no thread is needed.
"""

from __future__ import annotations

import threading

import numpy as np

from ..framework import dtypes as _dtypes
from ..io.tfrecord import RecordReader, TFRecordOptions
from .iterator_ops import _runtime
from .readers import read_file_bytes
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.graph import GraphTensor, get_default_graph, to_graph_tensor

__all__ = ["string_input_producer", "TextLineReader", "FixedLengthRecordReader", "TFRecordReader", "WholeFileReader",
           "IdentityReader", "ReaderBase", "batch", "shuffle_batch", "decode_csv"]


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """One tensor per CSV column of ``records`` (tf.io.decode_csv). ``record_defaults``: per
    column a default value whose type is the column's ([0.] float32, [0] int32, [""] string,
    or a tensor; an empty one makes the column required)."""
    from .. import ops as _ops  # noqa: PLC0415
    defaults = []
    for d in record_defaults:
        if isinstance(d, GraphTensor) or hasattr(d, "_dtype_enum"):
            defaults.append(d)
            continue
        if isinstance(d, (np.ndarray, np.generic)) and d.dtype in (np.int64, np.float64, np.int32, np.float32):
            defaults.append(np.atleast_1d(d))  # a NumPy default keeps its dtype (int64, float64 ...)
            continue
        arr = np.asarray(d, dtype=object if any(isinstance(v, (str, bytes)) for v in np.ravel(d)) else None)
        if arr.dtype == object:
            defaults.append(np.asarray([v.encode() if isinstance(v, str) else v for v in np.ravel(arr)], dtype=object))
        elif arr.dtype.kind == "f" or arr.size == 0:
            defaults.append(arr.astype(np.float32))
        elif arr.dtype.kind in "iu":
            defaults.append(arr.astype(np.int32))
        else:
            raise InvalidArgumentError(f"decode_csv: a default of {arr.dtype} is not a float, int or string", "DecodeCSV")
    graph = records.graph if isinstance(records, GraphTensor) else None
    if graph is not None:
        defaults = [to_graph_tensor(graph, d, _dtypes.string if isinstance(d, np.ndarray) and d.dtype == object
                                    else None, op_name="DecodeCSV") for d in defaults]
    out = _ops.decode_csv(records, defaults, field_delim=field_delim, use_quote_delim=use_quote_delim,
                          na_value=na_value, select_cols=list(select_cols or []), name=name)
    return list(out)


class _FilenameQueue:
    """The file names, num_epochs times over (forever with None), shuffled each epoch."""

    def __init__(self, names, num_epochs, shuffle, seed, graph):
        from ..ops.random_ops import get_seed  # noqa: PLC0415
        self.graph = graph
        self._names = names
        self._num_epochs = num_epochs
        self._shuffle = shuffle
        s1, s2 = get_seed(seed, graph)
        self._rng = np.random.default_rng([s1 & 0xFFFFFFFF, s2 & 0xFFFFFFFF]) if (s1, s2) != (0, 0) \
            else np.random.default_rng()
        self._pending: list[str] = []
        self._epoch = 0
        self._lock = threading.Lock()

    def _fill(self, session) -> bool:
        """Loads the next epoch's names when none are pending (under the lock); False once the
        epochs are used up."""
        if not self._pending:
            if self._num_epochs is not None and self._epoch >= self._num_epochs:
                return False
            names = self._names
            if isinstance(names, GraphTensor):
                names = session.run(names)
            names = [n.decode() if isinstance(n, bytes) else str(n) for n in np.ravel(names)]
            if self._shuffle:
                names = [names[i] for i in self._rng.permutation(len(names))]
            self._pending = names
            self._epoch += 1
        return True

    def _take(self, session) -> str:
        with self._lock:
            if not self._fill(session):
                raise OutOfRangeError("FIFOQueue '_0_input_producer' is closed and has insufficient "
                                      "elements (requested 1, current size 0)", "QueueDequeue")
            return self._pending.pop(0)

    def _tensor(self, name, source):
        graph = self.graph
        with graph.as_default():
            out = graph.create_op("Placeholder", [], {"dtype": source.dtype.as_datatype_enum, "shape": []},
                                  name=name).outputs[0]
        _runtime(graph).add_get_next(source, [out])
        return out

    def dequeue(self, name=None):
        """The next file name, a string tensor taking one in each run (the queue's dequeue)."""
        return self._tensor(name or "input_producer_Dequeue", _QueueRead(self, take=True))

    def size(self, name=None):
        """The names left in the current epoch (as many as a filled queue would hold), an int32
        tensor."""
        return self._tensor(name or "input_producer_Size", _QueueRead(self, take=False))


class _QueueRead:
    """The source (iterator_ops' get_next protocol) of a filename queue's dequeue or size."""

    def __init__(self, queue, take):
        self._queue, self._take = queue, take
        self.dtype = _dtypes.string if take else _dtypes.int32

    def _next(self, session):
        q = self._queue
        if self._take:
            return [np.asarray(q._take(session).encode(), dtype=object)]
        with q._lock:
            q._fill(session)
            return [np.asarray(len(q._pending), np.int32)]


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of file names for a reader (tf.compat.v1.train.string_input_producer)."""
    del capacity, shared_name, name, cancel_op
    from ..framework.variables import RefVariable  # noqa: PLC0415
    if isinstance(string_tensor, RefVariable):  # match_filenames_once's variable: its value in each epoch
        string_tensor = string_tensor.value()
    graph = string_tensor.graph if isinstance(string_tensor, GraphTensor) else get_default_graph()
    if not isinstance(string_tensor, GraphTensor):
        names = list(np.ravel(np.asarray(string_tensor, dtype=object)))
        if not names:
            raise InvalidArgumentError("string_input_producer needs at least one file name", "string_input_producer")
        string_tensor = names
    return _FilenameQueue(string_tensor, None if num_epochs is None else int(num_epochs), shuffle, seed, graph)


class _Records:
    """The iterator behind a reader's (key, value): the next record of the current file, the
    next file from the filename queue when it ends. ``records(path)`` gives a file's
    (key, value) pairs."""

    def __init__(self, queue, records):
        self._queue = queue
        self._records = records
        self._pending: list = []
        self._at = 0
        self._lock = threading.Lock()

    def _next(self, session):
        with self._lock:
            while self._at >= len(self._pending):
                self._pending = list(self._records(self._queue._take(session)))
                self._at = 0
            self._at += 1
            key, value = self._pending[self._at - 1]
            return [np.asarray(key, dtype=object), np.asarray(value, dtype=object)]


class ReaderBase:
    """A TF1 reader (tf.compat.v1.ReaderBase): ``read(queue)`` gives (key, value) tensors that
    take the next record in each run, the work (file names) coming from ``queue``: what
    string_input_producer returns, or a queue of strings (train.input_producer's). A subclass
    defines ``_file_records(path)``, the (key, value) records of one work unit. opforge's readers
    are not reader resources: ``reader_ref`` must be None."""

    def __init__(self, reader_ref=None, supports_serialize=False):
        if reader_ref is not None:
            raise ValueError("ReaderBase(reader_ref=...): opforge's readers have no reader resource; subclass "
                             "ReaderBase and define _file_records(path) instead")
        self._supports_serialize = bool(supports_serialize)

    supports_serialize = property(lambda self: getattr(self, "_supports_serialize", False))
    reader_ref = property(lambda self: None)

    def _file_records(self, path):
        raise NotImplementedError

    def read(self, queue, name=None):
        """(key, value): the next record's key (file and position) and value, in each run that
        needs them."""
        from .queues import QueueBase  # noqa: PLC0415
        if isinstance(queue, QueueBase):
            queue = _WorkQueue(queue)
        if not isinstance(queue, (_FilenameQueue, _WorkQueue)):
            raise TypeError(f"{type(self).__name__}.read takes a queue of file names (string_input_producer's, or a "
                            "string queue)")
        graph = queue.graph
        source = _Records(queue, self._file_records)
        with graph.as_default(), graph.name_scope(name or "ReaderReadV2"):
            outputs = [graph.create_op("Placeholder", [], {"dtype": _dtypes.string.as_datatype_enum, "shape": []},
                                       name=n).outputs[0] for n in ("key", "value")]
        _runtime(graph).add_get_next(source, outputs)
        return outputs[0], outputs[1]


_Reader = ReaderBase


class _WorkQueue:
    """A queue of strings (data/queues.py) as a reader's source of work: each dequeue blocks
    until there is an element, OutOfRangeError once it is closed and empty."""

    def __init__(self, queue):
        if list(queue.dtypes) != [_dtypes.string]:
            raise TypeError(f"a reader's queue holds strings, this one {queue.dtypes}")
        self._queue = queue
        self.graph = queue._graph

    def _take(self, session) -> str:
        work = self._queue._get(session, 1, False, "ReaderReadV2")[0][0]
        work = work.item() if isinstance(work, np.ndarray) else work
        return work.decode() if isinstance(work, bytes) else str(work)


class TextLineReader(ReaderBase):
    """Reads files line by line (tf.compat.v1.TextLineReader): key "file:line number"."""

    def __init__(self, skip_header_lines=None, name=None):
        del name
        self._skip = int(skip_header_lines or 0)

    def _file_records(self, path):
        lines = read_file_bytes(path, "", "ReaderReadV2").splitlines()
        for i, line in enumerate(lines[self._skip:]):
            yield f"{path}:{i + 1 + self._skip}".encode(), line


class FixedLengthRecordReader(ReaderBase):
    """Fixed-size records of binary files (tf.compat.v1.FixedLengthRecordReader): record_bytes
    each, after header_bytes and before footer_bytes, hop_bytes apart (record_bytes when 0
    or None); ``encoding`` "ZLIB" or "GZIP" for compressed files. Key "file:record number"."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None, encoding=None):
        del name
        op = "FixedLengthRecordReader"
        self._record = int(record_bytes)
        self._header, self._footer = int(header_bytes or 0), int(footer_bytes or 0)
        self._hop = int(hop_bytes or 0) or self._record
        if self._record <= 0 or min(self._header, self._footer, self._hop) < 0:
            raise InvalidArgumentError("record_bytes must be positive and header, footer and hop bytes >= 0", op)
        self._encoding = {None: "", "": "", "ZLIB": "ZLIB", "GZIP": "GZIP"}.get(encoding)
        if self._encoding is None:
            raise InvalidArgumentError(f"encoding must be '', 'ZLIB' or 'GZIP', got {encoding!r}", op)

    def _file_records(self, path):
        data = read_file_bytes(path, self._encoding, "ReaderReadV2")
        last = len(data) - self._footer - self._record  # the last offset a whole record starts at
        for k, start in enumerate(range(self._header, last + 1, self._hop)):
            yield f"{path}:{k}".encode(), data[start:start + self._record]


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (tf.compat.v1.TFRecordReader): key "file:byte offset"."""

    def __init__(self, name=None, options=None):
        del name
        self._compression = TFRecordOptions.get_compression_type_string(options)

    def _file_records(self, path):
        with RecordReader(path, self._compression) as reader:
            while True:
                offset = reader.offset
                record = reader.read()
                if record is None:
                    return
                yield f"{path}:{offset}".encode(), record


class WholeFileReader(ReaderBase):
    """A whole file per record (tf.compat.v1.WholeFileReader): key the file name."""

    def __init__(self, name=None):
        del name

    def _file_records(self, path):
        yield path.encode(), read_file_bytes(path, "", "ReaderReadV2")


class IdentityReader(ReaderBase):
    """The queued work strings themselves as key and value (tf.compat.v1.IdentityReader)."""

    def __init__(self, name=None):
        del name

    def _file_records(self, path):
        yield path.encode(), path.encode()


class _Batches:
    """The iterator behind tf.train.batch: runs the tensors once per example."""

    def __init__(self, tensors, batch_size, allow_smaller_final_batch, enqueue_many, shuffle_buffer, seed):
        self._tensors = tensors
        self._batch_size = batch_size
        self._allow_smaller = allow_smaller_final_batch
        self._enqueue_many = enqueue_many
        self._buffer: list[list[np.ndarray]] = []
        self._shuffle_buffer = shuffle_buffer  # min_after_dequeue for shuffle_batch, else None
        self._rng = np.random.default_rng(seed)
        self._exhausted = False
        self._lock = threading.Lock()

    def _fill(self, session, want):
        while len(self._buffer) < want and not self._exhausted:
            try:
                values = session.run(self._tensors)
            except OutOfRangeError:
                self._exhausted = True
                break
            if self._enqueue_many:
                self._buffer.extend([list(row) for row in zip(*values)])
            else:
                self._buffer.append([np.asarray(v) for v in values])

    def _next(self, session):
        with self._lock:
            n = self._batch_size
            self._fill(session, n + (self._shuffle_buffer or 0))
            if len(self._buffer) < n and not (self._allow_smaller and self._buffer):
                raise OutOfRangeError(f"RandomShuffleQueue '_1_batch' is closed and has insufficient elements "
                                      f"(requested {n}, current size {len(self._buffer)})", "QueueDequeueMany")
            take = min(n, len(self._buffer))
            if self._shuffle_buffer is not None:
                picks = sorted(self._rng.choice(len(self._buffer), size=take, replace=False).tolist(), reverse=True)
                examples = [self._buffer.pop(i) for i in picks]
            else:
                examples, self._buffer = self._buffer[:take], self._buffer[take:]
            return [np.stack(parts) for parts in zip(*examples)]


def _batch(tensors, batch_size, enqueue_many, allow_smaller_final_batch, shuffle_buffer, seed, name):
    single = not isinstance(tensors, (list, tuple, dict))
    keys = sorted(tensors) if isinstance(tensors, dict) else None
    items = [tensors] if single else ([tensors[k] for k in keys] if keys else list(tensors))
    graph = next((t.graph for t in items if isinstance(t, GraphTensor)), get_default_graph())
    flat = [to_graph_tensor(graph, t, op_name="batch") for t in items]
    batch_size = int(batch_size)
    if batch_size < 1:
        raise InvalidArgumentError(f"batch_size must be positive, got {batch_size}", "batch")
    source = _Batches(flat, batch_size, allow_smaller_final_batch, enqueue_many, shuffle_buffer, seed)
    lead = None if allow_smaller_final_batch else batch_size
    outputs = []
    with graph.as_default(), graph.name_scope(name or "batch"):
        for t in flat:
            dims = t.shape.dims
            if dims is not None:
                dims = list(dims[1:]) if enqueue_many else list(dims)
                dims = [-1 if lead is None else lead] + [-1 if d is None else d for d in dims]
            outputs.append(graph.create_op("Placeholder", [], {"dtype": t.dtype.as_datatype_enum, "shape": dims},
                                           name="component").outputs[0])
    _runtime(graph).add_get_next(source, outputs)
    if single:
        return outputs[0]
    if keys:
        return dict(zip(keys, outputs))
    return outputs


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of ``batch_size`` examples of ``tensors``, in order (tf.compat.v1.train.batch)."""
    del num_threads, capacity, shapes, shared_name
    if dynamic_pad:
        raise InvalidArgumentError("batch(dynamic_pad=True) is not supported yet", "batch")
    return _batch(tensors, batch_size, enqueue_many, allow_smaller_final_batch, None, None, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of examples drawn at random from a buffer of at least ``min_after_dequeue``
    (tf.compat.v1.train.shuffle_batch)."""
    del capacity, num_threads, shapes, shared_name
    return _batch(tensors, batch_size, enqueue_many, allow_smaller_final_batch, int(min_after_dequeue), seed, name)

