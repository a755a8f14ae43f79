"""TFRecord files, as TensorFlow writes and reads them (tf.io.TFRecordWriter,
tf.compat.v1.python_io.tf_record_iterator).

A record is framed as: the data's length (uint64, little-endian), the masked CRC-32C of those
8 bytes (uint32), the data, the masked CRC-32C of the data (uint32). A GZIP or ZLIB file is
that byte stream compressed as one gzip or zlib stream. Event files (event_file.py) use the
same framing, from this module.

A record whose checksum does not match, or that ends early, is a DataLossError naming the
file and the byte offset (in the uncompressed stream) as TensorFlow reports it: the record's
for a bad length or a truncated record, its data's for bad data. Never a crash and never a
silent skip: unlike TensorFlow, which takes a partial header at the end of a file for the end
of the records (a file still being written), a partial header is a DataLossError here too.
"""

from __future__ import annotations

import os
import struct
import zlib

from .. import _C
from ..framework.errors import DataLossError, InvalidArgumentError, NotFoundError

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator",
           "encode_record", "RecordReader"]

_HEADER = struct.Struct("<QI")  # length, masked crc of the length
_FOOTER = struct.Struct("<I")  # masked crc of the data
_HEADER_SIZE = 12
_FOOTER_SIZE = 4


def _masked_crc(data: bytes) -> int:
    return _C.crc32c_mask(_C.crc32c(data))


def encode_record(data: bytes) -> bytes:
    """TensorFlow's record framing of one record: header, data, footer."""
    data = bytes(data)
    length = struct.pack("<Q", len(data))
    return b"".join((length, struct.pack("<I", _masked_crc(length)), data, _FOOTER.pack(_masked_crc(data))))


# ------------------------------------------------------------------------- options


class TFRecordCompressionType:
    """The compression of a TFRecord file (TensorFlow's enum values)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_TYPE_STRINGS = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
                 TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """Options of a TFRecord file: the compression type ("", "ZLIB", "GZIP", or a
    TFRecordCompressionType) and zlib's tuning parameters. ``flush_mode`` and the buffer sizes
    are accepted for TensorFlow's signature; they do not change the bytes written."""

    compression_type_map = dict(_TYPE_STRINGS)

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.compression_type = _type_string(compression_type)
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """"", "ZLIB" or "GZIP" for options (a TFRecordOptions, a type, a string or None)."""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return _type_string(options)

    def __repr__(self) -> str:
        return f"TFRecordOptions(compression_type={self.compression_type!r})"


def _type_string(compression_type) -> str:
    if compression_type is None:
        return ""
    if isinstance(compression_type, TFRecordOptions):
        return compression_type.compression_type
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode()
    if isinstance(compression_type, str):
        if compression_type.upper() in ("", "ZLIB", "GZIP"):
            return compression_type.upper()
        raise InvalidArgumentError(f"Unsupported compression_type: {compression_type!r} "
                                   "(expected '', 'ZLIB' or 'GZIP')")
    if isinstance(compression_type, int) and compression_type in _TYPE_STRINGS:
        return _TYPE_STRINGS[compression_type]
    raise InvalidArgumentError(f"Unsupported compression_type: {compression_type!r}")


def _options(options) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


# ------------------------------------------------------------------------- writing


class _ZlibWriter:
    """A binary file that zlib-compresses what is written to it into one zlib stream."""

    def __init__(self, raw, level, wbits, mem_level, strategy):
        self._raw = raw
        self._z = zlib.compressobj(level, zlib.DEFLATED, wbits, mem_level, strategy)

    def write(self, data):
        self._raw.write(self._z.compress(data))

    def flush(self):
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self):
        self._raw.write(self._z.flush(zlib.Z_FINISH))
        self._raw.close()


class TFRecordWriter:
    """Writes records to a TFRecord file (TensorFlow's tf.io.TFRecordWriter). ``options`` is a
    TFRecordOptions or a compression type ("", "ZLIB", "GZIP")."""

    def __init__(self, path, options=None):
        self._path = os.fspath(path)
        opts = _options(options)
        kind = opts.compression_type
        raw = open(self._path, "wb")
        if kind:
            level = zlib.Z_DEFAULT_COMPRESSION if opts.compression_level is None else int(opts.compression_level)
            wbits = zlib.MAX_WBITS if opts.window_bits is None else int(opts.window_bits)
            if kind == "GZIP":
                wbits += 16  # a gzip header and trailer around the deflate stream
            mem_level = 9 if opts.mem_level is None else int(opts.mem_level)
            strategy = zlib.Z_DEFAULT_STRATEGY if opts.compression_strategy is None else int(opts.compression_strategy)
            self._file = _ZlibWriter(raw, level, wbits, mem_level, strategy)
        else:
            self._file = raw

    def write(self, record) -> None:
        """Appends one record (bytes)."""
        if self._file is None:
            raise ValueError(f"TFRecordWriter for {self._path} is closed")
        if isinstance(record, str):
            record = record.encode()
        self._file.write(encode_record(record))

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


