"""Ragged tensors (tf.RaggedTensor, tf.ragged): rows of different lengths as flat values and row splits."""

from opforge.ragged.ragged_ops import (  # noqa: F401
    boolean_mask,
    constant,
    constant_value,
    fill_empty_rows,
    fill_empty_rows_grad,
    gather,
    map_flat_values,
    placeholder,
    range,
    stack,
)
from opforge.ragged.ragged_tensor import (  # noqa: F401
    RaggedTensor,
    RaggedTensorSpec,
    RaggedTensorValue,
    is_ragged,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)
