"""tf.feature_column (TensorFlow 1's feature columns) over opforge's ops: columns.py (numeric and
categorical columns) and layers.py (indicator/embedding columns, input_layer, linear_model)."""

from .columns import (  # noqa: F401
    bucketized_column, categorical_column_with_hash_bucket, categorical_column_with_identity,
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list, crossed_column,
    numeric_column, weighted_categorical_column,
)
from .layers import (  # noqa: F401
    embedding_column, indicator_column, input_layer, linear_model, make_parse_example_spec, shared_embedding_columns,
)
