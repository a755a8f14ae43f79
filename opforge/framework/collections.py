"""The names of the graph's standard collections (TensorFlow's tf.GraphKeys), defined once.

Every module that reads or fills a standard collection takes its name from here; the
module-level constants are the names opforge's own modules use.
"""

from __future__ import annotations


class GraphKeys:
    """The standard collection names (tf.GraphKeys)."""

    GLOBAL_VARIABLES = VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


GLOBAL_VARIABLES = GraphKeys.GLOBAL_VARIABLES
TRAINABLE_VARIABLES = GraphKeys.TRAINABLE_VARIABLES
LOCAL_VARIABLES = GraphKeys.LOCAL_VARIABLES
METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES
SUMMARIES = GraphKeys.SUMMARIES
QUEUE_RUNNERS = GraphKeys.QUEUE_RUNNERS
REGULARIZATION_LOSSES = GraphKeys.REGULARIZATION_LOSSES
UPDATE_OPS = GraphKeys.UPDATE_OPS
LOSSES = GraphKeys.LOSSES
GLOBAL_STEP = GraphKeys.GLOBAL_STEP
