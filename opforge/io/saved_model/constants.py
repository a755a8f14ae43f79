"""Names in a SavedModel directory and in its MetaGraphDefs, as TensorFlow spells them
(tensorflow/python/saved_model/constants.py)."""

from ...framework.collections import GraphKeys

ASSETS_DIRECTORY = "assets"
EXTRA_ASSETS_DIRECTORY = "assets.extra"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PREFIX = "saved_model"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_CPB = "saved_model.cpb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
# File names that equal a collection name (annotated: they are not collection keys).
VARIABLES_DIRECTORY: str = "variables"
VARIABLES_FILENAME: str = "variables"
ASSET_FILEPATHS_KEY = GraphKeys.ASSET_FILEPATHS
