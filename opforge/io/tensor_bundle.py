"""TensorFlow's V2 checkpoint format, the tensor bundle, read and written without TensorFlow.

A checkpoint with prefix P is two files:

* ``P.data-00000-of-00001``: the tensors' bytes, one after the other (little-endian, row-major);
* ``P.index``: a table (LevelDB's sorted-table format, which TensorFlow's lib/io/table uses)
  mapping each tensor's name to a BundleEntryProto (dtype, shape, where its bytes are, their
  masked CRC-32C), and the empty key to a BundleHeaderProto.

Every block of the table and every tensor carries a CRC-32C that the reader verifies, so a
corrupt or truncated file is a DataLossError, never wrong values. Files are written under
temporary names and renamed into place (the data file first), so a crash mid-save leaves the
previous checkpoint as it was.
"""

from __future__ import annotations

import os
import struct
import tempfile

import numpy as np

from .. import _C
from ..codegen._proto import tensor_bundle_pb2
from ..framework import dtypes as _dtypes
from ..framework.errors import DataLossError, InvalidArgumentError, NotFoundError

BundleEntryProto = tensor_bundle_pb2.BundleEntryProto
BundleHeaderProto = tensor_bundle_pb2.BundleHeaderProto

_TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER_SIZE = 48  # two block handles padded to 40 bytes, then the 8-byte magic number
_BLOCK_SIZE = 4096  # a data block is closed once it holds this many bytes
_RESTART_INTERVAL = 16  # keys are prefix-compressed against the previous key, restarting every 16
_NO_COMPRESSION = 0


