"""TensorFlow 1's tf.train names for the managed training loop (opforge/training:
MonitoredSession, Scaffold, session creators and managers, the SessionRunHook API and hooks)."""

from __future__ import annotations

from opforge import training as _training
from opforge.compat._namespace import Namespace
from opforge.data import queues as _queues
from opforge.training import queue_runner as _qr
from opforge.summary.writer_cache import FileWriterCache  # noqa: F401  (tf.summary.FileWriterCache)

_NAMES = (
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook", "GlobalStepWaiterHook",
    "LoggingTensorHook", "NanLossDuringTrainingError", "NanTensorHook", "ProfilerHook", "SecondOrStepTimer",
    "StepCounterHook", "StopAtStepHook", "SummarySaverHook", "LooperThread", "basic_train_loop",
    "ChiefSessionCreator", "MonitoredSession", "MonitoredTrainingSession", "Scaffold", "SessionCreator",
    "SingularMonitoredSession", "WorkerSessionCreator", "SessionManager", "SessionRunArgs", "SessionRunContext",
    "SessionRunHook", "SessionRunValues", "ClusterDef", "ClusterSpec", "JobDef", "ServerDef", "replica_device_setter",
    "VocabInfo", "init_from_checkpoint", "warm_start", "summary_iterator", "noisy_linear_cosine_decay",
    "Supervisor",
)


def train_names() -> dict:
    """The tf.train names this module adds."""
    return {n: getattr(_training, n) for n in _NAMES}


_QUEUES = ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue")
FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue = (getattr(_queues, n) for n in _QUEUES)
queue = Namespace("queue", {n: getattr(_queues, n) for n in _QUEUES})


def queue_names() -> dict:
    """tf.io's and tf.train's queue names (tf.io.FIFOQueue, tf.train.QueueRunner, ...)."""
    return {n: getattr(_queues, n) for n in _QUEUES}


def queue_runner_names() -> dict:
    runner = Namespace("train.queue_runner", QueueRunner=_qr.QueueRunner, add_queue_runner=_qr.add_queue_runner,
                       start_queue_runners=_qr.start_queue_runners)
    return {"QueueRunner": _qr.QueueRunner, "add_queue_runner": _qr.add_queue_runner,
            "start_queue_runners": _qr.start_queue_runners, "queue_runner": runner}
