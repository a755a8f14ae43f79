"""Summaries for TensorBoard: TensorFlow 1's summary ops in the graph (the FileWriter that
writes their values is in writer.py), and TensorFlow 2's eager summaries under a default writer.

``scalar``, ``histogram``, ``merge`` and ``merge_all`` add ScalarSummary, HistogramSummary and
MergeSummary nodes (opdefs/logging/) whose values are serialized ``Summary`` protos in string
tensors; ``FileWriter`` wraps what ``Session.run`` returns for them in ``Event`` records and
appends them to ``<logdir>/events.out.tfevents.<time>.<host>``, in TensorFlow's record framing
(length, masked CRC-32C of the length, data, masked CRC-32C of the data), which TensorBoard
reads. The protos are opforge's copies of TensorFlow's (proto/tensorflow/...), so nothing here
needs tensorflow.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import types

import numpy as np

from ..codegen._proto import event_pb2, summary_pb2
from ..framework.graph import Graph, GraphTensor, _explicit_graph, get_default_graph, to_graph_tensor
from ..io.event_file import EventFileWriter

Event, SessionLog = event_pb2.Event, event_pb2.SessionLog  # also of.summary.Event, ...
Summary, SummaryMetadata = summary_pb2.Summary, summary_pb2.SummaryMetadata

__all__ = ["scalar", "histogram", "image", "text", "audio", "merge", "merge_all", "Summary", "Event", "SessionLog",
           "create_file_writer", "SummaryWriter"]

from ..framework.collections import SUMMARIES  # the collection merge_all reads
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")


def _clean_tag(name: str) -> str:
    """A name usable as a tag and node name: other characters become "_", leading "/" go."""
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    return cleaned or "summary"


def _summary_op(op_type: str, name: str, family, inputs: dict, collections, attrs=None):
    """Adds one summary node, named and tagged as TensorFlow 1 does: under name scope "s/",
    ``scalar("loss", x)`` is node "s/loss" with tag "s/loss"; with family "f" the node is
    "s/f/loss" and the tag "f/s/f/loss"."""
    graph = _graph_of(inputs.values())
    family = _clean_tag(family) if family else None
    base = f"{family}/{_clean_tag(name)}" if family else _clean_tag(name)
    with graph.as_default(), graph.name_scope(base) as scope:
        tag = f"{family}/{scope.rstrip('/')}" if family else scope.rstrip("/")
        args = []
        for arg, value in inputs.items():
            if value is _TAG:
                value = tag
            args.append(to_graph_tensor(graph, value, op_name=op_type))
        op = graph.create_op(op_type, args, attrs or {}, name=scope, exact_name=True)
    out = op.outputs[0]
    for key in (collections if collections is not None else [SUMMARIES]):
        graph.add_to_collection(key, out)
    return out


_TAG = object()  # stands for the summary's tag among _summary_op's inputs


def _graph_of(values) -> Graph:
    for v in values:
        if isinstance(v, GraphTensor):
            return v.graph
        if isinstance(v, (list, tuple)):
            for item in v:
                if isinstance(item, GraphTensor):
                    return item.graph
    return get_default_graph()


def _summarize(name, value, step, eager, graph_op):
    """The two spellings of a summary function: executing eagerly (no graph being built, not a
    graph tensor) it writes ``eager()``, a Summary, to the default TF2 writer at ``step`` and
    returns True (False without a default writer); in a graph it returns ``graph_op()``, the
    TF1 summary op."""
    in_graph = _explicit_graph() is not None or isinstance(value, GraphTensor) or hasattr(value, "_graph_element")
    if in_graph:
        return graph_op() if step is None else False  # (TF2's graph-mode writing is not supported)
    writers = _writers()
    if not writers:
        return False
    writer, default_step = writers[-1]
    step = default_step if step is None else step
    if step is None:
        raise ValueError(f"summary {name!r}: no step set (pass step=, or use writer.as_default(step) or "
                         "of.summary.experimental.set_step)")
    writer._event_writer.add_event(Event(wall_time=time.time(), step=int(np.asarray(step)), summary=eager()))
    return True


def _run_op(fn, *args, **kwargs) -> Summary:
    """The Summary an op computes eagerly."""
    return Summary.FromString(fn(*args, **kwargs).numpy())


def scalar(name, tensor=None, collections=None, family=None, *, data=None, step=None, description=None):
    """TF1 (tf.compat.v1.summary.scalar): a summary op with one scalar value, a string tensor
    holding a serialized Summary, added to the ``summaries`` collection (or ``collections``).

    TF2 (tf.summary.scalar(name, data, step)): executing eagerly under a default writer
    (``create_file_writer(...).as_default()``), writes the value at ``step`` now and returns
    True (False without a default writer)."""
    value = tensor if data is None else data
    return _summarize(
        name, value, step,
        lambda: Summary(value=[Summary.Value(tag=name, simple_value=float(np.asarray(value).reshape(())))]),
        lambda: _summary_op("ScalarSummary", name, family, {"tags": _TAG, "values": value}, collections))


def histogram(name, values=None, collections=None, family=None, *, data=None, step=None, buckets=None,
              description=None):
    """TF1: a summary op with the histogram of ``values`` (TensorFlow 1's buckets; non-finite
    values make the run fail with InvalidArgumentError). TF2 (``data``, ``step``): written
    eagerly under a default writer, as scalar."""
    from .. import ops  # noqa: PLC0415
    value = values if data is None else data
    return _summarize(name, value, step, lambda: _run_op(ops.histogram_summary, name, value),
                      lambda: _summary_op("HistogramSummary", name, family, {"tag": _TAG, "values": value},
                                          collections))


def image(name, tensor=None, max_outputs=3, collections=None, family=None, *, data=None, step=None,
          description=None):
    """TF1: a summary op with up to ``max_outputs`` images of the 4-D ``tensor`` [batch,
    height, width, 1|3|4] as PNGs (float images rescaled as TensorFlow does), tagged
    ``name/image/0``... (``name/image`` with max_outputs=1). TF2 (``data``, ``step``): written
    eagerly under a default writer."""
    from .. import ops  # noqa: PLC0415
    value = tensor if data is None else data
    return _summarize(name, value, step,
                      lambda: _run_op(ops.image_summary, name, value, max_images=int(max_outputs)),
                      lambda: _summary_op("ImageSummary", name, family, {"tag": _TAG, "tensor": value}, collections,
                                          {"max_images": int(max_outputs)}))


def text(name, tensor=None, collections=None, *, data=None, step=None, description=None):
    """A summary of a string tensor for TensorBoard's text dashboard: a TensorSummaryV2 op
    (TF1, tf.compat.v1.summary.text), or written eagerly under a default writer (TF2)."""
    from .. import ops  # noqa: PLC0415
    value = tensor if data is None else data
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text")).SerializeToString()
    return _summarize(name, value, step, lambda: _run_op(ops.tensor_summary_v2, name, value, metadata),
                      lambda: _summary_op("TensorSummaryV2", name, None, {
                          "tag": _TAG, "tensor": value, "serialized_summary_metadata": metadata}, collections))


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None, family=None,
                   display_name=None):
    """TF1's tf.summary.tensor_summary: a TensorSummaryV2 op holding the whole tensor, with
    summary_metadata (its description and display name set from the arguments)."""
    metadata = SummaryMetadata() if summary_metadata is None else SummaryMetadata.FromString(
        summary_metadata.SerializeToString())
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    return _summary_op("TensorSummaryV2", name, family, {
        "tag": _TAG, "tensor": tensor, "serialized_summary_metadata": metadata.SerializeToString()}, collections)


def audio(name, tensor=None, sample_rate=None, max_outputs=3, collections=None, family=None, *, data=None,
          step=None, encoding=None, description=None):
    """A summary of up to ``max_outputs`` float clips ([batch, frames] or [batch, frames,
    channels], values in [-1, 1]) as WAV files, for TensorBoard's audio dashboard: an
    AudioSummaryV2 op (TF1), or written eagerly under a default writer (TF2)."""
    from .. import ops  # noqa: PLC0415
    value = tensor if data is None else data
    if sample_rate is None:
        raise ValueError("audio: sample_rate is required")
    rate = sample_rate if isinstance(sample_rate, GraphTensor) else np.float32(sample_rate)
    return _summarize(name, value, step,
                      lambda: _run_op(ops.audio_summary_v2, name, value, rate, max_outputs=int(max_outputs)),
                      lambda: _summary_op("AudioSummaryV2", name, family,
                                          {"tag": _TAG, "tensor": value, "sample_rate": rate}, collections,
                                          {"max_outputs": int(max_outputs)}))


# ------------------------------------------------------------------------- TF2 writers

_thread_state = threading.local()


def _writers() -> list:
    """This thread's (writer, default step) of the enclosing as_default() blocks (a context is
    per thread, as TensorFlow's default writer is)."""
    if not hasattr(_thread_state, "writers"):
        _thread_state.writers = []
    return _thread_state.writers


