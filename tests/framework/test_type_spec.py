"""TypeSpecs (tf.TensorSpec, tf.SparseTensorSpec, ...) and tf.DeviceSpec against TensorFlow's."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.framework import type_spec as ts
from opforge.framework.device_spec import DeviceSpec


def test_tensor_spec_fields_equality_and_compatibility():
    a = ts.TensorSpec([None, 3], of.float32, "x")
    assert a.shape.as_list() == [None, 3] and a.dtype == of.float32 and a.name == "x"
    assert a == ts.TensorSpec((None, 3), "float32", "x") and hash(a) == hash(ts.TensorSpec([None, 3], "float32", "x"))
    assert a != ts.TensorSpec([None, 3], of.float32) and a != ts.TensorSpec([None, 3], of.float64, "x")
    assert a.is_compatible_with(ts.TensorSpec([2, 3], of.float32))
    assert not a.is_compatible_with(ts.TensorSpec([2, 4], of.float32))
    assert not a.is_compatible_with(ts.TensorSpec([2, 3], of.int32))
    assert a.is_compatible_with(np.zeros((5, 3), np.float32))
    assert not a.is_compatible_with(np.zeros((5, 3), np.float64))
    assert not a.is_compatible_with(ts.SparseTensorSpec([2, 3], of.float32))
    m = ts.TensorSpec([2, 3], of.float32).most_specific_compatible_type(ts.TensorSpec([4, 3], of.float32))
    assert m == ts.TensorSpec([None, 3], of.float32)
    assert ts.TensorSpec([2], of.float32).most_specific_compatible_type(ts.TensorSpec([2, 2], of.float32)).shape.rank \
        is None
    with pytest.raises(ValueError, match="compatible"):
        ts.TensorSpec([2], of.float32).most_specific_compatible_type(ts.TensorSpec([2], of.int32))
    assert ts.TensorSpec([2], of.float32).most_specific_common_supertype([ts.TensorSpec([2], of.int32)]) is None
    assert ts.TensorSpec(None).shape.rank is None
    assert ts.TensorSpec.from_spec(a, name="y") == ts.TensorSpec([None, 3], of.float32, "y")


def test_type_spec_from_value():
    g = of.Graph()
    with g.as_default():
        p = of.placeholder(of.int64, [None, 2])
        assert ts.type_spec_from_value(p) == ts.TensorSpec([None, 2], of.int64)
        sp = of.SparseTensor(np.array([[0, 0]], np.int64), np.array([1.0], np.float32), np.array([3, 4], np.int64))
        assert ts.type_spec_from_value(sp) == ts.SparseTensorSpec([3, 4], of.float32)
    assert ts.type_spec_from_value(np.zeros((2, 5), np.float64)) == ts.TensorSpec([2, 5], of.float64)
    assert ts.type_spec_from_value(3) == ts.TensorSpec([], of.int32)
    assert ts.type_spec_from_value(of.constant([1.0, 2.0])) == ts.TensorSpec([2], of.float32)
    assert ts.type_spec_from_value(None) == ts.NoneTensorSpec()
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        ts.type_spec_from_value(object())


def test_composite_and_container_specs():
    s = ts.SparseTensorSpec([None, 4], of.int32)
    assert s.is_compatible_with(ts.SparseTensorSpec([7, 4], of.int32)) and s.value_type is of.SparseTensor
    i = ts.IndexedSlicesSpec([None, 8], of.float32, of.int32)
    assert i == ts.IndexedSlicesSpec([None, 8], of.float32, of.int32) and i != ts.IndexedSlicesSpec([None, 8])
    t = ts.TensorArraySpec([2], of.float32, dynamic_size=True)
    assert t.element_shape.as_list() == [2] and t.dynamic_size and not t.is_compatible_with(ts.TensorArraySpec([2]))
    o = ts.OptionalSpec(ts.TensorSpec([2], of.float32))
    assert o.is_compatible_with(ts.OptionalSpec(ts.TensorSpec([None], of.float32)))
    assert not o.is_compatible_with(ts.OptionalSpec(ts.TensorSpec([3], of.float32)))
    d = ts.DatasetSpec({"a": ts.TensorSpec([None], of.int64)})
    assert d.is_compatible_with(ts.DatasetSpec({"a": ts.TensorSpec([5], of.int64)}))
    assert not d.is_compatible_with(ts.DatasetSpec({"b": ts.TensorSpec([5], of.int64)}))
    assert len({o, ts.OptionalSpec(ts.TensorSpec([2], of.float32))}) == 1
    g = of.Graph()
    with g.as_default():
        ds = of.data.Dataset.from_tensor_slices((np.zeros((4, 3), np.float32), np.arange(4)))
        spec = ts.type_spec_from_value(ds)
    assert spec == ts.DatasetSpec((ts.TensorSpec([3], of.float32), ts.TensorSpec([], of.int64)))


def test_specs_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    assert repr(ts.TensorSpec([None, 3], of.float32, "x")) == repr(tf.TensorSpec([None, 3], tf.float32, "x"))
    for a, b in [([2, 3], [None, 3]), ([2, 3], [2, 4]), (None, [1]), ([1], [1, 1])]:
        ours = ts.TensorSpec(a, of.float32).is_compatible_with(ts.TensorSpec(b, of.float32))
        assert ours == tf.TensorSpec(a, tf.float32).is_compatible_with(tf.TensorSpec(b, tf.float32))
        tm = tf.TensorSpec(a, tf.float32).most_specific_common_supertype([tf.TensorSpec(b, tf.float32)])
        om = ts.TensorSpec(a, of.float32).most_specific_common_supertype([ts.TensorSpec(b, of.float32)])
        assert (tm is None) == (om is None) and (tm is None or tm.shape.as_list() == om.shape.as_list()
                                                  if tm is not None and tm.shape.rank is not None else True)


@pytest.mark.parametrize("text,fields,back", [
    ("/job:worker/replica:1/task:2/device:GPU:3", ("worker", 1, 2, "GPU", 3), "/job:worker/replica:1/task:2/device:GPU:3"),
    ("/cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
    ("/device:gpu:*", (None, None, None, "GPU", None), "/device:GPU:*"),
    ("/job:ps", ("ps", None, None, None, None), "/job:ps"),
    ("", (None, None, None, None, None), ""),
])
def test_device_spec_parse_and_print(text, fields, back):
    d = DeviceSpec.from_string(text)
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == fields
    assert d.to_string() == back
    tf = None
    try:
        import tensorflow as tf  # noqa: PLC0415
    except ImportError:
        pass
    if tf is not None:
        assert tf.compat.v1.DeviceSpec.from_string(text).to_string() == back


def test_device_spec_merge_replace_and_errors():
    d = DeviceSpec(job="worker", device_type="cpu", device_index=0)
    d.merge_from("/task:3/device:GPU:1")
    assert d.to_string() == "/job:worker/task:3/device:GPU:1"
    m = d.make_merged_spec(DeviceSpec(job="ps"))
    assert m.job == "ps" and d.job == "worker"
    assert d.replace(task=7).task == 7 and d == DeviceSpec.from_string(d.to_string())
    d.parse_from_string("/job:x")
    assert d.to_string() == "/job:x"
    with pytest.raises(ValueError, match="Unknown attribute"):
        DeviceSpec.from_string("/bogus:1")
    with pytest.raises(ValueError, match="must be an integer"):
        DeviceSpec(task="a")
