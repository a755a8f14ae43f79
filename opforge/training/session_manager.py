"""tf.train.SessionManager: makes a Session whose model is ready, restoring it from the
latest checkpoint when there is one, else running the init op; then the local init op.

Readiness: TensorFlow's default ready op reports uninitialized variables with
IsVariableInitialized; opforge checks the same thing by reading the global variables (a read
of an uninitialized one fails with FailedPreconditionError). A ready_op given is run instead:
the model is ready when it returns an empty list of names."""

from __future__ import annotations

import time

import numpy as np

from ..framework.errors import FailedPreconditionError
from ..framework.graph import get_default_graph
from ..framework.session import Session
from ..framework.variables import global_variables
from .saver import get_checkpoint_state, latest_checkpoint


def _model_ready(sess, ready_op):
    """(ready, message)."""
    if ready_op is not None:
        names = np.asarray(sess.run(ready_op)).ravel()
        if names.size == 0:
            return True, None
        return False, "Variables not initialized: " + ", ".join(n.decode() if isinstance(n, bytes) else str(n)
                                                                 for n in names)
    variables = global_variables(sess.graph)
    if not variables:
        return True, None
    try:
        sess.run([v.value() for v in variables])
    except FailedPreconditionError as e:
        return False, str(e)
    return True, None


class SessionManager:
    """Creates sessions for training: ``prepare_session`` (the chief: restore or initialize),
    ``recover_session`` (restore only) and ``wait_for_session`` (until the model is ready)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        self._target = None

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        self._target = master
        sess = Session(master, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if saver is None or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if not wait_for_checkpoint or wait_time >= max_wait_secs:
                return sess, False
            time.sleep(self._recovery_wait_secs)
            wait_time += self._recovery_wait_secs
            ckpt = get_checkpoint_state(checkpoint_dir)
        saver.restore(sess, latest_checkpoint(checkpoint_dir))
        return sess, True

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        if self._ready_for_local_init_op is not None:
            ready, msg = _model_ready(sess, self._ready_for_local_init_op)
            if not ready:
                return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict, options=self._local_init_run_options)
        return True, None

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """A Session restored from the checkpoint (checkpoint_dir's latest or the file given)
        or, without one, initialized by init_op / init_fn; then the local init op. Raises
        RuntimeError when the model is still not ready."""
        sess, is_loaded = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                   wait_for_checkpoint, max_wait_secs, config)
        if not is_loaded:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  Init op: "
                               f"{getattr(init_op, 'name', init_op)}, init fn: {init_fn}, error: {msg}")
        is_ready, msg = _model_ready(sess, self._ready_op)
        if not is_ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: "
                               f"{getattr(init_op, 'name', init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{getattr(self._local_init_op, 'name', None)}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(session, restored): the session is ready when it was restored from a checkpoint."""
        sess, is_loaded = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                   wait_for_checkpoint, max_wait_secs, config)
        local_init_success, _ = self._try_run_local_init_op(sess)
        if not is_loaded or not local_init_success:
            return sess, False
        is_ready, _ = _model_ready(sess, self._ready_op)
        return sess, is_ready

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A Session whose model is ready, retrying every recovery_wait_secs until max_wait_secs
        (then None). opforge's sessions do not share variables between processes, so a
        session is ready here only when its ready check passes after the local init op."""
        self._target = master
        deadline = time.time() + max_wait_secs
        while True:
            sess = Session(master, graph=self._graph, config=config)
            local_init_success, _ = self._try_run_local_init_op(sess)
            if local_init_success and _model_ready(sess, self._ready_op)[0]:
                return sess
            sess.close()
            if time.time() + self._recovery_wait_secs > deadline:
                return None
            time.sleep(self._recovery_wait_secs)
