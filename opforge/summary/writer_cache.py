"""tf.compat.v1.summary.FileWriterCache: one FileWriter per log folder, shared by whoever
writes there (the checkpoint, summary and step-counter hooks of one training run)."""

from __future__ import annotations

import os
import threading

from .writer import FileWriter


class FileWriterCache:
    """A FileWriter per logdir, created on first ``get`` and kept until ``clear``."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        """The FileWriter of ``logdir`` (created, with the default graph, on first use)."""
        from ..framework.graph import get_default_graph  # noqa: PLC0415
        key = os.path.normpath(os.fspath(logdir))
        with FileWriterCache._lock:
            if key not in FileWriterCache._cache:
                FileWriterCache._cache[key] = FileWriter(key, graph=get_default_graph())
            return FileWriterCache._cache[key]

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache.clear()
