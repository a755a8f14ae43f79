"""SavedModel, TensorFlow's format for shipping a model, both ways (``of.saved_model``).

Writing (TF1's API): ``builder.SavedModelBuilder``, ``simple_save``, ``signature_def_utils``,
``utils.build_tensor_info``, ``tag_constants``, ``signature_constants``. Reading:
``loader.load(sess, tags, export_dir)`` into a Session (TF1's), and ``load(export_dir)``, which
returns a LoadedModel whose signatures are callables (what ``opforge serve`` serves). opforge
reads the SavedModels TensorFlow writes, TF1's and TF2's (function library, resource
variables), and TensorFlow reads the ones opforge writes.
"""

from . import builder, constants, loader, signature_constants, signature_def_utils, tag_constants, utils
from .builder import SavedModelBuilder, simple_save
from .load import LoadedModel, Signature, TensorSpec, load
from .loader import contains_saved_model, maybe_saved_model_directory
from .signature_def_utils import (
    build_signature_def, classification_signature_def, is_valid_signature, predict_signature_def,
    regression_signature_def,
)
from .utils import build_tensor_info, get_tensor_from_tensor_info

Builder = SavedModelBuilder

__all__ = ["builder", "constants", "loader", "signature_constants", "signature_def_utils", "tag_constants", "utils",
           "SavedModelBuilder", "Builder", "simple_save", "load", "LoadedModel", "Signature", "TensorSpec",
           "contains_saved_model", "maybe_saved_model_directory", "build_signature_def",
           "classification_signature_def", "is_valid_signature", "predict_signature_def", "regression_signature_def",
           "build_tensor_info", "get_tensor_from_tensor_info"]
