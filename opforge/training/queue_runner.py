"""The queue-runner era's helpers (tf.train.Coordinator, tf.train.start_queue_runners).
opforge's input pipelines are tf.data datasets, so there are no queue runners to start."""

from __future__ import annotations

import contextlib
import threading

from ..framework.collections import QUEUE_RUNNERS
from ..framework.errors import OutOfRangeError


class Coordinator:
    """Coordinates the stop of threads (tf.train.Coordinator): request_stop / should_stop /
    join, re-raising the first exception a thread reported."""

    def __init__(self, clean_stop_exception_types=None):
        self._stop = threading.Event()
        self._exc = None
        self._lock = threading.Lock()
        self._threads = []

    def request_stop(self, ex=None):
        with self._lock:
            if ex is not None and self._exc is None and not isinstance(ex, tuple):
                if not isinstance(ex, OutOfRangeError):
                    self._exc = ex
            self._stop.set()

    def should_stop(self):
        return self._stop.is_set()

    def wait_for_stop(self, timeout=None):
        return self._stop.wait(timeout)

    def clear_stop(self):
        self._stop.clear()

    def register_thread(self, thread):
        self._threads.append(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        for t in list(threads or []) + self._threads:
            t.join(stop_grace_period_secs)
        if self._exc is not None:
            raise self._exc

    def stop_on_exception(self):
        @contextlib.contextmanager
        def guard():
            try:
                yield
            except Exception as e:  # noqa: BLE001
                self.request_stop(e)
        return guard()


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=QUEUE_RUNNERS):
    """Starts the graph's queue runners: opforge has no queues, so there are none to start
    (input pipelines use tf.data); returns the empty list of threads."""
    return []
