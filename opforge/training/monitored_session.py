"""tf.train.MonitoredSession and its parts: Scaffold (the ops that make a model ready),
session creators, the hooked session that merges the hooks' fetches into each run, and
MonitoredTrainingSession (a chief that restores, checkpoints, writes summaries and counts steps).

Order of calls, as TensorFlow's: hooks' ``begin``, the graph is finalized, the session is
created (restored or initialized), ``after_create_session``; each run ``before_run`` /
Session.run / ``after_run``; on a clean close ``end``. OutOfRangeError and StopIteration raised
inside ``with MonitoredSession(...)`` end the loop without error."""

from __future__ import annotations

import logging

from ..codegen._proto import config_pb2
from ..framework import errors
from ..framework.collections import GraphKeys
from ..framework.graph import get_default_graph
from ..framework.variables import global_variables_initializer
from . import basic_session_run_hooks as hooks_lib
from .queue_runner import Coordinator, start_queue_runners
from .saver import Saver
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

_log = logging.getLogger("tensorflow")


def _local_init_op(graph):
    """The local variables' initializer grouped with the table initializers."""
    deps = [v.initializer for v in graph.get_collection(GraphKeys.LOCAL_VARIABLES)] + list(graph.get_collection(GraphKeys.TABLE_INITIALIZERS))
    with graph.control_dependencies(deps):
        return graph.create_op("NoOp", [], {}, name="group_deps")


class Scaffold:
    """The ops a MonitoredSession needs (init_op, local_init_op, ready_op, summary_op, saver),
    each taken from its graph collection or made by ``finalize`` when not given."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None, ready_for_local_init_op=None,
                 local_init_op=None, summary_op=None, saver=None, copy_from_scaffold=None,
                 local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op or c.init_op
            init_feed_dict = init_feed_dict or c._init_feed_dict
            init_fn = init_fn or c._user_init_fn
            ready_op = ready_op or c.ready_op
            ready_for_local_init_op = ready_for_local_init_op or c.ready_for_local_init_op
            local_init_op = local_init_op or c.local_init_op
            local_init_feed_dict = local_init_feed_dict or c.local_init_feed_dict
            summary_op = summary_op or c.summary_op
            saver = saver or c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op, self._init_feed_dict = init_op, init_feed_dict
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    def finalize(self):
        """Makes the ops not given (from their collections, else new ones) and finalizes the graph."""
        g = get_default_graph()
        if self._init_op is None:
            ops = g.get_collection(GraphKeys.INIT_OP) if hasattr(GraphKeys, "INIT_OP") else []
            self._init_op = ops[0] if ops else global_variables_initializer(g)
        if self._local_init_op is None:
            self._local_init_op = _local_init_op(g)
        if self._summary_op is None:
            from ..summary.summary_ops import merge_all  # noqa: PLC0415
            self._summary_op = merge_all()
        if self._saver is None:
            savers = g.get_collection(GraphKeys.SAVERS)
            if savers:
                if len(savers) > 1:
                    raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. "
                                       "Please indicate which one to use by passing it to the constructor.")
                self._saver = savers[0]
            else:
                self._saver = Saver(sharded=True, allow_empty=True)
                g.add_to_collection(GraphKeys.SAVERS, self._saver)
        g.finalize()
        return self

    init_fn = property(lambda self: self._init_fn)
    init_op = property(lambda self: self._init_op)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)
    init_feed_dict = property(lambda self: self._init_feed_dict)

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The single element of a collection, or default_constructor()'s, added to it."""
        g = get_default_graph()
        elements = g.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f"More than one item in the collection \"{collection_key}\". Please indicate "
                                   f"which one to use by passing it to the tf.Scaffold constructor as: "
                                   f"tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            g.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        return _local_init_op(get_default_graph())


