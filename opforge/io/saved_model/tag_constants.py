"""Tags that name a SavedModel's MetaGraphDefs (tf.saved_model.tag_constants)."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"
