"""The managed training loop (opforge/training/monitored_session.py and the hooks): TF1-style
loops with MonitoredTrainingSession that checkpoint, restore, write summaries and stop."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _model(lr=0.1):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.float32(3.0), name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return gs, w, loss, train


class _Recorder(tf.train.SessionRunHook):
    def __init__(self, log):
        self.log = log

    def begin(self):
        self.log.append("begin")

    def after_create_session(self, session, coord):
        self.log.append("after_create_session")

    def before_run(self, run_context):
        self.log.append("before_run")
        return tf.train.SessionRunArgs({"gs": tf.train.get_global_step()})

    def after_run(self, run_context, run_values):
        self.log.append(("after_run", int(run_values.results["gs"])))

    def end(self, session):
        self.log.append("end")


def test_train_checkpoint_restore_and_summaries(tmp_path):
    ckpt = str(tmp_path)
    w_value = 3.0
    for run, stop in ((0, 5), (1, 9)):
        log = []
        with tf.Graph().as_default():
            gs, w, loss, train = _model()
            hooks = [tf.train.StopAtStepHook(last_step=stop), _Recorder(log)]
            with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=3,
                                                   save_summaries_steps=2, hooks=hooks) as sess:
                # restored on the second run: it starts from the first run's last step and weight
                assert sess.run(gs) == (0 if run == 0 else 5)
                np.testing.assert_allclose(sess.run(w), w_value, rtol=1e-6)
                while not sess.should_stop():
                    sess.run(train)
            steps = stop - (0 if run == 0 else 5)
            w_value *= 0.8 ** steps  # w -= 0.1 * 2w each step
        # hook calls, in TensorFlow's order; the after_run values are the step read before each run
        assert log[:2] == ["begin", "after_create_session"] and log[-1] == "end"
        runs = log[2:-1]
        assert len(runs) == 2 * (steps + 2)  # the two gs/w reads run with hooks too
        assert all(runs[i] == "before_run" and runs[i + 1][0] == "after_run" for i in range(0, len(runs), 2))
        assert [r[1] for r in runs[5::2]] == list(range(stop - steps, stop))
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-9")
    assert {os.path.basename(p) for p in glob.glob(os.path.join(ckpt, "model.ckpt-*.index"))} >= {
        "model.ckpt-0.index", "model.ckpt-3.index", "model.ckpt-5.index", "model.ckpt-8.index", "model.ckpt-9.index"}
    np.testing.assert_allclose(tf.train.load_variable(ckpt, "w"), w_value, rtol=1e-5)
    assert os.path.exists(os.path.join(ckpt, "graph.pbtxt"))
    # summaries: the loss every 2 steps, START and CHECKPOINT session logs
    losses, statuses = {}, []
    for path in sorted(glob.glob(os.path.join(ckpt, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            if event.HasField("session_log"):
                statuses.append(event.session_log.status)
            for v in event.summary.value:
                if v.tag == "loss":
                    losses[event.step] = v.simple_value
    assert tf.SessionLog.CHECKPOINT in statuses and tf.SessionLog.START in statuses
    # as TensorFlow's hook: the first hooked run (the gs read) writes at step 0, then the runs
    # the 2-step timer picks, at the step they leave (step 1: the loss before the first update)
    assert sorted(losses)[:4] == [0, 1, 3, 5]
    np.testing.assert_allclose([losses[0], losses[1], losses[3]], [9.0, 9.0, 9.0 * 0.64 ** 2], rtol=1e-5)


def test_out_of_range_ends_the_loop_and_final_ops(tmp_path):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.arange(4, dtype=np.float32))
        x = tf.data.make_one_shot_iterator(ds).get_next()
        total = tf.Variable(0.0)
        add = tf.assign_add(total, x)
        final = tf.train.FinalOpsHook(total.value())
        seen = []
        with tf.train.SingularMonitoredSession(hooks=[final]) as sess:
            while not sess.should_stop():
                seen.append(float(sess.run(add)))
        assert seen == [0.0, 1.0, 3.0, 6.0]
        assert final.final_ops_values == 6.0
        assert sess.should_stop()


def test_nan_hook_feed_fn_and_logging(tmp_path, caplog):
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [])
        loss = tf.log(x)
        feeds = iter([4.0, 1.0, -1.0])
        hooks = [tf.train.FeedFnHook(lambda: {x: next(feeds)}), tf.train.NanTensorHook(loss),
                 tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)]
        with caplog.at_level("INFO", logger="tensorflow"):
            with pytest.raises(tf.train.NanLossDuringTrainingError):
                with tf.train.MonitoredSession(hooks=hooks) as sess:
                    while not sess.should_stop():
                        sess.run(loss)
        assert "loss = 0.0" in caplog.text and "loss = 1.38" in caplog.text
        # fail_on_nan_loss=False requests a stop instead
        feeds = iter([1.0, -1.0, 2.0])
        with tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(lambda: {x: next(feeds)}),
                                              tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
            n = 0
            while not sess.should_stop():
                sess.run(loss)
                n += 1
        assert n == 2


def test_conflicting_feed_and_run_after_stop():
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [])
        y = x * 2.0
        with tf.train.MonitoredSession(hooks=[tf.train.FeedFnHook(lambda: {x: 1.0})]) as sess:
            with pytest.raises(RuntimeError, match="Same tensor is fed"):
                sess.run(y, feed_dict={x: 2.0})
            assert sess.run(y) == 2.0


def test_step_counter_and_profiler(tmp_path):
    with tf.Graph().as_default():
        gs, _, _, train = _model()
        hooks = [tf.train.StepCounterHook(every_n_steps=2, output_dir=str(tmp_path)),
                 tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path)),
                 tf.train.StopAtStepHook(num_steps=4)]
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            while not sess.should_stop():
                sess.run(train)
    assert glob.glob(os.path.join(tmp_path, "timeline-*.json"))
    tf.summary.FileWriterCache.get(str(tmp_path)).flush()
    tags = {v.tag for p in glob.glob(os.path.join(tmp_path, "events.*")) for e in tf.train.summary_iterator(p)
            for v in e.summary.value}
    assert "global_step/sec" in tags


def test_checkpoint_listener_and_scaffold_init_fn(tmp_path):
    calls = []

    class Listener(tf.train.CheckpointSaverListener):
        def before_save(self, session, global_step_value):
            calls.append(("before", int(global_step_value)))

        def after_save(self, session, global_step_value):
            calls.append(("after", int(global_step_value)))
            return global_step_value >= 2  # stops training

    with tf.Graph().as_default():
        gs, w, _, train = _model()
        set_w = tf.assign(w, 5.0).op
        scaffold = tf.train.Scaffold(init_fn=lambda scaffold, sess: sess.run(set_w))
        hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, scaffold=scaffold, listeners=[Listener()])
        with tf.train.MonitoredSession(tf.train.ChiefSessionCreator(scaffold=scaffold), hooks=[hook]) as sess:
            assert sess.run(w) == 5.0
            while not sess.should_stop():
                sess.run(train)
            with pytest.raises(RuntimeError, match="should_stop"):
                sess.run(gs)
    assert calls == [("before", 0), ("after", 0), ("before", 2), ("after", 2)]


def test_timer_and_hook_argument_errors():
    with pytest.raises(ValueError, match="exactly one"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="num_steps or last_step"):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)
    with pytest.raises(ValueError, match="at_end"):
        tf.train.LoggingTensorHook({"a": "a:0"})
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)
    assert timer.update_last_triggered_step(0) == (None, None)
    assert not timer.should_trigger_for_step(0) and not timer.should_trigger_for_step(2)
    assert timer.should_trigger_for_step(3)
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="Global step should be created"):
            tf.train.StopAtStepHook(num_steps=1).begin()


def test_session_manager_prepare_and_recover(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(3, dtype=np.float32))
        saver = tf.train.Saver()
        sm = tf.train.SessionManager()
        with pytest.raises(RuntimeError, match="Init operations did not make model ready"):
            sm.prepare_session("", init_op=tf.no_op())
        sess = sm.prepare_session("", init_op=tf.global_variables_initializer())
        saver.save(sess, os.path.join(tmp_path, "m"))
        sess2, restored = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
        assert restored
        np.testing.assert_array_equal(sess2.run(v), [0, 1, 2])
        _, restored = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path / "none"))
        assert not restored
