"""``of.data``: input pipelines (tf.data's Dataset and iterators).

dataset.py holds Dataset; transformations.py, parallel.py and grouping.py its transformations
(parallel.py the threaded ones: map(num_parallel_calls), interleave, prefetch; grouping.py
group_by_window and bucket_by_sequence_length); functions.py traces the
functions they apply; sources.py from_generator and list_files; readers.py the datasets that
read files (TFRecordDataset, TextLineDataset, FixedLengthRecordDataset); iterator_ops.py the
iterators, whose positions live per Session; experimental.py tf.data.experimental and
Options; input_pipeline.py the TF1 queue-era spellings (string_input_producer, TextLineReader,
batch, shuffle_batch, decode_csv) over the same machinery.
The package itself is the tf.data namespace: it re-exports those names.
"""

from . import experimental, grouping, native, sources, transformations  # (the modules register Dataset's methods)
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .experimental import NumpyIterator, Options, ThreadingOptions
from .iterator_ops import (
    Iterator, get_output_classes, get_output_shapes, get_output_types, make_initializable_iterator,
    make_one_shot_iterator,
)
from .parallel import AUTOTUNE
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = ["AUTOTUNE", "Dataset", "Iterator", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Options", "ThreadingOptions", "NumpyIterator",
           "experimental", "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
           "get_output_shapes", "get_output_classes"]
