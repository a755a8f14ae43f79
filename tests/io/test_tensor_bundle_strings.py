"""String tensors in V2 checkpoints (io/tensor_bundle.py), as TensorFlow lays them out: TF2
checkpoints hold their object graph as one ("_CHECKPOINTABLE_OBJECT_GRAPH")."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from opforge.codegen._proto import trackable_object_graph_pb2
from opforge.errors import DataLossError
from opforge.io import tensor_bundle

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "saved_model")
PREFIX = os.path.join(DATA, "tf2_module", "variables", "variables")


def test_object_graph_of_a_tf2_checkpoint():
    reader = tensor_bundle.BundleReader(PREFIX)
    value = reader.tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert value.shape == () and value.dtype == object
    graph = trackable_object_graph_pb2.TrackableObjectGraph.FromString(value[()])
    names = {a.full_name: a.checkpoint_key for n in graph.nodes for a in n.attributes}
    assert names["w"] == "w/.ATTRIBUTES/VARIABLE_VALUE" and reader.has_tensor(names["w"])


def _copy(tmp_path):
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(PREFIX + suffix, str(tmp_path / ("v" + suffix)))
    return str(tmp_path / "v")


@pytest.mark.parametrize("where", ["length", "checksum", "element"])
def test_corrupt_string_tensor_is_data_loss(tmp_path, where):
    prefix = _copy(tmp_path)
    reader = tensor_bundle.BundleReader(prefix)
    entry = reader._entry("_CHECKPOINTABLE_OBJECT_GRAPH")
    offset = entry.offset + {"length": 0, "checksum": 2, "element": entry.size - 1}[where]
    with open(prefix + ".data-00000-of-00001", "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x01]))
    with pytest.raises(DataLossError, match="_CHECKPOINTABLE_OBJECT_GRAPH"):
        tensor_bundle.BundleReader(prefix).tensor("_CHECKPOINTABLE_OBJECT_GRAPH")


def test_string_tensors_tensorflow_writes(tmp_path):
    tf = pytest.importorskip("tensorflow")
    values = np.array([[b"", b"a"], [b"x" * 300, "\u00e9t\u00e9".encode()]], dtype=object)
    prefix = str(tmp_path / "ckpt")
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=["s", "f"], shape_and_slices=["", ""],
                      tensors=[tf.constant(values), tf.constant([1.5, 2.5])])
    reader = tensor_bundle.BundleReader(prefix)
    got = reader.tensor("s")
    assert got.shape == (2, 2) and got.tolist() == values.tolist()
    np.testing.assert_array_equal(reader.tensor("f"), [1.5, 2.5])
