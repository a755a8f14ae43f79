"""``of.train``: TensorFlow 1's ``tf.train`` namespace.

It defines nothing itself: optimizers, learning-rate schedules, the global step, the
queue-runner helpers, checkpoints (saver) and, from io/, MetaGraph and GraphDef files and the
tf.train.Example messages.
"""

from ..io.example import (
    BytesList, Example, Feature, FeatureList, FeatureLists, Features, FloatList, Int64List, SequenceExample,
)
from ..io.graph_io import read_graph, write_graph
from ..io.meta_graph import export_meta_graph
from .learning_rate_decay import (
    cosine_decay, cosine_decay_restarts, exponential_decay, inverse_time_decay, linear_cosine_decay, natural_exp_decay,
    noisy_linear_cosine_decay, piecewise_constant, polynomial_decay,
)
from .moving_averages import ExponentialMovingAverage
from .checkpoint_management import checkpoints_iterator, get_checkpoint_mtimes, remove_checkpoint
from .optimizers import (
    AdadeltaOptimizer, AdagradOptimizer, AdamOptimizer, FtrlOptimizer, GradientDescentOptimizer, MomentumOptimizer,
    Optimizer, RMSPropOptimizer,
)
from .proximal_optimizers import AdagradDAOptimizer, ProximalAdagradOptimizer, ProximalGradientDescentOptimizer
from .queue_runner import Coordinator, QueueRunner, add_queue_runner, start_queue_runners
from .basic_session_run_hooks import (
    CheckpointSaverHook, CheckpointSaverListener, FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, LoggingTensorHook,
    NanLossDuringTrainingError, NanTensorHook, ProfilerHook, SecondOrStepTimer, StepCounterHook, StopAtStepHook,
    SummarySaverHook,
)
from .looper import LooperThread, basic_train_loop
from .monitored_session import (
    ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold, SessionCreator,
    SingularMonitoredSession, WorkerSessionCreator,
)
from .session_manager import SessionManager
from .supervisor import Supervisor
from .server_lib import ClusterDef, ClusterSpec, JobDef, ServerDef, replica_device_setter
from .warm_start import VocabInfo, init_from_checkpoint, warm_start
from ..summary.summary_iterator import summary_iterator
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues
from .saver import (
    CheckpointReader, NewCheckpointReader, Saver, checkpoint_exists, generate_checkpoint_state_proto,
    get_checkpoint_state, import_meta_graph,
    latest_checkpoint, list_variables, load_checkpoint, load_variable, update_checkpoint_state,
)
from .training_util import (
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step, global_step,
)

__all__ = [
    "BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List",
    "SequenceExample",
    "AdadeltaOptimizer", "AdagradOptimizer", "AdamOptimizer", "CheckpointReader", "Coordinator", "FtrlOptimizer",
    "GradientDescentOptimizer", "MomentumOptimizer", "NewCheckpointReader", "Optimizer", "RMSPropOptimizer", "Saver",
    "checkpoint_exists", "cosine_decay", "create_global_step", "exponential_decay", "export_meta_graph",
    "get_checkpoint_state", "get_global_step", "get_or_create_global_step", "global_step", "import_meta_graph",
    "inverse_time_decay", "latest_checkpoint", "list_variables", "load_checkpoint", "load_variable",
    "natural_exp_decay", "piecewise_constant", "polynomial_decay", "read_graph", "start_queue_runners",
    "update_checkpoint_state", "write_graph", "cosine_decay_restarts", "linear_cosine_decay", "ExponentialMovingAverage",
    "checkpoints_iterator", "get_checkpoint_mtimes", "remove_checkpoint", "generate_checkpoint_state_proto",
    "assert_global_step",
    "CheckpointSaverHook", "CheckpointSaverListener", "FeedFnHook", "FinalOpsHook", "GlobalStepWaiterHook",
    "LoggingTensorHook", "NanLossDuringTrainingError", "NanTensorHook", "ProfilerHook", "SecondOrStepTimer",
    "StepCounterHook", "StopAtStepHook", "SummarySaverHook", "LooperThread", "basic_train_loop",
    "ChiefSessionCreator", "MonitoredSession", "MonitoredTrainingSession", "Scaffold", "SessionCreator",
    "SingularMonitoredSession", "WorkerSessionCreator", "SessionManager", "SessionRunArgs", "SessionRunContext",
    "SessionRunHook", "SessionRunValues", "ClusterDef", "ClusterSpec", "JobDef", "ServerDef", "replica_device_setter",
    "VocabInfo", "init_from_checkpoint", "warm_start", "summary_iterator", "noisy_linear_cosine_decay",
    "Supervisor", "QueueRunner", "add_queue_runner",
    "AdagradDAOptimizer", "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer",
]
