"""TensorFlow 1's tf.feature_column namespace, backed by opforge.feature_column."""

from __future__ import annotations

from opforge import feature_column as _fc
from opforge.compat._namespace import Namespace

__all__ = ["feature_column"]

feature_column = Namespace("feature_column", {n: getattr(_fc, n) for n in (
    "bucketized_column", "categorical_column_with_hash_bucket", "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list", "crossed_column",
    "embedding_column", "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
    "numeric_column", "shared_embedding_columns", "weighted_categorical_column")})