# ------------------------------------------------------------------------- reading


class _ZlibReader:
    """Reads the decompressed bytes of a zlib (or gzip) stream from a binary file."""

    def __init__(self, raw, wbits):
        self._raw = raw
        self._z = zlib.decompressobj(wbits)
        self._buf = b""
        self._pos = 0
        self._eof = False

    def read(self, n):
        if len(self._buf) - self._pos < n and not self._eof:
            parts = [self._buf[self._pos:]]
            have = len(parts[0])
            while have < n and not self._eof:
                chunk = self._raw.read(1 << 16)
                if not chunk:
                    self._eof = True
                    if not self._z.eof:
                        raise EOFError("the compressed stream ends before its end marker")
                    break
                out = self._z.decompress(chunk)
                parts.append(out)
                have += len(out)
                self._eof = self._z.eof
            self._buf, self._pos = b"".join(parts), 0
        out = self._buf[self._pos:self._pos + n]
        self._pos += len(out)
        return out

    def close(self):
        self._raw.close()


class RecordReader:
    """Reads the records of one TFRecord file in order. ``read()`` returns the next record's
    data, or None at the end; a bad record is a DataLossError naming the file and offset."""

    def __init__(self, path, compression_type=None):
        self.path = os.fspath(path)
        kind = _type_string(compression_type)
        try:
            raw = open(self.path, "rb")
        except FileNotFoundError:
            raise NotFoundError(f"{self.path}; No such file or directory") from None
        if kind == "GZIP":
            self._file = _ZlibReader(raw, 16 + zlib.MAX_WBITS)
        elif kind == "ZLIB":
            self._file = _ZlibReader(raw, zlib.MAX_WBITS)
        else:
            self._file = raw
        self.offset = 0  # of the next record, in the uncompressed stream

    def _read(self, n: int) -> bytes:
        try:
            return self._file.read(n)
        except (zlib.error, EOFError, OSError) as e:
            raise DataLossError(f"{self.path}: corrupted compressed stream near record at {self.offset}: {e}") from None

    def read(self):
        header = self._read(_HEADER_SIZE)
        if not header:
            return None
        if len(header) < _HEADER_SIZE:
            raise DataLossError(f"truncated record at {self.offset} in {self.path}: "
                                f"header has {len(header)} of {_HEADER_SIZE} bytes")
        length, length_crc = _HEADER.unpack(header)
        if _masked_crc(header[:8]) != length_crc:
            raise DataLossError(f"corrupted record at {self.offset} in {self.path}: the length's checksum does not match")
        # Read in pieces so that a corrupted-but-checksummed huge length cannot allocate it all.
        parts, left = [], length + _FOOTER_SIZE
        while left:
            piece = self._read(min(left, 1 << 24))
            if not piece:
                break
            parts.append(piece)
            left -= len(piece)
        body = b"".join(parts)
        if left:
            raise DataLossError(f"truncated record at {self.offset} in {self.path}: "
                                f"expected {length} data bytes and a 4-byte checksum, got {len(body)} bytes")
        data = body[:length]
        (data_crc,) = _FOOTER.unpack(body[length:])
        if _masked_crc(data) != data_crc:
            # TensorFlow names the offset of the data here, not of the record's header.
            raise DataLossError(f"corrupted record at {self.offset + _HEADER_SIZE} in {self.path}: "
                                "the data's checksum does not match")
        self.offset += _HEADER_SIZE + length + _FOOTER_SIZE
        return data

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self):
        while True:
            rec = self.read()
            if rec is None:
                return
            yield rec

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file (TensorFlow's python_io.tf_record_iterator).
    ``options``: a TFRecordOptions or a compression type."""
    with RecordReader(path, TFRecordOptions.get_compression_type_string(options)) as reader:
        yield from reader
