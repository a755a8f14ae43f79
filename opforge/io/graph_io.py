"""Writing and reading GraphDef files (tf.train.write_graph / tf.io.write_graph, read_graph)."""

from __future__ import annotations

import os

from google.protobuf import text_format

from .graph_def import read_graph_def


def read_graph(path, as_text=None):
    """Reads a GraphDef written by write_graph (binary, or text for .pbtxt/.txt names)."""
    return read_graph_def(path, as_text)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a GraphDef to logdir/name (text or binary protobuf); returns the path."""
    gd = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") else graph_or_graph_def
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        with open(path, "w") as f:
            f.write(text_format.MessageToString(gd))
    else:
        with open(path, "wb") as f:
            f.write(gd.SerializeToString())
    return path
