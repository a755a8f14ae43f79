"""Datasets that read files (TensorFlow's tf.data readers): ``TFRecordDataset``, the records
of TFRecord files (io/tfrecord.py's reader: GZIP and ZLIB, a damaged record a DataLossError
naming file and offset)."""

from __future__ import annotations

import os

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.graph import GraphTensor
from ..framework.tensor import Tensor as EagerTensor
from ..io.tfrecord import RecordReader, TFRecordOptions
from .dataset import Dataset

__all__ = ["TFRecordDataset", "AUTOTUNE"]

AUTOTUNE = -1


def _names(value) -> list:
    """The file names in a value: a path, a list of paths, a NumPy or eager string array."""
    if isinstance(value, EagerTensor):
        value = value.numpy()
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    arr = np.asarray(value, dtype=object).reshape(-1)
    return [os.fsdecode(v) if isinstance(v, (bytes, os.PathLike)) else str(v) for v in arr]


class TFRecordDataset(Dataset):
    """The records (scalar strings) of one or more TFRecord files, file after file; with
    ``num_parallel_reads`` = k > 1, k files at a time, one record from each in turn (the
    deterministic order of TensorFlow's parallel interleave). ``filenames``: a path, a list of
    paths, a string tensor (a placeholder is read when the iterator is initialized), or a
    Dataset of file names. ``compression_type``: "", "ZLIB" or "GZIP". ``buffer_size`` (bytes
    of read buffer) is accepted for TensorFlow's signature; reads go through Python's buffered
    files."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        del name
        self._compression = TFRecordOptions.get_compression_type_string(compression_type)
        if buffer_size is not None and int(buffer_size) < 0:
            raise InvalidArgumentError(f"buffer_size must be >= 0, got {buffer_size}", "TFRecordDataset")
        cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
        if cycle == AUTOTUNE:
            cycle = os.cpu_count() or 1
        if cycle < 1:
            raise InvalidArgumentError(f"num_parallel_reads must be positive or AUTOTUNE, got {num_parallel_reads}",
                                       "TFRecordDataset")
        sources = []
        if isinstance(filenames, Dataset):
            if filenames._dtypes != [_dtypes.string]:
                raise InvalidArgumentError("TFRecordDataset: a dataset of file names must have scalar string elements",
                                           "TFRecordDataset")
            names_of = lambda values: [_names(e[0])[0] for e in filenames._elements(values)]  # noqa: E731
            sources = list(filenames._sources)
        elif isinstance(filenames, GraphTensor):
            if filenames.dtype != _dtypes.string:
                raise InvalidArgumentError(f"TFRecordDataset: filenames must be strings, got {filenames.dtype.name}",
                                           "TFRecordDataset")
            names_of = lambda values: _names(values[filenames])  # noqa: E731
            sources = [filenames]
        else:
            fixed = _names(filenames)
            names_of = lambda values: fixed  # noqa: E731
        compression = self._compression

        def elements(values):
            pending = list(names_of(values))
            if cycle == 1:
                for path in pending:
                    with RecordReader(path, compression) as reader:
                        for record in reader:
                            yield [np.array(record, dtype=object)]
                return
            yield from _interleave(pending, compression, cycle)

        super().__init__(elements, 0, [_dtypes.string], [[]], sources)


def _interleave(paths, compression, cycle):
    """Records of `cycle` files at a time, one from each in turn. A finished file's slot goes to
    the next file, which gives its first record at the slot's next turn (TensorFlow's order)."""
    slots = []
    paths = list(paths)
    try:
        while paths and len(slots) < cycle:
            slots.append(RecordReader(paths.pop(0), compression))
        k = 0
        while slots:
            record = slots[k].read()
            if record is None:
                slots[k].close()
                if paths:
                    slots[k] = RecordReader(paths.pop(0), compression)
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
