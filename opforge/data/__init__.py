"""``of.data``: input pipelines (tf.data's Dataset and iterators).

dataset.py holds Dataset and its iterators; readers.py the datasets that read files
(TFRecordDataset); input_pipeline.py the TF1 queue-era spellings (string_input_producer,
TextLineReader, batch, shuffle_batch, decode_csv) over datasets.
The package itself is the tf.data namespace: it re-exports dataset's names.
"""

from .dataset import (
    Dataset, Iterator, get_output_shapes, get_output_types, make_initializable_iterator, make_one_shot_iterator,
)
from .readers import AUTOTUNE, TFRecordDataset

__all__ = ["AUTOTUNE", "Dataset", "Iterator", "TFRecordDataset", "make_one_shot_iterator",
           "make_initializable_iterator", "get_output_types", "get_output_shapes"]