class SessionCreator:
    """Makes a Session: ``create_session()``."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for {self}.")


class ChiefSessionCreator(SessionCreator):
    """The chief's session: restored from checkpoint_dir's latest checkpoint (or the file
    given), else initialized by the scaffold."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master, self._config = master, config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op, ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path, config=self._config,
            init_op=self._scaffold.init_op, init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(ChiefSessionCreator):
    """A worker's session: waits until the model is ready (max_wait_secs; None: forever)."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        super().__init__(scaffold, master, config)
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config,
            max_wait_secs=self._max_wait_secs if self._max_wait_secs is not None else float("inf"))


def _merge_options(options_list):
    """One RunOptions: the highest trace level and timeout the hooks asked for."""
    merged = config_pb2.RunOptions()
    for o in options_list:
        merged.trace_level = max(merged.trace_level, o.trace_level)
        merged.timeout_in_ms = max(merged.timeout_in_ms, o.timeout_in_ms)
        merged.output_partition_graphs = merged.output_partition_graphs or o.output_partition_graphs
    return merged


class _MonitoredSessionBase:
    """The session, its coordinator and hooks; the public classes differ in what they expose."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph()._finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._session_creator = session_creator
        self._should_recover = should_recover
        self._stop_grace_period_secs = stop_grace_period_secs
        self._stop_requested = False
        self._closed = False
        self._create_session()

    def _create_session(self):
        self._sess = self._session_creator.create_session()
        self.coord = Coordinator()
        self._threads = start_queue_runners(sess=self._sess, coord=self.coord)
        for h in self._hooks:
            h.after_create_session(self._sess, self.coord)

    @property
    def graph(self):
        return self._sess.graph

    def _tf_sess(self):
        return self._sess

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs fetches with the hooks' fetches, feeds and options merged in; re-creates the
        session after an AbortedError or UnavailableError (when recovering)."""
        while True:
            try:
                return self._hooked_run(fetches, feed_dict, options, run_metadata)
            except (errors.AbortedError, errors.UnavailableError):
                if not self._should_recover:
                    raise
                _log.info("An error was raised; the session is being re-created.")
                self._close_sess()
                self._create_session()

    def _hooked_run(self, fetches, feed_dict, options, run_metadata):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        actual_fetches = {"caller": fetches}
        feed_dict = dict(feed_dict or {})
        options_list = [options] if options is not None else []
        for i, hook in enumerate(self._hooks):
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                actual_fetches[i] = request.fetches
            for key, value in (request.feed_dict or {}).items():
                if key in feed_dict:
                    raise RuntimeError(f"Same tensor is fed by a SessionRunHook and user. Conflict(s): {[key]}")
                feed_dict[key] = value
            if request.options is not None:
                options_list.append(request.options)
        merged = _merge_options(options_list) if options_list else None
        metadata = run_metadata
        if metadata is None and merged is not None and merged.trace_level:
            metadata = config_pb2.RunMetadata()
        outputs = self._sess.run(actual_fetches, feed_dict=feed_dict or None, options=merged, run_metadata=metadata)
        for i, hook in enumerate(self._hooks):
            hook.after_run(run_context, SessionRunValues(results=outputs.get(i), options=merged,
                                                         run_metadata=metadata))
        self._stop_requested = self._stop_requested or run_context.stop_requested
        return outputs["caller"]

    def run_step_fn(self, step_fn):
        """Runs step_fn(step_context): its ``run_with_hooks`` runs with the hooks, its
        ``session`` without them, and ``request_stop()`` ends the loop."""
        ctx = _StepContext(self._sess, self.run)
        try:
            return step_fn(ctx)
        except _StopRequested:
            self._stop_requested = True
            return None

    def should_stop(self):
        return self._closed or self._stop_requested or self.coord.should_stop()

    def _close_sess(self):
        try:
            self.coord.request_stop()
            self.coord.join(self._threads, stop_grace_period_secs=self._stop_grace_period_secs)
        finally:
            self._sess.close()

    def close(self):
        self._close_internal()

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type and not self._closed:
                for h in self._hooks:
                    h.end(self._sess)
        finally:
            if not self._closed:
                self._closed = True
                self._close_sess()
                if not self._graph_was_finalized:
                    get_default_graph()._finalized = False

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None


class _StopRequested(Exception):
    pass


class _StepContext:
    """What MonitoredSession.run_step_fn hands step_fn."""

    def __init__(self, session, run_with_hooks_fn):
        self._session, self._run_with_hooks_fn = session, run_with_hooks_fn

    @property
    def session(self):
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        raise _StopRequested


class MonitoredSession(_MonitoredSessionBase):
    """A Session that runs hooks around each run, recovers from AbortedError and closes its
    coordinator's threads (tf.train.MonitoredSession)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator or ChiefSessionCreator(), hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSessionBase):
    """A MonitoredSession for one process (no recovery) whose ``raw_session()`` is the Session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


USE_DEFAULT = object()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None, stop_grace_period_secs=120,
                             log_step_count_steps=100, max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None, save_graph_def=True):
    """A MonitoredSession for training: the chief restores from checkpoint_dir (or
    initializes), and with checkpoint_dir saves checkpoints (every 600 s unless told steps or
    secs), summaries (every 100 steps) and the step rate (every log_step_count_steps)."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    all_hooks = []
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=list(hooks or []),
                                stop_grace_period_secs=stop_grace_period_secs)
    if chief_only_hooks:
        all_hooks.extend(chief_only_hooks)
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                        save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_lib.CheckpointSaverHook(
                checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs, scaffold=scaffold,
                save_graph_def=save_graph_def))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)


__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator", "MonitoredSession",
           "SingularMonitoredSession", "MonitoredTrainingSession"]
