"""summary.get_summary_description / SummaryDescription, summary.initialize and
all_v2_summary_ops (summary/summary_v2_graph.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opforge as of
from opforge.codegen._proto import node_def_pb2
from opforge.summary import summary_v2_graph as sv
from opforge.summary.summary_iterator import summary_iterator


def _tensor_summary_node(description: bytes, op="TensorSummary"):
    nd = node_def_pb2.NodeDef(name="ts", op=op)
    nd.attr["description"].s = description
    return nd


def test_get_summary_description():
    desc = sv.get_summary_description(_tensor_summary_node(b'{"typeHint": "image"}'))
    assert isinstance(desc, sv.SummaryDescription) and desc.type_hint == "image"
    assert sv.get_summary_description(_tensor_summary_node(b"{}")).type_hint == ""
    with pytest.raises(ValueError, match="Can't get_summary_description on ScalarSummary"):
        sv.get_summary_description(_tensor_summary_node(b"{}", op="ScalarSummary"))
    with pytest.raises(Exception, match="bogus"):
        sv.get_summary_description(_tensor_summary_node(b'{"bogus": 1}'))


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    nd = tf.compat.v1.NodeDef(name="ts", op="TensorSummary")
    nd.attr["description"].s = b'{"type_hint": "scalar"}'
    theirs = tf.compat.v1.summary.get_summary_description(nd)
    ours = sv.get_summary_description(_tensor_summary_node(b'{"type_hint": "scalar"}'))
    assert ours.SerializeToString() == theirs.SerializeToString()


def test_initialize_writes_the_graph_and_needs_a_writer(tmp_path):
    g = of.Graph()
    with g.as_default():
        of.constant(np.float32(1.0), name="c")
        with pytest.raises(RuntimeError, match="No default"):
            sv.initialize(graph=g)
        assert sv.all_v2_summary_ops() == []
        g.add_to_collection(sv.SUMMARY_V2_COLLECTION, "op")
        assert sv.all_v2_summary_ops() == ["op"]
    assert sv.all_v2_summary_ops() is None  # eagerly
    writer = of.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        sv.initialize(graph=g)
    writer.close()
    events = [e for f in tmp_path.iterdir() for e in summary_iterator(str(f))]
    graphs = [e for e in events if e.graph_def]
    assert len(graphs) == 1
    gd = of.GraphDef.FromString(graphs[0].graph_def)
    assert [n.name for n in gd.node] == ["c"]
