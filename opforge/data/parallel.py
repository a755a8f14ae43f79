"""Dataset transformations that run the user's functions, and the ones that run on threads:
map (``num_parallel_calls``: that many worker threads; results in input order unless
``deterministic=False``), filter, flat_map / interleave (``num_parallel_calls``: each open
input's elements produced ahead on a thread of its own, in TensorFlow's deterministic order),
prefetch (a background thread filling a buffer while the consumer works) and ignore_errors.

A traced function runs through a Session of its own graph (functions.py); Session.run releases
the GIL while kernels run, so worker threads overlap with each other and with the training
step. Threads are started when the first element is asked for and stopped when the iteration
is dropped (a new initialization, the Session going away) or ends.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from ..framework import dtypes as _dtypes
from ..framework.errors import InvalidArgumentError, OpError
from .dataset import UNKNOWN_CARDINALITY, Dataset, implements
from .functions import TracedFunction

__all__ = ["AUTOTUNE", "map_dataset", "filter_dataset", "interleave", "prefetch", "ignore_errors"]

AUTOTUNE = -1


def _threads(value, what, op, default=None):
    """A num_parallel_calls-like argument as a thread count (AUTOTUNE: the CPU count)."""
    if value is None:
        return default
    value = int(value)
    if value == AUTOTUNE:
        return max(2, os.cpu_count() or 1)
    if value < 1:
        raise InvalidArgumentError(f"{what} must be positive or AUTOTUNE (-1), got {value}", op)
    return value


def _deterministic(ds, deterministic):
    if deterministic is not None:
        return bool(deterministic)
    opt = getattr(ds._options, "deterministic", None) if ds._options is not None else None
    return opt is not False


def _as_arrays(result, strings):
    """A function's results as arrays (string components as object arrays)."""
    for k in strings:
        result[k] = np.asarray(result[k], dtype=object)
    return result


@implements
def map_dataset(ds, map_func, num_parallel_calls=None, deterministic=None, skip_errors=False):
    op = "ParallelMapDataset" if num_parallel_calls is not None else "MapDataset"
    fn = TracedFunction(map_func, ds, "map")
    threads = _threads(num_parallel_calls, "num_parallel_calls", op)
    ordered = _deterministic(ds, deterministic)

    strings = [k for k, (d, sp) in enumerate(zip(fn.dtypes, fn.sparse)) if d == _dtypes.string and not sp]

    def apply(element, values):
        return _as_arrays(fn(element, values), strings)

    def sequential(values):
        for element in ds._elements(values):
            try:
                yield apply(element, values)
            except OpError:
                if not skip_errors:
                    raise

    def parallel(values):
        pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="opforge-map")
        pending = collections.deque()
        source = ds._elements(values)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < 2 * threads:
                    try:
                        element = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    pending.append(pool.submit(apply, element, values))
                if not pending:
                    return
                if ordered:
                    future = pending.popleft()
                else:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    future = next(f for f in pending if f in done)
                    pending.remove(future)
                try:
                    result = future.result()
                except OpError:
                    if skip_errors:
                        continue
                    raise
                yield result
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=False)

    out = Dataset(parallel if threads else sequential, fn.structure, fn.dtypes, fn.shapes,
                  ds._sources + fn.captured, ds._cardinality, sparse=fn.sparse)
    out._options = ds._options
    out._lenient = lambda: map_dataset(_lenient(ds), map_func, num_parallel_calls, deterministic, True)
    out._traced = fn  # for its op form (data/native.py)
    return out


@implements
def filter_dataset(ds, predicate, skip_errors=False):
    fn = TracedFunction(predicate, ds, "filter")
    if fn.dtypes != [_dtypes.bool_] or fn.shapes[0].rank not in (None, 0):
        raise InvalidArgumentError("filter: the predicate must return a scalar bool tensor", "FilterDataset")

    def elements(values):
        for element in ds._elements(values):
            try:
                keep = bool(np.asarray(fn(element, values)[0]))
            except OpError:
                if not skip_errors:
                    raise
                continue
            if keep:
                yield element
    out = ds._derive(elements, sources=fn.captured)
    out._lenient = lambda: filter_dataset(_lenient(ds), predicate, True)
    out._traced = fn
    return out


def _lenient(ds):
    """ds with the elements its (upstream) functions fail on left out, where it has functions."""
    return ds._lenient() if ds._lenient is not None else ds


