"""File formats shared with TensorFlow: GraphDef (graph_def, graph_io), MetaGraphDef
(meta_graph), checkpoint tensor bundles (tensor_bundle), TensorBoard event files
(event_file), SavedModels (saved_model, public as of.saved_model), and of.io.gfile
(TensorFlow's tf.io.gfile: files on the local file system)."""

from . import gfile  # noqa: F401
