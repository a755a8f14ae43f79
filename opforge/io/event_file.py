"""Event files for TensorBoard: serialized ``Event`` protos in TensorFlow's record framing
(tfrecord.py), appended to ``<logdir>/events.out.tfevents.<time>.<host>``."""

from __future__ import annotations

import os
import socket
import time

from ..codegen._proto import event_pb2
from .tfrecord import encode_record

Event = event_pb2.Event


class EventFileWriter:
    """Appends Event records to a new event file in ``logdir``. Writes go to a buffer that is
    flushed every ``flush_secs`` seconds (checked at each write), on ``flush`` and on ``close``;
    the first record is the file version, as TensorBoard expects."""

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        del max_queue  # records are written as they come, never queued
        self._logdir = os.fspath(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}{filename_suffix or ''}"
        self._path = os.path.join(self._logdir, name)
        self._flush_secs = float(flush_secs)
        self._file = None
        self._open()
        self.add_event(Event(wall_time=time.time(), file_version="brain.Event:2"))

    def _open(self):
        self._file = open(self._path, "ab")
        self._last_flush = time.monotonic()

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def path(self) -> str:
        """The event file being written."""
        return self._path

    def add_event(self, event: Event) -> None:
        if self._file is None:
            raise RuntimeError("the event file writer is closed (reopen() it first)")
        self._file.write(encode_record(event.SerializeToString()))
        if time.monotonic() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._last_flush = time.monotonic()

    def close(self) -> None:
        if self._file is not None:
            self.flush()
            self._file.close()
            self._file = None

    def reopen(self) -> None:
        """After close(): keep appending to the same file."""
        if self._file is None:
            self._open()
