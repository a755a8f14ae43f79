"""The queue-runner era's helpers: tf.train.Coordinator, QueueRunner (threads that run a
queue's enqueue ops, data/queues.py, until it is closed or the coordinator stops),
add_queue_runner and start_queue_runners. The emulated producers of data/input_pipeline.py
(string_input_producer, readers, batch) need no threads and add no runners."""

from __future__ import annotations

import contextlib
import threading

from ..framework.collections import QUEUE_RUNNERS
from ..framework.errors import CancelledError, OutOfRangeError
from ..framework.graph import get_default_graph


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


class QueueRunner:
    """Runs ``enqueue_ops`` (one thread each) in a loop; when they report the queue closed
    (OutOfRangeError, CancelledError) the last thread runs ``close_op``; when the coordinator
    stops, ``cancel_op`` closes the queue, cancelling blocked enqueues."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None, queue_closed_exception_types=None,
                 queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunner(queue_runner_def=...): opforge's queues have no QueueRunnerDef")
        del import_scope
        if queue is None or not enqueue_ops:
            raise ValueError("Queue and enqueue_ops must be specified")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(queue_closed_exception_types or (OutOfRangeError, CancelledError))
        self._lock = threading.Lock()
        self._runs_per_session: dict = {}
        self._exceptions_raised: list = []

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)
    exceptions_raised = property(lambda self: self._exceptions_raised)
    name = property(lambda self: self._queue.name)

    def _run(self, sess, enqueue_op, coord=None):
        decremented = False
        try:
            while True:
                if coord is not None and coord.should_stop():
                    break
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception:  # noqa: BLE001,S110 (the session may be closing)
                                pass
                    return
        except Exception as e:  # noqa: BLE001
            if coord is not None:
                coord.request_stop(e)
            else:
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception:  # noqa: BLE001,S110 (the session may be closed already)
            pass

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The threads running the enqueue ops in sess (and, with coord, one closing the
        queue when it stops); none while this runner's threads still run in sess."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord)) for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord)))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            t.daemon = daemon
            if start:
                t.start()
        return threads


def add_queue_runner(qr, collection=QUEUE_RUNNERS):
    """Adds qr to the graph's queue runners (started by start_queue_runners)."""
    get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=QUEUE_RUNNERS):
    """Starts the threads of the graph's queue runners in sess (the default session);
    returns them."""
    if sess is None:
        from ..framework.default_session import get_default_session  # noqa: PLC0415
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    threads = []
    for qr in sess.graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
