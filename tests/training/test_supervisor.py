"""tf.train.Supervisor, LooperThread and basic_train_loop (opforge/training/supervisor.py, looper.py)."""

from __future__ import annotations

import glob
import os
import threading
import time

import numpy as np
import pytest

import opforge.compat.v1 as tf


def _model():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(np.float32(2.0), name="w")
    loss = tf.square(w)
    tf.summary.scalar("loss", loss)
    return gs, w, tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)


def test_managed_session_saves_restores_and_writes_events(tmp_path):
    logdir = str(tmp_path)
    for run in range(2):
        with tf.Graph().as_default():
            gs, w, train = _model()
            sv = tf.train.Supervisor(logdir=logdir, save_model_secs=3600, save_summaries_secs=3600)
            with sv.managed_session() as sess:
                assert sess.run(gs) == 3 * run  # the second run restores the first one's checkpoint
                # the checkpoint thread saves once at start: wait for it before training on
                first = os.path.join(logdir, f"model.ckpt-{3 * run}")
                deadline = time.time() + 30
                while first not in sv.saver.last_checkpoints and time.time() < deadline:
                    time.sleep(0.01)
                for _ in range(3):
                    sess.run(train)
                sv.saver.save(sess, sv.save_path, global_step=gs)
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-6")
    np.testing.assert_allclose(tf.train.load_variable(logdir, "w"), 2.0 * 0.5 ** 6)
    statuses, tags = [], set()
    for path in glob.glob(os.path.join(logdir, "events.*")):
        for event in tf.train.summary_iterator(path):
            if event.HasField("session_log"):
                statuses.append(event.session_log.status)
            tags |= {v.tag for v in event.summary.value}
    # the services ran at once when started: a checkpoint, the summaries, the step rate
    assert {"loss", "global_step/sec"} <= tags
    assert statuses.count(tf.SessionLog.START) == 2 and statuses.count(tf.SessionLog.STOP) == 2
    assert tf.SessionLog.CHECKPOINT in statuses
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))


def test_managed_session_exceptions():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        x = tf.data.make_one_shot_iterator(ds).get_next()
        sv = tf.train.Supervisor()
        seen = []
        with sv.managed_session() as sess:  # OutOfRangeError ends the block cleanly
            while not sv.should_stop():
                seen.append(int(sess.run(x)))
        assert seen == [0, 1, 2]
        with pytest.raises(ZeroDivisionError):
            with sv.managed_session():
                raise ZeroDivisionError


def test_basic_train_loop_and_looper_thread():
    with tf.Graph().as_default():
        v = tf.Variable(0, name="v")
        inc = tf.assign_add(v, 1)
        sv = tf.train.Supervisor()
        def step(sess, limit):
            if sess.run(inc) >= limit:
                sv.request_stop()
        tf.train.basic_train_loop(sv, step, args=(4,))
    coord = tf.train.Coordinator()
    calls, done = [], threading.Event()

    def target(n):
        calls.append(n)
        if len(calls) == 3:
            done.set()
            coord.request_stop()
    tf.train.LooperThread.loop(coord, None, target, args=(1,))
    coord.join(stop_grace_period_secs=10)
    assert done.is_set() and calls == [1, 1, 1]
    with pytest.raises(ValueError, match="Coordinator"):
        tf.train.LooperThread(None, 1)
