"""tf.compat.v1.summary.FileWriter: summaries, graphs and run metadata of a training run as
Event records in an event file (io/event_file.py)."""

from __future__ import annotations

import time

from ..generated.proto.op_def_pb2 import Event, GraphDef, RunMetadata, Summary
from ..io.event_file import EventFileWriter


class FileWriter:
    """tf.compat.v1.summary.FileWriter: writes summaries, the graph and run metadata of a
    training run to an event file in ``logdir`` for TensorBoard."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        del session  # TF's session-based writer has no opforge counterpart: the file is written here
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    def add_event(self, event: Event) -> None:
        self.event_writer.add_event(event)

    def _event(self, global_step, **what) -> Event:
        event = Event(wall_time=time.time(), **what)
        if global_step is not None:
            event.step = int(global_step)
        return event

    def add_summary(self, summary, global_step=None) -> None:
        """``summary``: what Session.run returned for a summary op (serialized bytes) or a
        Summary proto."""
        if isinstance(summary, (bytes, bytearray)):
            summary = Summary.FromString(bytes(summary))
        elif hasattr(summary, "SerializeToString") and not isinstance(summary, Summary):
            summary = Summary.FromString(summary.SerializeToString())  # TensorFlow's own proto
        elif not isinstance(summary, Summary):
            raise TypeError(f"add_summary takes a serialized Summary or a Summary proto, got {type(summary).__name__}")
        self.add_event(self._event(global_step, summary=summary))

    def add_graph(self, graph, global_step=None, graph_def=None) -> None:
        """Writes the graph (or graph_def) for TensorBoard's graph view."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is not None:
            graph_def = graph.as_graph_def() if hasattr(graph, "as_graph_def") else graph
        if graph_def is None:
            raise ValueError("add_graph needs a graph or a graph_def")
        data = graph_def if isinstance(graph_def, bytes) else graph_def.SerializeToString()
        GraphDef.FromString(data)  # a clear error now rather than a graph TensorBoard cannot show
        self.add_event(self._event(global_step, graph_def=data))

    def add_run_metadata(self, run_metadata, tag, global_step=None) -> None:
        """Run metadata (RunMetadata) under ``tag``, for TensorBoard's per-run view."""
        data = run_metadata if isinstance(run_metadata, bytes) else run_metadata.SerializeToString()
        RunMetadata.FromString(data)
        event = self._event(global_step)
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = data
        self.add_event(event)

    def add_session_log(self, session_log, global_step=None) -> None:
        self.add_event(self._event(global_step, session_log=session_log))

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        self.event_writer.reopen()
