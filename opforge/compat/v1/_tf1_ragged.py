"""TensorFlow 1's names for ragged tensors (tf.RaggedTensor, tf.RaggedTensorSpec, tf.ragged,
tf.ragged_fill_empty_rows), tf.strings' Unicode ops and tf.strings.format, backed by opforge.ragged,
opforge.ops.unicode_ops and opforge.ops.format_ops; this file only spells them. Imported after
_tf1_strings, whose tf.strings it extends."""

from __future__ import annotations

from opforge.compat._namespace import Namespace, in_default_graph
from opforge.compat.v1 import _tf1_strings
from opforge.ops import unicode_ops as _unicode
from opforge.ops.format_ops import format as _format
from opforge.ragged import ragged_ops as _ragged_ops
from opforge.ragged.ragged_tensor import (
    RaggedTensor,
    RaggedTensorSpec,
    RaggedTensorValue,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__ = ["RaggedTensor", "RaggedTensorSpec", "ragged", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]

_RAGGED_NAMES = ("constant", "constant_value", "range", "stack", "boolean_mask", "gather", "map_flat_values",
                 "placeholder")

ragged = Namespace("ragged", {n: getattr(_ragged_ops, n) for n in _RAGGED_NAMES},
                   row_splits_to_segment_ids=row_splits_to_segment_ids,
                   segment_ids_to_row_splits=segment_ids_to_row_splits, RaggedTensorValue=RaggedTensorValue)
ragged_fill_empty_rows = in_default_graph(_ragged_ops.fill_empty_rows)
ragged_fill_empty_rows_grad = in_default_graph(_ragged_ops.fill_empty_rows_grad)

for _name in _unicode.__all__:
    setattr(_tf1_strings.strings, _name, in_default_graph(getattr(_unicode, _name)))
_tf1_strings.strings.format = in_default_graph(_format)
