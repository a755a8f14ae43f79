"""tf.lookup: TensorFlow 1's names for opforge's lookup tables (opforge.ops.lookup_ops). As
every TF1 class that builds ops, the tables and initializers build into the default graph."""

from __future__ import annotations

from opforge.compat._namespace import Namespace, graph_class, in_default_graph
from opforge.ops import lookup_ops as _lookup


def _v1_class(cls):
    """graph_class(cls), its constructor building into the default graph too."""
    wrapped = graph_class(cls)
    wrapped.__init__ = in_default_graph(cls.__init__)
    return wrapped


lookup = Namespace(
    "lookup", {n: _v1_class(getattr(_lookup, n)) for n in (
        "StaticHashTable", "StaticVocabularyTable", "KeyValueTensorInitializer", "TextFileInitializer")},
    TextFileIndex=_lookup.TextFileIndex,
    experimental=Namespace("lookup.experimental", DenseHashTable=_v1_class(_lookup.DenseHashTable),
                           MutableHashTable=_v1_class(_lookup.MutableHashTable)))

__all__ = ["lookup"]