@implements
def ignore_errors(ds):
    """TensorFlow's IgnoreErrorsDataset: the elements whose map or filter function raised an
    error are left out. An error elsewhere in the pipeline (a file that cannot be read) ends
    the sequence instead of failing the run."""
    lenient = _lenient(ds)

    def elements(values):
        try:
            yield from lenient._elements(values)
        except OpError:
            return
    return lenient._derive(elements, cardinality=UNKNOWN_CARDINALITY)


# ---- flat_map and interleave ----

_END = object()


class _Ahead:
    """Runs a generator on a thread of its own, up to ``depth`` elements ahead of the
    consumer: the thread takes the next element only when the buffer has room for it (as
    TensorFlow's prefetch thread waits before calling its input's GetNext)."""

    def __init__(self, source, depth, name):
        self._queue = queue.SimpleQueue()
        self._room = threading.Semaphore(max(1, depth))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(source,), name=name, daemon=True)
        self._thread.start()

    def _run(self, source):
        try:
            while self._wait_for_room():
                item = next(source, _END)
                self._queue.put((True, item))
                if item is _END:
                    return
        except BaseException as e:  # handed to the consumer, raised there
            self._queue.put((False, e))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    def _wait_for_room(self) -> bool:
        while not self._stop.is_set():
            if self._room.acquire(timeout=0.05):
                return True
        return False

    def get(self):
        ok, item = self._queue.get()
        self._room.release()
        if not ok:
            raise item
        return item

    def __iter__(self):
        try:
            while True:
                item = self.get()
                if item is _END:
                    return
                yield item
        finally:
            self.stop()

    def stop(self):
        self._stop.set()


@implements
def interleave(ds, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None,
               what="interleave"):
    """TensorFlow's InterleaveDataset order: a cycle of cycle_length open inputs, block_length
    elements from each in turn; an input that ends frees its slot, which the next input
    element fills when the cycle comes back to it."""
    op = "FlatMapDataset" if what == "flat_map" else "InterleaveDataset"
    fn = TracedFunction(map_func, ds, what, returns="dataset")
    inner = fn.dataset
    if inner._window:
        raise InvalidArgumentError(f"{what}: the function's dataset has windows (datasets) as elements", op)
    cycle = _threads(cycle_length, "cycle_length", op, default=max(2, os.cpu_count() or 1))
    block = 1 if block_length is None else int(block_length)
    if block < 1:
        raise InvalidArgumentError(f"block_length must be positive, got {block}", op)
    threads = _threads(num_parallel_calls, "num_parallel_calls", op)
    del deterministic  # the order is TensorFlow's deterministic one either way

    def open_input(element, values):
        source = inner._elements(fn.dataset_values(element, values))
        return iter(_Ahead(source, block, "opforge-interleave")) if threads else source

    def elements(values):
        inputs = ds._elements(values)
        slots = [None] * cycle
        index = block_index = num_open = 0
        end_of_input = False
        try:
            while not end_of_input or num_open:
                current = slots[index]
                if current is not None:
                    item = next(current, _END)
                    if item is not _END:
                        block_index += 1
                        if block_index == block:
                            block_index, index = 0, (index + 1) % cycle
                        yield item
                        continue
                    slots[index] = None
                    num_open -= 1
                    block_index, index = 0, (index + 1) % cycle
                elif not end_of_input:
                    element = next(inputs, _END)
                    if element is _END:
                        end_of_input = True
                    else:
                        slots[index] = open_input(element, values)
                        num_open += 1
                else:
                    block_index, index = 0, (index + 1) % cycle
        finally:
            for s in slots:
                if s is not None and hasattr(s, "close"):
                    s.close()

    out = Dataset(elements, inner._structure, inner._dtypes, inner._shapes, ds._sources + fn.captured,
                  sparse=inner._sparse)
    out._options = ds._options
    out._traced = fn
    return out


@implements
def prefetch(ds, buffer_size):
    """TensorFlow's PrefetchDataset: a background thread keeps up to buffer_size elements ready
    (AUTOTUNE: a few), so the consumer does not wait for the pipeline while it computes."""
    size = int(buffer_size)
    if size == AUTOTUNE:
        size = 4
    if size < 0:
        raise InvalidArgumentError(f"buffer_size must be >= 0 or AUTOTUNE (-1), got {size}", "PrefetchDataset")
    if size == 0:
        return ds

    def elements(values):
        yield from _Ahead(ds._elements(values), size, "opforge-prefetch")
    return ds._derive(elements, cardinality=ds._cardinality)