def data_path(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_path(prefix: str) -> str:
    return f"{prefix}.index"


def _masked_crc(data: bytes) -> int:
    return _C.crc32c_mask(_C.crc32c(data))


# ------------------------------------------------------------------------- the table format


def _varint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _read_varint(buf: bytes, pos: int, end: int, where: str) -> tuple[int, int]:
    result, shift = 0, 0
    while pos < end and shift < 64:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise DataLossError(f"{where}: corrupt varint")


def _block(entries: list[tuple[bytes, bytes]], restart_interval: int) -> bytes:
    """A table block: prefix-compressed entries, then the restart offsets and their count."""
    out, restarts, previous = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            limit = min(len(previous), len(key))
            while shared < limit and previous[shared] == key[shared]:
                shared += 1
        out += _varint(shared) + _varint(len(key) - shared) + _varint(len(value)) + key[shared:] + value
        previous = key
    restarts = restarts or [0]
    out += struct.pack(f"<{len(restarts)}I", *restarts) + struct.pack("<I", len(restarts))
    return bytes(out)


def _append_block(out: bytearray, contents: bytes) -> bytes:
    """Appends a block and its trailer (compression type, masked CRC of both); returns its
    handle (offset and size, as varints)."""
    handle = _varint(len(out)) + _varint(len(contents))
    trailer = bytes([_NO_COMPRESSION])
    out += contents + trailer + struct.pack("<I", _masked_crc(contents + trailer))
    return handle


def _separator(last: bytes, following: bytes) -> bytes:
    """A short key >= last and < following (LevelDB's FindShortestSeparator)."""
    i = 0
    while i < min(len(last), len(following)) and last[i] == following[i]:
        i += 1
    if i < min(len(last), len(following)) and last[i] < 0xFF and last[i] + 1 < following[i]:
        return last[:i] + bytes([last[i] + 1])
    return last


def _successor(key: bytes) -> bytes:
    """A short key >= key (LevelDB's FindShortSuccessor)."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


def build_table(items: list[tuple[bytes, bytes]]) -> bytes:
    """The bytes of a table holding items (sorted by key, keys unique). Each index entry's key
    is a short key between one block's last key and the next block's first, as LevelDB's
    (and so TensorFlow's) table builder chooses it."""
    out, index = bytearray(), []
    chunk, size, pending = [], 0, None  # pending: (last key, handle) of a block awaiting its index key
    for key, value in items:
        if pending is not None:
            index.append((_separator(pending[0], key), pending[1]))
            pending = None
        chunk.append((key, value))
        size += len(key) + len(value) + 8
        if size >= _BLOCK_SIZE:
            pending = (key, _append_block(out, _block(chunk, _RESTART_INTERVAL)))
            chunk, size = [], 0
    if chunk:
        pending = (chunk[-1][0], _append_block(out, _block(chunk, _RESTART_INTERVAL)))
    if pending is not None:
        index.append((_successor(pending[0]), pending[1]))
    meta_handle = _append_block(out, _block([], _RESTART_INTERVAL))
    index_handle = _append_block(out, _block(index, 1))
    handles = meta_handle + index_handle
    out += handles + bytes(40 - len(handles)) + struct.pack("<Q", _TABLE_MAGIC)
    return bytes(out)


def _read_handle(buf: bytes, pos: int, where: str) -> tuple[int, int, int]:
    """A block handle (offset, size) encoded at pos, and the position after it."""
    offset, pos = _read_varint(buf, pos, len(buf), where)
    size, pos = _read_varint(buf, pos, len(buf), where)
    return offset, size, pos


def _read_block(buf: bytes, offset: int, size: int, where: str) -> list[tuple[bytes, bytes]]:
    """The entries of the block at offset (its checksum verified)."""
    if offset + size + 5 > len(buf):
        raise DataLossError(f"{where}: truncated (a block runs past the end of the file)")
    contents, trailer = buf[offset:offset + size], buf[offset + size:offset + size + 5]
    if struct.unpack("<I", trailer[1:])[0] != _masked_crc(contents + trailer[:1]):
        raise DataLossError(f"{where}: checksum mismatch in a table block")
    if trailer[0] != _NO_COMPRESSION:
        raise DataLossError(f"{where}: compressed table blocks (type {trailer[0]}) are not supported")
    if size < 4:
        raise DataLossError(f"{where}: corrupt block")
    (num_restarts,) = struct.unpack("<I", contents[-4:])
    end = size - 4 * (num_restarts + 1)
    if end < 0:
        raise DataLossError(f"{where}: corrupt block")
    entries, p, key = [], 0, b""
    while p < end:
        shared, p = _read_varint(contents, p, end, where)
        non_shared, p = _read_varint(contents, p, end, where)
        value_len, p = _read_varint(contents, p, end, where)
        if shared > len(key) or p + non_shared + value_len > end:
            raise DataLossError(f"{where}: corrupt block entry")
        key = key[:shared] + contents[p:p + non_shared]
        p += non_shared
        entries.append((key, contents[p:p + value_len]))
        p += value_len
    return entries


def read_table(buf: bytes, where: str) -> dict[bytes, bytes]:
    """Every (key, value) of a table file's bytes."""
    if len(buf) < _FOOTER_SIZE:
        raise DataLossError(f"{where}: truncated (shorter than a table footer)")
    footer_at = len(buf) - _FOOTER_SIZE
    if struct.unpack("<Q", buf[-8:])[0] != _TABLE_MAGIC:
        raise DataLossError(f"{where}: not a table file (bad magic number)")
    meta_offset, meta_size, pos = _read_handle(buf, footer_at, where)
    _read_block(buf, meta_offset, meta_size, where)  # the meta-index block: checked, unused
    index_offset, index_size, _ = _read_handle(buf, pos, where)
    items = {}
    for _, handle in _read_block(buf, index_offset, index_size, where):
        offset, size, _ = _read_handle(handle, 0, where)
        items.update(_read_block(buf, offset, size, where))
    return items


# ------------------------------------------------------------------------- bundles


def write_bundle(prefix: str, tensors: dict[str, np.ndarray], dtypes: dict[str, _dtypes.DType]) -> None:
    """Writes the checkpoint ``prefix`` holding ``tensors`` (name -> array of dtypes[name])."""
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    data = bytearray()
    items = [(b"", BundleHeaderProto(num_shards=1, version={"producer": 1}).SerializeToString())]
    for name in sorted(tensors):
        dtype = dtypes[name]
        if dtype in (_dtypes.string, _dtypes.variant):
            raise InvalidArgumentError(f"cannot checkpoint '{name}': {dtype.name} tensors are not supported yet", "SaveV2")
        raw = np.ascontiguousarray(tensors[name], dtype=dtype.as_numpy_dtype).tobytes()
        entry = BundleEntryProto(dtype=dtype.as_datatype_enum, offset=len(data), size=len(raw),
                                 crc32c=_masked_crc(raw))
        entry.shape.SetInParent()
        for d in np.shape(tensors[name]):
            entry.shape.dim.add().size = int(d)
        data += raw
        items.append((name.encode(), entry.SerializeToString()))
    index = build_table(items)
    # Write both under temporary names, then rename: the data file before the index, so an
    # index on disk always describes a complete data file.
    for path, content in ((data_path(prefix), bytes(data)), (index_path(prefix), index)):
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


class BundleReader:
    """Reads a V2 checkpoint: its tensors' names, dtypes and shapes, and (checksums verified)
    their values."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        path = index_path(prefix)
        if not os.path.exists(path):
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                                f"files for {prefix}", "RestoreV2")
        with open(path, "rb") as f:
            table = read_table(f.read(), path)
        if b"" not in table:
            raise DataLossError(f"{path}: no bundle header")
        header = BundleHeaderProto.FromString(table.pop(b""))
        if header.endianness != BundleHeaderProto.LITTLE:
            raise DataLossError(f"{path}: big-endian checkpoints are not supported")
        self._num_shards = max(1, header.num_shards)
        self._entries: dict[str, BundleEntryProto] = {}
        for key, value in table.items():
            try:
                self._entries[key.decode()] = BundleEntryProto.FromString(value)
            except Exception as e:  # noqa: BLE001 - a protobuf DecodeError
                raise DataLossError(f"{path}: corrupt entry for '{key.decode(errors='replace')}': {e}") from None
        self._shards: dict[int, bytes] = {}

    def names(self) -> list[str]:
        return sorted(self._entries)

    def has_tensor(self, name: str) -> bool:
        return name in self._entries

    def dtype(self, name: str) -> _dtypes.DType:
        return _dtypes.from_enum(self._entry(name).dtype)

    def shape(self, name: str) -> list[int]:
        return [d.size for d in self._entry(name).shape.dim]

    def _entry(self, name: str) -> BundleEntryProto:
        if name not in self._entries:
            raise NotFoundError(f"Key {name} not found in checkpoint", "RestoreV2")
        return self._entries[name]

    def _shard(self, shard: int) -> bytes:
        if shard not in self._shards:
            path = data_path(self.prefix, shard, self._num_shards)
            if not os.path.exists(path):
                raise NotFoundError(f"{path}: missing checkpoint data file", "RestoreV2")
            with open(path, "rb") as f:
                self._shards[shard] = f.read()
        return self._shards[shard]

    def tensor(self, name: str) -> np.ndarray:
        """The tensor's value; DataLossError if its bytes are missing or do not match their CRC."""
        entry = self._entry(name)
        if entry.slices:
            raise InvalidArgumentError(f"'{name}' is saved in slices (a partitioned variable): not supported yet",
                                       "RestoreV2")
        try:
            dtype = _dtypes.from_enum(entry.dtype)
        except KeyError:
            raise InvalidArgumentError(f"'{name}' has dtype enum {entry.dtype}, which opforge cannot hold",
                                       "RestoreV2") from None
        if dtype == _dtypes.variant:
            raise InvalidArgumentError(f"'{name}' is a {dtype.name} tensor: not supported yet", "RestoreV2")
        data = self._shard(entry.shard_id)
        raw = data[entry.offset:entry.offset + entry.size]
        shape = self.shape(name)
        if dtype == _dtypes.string:
            return self._string_tensor(name, entry, raw, shape)
        expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype.as_numpy_dtype).itemsize
        if len(raw) != entry.size or entry.size != expected:
            raise DataLossError(f"{self.prefix}: '{name}' is truncated ({len(raw)} of {expected} bytes)")
        if _masked_crc(raw) != entry.crc32c:
            raise DataLossError(f"{self.prefix}: checksum mismatch for '{name}' (the data file is corrupt)")
        return np.frombuffer(raw, dtype=dtype.as_numpy_dtype).reshape(shape).copy()

    def _string_tensor(self, name, entry, raw: bytes, shape) -> np.ndarray:
        """A string tensor, as TensorFlow's bundle writer lays it out: each element's length
        (varint64), a masked CRC32C of the lengths (each as 4 little-endian bytes), then the
        elements' bytes. The entry's CRC covers the lengths (as 4 bytes each), the length
        checksum and the elements."""
        if len(raw) != entry.size:
            raise DataLossError(f"{self.prefix}: '{name}' is truncated ({len(raw)} of {entry.size} bytes)")
        n = int(np.prod(shape, dtype=np.int64))
        pos, lengths = 0, []
        for _ in range(n):
            length, pos = _read_varint(raw, pos, len(raw), f"{self.prefix}: '{name}'")
            lengths.append(length)
        as_u32 = b"".join((length & 0xFFFFFFFF).to_bytes(4, "little") for length in lengths)
        if pos + 4 > len(raw) or _masked_crc(as_u32) != int.from_bytes(raw[pos:pos + 4], "little"):
            raise DataLossError(f"{self.prefix}: the element lengths of string tensor '{name}' are corrupt")
        checksum, pos = raw[pos:pos + 4], pos + 4
        if pos + sum(lengths) != len(raw):
            raise DataLossError(f"{self.prefix}: string tensor '{name}' has {len(raw) - pos} bytes of elements, "
                                f"its lengths add up to {sum(lengths)}")
        if _masked_crc(as_u32 + checksum + raw[pos:]) != entry.crc32c:
            raise DataLossError(f"{self.prefix}: checksum mismatch for '{name}' (the data file is corrupt)")
        out = np.empty(n, dtype=object)
        for k, length in enumerate(lengths):
            out[k] = bytes(raw[pos:pos + length])
            pos += length
        return out.reshape(shape)
