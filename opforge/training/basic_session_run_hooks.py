"""The hooks of TensorFlow 1's tf.train (basic_session_run_hooks): stop at a step, log
tensors, save checkpoints and summaries, count steps, stop on NaN, feed, run final ops, wait
for a step, profile; and SecondOrStepTimer, which says when a hook's every-N fires."""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from ..codegen._proto import config_pb2, event_pb2, summary_pb2
from ..framework.graph import get_default_graph
from ..summary.writer_cache import FileWriterCache
from .session_run_hook import SessionRunArgs, SessionRunHook
from .training_util import get_global_step

_log = logging.getLogger("tensorflow")


class SecondOrStepTimer:
    """Fires every ``every_secs`` seconds or every ``every_steps`` steps (exactly one of them)."""

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("exactly one of every_secs and every_steps should be provided.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        """Whether step is due: the first one always, the same step never again."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Records a firing at step; returns (seconds, steps) since the last one, or (None, None)."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time, self._last_triggered_step = now, step
        return elapsed

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(SecondOrStepTimer):
    """A timer that never fires."""

    def __init__(self):  # noqa: D107 (no period to check)
        self.reset()

    def should_trigger_for_step(self, step):
        return False


def _global_step_tensor(hook_name):
    gs = get_global_step()
    if gs is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return gs


def _as_graph_element(obj):
    return get_default_graph().as_graph_element(obj) if isinstance(obj, str) else obj


class StopAtStepHook(SessionRunHook):
    """Requests a stop after ``num_steps`` more steps or at global step ``last_step`` (one of them)."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("num_steps must be positive.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._global_step_tensor = _global_step_tensor("StopAtStepHook")

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        if self._last_step is None:
            self._last_step = global_step + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # the step read before the run may be stale: read it again
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


class LoggingTensorHook(SessionRunHook):
    """Logs the values of ``tensors`` (a dict tag -> tensor or name, or a list) every
    ``every_n_iter`` runs or ``every_n_secs`` seconds, and/or ``at_end``."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors)
        self._tensors = tensors
        self._formatter = formatter
        self._timer = NeverTriggerTimer() if only_log_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter:
            _log.info(self._formatter(tensor_values))
        else:
            stats = ", ".join(f"{tag} = {tensor_values[tag]}" for tag in self._tag_order)
            if elapsed_secs is not None:
                _log.info("%s (%.3f sec)", stats, elapsed_secs)
            else:
                _log.info("%s", stats)
        np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class CheckpointSaverListener:
    """Called around the saves of a CheckpointSaverHook; ``after_save`` returning True stops training."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint in ``checkpoint_dir`` every ``save_secs`` seconds or ``save_steps``
    steps, when the session is created and when it ends; the saver is ``saver``, or the
    scaffold's, or the graph's SAVERS collection's."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None, save_graph_def=True):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def

    def begin(self):
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_tensor("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            from ..io.graph_io import write_graph  # noqa: PLC0415
            write_graph(get_default_graph(), self._checkpoint_dir, "graph.pbtxt")
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(run_values.results + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection("savers")
        if len(savers) != 1:
            raise RuntimeError(f"There should be exactly one saver in the SAVERS collection; found {len(savers)}")
        return savers[0]

    def _save(self, session, step):
        """Saves at step; whether a listener asked to stop."""
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            event_pb2.SessionLog(status=event_pb2.SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        self._summary_writer.flush()
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                should_stop = True
        return should_stop


class StepCounterHook(SessionRunHook):
    """Writes the training speed (summary ``global_step/sec``) every N steps or seconds."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer, self._output_dir = summary_writer, output_dir
        self._summary_tag = "global_step/sec"

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_tensor("StepCounterHook")

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results + 1
        if self._timer.should_trigger_for_step(global_step):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    steps_per_sec = elapsed_steps / elapsed_time
                    if self._summary_writer is not None:
                        summary = summary_pb2.Summary(
                            value=[summary_pb2.Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
                        self._summary_writer.add_summary(summary, global_step)
                    _log.info("%s: %g", self._summary_tag, steps_per_sec)


class SummarySaverHook(SessionRunHook):
    """Writes the summaries of ``summary_op`` (or the scaffold's) every N steps or seconds."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op, self._scaffold = summary_op, scaffold
        self._summary_writer, self._output_dir = summary_writer, output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_tensor("SummarySaverHook")

    def _get_summary_op(self):
        op = self._scaffold.summary_op if self._scaffold is not None else self._summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]

    def before_run(self, run_context):
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()


class NanLossDuringTrainingError(RuntimeError):
    """The loss a NanTensorHook watches became NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises NanLossDuringTrainingError (or, with fail_on_nan_loss=False, stops) when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor, self._fail_on_nan_loss = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results).any():
            if self._fail_on_nan_loss:
                _log.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            _log.warning("Model diverged with loss = NaN. Requesting stop.")
            run_context.request_stop()


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feed_dict to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops, self._final_ops_feed_dict = final_ops, final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)


class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first run until the global step reaches ``wait_until_step`` (another worker trains)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _global_step_tensor("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        while run_context.session.run(self._global_step_tensor) < self._wait_until_step:
            time.sleep(0.5)
        self._worker_is_started = True
        return None


class ProfilerHook(SessionRunHook):
    """Traces a run every N steps or seconds (RunOptions FULL_TRACE) and writes its Chrome
    trace to ``output_dir/timeline-<step>.json`` (opforge.timeline)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir) if output_dir else None
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_tensor("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            from ..framework.timeline import Timeline  # noqa: PLC0415
            trace = Timeline(run_values.run_metadata.step_stats).generate_chrome_trace_format(
                show_dataflow=self._show_dataflow, show_memory=self._show_memory)
            with open(self._output_file.format(global_step), "w") as f:
                f.write(trace)
            if self._file_writer is not None:
                self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}", global_step)
        self._next_step = global_step + 1
