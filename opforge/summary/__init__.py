"""``of.summary``: TensorBoard summaries (tf.summary, and TF1's tf.compat.v1.summary names).

It defines nothing itself: the summary ops and eager writers are in summary_ops, the TF1
FileWriter in writer, the event-file format in io/event_file.
"""

from ..io.event_file import EventFileWriter
from .summary_ops import (  # noqa: F401 (SUMMARIES: the collection key)
    SUMMARIES, Event, SessionLog, Summary, SummaryWriter, audio, create_file_writer, experimental, histogram, image,
    merge, merge_all, scalar, tensor_summary, text,
)
from .writer import FileWriter

__all__ = ["scalar", "histogram", "image", "text", "audio", "merge", "merge_all", "FileWriter", "EventFileWriter",
           "Summary", "Event", "SessionLog", "create_file_writer", "SummaryWriter", "experimental", "tensor_summary"]
