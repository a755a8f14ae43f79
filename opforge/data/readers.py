"""Datasets that read files (TensorFlow's tf.data readers): ``TFRecordDataset`` (the records
of TFRecord files, io/tfrecord.py's reader: a damaged record a DataLossError naming file and
offset), ``TextLineDataset`` (lines) and ``FixedLengthRecordDataset`` (fixed-size records
between a header and a footer); each reads GZIP and ZLIB files too. ``filenames``: a path, a
list of paths, a string tensor (a placeholder is read when the iterator is initialized), or
a Dataset of file names; with ``num_parallel_reads`` = k > 1, k files are read at a time, one
record from each in turn (the deterministic order of TensorFlow's parallel interleave), each
file on a thread of its own."""

from __future__ import annotations

import os
import zlib

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..framework.graph import GraphTensor
from ..framework.tensor import Tensor as EagerTensor
from ..io.tfrecord import RecordReader, TFRecordOptions, _ZlibReader
from .dataset import Dataset, _native_hook
from .parallel import AUTOTUNE, _Ahead

__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset", "AUTOTUNE"]


def _names(value) -> list:
    """The file names in a value: a path, a list of paths, a NumPy or eager string array."""
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    arr = np.asarray(value, dtype=object).reshape(-1)
    return [os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v) for v in arr]


class _FileDataset(Dataset):
    """Scalar strings read from files, file after file (``num_parallel_reads`` at a time);
    a subclass gives ``_records(path)``, a generator of one file's records."""

    _op = "FileDataset"

    def __init__(self, filenames, compression_type, buffer_size, num_parallel_reads):
        op = self._op
        self._compression = TFRecordOptions.get_compression_type_string(compression_type)
        if buffer_size is not None and int(buffer_size) < 0:
            raise InvalidArgumentError(f"buffer_size must be >= 0, got {buffer_size}", op)
        cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
        if cycle == AUTOTUNE:
            cycle = os.cpu_count() or 1
        if cycle < 1:
            raise InvalidArgumentError(f"num_parallel_reads must be positive or AUTOTUNE, got {num_parallel_reads}",
                                       op)
        sources = []
        if isinstance(filenames, Dataset):
            if filenames._dtypes != [_dtypes.string]:
                raise InvalidArgumentError(f"{op}: a dataset of file names must have scalar string elements", op)
            names_of = lambda values: (_names(e[0])[0] for e in filenames._elements(values))  # noqa: E731
            sources = list(filenames._sources)
        elif isinstance(filenames, GraphTensor):
            if filenames.dtype != _dtypes.string:
                raise InvalidArgumentError(f"{op}: filenames must be strings, got {filenames.dtype.name}", op)
            names_of = lambda values: _names(values[filenames])  # noqa: E731
            sources = [filenames]
        else:
            fixed = _names(filenames)
            names_of = lambda values: fixed  # noqa: E731

        def elements(values):
            pending = names_of(values)
            if cycle == 1:
                for path in pending:
                    for record in self._records(path):
                        yield [np.array(record, dtype=object)]
                return
            yield from _interleave(pending, self._records, cycle)

        super().__init__(elements, 0, [_dtypes.string], [[]], sources)
        if not isinstance(filenames, Dataset):
            fixed_sizes = (self._header, self._record_bytes, self._footer) if op == "FixedLengthRecordDataset" else None
            _native_hook("records", self, (op if fixed_sizes is None else "FixedLengthRecordDatasetV2",
                                           filenames, self._compression, buffer_size, fixed_sizes, cycle))

    def _read_all(self, path) -> bytes:
        return read_file_bytes(path, self._compression, self._op)


def read_file_bytes(path, compression: str, op: str) -> bytes:
    """The (decompressed: compression "", "ZLIB" or "GZIP") bytes of a file; a missing file is
    a NotFoundError, a damaged stream a DataLossError, both naming the file."""
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory", op) from None
    except OSError as e:
        raise NotFoundError(f"{path}: {e.strerror}", op) from None
    f = raw if not compression else _ZlibReader(raw, 16 + zlib.MAX_WBITS if compression == "GZIP" else zlib.MAX_WBITS)
    try:
        parts = []
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return b"".join(parts)
            parts.append(chunk)
    except (zlib.error, EOFError) as e:
        raise DataLossError(f"{path}: corrupted compressed stream: {e}", op) from None
    finally:
        f.close()


class TFRecordDataset(_FileDataset):
    """The records (scalar strings) of one or more TFRecord files, file after file; with
    ``num_parallel_reads`` = k > 1, k files at a time, one record from each in turn (the
    deterministic order of TensorFlow's parallel interleave). ``filenames``: a path, a list of
    paths, a string tensor (a placeholder is read when the iterator is initialized), or a
    Dataset of file names. ``compression_type``: "", "ZLIB" or "GZIP". ``buffer_size`` (bytes
    of read buffer) is accepted for TensorFlow's signature; reads go through Python's buffered
    files."""

    _op = "TFRecordDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _records(self, path):
        with RecordReader(path, self._compression) as reader:
            yield from reader


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line ends ("\\n", and a "\\r" before it)."""

    _op = "TextLineDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _records(self, path):
        data = self._read_all(path)
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()  # the final line end
        for line in lines:
            yield line[:-1] if line.endswith(b"\r") else line


class FixedLengthRecordDataset(_FileDataset):
    """The records of record_bytes bytes of binary files, after header_bytes and before
    footer_bytes. A body that is not a whole number of records is an error, as in TensorFlow
    (InvalidArgumentError; DataLossError in a compressed file)."""

    _op = "FixedLengthRecordDataset"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None, name=None):
        self._record_bytes = int(record_bytes)
        self._header = int(header_bytes or 0)
        self._footer = int(footer_bytes or 0)
        if self._record_bytes <= 0:
            raise InvalidArgumentError(f"record_bytes must be positive, got {self._record_bytes}", self._op)
        if self._header < 0 or self._footer < 0:
            raise InvalidArgumentError("header_bytes and footer_bytes must be >= 0", self._op)
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _records(self, path):
        data = self._read_all(path)
        body = len(data) - self._header - self._footer
        if body < 0 or body % self._record_bytes:
            cls = DataLossError if self._compression else InvalidArgumentError
            raise cls(f"Excluding the header ({self._header} bytes) and footer ({self._footer} bytes), input file "
                      f"\"{path}\" has body length {max(body, 0)} bytes, which is not an exact multiple of the record "
                      f"length ({self._record_bytes} bytes).", self._op)
        for start in range(self._header, self._header + body, self._record_bytes):
            yield data[start:start + self._record_bytes]


def _interleave(paths, records, cycle):
    """Records of `cycle` files at a time, one from each in turn, each file read ahead on a
    thread of its own. A finished file's slot goes to the next file, which gives its first
    record at the slot's next turn (TensorFlow's order)."""
    paths = iter(paths)

    def opened():
        path = next(paths, None)
        return None if path is None else iter(_Ahead(records(path), 64, "opforge-reader"))
    slots = []
    try:
        while len(slots) < cycle:
            reader = opened()
            if reader is None:
                break
            slots.append(reader)
        k = 0
        while slots:
            record = next(slots[k], None)
            if record is None:
                slots[k].close()
                reader = opened()
                if reader is not None:
                    slots[k] = reader
                    k = (k + 1) % len(slots)
                else:
                    del slots[k]
                    if slots:
                        k %= len(slots)
                continue
            yield [np.array(record, dtype=object)]
            k = (k + 1) % len(slots)
    finally:
        for reader in slots:
            reader.close()
