"""The SessionRunHook API (tf.train.SessionRunHook, SessionRunArgs, SessionRunContext,
SessionRunValues): what a MonitoredSession calls around each Session.run."""

from __future__ import annotations

import collections


class SessionRunHook:
    """Extends the calls a MonitoredSession makes: ``begin`` (graph still mutable),
    ``after_create_session``, then around every run ``before_run`` (may ask for more fetches,
    feeds, options) and ``after_run`` (sees their results), and ``end`` when the session
    closes without an error."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a Session.run: fetches (any nest Session.run takes), feed_dict
    entries and RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run a hook sees: the fetches and feeds the caller asked for, the session, and
    ``request_stop()`` to end the training loop after this run."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """What a hook's fetches returned, with the RunOptions used and the RunMetadata filled."""
