"""The summary helpers TF1's tf.compat.v1.summary keeps from TF2 and from TensorSummary:
SummaryDescription / get_summary_description, initialize, all_v2_summary_ops.

- ``get_summary_description(node_def)``: the SummaryDescription of a TF1 TensorSummary node, the
  JSON of its ``description`` attr parsed (TensorFlow's rule: any other op is a ValueError).
- ``initialize(graph=None, session=None)``: readies the default TF2 writer (the one whose
  ``as_default()`` block is open) for a graph program and, given a graph, writes it to the
  writer's event file as TensorBoard's graph (step 0). RuntimeError without a default writer,
  as TensorFlow's.
- ``all_v2_summary_ops()``: the graph's TF2 summary ops (its ``_SUMMARY_V2`` collection).
  opforge's TF2 summary functions write eagerly under a writer and build no graph op, so in a
  graph this is what a program added to that collection itself, usually nothing.
"""

from __future__ import annotations

import time

from google.protobuf import json_format

from ..codegen._proto import summary_pb2
from ..framework import graph as _graph
from ..framework.graph import get_default_graph
from .summary_ops import Event, _writers

__all__ = ["SummaryDescription", "all_v2_summary_ops", "get_summary_description", "initialize"]

SummaryDescription = summary_pb2.SummaryDescription
SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


def get_summary_description(node_def):
    """The SummaryDescription of a TensorSummary node (a NodeDef)."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    description = node_def.attr["description"].s
    text = description.decode("utf-8") if isinstance(description, bytes) else str(description)
    out = SummaryDescription()
    json_format.Parse(text, out)
    return out


def all_v2_summary_ops():
    """The default graph's TF2 summary ops; None when running eagerly (outside any graph)."""
    if not _graph._stack:
        return None
    return get_default_graph().get_collection(SUMMARY_V2_COLLECTION)


def initialize(graph=None, session=None):
    """Readies the default writer; with graph, writes its GraphDef as the run's graph."""
    del session  # opforge's writers need no initializer op run in a Session
    writers = _writers()
    if not writers:
        raise RuntimeError("No default tf.summary.SummaryWriter found: open writer.as_default() first")
    writer = writers[-1][0]
    writer.init()
    if graph is not None:
        graph_def = graph.as_graph_def() if hasattr(graph, "as_graph_def") else graph
        event = Event(wall_time=time.time(), step=0, graph_def=graph_def.SerializeToString())
        writer._event_writer.add_event(event)
        writer.flush()
