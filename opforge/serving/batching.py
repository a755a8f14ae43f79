"""Server-side batching: concurrent requests to one signature merged into one Session run.

TensorFlow Serving's BatchingSession in small: requests (tasks) to a signature queue into open
batches, one per kind of request (the same input keys, dtypes, outputs wanted, and shapes past
dim 0 unless pad_variable_length_inputs); a batch closes when it reaches max_batch_size, and
runs when a batch thread is free and the batch is full or its oldest task has waited
batch_timeout_micros. The batch's inputs are concatenated along dim 0 (padded up to the next of
allowed_batch_sizes by repeating the first row), run once, and its outputs split back by each
task's rows. More than max_enqueued_batches waiting: a new request is refused
(ResourceExhaustedError), so an overloaded server sheds load instead of queueing without end.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable

import numpy as np

from ..framework.errors import (
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    OpError,
    ResourceExhaustedError,
    UnavailableError,
)
from .config import BatchingOptions

RunFn = Callable[[dict, "tuple[str, ...] | None"], dict]


class _Task:
    __slots__ = ("feeds", "size", "deadline", "done", "result", "error", "cancelled", "started")

    def __init__(self, feeds: dict, size: int, deadline: float | None):
        self.feeds, self.size, self.deadline = feeds, size, deadline
        self.done = threading.Event()
        self.result = self.error = None
        self.cancelled = self.started = False

    def finish(self, result=None, error=None):
        self.result, self.error = result, error
        self.done.set()


class _Batch:
    __slots__ = ("key", "output_keys", "tasks", "size", "created")

    def __init__(self, key, output_keys):
        self.key, self.output_keys = key, output_keys
        self.tasks: list[_Task] = []
        self.size = 0
        self.created = time.monotonic()


def task_size(feeds: dict[str, np.ndarray]) -> int:
    """The rows of a request: the size of dim 0, the same for every input."""
    sizes = {k: (a.shape[0] if a.ndim else None) for k, a in feeds.items()}
    if not sizes:
        raise InvalidArgumentError("batching needs at least one input")
    if None in sizes.values():
        scalar = next(k for k, s in sizes.items() if s is None)
        raise InvalidArgumentError(f"batching needs every input to have a batch dimension (dim 0); "
                                   f"input '{scalar}' is a scalar")
    if len(set(sizes.values())) > 1:
        raise InvalidArgumentError(f"batching needs every input to have the same size in dim 0, got "
                                   f"{', '.join(f'{k}: {s}' for k, s in sorted(sizes.items()))}")
    return next(iter(sizes.values()))


class BatchScheduler:
    """Batches the calls of run(feeds, output_keys) -> outputs (a signature's run) made through
    submit(); num_batch_threads threads run the batches. Thread-safe."""

    def __init__(self, run: RunFn, options: BatchingOptions, name: str = "",
                 on_batch: Callable[[int, int, int], None] | None = None):
        self._run = run
        self._opts = options
        self._name = name
        self._on_batch = on_batch
        self._cond = threading.Condition()
        self._open: dict[tuple, _Batch] = {}
        self._ready: collections.deque[_Batch] = collections.deque()
        self._closing = False
        self._threads = [threading.Thread(target=self._work, name=f"batch-{name}-{i}", daemon=True)
                         for i in range(options.num_batch_threads)]
        for t in self._threads:
            t.start()

    def _key(self, feeds: dict, output_keys) -> tuple:
        pad = self._opts.pad_variable_length_inputs
        return (output_keys,) + tuple(
            (k, a.dtype.str, a.ndim if pad else a.shape[1:]) for k, a in sorted(feeds.items()))

    def submit(self, feeds: dict[str, np.ndarray], output_keys: tuple[str, ...] | None = None,
               deadline: float | None = None) -> dict[str, np.ndarray]:
        """Runs feeds in a batch with other requests; the outputs of feeds' rows. deadline
        (time.monotonic()) passed while queued or running: DeadlineExceededError."""
        size = task_size(feeds)
        if size > self._opts.max_batch_size:
            raise InvalidArgumentError(f"Task size {size} is larger than maximum input batch size "
                                       f"{self._opts.max_batch_size}")
        task = _Task(feeds, size, deadline)
        key = self._key(feeds, output_keys)
        with self._cond:
            if self._closing:
                raise UnavailableError(f"servable {self._name} is unloading")
            batch = self._open.get(key)
            if batch is not None and batch.size + size > self._opts.max_batch_size:
                self._ready.append(self._open.pop(key))
                batch = None
            if batch is None:
                if len(self._ready) + len(self._open) >= self._opts.max_enqueued_batches:
                    raise ResourceExhaustedError("The batch scheduling queue to which this task was "
                                                 "submitted is full")
                batch = self._open[key] = _Batch(key, output_keys)
            batch.tasks.append(task)
            batch.size += size
            if batch.size == self._opts.max_batch_size:
                self._ready.append(self._open.pop(key))
            self._cond.notify()
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not task.done.wait(timeout):
            with self._cond:
                task.cancelled = True
            if not task.done.is_set():
                raise DeadlineExceededError("Deadline exceeded while the request waited for its batch")
        if task.error is not None:
            raise task.error
        return task.result

    def _next_batch(self) -> _Batch | None:
        with self._cond:
            while True:
                if self._ready:
                    return self._ready.popleft()
                if self._open:
                    oldest = min(self._open.values(), key=lambda b: b.created)
                    wait = oldest.created + self._opts.batch_timeout_micros * 1e-6 - time.monotonic()
                    if wait <= 0 or self._closing:
                        return self._open.pop(oldest.key)
                    self._cond.wait(wait)
                elif self._closing:
                    return None
                else:
                    self._cond.wait()

    def _work(self) -> None:
        while (batch := self._next_batch()) is not None:
            self._execute(batch)

    def _execute(self, batch: _Batch) -> None:
        now = time.monotonic()
        with self._cond:
            tasks = []
            for t in batch.tasks:
                if t.cancelled:
                    continue
                if t.deadline is not None and t.deadline <= now:
                    t.finish(error=DeadlineExceededError("Deadline exceeded while the request waited for its batch"))
                    continue
                t.started = True
                tasks.append(t)
        if not tasks:
            return
        try:
            feeds, rows, padded = self._merge(tasks)
            outputs = self._run(feeds, batch.output_keys)
            for k, v in outputs.items():
                if np.ndim(v) == 0 or np.shape(v)[0] != padded:
                    raise InvalidArgumentError(
                        f"batching needs every output to have the batch size in dim 0: output '{k}' has "
                        f"shape {list(np.shape(v))} for a batch of {padded}")
        except Exception as e:  # every task of the batch gets the batch's error
            err = e if isinstance(e, OpError) else InternalError(f"{type(e).__name__}: {e}")
            for t in tasks:
                t.finish(error=err)
            return
        if self._on_batch is not None:
            self._on_batch(len(tasks), rows, padded)
        offset = 0
        for t in tasks:
            t.finish(result={k: v[offset:offset + t.size] for k, v in outputs.items()})
            offset += t.size

    def _merge(self, tasks: list[_Task]) -> tuple[dict, int, int]:
        rows = sum(t.size for t in tasks)
        padded = next((s for s in self._opts.allowed_batch_sizes if s >= rows), rows)
        if len(tasks) == 1 and padded == rows:
            return tasks[0].feeds, rows, padded
        feeds = {}
        for k in tasks[0].feeds:
            parts = [t.feeds[k] for t in tasks]
            if self._opts.pad_variable_length_inputs:
                parts = _pad_to_common_shape(parts)
            merged = np.concatenate(parts, axis=0)
            if padded > rows:
                merged = np.concatenate([merged, np.repeat(merged[:1], padded - rows, axis=0)], axis=0)
            feeds[k] = merged
        return feeds, rows, padded

    def close(self, timeout: float | None = None) -> None:
        """Runs what is queued, then stops the batch threads; later submits: UnavailableError."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        for t in self._threads:
            t.join(timeout)


def _pad_to_common_shape(parts: list[np.ndarray]) -> list[np.ndarray]:
    """Pads each array's dims past 0 at the end up to the largest among parts (zeros; empty
    strings for string tensors)."""
    target = tuple(max(p.shape[d] for p in parts) for d in range(1, parts[0].ndim))
    out = []
    for p in parts:
        if p.shape[1:] == target:
            out.append(p)
            continue
        widths = [(0, 0)] + [(0, t - s) for s, t in zip(p.shape[1:], target)]
        fill = b"" if p.dtype == object else 0
        out.append(np.pad(p, widths, constant_values=fill))
    return out
