"""tf.register_tensor_conversion_function (opforge/framework/tensor_conversion_registry.py):
convert_to_tensor and graph construction use the registered functions, by priority."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf
from opforge.framework import tensor_conversion_registry as R


class _Meters:
    def __init__(self, v):
        self.v = v


class _Feet(_Meters):
    pass


def _to_tensor(value, dtype=None, name=None, as_ref=False):
    return of.constant(value.v, dtype=dtype or of.float32)


@pytest.fixture(autouse=True)
def registered():
    """The registrations of these tests, dropped after each (the registry is process-wide)."""
    R.register_tensor_conversion_function(_Meters, _to_tensor)
    R.register_tensor_conversion_function(  # tried first, and declines all but _Feet
        _Meters, lambda v, dtype=None, name=None, as_ref=False: of.constant(0.3048 * v.v) if isinstance(v, _Feet)
        else NotImplemented, priority=10)
    yield
    with R._lock:
        R._registry.clear()
        R._cache.clear()


def test_convert_to_tensor_uses_the_registered_function():
    np.testing.assert_array_equal(of.convert_to_tensor(_Meters([1.0, 2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_allclose(of.convert_to_tensor(_Feet(10.0)).numpy(), 3.048, rtol=1e-6)


def test_graph_ops_take_registered_values():
    with tf.Graph().as_default():
        y = tf.add(_Meters([1.0, 2.0]), 1.0)
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(y), [2.0, 3.0])


def test_registration_errors_are_tensorflows():
    with pytest.raises(TypeError, match="Cannot register conversions for Python numeric types"):
        R.register_tensor_conversion_function(int, _to_tensor)
    with pytest.raises(TypeError, match="must be a type or a tuple of types"):
        R.register_tensor_conversion_function("x", _to_tensor)
    with pytest.raises(TypeError, match="must be callable"):
        R.register_tensor_conversion_function(_Meters, 3)


def test_a_function_returning_a_non_tensor_is_an_error():
    class Odd:
        pass

    R.register_tensor_conversion_function(Odd, lambda v, dtype=None, name=None, as_ref=False: 3)
    with pytest.raises(RuntimeError, match="returned non-Tensor"):
        of.convert_to_tensor(Odd())


def test_none_is_tensorflows_value_error():
    """TF1 programs catch ValueError around convert_to_tensor(None) (TensorFlow's class)."""
    for convert in (of.convert_to_tensor, tf.convert_to_tensor, of.constant):
        with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
            convert(None)