class SummaryWriter:
    """tf.summary.create_file_writer's writer: an event file in ``logdir`` that the eager
    ``scalar``/``histogram``/... calls under ``as_default()`` write to."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._event_writer = EventFileWriter(logdir, max_queue, flush_millis / 1000.0, filename_suffix)

    @contextlib.contextmanager
    def as_default(self, step=None):
        _writers().append((self, step))
        try:
            yield self
        finally:
            _writers().pop()
            self.flush()

    def set_as_default(self, step=None):
        _writers().append((self, step))

    def init(self):
        pass

    def flush(self):
        self._event_writer.flush()

    def close(self):
        self._event_writer.close()


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A SummaryWriter for ``logdir`` (tf.summary.create_file_writer)."""
    del name
    return SummaryWriter(logdir, 10 if max_queue is None else max_queue,
                         120000 if flush_millis is None else flush_millis,
                         ".v2" if filename_suffix is None else filename_suffix)


def _set_step(step):
    writers = _writers()
    if not writers:
        raise ValueError("set_step needs a default writer (writer.as_default() or set_as_default())")
    writers[-1] = (writers[-1][0], step)


experimental = types.SimpleNamespace(set_step=_set_step,
                                     get_step=lambda: _writers()[-1][1] if _writers() else None)


def merge(inputs, collections=None, name=None):
    """One summary holding the values of all ``inputs`` (tf.compat.v1.summary.merge)."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("merge: no summaries to merge")
    graph = _graph_of(inputs)
    with graph.as_default(), graph.name_scope(name or "Merge") as scope:
        tensors = [to_graph_tensor(graph, t, op_name="MergeSummary") for t in inputs]
        op = graph.create_op("MergeSummary", [tensors], {}, name=scope, exact_name=True)
    for key in collections or []:
        graph.add_to_collection(key, op.outputs[0])
    return op.outputs[0]


def merge_all(key=SUMMARIES, scope=None, name=None):
    """Merges every summary of the default graph's ``key`` collection; None when it has none
    (tf.compat.v1.summary.merge_all)."""
    summaries = get_default_graph().get_collection(key, scope)
    return merge(summaries, name=name) if summaries else None
