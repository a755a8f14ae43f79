"""tf.train.Supervisor: TensorFlow 1's older managed training loop. It gathers the ops a
model needs (init, local init, saver, summary, global step), makes a ready session
(restored from logdir's latest checkpoint or initialized) and, on the chief, runs the standard
services as LooperThreads under its Coordinator: a checkpoint every save_model_secs, the
summaries and the step rate every save_summaries_secs."""

from __future__ import annotations

import contextlib
import logging
import os
import time

from ..codegen._proto import event_pb2, summary_pb2
from ..framework.collections import GraphKeys
from ..framework.graph import get_default_graph
from ..framework.variables import global_variables, global_variables_initializer
from ..summary.writer import FileWriter
from .looper import LooperThread
from .monitored_session import _local_init_op
from .queue_runner import Coordinator, start_queue_runners
from .saver import Saver
from .session_manager import SessionManager
from .training_util import global_step as _read_global_step

_log = logging.getLogger("tensorflow")
SessionLog = event_pb2.SessionLog


class Supervisor:
    """A training helper (tf.train.Supervisor): ``managed_session()`` yields a ready session,
    runs the standard services on the chief and stops them (and writes STOP) when the block
    ends; OutOfRangeError ends the block cleanly, other exceptions are re-raised."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        self._graph = graph if graph is not None else get_default_graph()
        d = Supervisor.USE_DEFAULT
        with self._graph.as_default():
            # opforge's readiness check reads the variables (session_manager.py): no ready op by default
            self._ready_op = None if ready_op is d else ready_op
            self._ready_for_local_init_op = None if ready_for_local_init_op is d else ready_for_local_init_op
            self._is_chief = is_chief
            self._coord = Coordinator()
            self._recovery_wait_secs = recovery_wait_secs
            self._stop_grace_secs = stop_grace_secs
            self._init_fn = init_fn
            self._local_init_run_options = local_init_run_options
            self._started_threads = []
            self._logdir = logdir
            self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
            if summary_writer is d:
                summary_writer = FileWriter(logdir) if is_chief and logdir else None
            self._summary_writer = summary_writer
            self._graph_added_to_summary = False
            self._init_session_manager(session_manager)
            self._init_global_step(global_step)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
            if self._session_manager is None:
                self._session_manager = SessionManager(
                    local_init_op=self._local_init_op, ready_op=self._ready_op,
                    ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
                    recovery_wait_secs=self._recovery_wait_secs, local_init_run_options=local_init_run_options)
        self._graph.finalize()

    # ---- the ops, from their collections or made
    def _first(self, key):
        items = self._graph.get_collection(key)
        return items[0] if items else None

    def _init_session_manager(self, session_manager):
        self._session_manager = session_manager

    def _init_global_step(self, global_step):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                try:
                    global_step = self._graph.as_graph_element("global_step:0")
                except (KeyError, ValueError):
                    global_step = None
        self._global_step = global_step

    def _init_init_op(self, init_op, init_feed_dict):
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._first(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = global_variables_initializer(self._graph)
                self._graph.add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op, self._init_feed_dict = init_op, init_feed_dict

    def _init_local_init_op(self, local_init_op):
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._first(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                local_init_op = _local_init_op(self._graph)
                self._graph.add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver):
        if saver is Supervisor.USE_DEFAULT:
            saver = self._first(GraphKeys.SAVERS)
            if saver is None and global_variables(self._graph):
                saver = Saver()
                self._graph.add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op):
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._first(GraphKeys.SUMMARY_OP)
            if summary_op is None:
                from ..summary.summary_ops import merge_all  # noqa: PLC0415
                summary_op = merge_all()
        self._summary_op = summary_op

    # ---- properties
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)
    is_chief = property(lambda self: self._is_chief)

    def _write_graph(self):
        if self._is_chief and self._logdir:
            from ..io.graph_io import write_graph  # noqa: PLC0415
            write_graph(self._graph, self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    # ---- sessions and services
    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """The chief's session (restored from logdir or initialized; the standard services
        started), or a worker's once its model is ready."""
        self._coord.clear_stop()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            self.start_queue_runners(sess)
        return sess

    def start_standard_services(self, sess):
        """Starts the checkpoint, summary and step-counter threads (chief only); returns them."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief "
                               "supervisors can write events.")
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        if self._global_step is not None and self._summary_writer:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 _read_global_step(sess, self._global_step))
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        self._started_threads.extend(threads)
        return threads

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the graph's queue runners (or those given) under the coordinator."""
        threads = start_queue_runners(sess=sess, coord=self._coord)
        self._started_threads.extend(threads)
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Calls target every timer_interval_secs seconds in a LooperThread until stop."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        self._started_threads.append(looper)
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services and joins their threads (re-raising an exception one reported)."""
        self._coord.request_stop()
        try:
            self._coord.join(list(threads or []) + self._started_threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            self._started_threads = []
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a summary the caller computed, at the global step (read when not given)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = _read_global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """A session for the with block; on leaving it the services stop, and an exception
        raised in the block (other than OutOfRangeError) is re-raised."""
        sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                start_standard_services=start_standard_services)
        try:
            yield sess
        except Exception as e:  # noqa: BLE001  (handed to the coordinator, which re-raises it in stop)
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                sess.close()


class _SummaryThread(LooperThread):
    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._step_counter = step_counter if step_counter is not None else sv.global_step
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = _read_global_step(self._sess, self._step_counter)

    def run_loop(self):
        current_step = _read_global_step(self._sess, self._step_counter)
        added_steps, self._last_step = current_step - self._last_step, current_step
        now = time.time()
        elapsed, self._last_time = now - self._last_time, now
        steps_per_sec = added_steps / elapsed if elapsed > 0 else float("inf")
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=self._summary_tag,
                                                                      simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)


class _CheckpointThread(LooperThread):
    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            step = _read_global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path), step)
