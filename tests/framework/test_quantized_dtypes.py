"""The quantized dtypes (qint8 ... qint32) and uint16/uint32/uint64: TensorFlow's enum numbers and
properties, NumPy interop, the data-movement kernels, Cast, and TensorProto round trips
(GraphDef constants)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
import opforge.compat.v1 as tf1
from opforge.generated.proto.tensorflow.core.framework.tensor_pb2 import TensorProto
from opforge.io.graph_def import ndarray_to_proto, tensor_from_proto

_STORAGE = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16, "qint32": np.int32,
            "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64}


def test_enums_and_properties_as_tensorflow():
    enums = {"qint8": 11, "quint8": 12, "qint32": 13, "qint16": 15, "quint16": 16, "uint16": 17, "uint32": 22,
             "uint64": 23}
    for name, enum in enums.items():
        d = getattr(of, name)
        assert d.as_datatype_enum == enum and of.as_dtype(enum) is d and of.as_dtype(name) is d
        assert d.size == np.dtype(_STORAGE[name]).itemsize
        assert getattr(tf1, name) is d
    assert tf1.QUANTIZED_DTYPES == {of.qint8, of.quint8, of.qint16, of.quint16, of.qint32}
    assert of.qint8.is_quantized and not of.qint8.is_integer and not of.quint8.is_unsigned
    assert of.uint16.is_unsigned and of.uint64.is_integer and not of.int32.is_unsigned
    assert (of.uint16.min, of.uint16.max) == (0, 65535) and of.uint64.max == 2**64 - 1
    assert of.int8.limits == (-128, 127)
    with pytest.raises(TypeError, match="quantized"):
        _ = of.qint8.min
    assert of.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])  # TensorFlow's structured dtype
    assert of.as_dtype(np.dtype([("quint16", np.uint16)])) is of.quint16


@pytest.mark.parametrize("name", sorted(_STORAGE))
def test_values_move_through_the_data_kernels(name):
    rng = np.random.default_rng(5)
    info = np.iinfo(_STORAGE[name])
    v = rng.integers(info.min, info.max, size=(2, 3), dtype=_STORAGE[name], endpoint=True)
    d = getattr(of, name)
    t = of.constant(v, dtype=d)
    assert t.dtype == d
    np.testing.assert_array_equal(t.numpy(), v)  # a quantized tensor's values are its integers
    for out, want in ((of.identity(t), v), (of.reshape(t, [3, 2]), v.reshape(3, 2)),
                      (of.concat([t, t], 1), np.concatenate([v, v], 1)), (of.expand_dims(t, 0), v[None]),
                      (of.squeeze(of.expand_dims(t, 0), [0]), v)):
        assert out.dtype == d
        np.testing.assert_array_equal(out.numpy(), want)
    assert of.shape(t).numpy().tolist() == [2, 3] and int(of.size(t).numpy()) == 6
    proto = ndarray_to_proto(v, d)
    back = tensor_from_proto(TensorProto.FromString(proto.SerializeToString()))
    assert back.dtype == d
    np.testing.assert_array_equal(back.numpy(), v)


def test_tensor_proto_value_fields_as_tensorflow_writes_them():
    p = TensorProto(dtype=11, int_val=[-3, 5])
    p.tensor_shape.dim.add().size = 3  # TensorFlow repeats the last value
    np.testing.assert_array_equal(tensor_from_proto(p).numpy(), np.int8([-3, 5, 5]))
    p = TensorProto(dtype=23, uint64_val=[2**64 - 1, 7])
    p.tensor_shape.dim.add().size = 2
    np.testing.assert_array_equal(tensor_from_proto(p).numpy(), np.uint64([2**64 - 1, 7]))
    p = TensorProto(dtype=22, uint32_val=[4000000000])
    np.testing.assert_array_equal(tensor_from_proto(p).numpy(), np.uint32(4000000000))


def test_graph_const_round_trip_and_session():
    g = of.Graph()
    v = np.array([[1, -2], [127, -128]], np.int8)
    with g.as_default():
        c = of.constant(v, dtype=of.qint8, name="c")
        of.identity(c, name="out")
        u = of.constant(np.uint64([2**63 + 5]), name="u")
        of.cast(u, of.float64, name="uf")
    g2 = of.Graph()
    with g2.as_default():
        of.import_graph_def(g.as_graph_def().SerializeToString(), name="")
    with of.Session(graph=g2) as sess:
        out, uf = sess.run(["out:0", "uf:0"])
    np.testing.assert_array_equal(out, v)
    assert uf[0] == float(2**63 + 5)


def test_cast_between_the_wide_unsigned_types():
    v = np.array([0, 1, 65535], np.uint16)
    for d, npd in ((of.uint32, np.uint32), (of.uint64, np.uint64), (of.int8, np.int8), (of.float32, np.float32)):
        np.testing.assert_array_equal(of.cast(v, d).numpy(), v.astype(npd))
    np.testing.assert_array_equal(of.cast(np.float32([-1.5, 3.7, 1e20]), of.uint32).numpy(),
                                  np.uint32([0, 3, 4294967295]))  # saturates, as opforge's Cast does


def test_quantized_types_reject_arithmetic_with_a_typed_error():
    t = of.constant(np.int8([1, 2]), dtype=of.qint8)
    with pytest.raises((of.errors.InvalidArgumentError, of.errors.NotFoundError, TypeError)):
        of.add(t, t)
