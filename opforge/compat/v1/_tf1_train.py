"""TensorFlow 1's tf.train names for the managed training loop (opforge/training:
MonitoredSession, Scaffold, session creators and managers, the SessionRunHook API and hooks)."""

from __future__ import annotations

from opforge import training as _training
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
