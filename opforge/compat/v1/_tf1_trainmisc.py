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

# ---- tf.audio (DecodeWav, EncodeWav)
from opforge.ops import audio_ops as _audio  # noqa: E402

audio = _namespace.Namespace("audio", decode_wav=_audio.decode_wav, encode_wav=_audio.encode_wav)
__all__ += ["audio"]

# ---- tf.manip: TF1's namespace of the tensor-manipulation ops, the top-level functions
import sys as _sys  # noqa: E402

_v1 = _sys.modules["opforge.compat.v1"]  # being initialized: the top-level names are there already
manip = _namespace.Namespace("manip", {n: getattr(_v1, n) for n in (
    "batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd", "space_to_batch_nd", "tile")})
__all__ += ["manip"]

# ---- tf.config: devices (config/devices_api.py), the thread budget, the graph optimizer's options
from opforge.config import devices_api as _dev  # noqa: E402
from opforge.config import optimizer as _cfg_optimizer  # noqa: E402
from opforge.config import threading as _cfg_threading  # noqa: E402

_DEVICE_NAMES = ("list_physical_devices", "list_logical_devices", "get_visible_devices", "set_visible_devices",
                 "get_logical_device_configuration", "set_logical_device_configuration")
config = _namespace.Namespace(
    "config", {n: getattr(_dev, n) for n in _DEVICE_NAMES}, builds_graph=False,
    PhysicalDevice=_dev.PhysicalDevice, LogicalDevice=_dev.LogicalDevice,
    LogicalDeviceConfiguration=_dev.LogicalDeviceConfiguration,
    threading=_namespace.Namespace("config.threading", {n: getattr(_cfg_threading, n) for n in (
        "get_inter_op_parallelism_threads", "get_intra_op_parallelism_threads", "set_inter_op_parallelism_threads",
        "set_intra_op_parallelism_threads")}, builds_graph=False),
    optimizer=_namespace.Namespace("config.optimizer", builds_graph=False,
                                   get_experimental_options=_cfg_optimizer.get_experimental_options,
                                   set_experimental_options=_cfg_optimizer.set_experimental_options),
    experimental=_namespace.Namespace(
        "config.experimental", {n: getattr(_dev, n) for n in _DEVICE_NAMES + (
            "get_memory_growth", "set_memory_growth", "get_memory_info", "get_memory_usage", "reset_memory_stats")},
        builds_graph=False, VirtualDeviceConfiguration=_dev.LogicalDeviceConfiguration,
        get_virtual_device_configuration=_dev.get_logical_device_configuration,
        set_virtual_device_configuration=_dev.set_logical_device_configuration),
)
__all__ += ["config"]

# ---- tf.math.special: the special functions opforge has (BesselI0e, BesselI1e and their unscaled forms)
from opforge.ops import special_math_ops as _special  # noqa: E402

_tf1.math.special = _namespace.Namespace(
    "math.special", {n: getattr(_special, n) for n in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e")})
