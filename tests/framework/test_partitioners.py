"""Variable partitioners (opforge/framework/partitioners.py): TensorFlow's partition lists
(the expected lists below are TF 2.21's; checked live where TensorFlow is installed)."""

from __future__ import annotations

import pytest

import opforge as of
from opforge.framework import partitioners as P
from opforge.framework.tensor_shape import TensorShape

CASES = [  # (partitioner, its arguments, shape, dtype, TF's partition list)
    ("fixed_size_partitioner", (4, 0), [10, 3], "float32", [4, 1]),
    ("fixed_size_partitioner", (5, 1), [10, 3], "float32", [1, 3]),
    ("min_max_variable_partitioner", (8, 0, 1024, 16), [1000, 10], "float32", [8, 1]),
    ("min_max_variable_partitioner", (3, 1, 100, 16), [7, 50], "string", [1, 3]),
    ("variable_axis_size_partitioner", (4096, 0, 16, None), [1000, 10], "float32", [10, 1]),
    ("variable_axis_size_partitioner", (100, 1, 16, 3), [4, 40], "float64", [1, 3]),
    ("variable_axis_size_partitioner", (500, 0, 16, None), [30, 4], "string", [5, 1]),
]


@pytest.mark.parametrize("name,args,shape,dtype,expected", CASES)
def test_partition_lists_are_tensorflows(name, args, shape, dtype, expected):
    assert getattr(P, name)(*args)(TensorShape(shape), dtype=of.as_dtype(dtype)) == expected


def test_partition_lists_match_tensorflow_live():
    tf = pytest.importorskip("tensorflow")
    for name, args, shape, dtype, _ in CASES:
        theirs = getattr(tf.compat.v1, name)(*args)(tf.TensorShape(shape), dtype=tf.as_dtype(dtype))
        assert getattr(P, name)(*args)(TensorShape(shape), dtype=of.as_dtype(dtype)) == theirs, name


def test_bad_arguments_raise_as_tensorflow():
    with pytest.raises(ValueError, match="min_slice_size must be positive"):
        P.min_max_variable_partitioner(min_slice_size=0)
    with pytest.raises(ValueError, match="must be positive"):
        P.variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        P.variable_axis_size_partitioner(10, max_shards=-1)
    with pytest.raises(ValueError, match="shape is not fully defined"):
        P.variable_axis_size_partitioner(10)(TensorShape([None, 3]), of.float32)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        P.min_max_variable_partitioner(axis=2)(TensorShape([3, 3]), of.float32)
