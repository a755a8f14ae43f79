"""TensorFlow 1's runtime helpers opforge has: the variable partitioners (partition lists, as
TensorFlow computes them) and the tensor-conversion registry."""

from __future__ import annotations

from opforge.framework.partitioners import (  # noqa: F401
    fixed_size_partitioner, min_max_variable_partitioner, variable_axis_size_partitioner)
from opforge.framework.tensor_conversion_registry import register_tensor_conversion_function  # noqa: F401

__all__ = ["fixed_size_partitioner", "min_max_variable_partitioner", "variable_axis_size_partitioner",
           "register_tensor_conversion_function"]
