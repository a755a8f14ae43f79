"""tf.compat.v1.train.summary_iterator: the Event protos of an event file, in order."""

from __future__ import annotations

from ..codegen._proto import event_pb2
from ..io.tfrecord import tf_record_iterator


def summary_iterator(path):
    """Yields each Event of the event file at ``path`` (a TFRecord file of Event records)."""
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
