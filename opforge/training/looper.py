"""tf.train.LooperThread (a thread calling a function periodically until its coordinator
stops) and tf.train.basic_train_loop."""

from __future__ import annotations

import threading
import time


class LooperThread(threading.Thread):
    """Calls ``target(*args, **kwargs)`` (or ``run_loop``) every ``timer_interval_secs``
    seconds (None: back to back) until ``coord`` stops; an exception stops the coordinator."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not coord:
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        self._args, self._kwargs = args or (), kwargs or {}
        coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling target; returns it."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_timer_time - time.time())):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once before the loop."""

    def stop_loop(self):
        """Called once after the loop."""

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls ``train_step_fn(sess, *args, **kwargs)`` in ``supervisor.managed_session(master)``
    until the supervisor should stop."""
    with supervisor.managed_session(master) as sess:
        while not supervisor.should_stop():
            train_step_fn(sess, *(args or ()), **(kwargs or {}))
