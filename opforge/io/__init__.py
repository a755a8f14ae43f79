"""File formats shared with TensorFlow: GraphDef (graph_def, graph_io), MetaGraphDef
(meta_graph), checkpoint tensor bundles (tensor_bundle), TensorBoard event files
(event_file), SavedModels (saved_model, public as of.saved_model), TFRecord files (tfrecord),
tf.train.Example messages (example), and of.io: TensorFlow's tf.io namespace (gfile, TFRecord
files, the Example parsing functions and feature specs, decode_raw)."""

from . import gfile  # noqa: F401
from ..ops.parsing_ops import (  # noqa: F401
    FixedLenFeature, FixedLenSequenceFeature, RaggedFeature, SparseFeature, VarLenFeature, decode_compressed, decode_raw, parse_example,
    parse_sequence_example, parse_single_example, parse_single_sequence_example, parse_tensor, serialize_tensor,
)
from .tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator  # noqa: F401
