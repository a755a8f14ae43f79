"""How gradients travel between the processes: as they are, or as float16 (Horovod's Compression)."""

from __future__ import annotations

from ..framework import dtypes as _dtypes


class _NoneCompressor:
    @staticmethod
    def compress(tensor):
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        return tensor


class _FP16Compressor:
    """Floating tensors travel as float16 and come back in their dtype."""

    @staticmethod
    def compress(tensor):
        import opforge as of
        dtype = _dtypes.as_dtype(tensor.dtype)
        if dtype.is_floating and dtype != _dtypes.float16:
            return of.cast(tensor, _dtypes.float16), dtype
        return tensor, None

    @staticmethod
    def decompress(tensor, ctx):
        import opforge as of
        return tensor if ctx is None else of.cast(tensor, ctx)


class Compression:
    """How gradients travel: Compression.none (as they are) or Compression.fp16."""
    none = _NoneCompressor
    fp16 = _FP16Compressor
