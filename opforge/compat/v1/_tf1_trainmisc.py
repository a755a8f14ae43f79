"""TF1 names added by the trainmisc work (issue 32): the proximal optimizers, the queue-fed
input producers, the accumulators and ReaderBase, CTC beam search, tf.sets, tf.audio,
tf.manip, tf.math.special, tf.config. Implementations live in the library proper
(opforge/training, opforge/data, opforge/ops); this file only spells them into the namespaces
_tf1 builds."""

from __future__ import annotations

from opforge import ops as _ops
from opforge import training as _training
from opforge.compat import _namespace
from opforge.compat.v1 import _tf1, _tf1_strings
from opforge.data import accumulators as _acc
from opforge.data import queue_input as _qi
from opforge.data.input_pipeline import ReaderBase

__all__ = ["ConditionalAccumulator", "ConditionalAccumulatorBase", "ReaderBase", "SparseConditionalAccumulator",
           "count_up_to"]

for _n in ("AdagradDAOptimizer", "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer"):
    setattr(_tf1.train, _n, getattr(_training, _n))

for _n in _qi.__all__:  # the queue-fed producers and batching (tf.train.*; match_filenames_once in tf.io too)
    setattr(_tf1.train, _n, _namespace.in_default_graph(getattr(_qi, _n)))
_tf1.io.match_filenames_once = _tf1.train.match_filenames_once

ConditionalAccumulatorBase, ConditionalAccumulator = _acc.ConditionalAccumulatorBase, _acc.ConditionalAccumulator
SparseConditionalAccumulator = _acc.SparseConditionalAccumulator
_tf1_strings.sparse.SparseConditionalAccumulator = SparseConditionalAccumulator


def count_up_to(ref, limit, name=None):
    """tf.count_up_to: ref's value before it is incremented; OutOfRangeError once it reaches
    limit (CountUpTo)."""
    return _ops.count_up_to(ref, limit=limit, name=name)


def _sdca_fprint(input, name=None):  # noqa: A002  (TensorFlow's argument name)
    """tf.train.sdca_fprint: the (N, 2) int64 FarmHash Fingerprint128 of each string (SdcaFprint)."""
    return _ops.sdca_fprint(input, name=name)


_tf1.train.sdca_fprint = _namespace.in_default_graph(_sdca_fprint)

# ---- CTC beam search (CTCBeamSearchDecoder) and ctc_unique_labels
from opforge.ops import ctc_ops as _ctc  # noqa: E402

for _n in ("ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "ctc_unique_labels"):
    setattr(_tf1.nn, _n, _namespace.in_default_graph(getattr(_ctc, _n)))

# ---- tf.sets (SetSize and the set operations)
from opforge.ops import set_ops as _sets  # noqa: E402

sets = _namespace.Namespace(
    "sets", set_size=_sets.set_size, size=_sets.set_size, set_intersection=_sets.set_intersection,
    intersection=_sets.set_intersection, set_union=_sets.set_union, union=_sets.set_union,
    set_difference=_sets.set_difference, difference=_sets.set_difference)
__all__ += ["sets"]
