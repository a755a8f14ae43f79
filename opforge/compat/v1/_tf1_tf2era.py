"""The TF2-era names of tf.compat.v1: tf.nest, tf.function, tf.GradientTape, tf.Module, the type
specs, tf.DeviceSpec, the behaviour switches, tf.print, random.Generator and its seed helpers,
train.Checkpoint/CheckpointManager, the summary helpers. Spellings only: the behaviour is in
opforge/util/nest.py, framework/{tf_function,tf2_behavior,type_spec,device_spec,module}.py,
gradients/graph_tape.py, ops/{print_ops,stateful_random}.py, training/checkpoint_v2.py and
summary/summary_v2_graph.py.

``install(namespace_globals)`` adds the names to compat.v1 and its namespaces (tf.random,
tf.train, tf.summary, tf.data); compat/v1/__init__.py calls it once.
"""

from __future__ import annotations

import inspect as _inspect

import numpy as _np

from opforge.compat._namespace import Namespace, graph_class, in_default_graph
from opforge.framework import tf2_behavior as _behavior
from opforge.framework import tf_function as _tf_function
from opforge.framework import type_spec as _specs
from opforge.framework.device_spec import DeviceSpec
from opforge.framework.graph import GraphTensor as _GraphTensor
from opforge.framework.module import Module
from opforge.gradients import graph_tape as _graph_tape
from opforge.ops import print_ops as _print_ops
from opforge.ops import stateful_random as _rng
from opforge.summary import summary_v2_graph as _summary_v2
from opforge.training import checkpoint_v2 as _checkpoint
from opforge.util import nest as _nest

__all__ = ["install"]


class GradientTape(_graph_tape.GradientTape):
    """tf.GradientTape: records the ops built into the default graph (or eagerly run) inside it."""

    _use_default_graph = True


_GraphFunction = graph_class(_tf_function.Function)


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """tf.function, its calls building into the default graph (opforge/framework/tf_function.py)."""
    def decorate(f):
        return f if isinstance(f, _tf_function.Function) else _GraphFunction(f, input_signature)
    return decorate if func is None else decorate(func)


function.__doc__ = _tf_function.function.__doc__

_Generator = graph_class(_rng.Generator)
_Generator.__init__ = in_default_graph(_rng.Generator.__init__)


class _FunctionType(_inspect.Signature):
    """tf.types.experimental.FunctionType: a function's signature (an inspect.Signature)."""


_TensorLike = _GraphTensor | _np.ndarray | _np.number | int | float | bool | str | bytes | list | tuple

nest = Namespace("nest", {n: getattr(_nest, n) for n in _nest.__all__}, builds_graph=False)
types = Namespace("types", experimental=Namespace("types.experimental", builds_graph=False,
                                                  TensorLike=_TensorLike, FunctionType=_FunctionType))

_TOP_LEVEL = {
    "nest": nest, "types": types, "function": function, "GradientTape": GradientTape, "Module": Module,
    "DeviceSpec": DeviceSpec, "print": in_default_graph(_print_ops.print_v2),
    "wrap_function": _tf_function.wrap_function, "recompute_grad": _tf_function.recompute_grad,
    "vectorized_map": in_default_graph(_tf_function.vectorized_map),
    **{n: getattr(_specs, n) for n in ("TypeSpec", "TensorSpec", "NoneTensorSpec", "OptionalSpec",
                                       "TensorArraySpec", "SparseTensorSpec", "IndexedSlicesSpec",
                                       "type_spec_from_value")},
    **{n: in_default_graph(getattr(_behavior, n)) for n in _behavior.__all__
       if n not in ("create_variable", "tensor_equality_enabled")},
}


def install(ns: dict) -> None:
    """Adds the names to compat.v1's globals ns and to its namespaces."""
    ns.update(_TOP_LEVEL)
    random, train, summary, data = ns["random"], ns["train"], ns["summary"], ns["data"]
    random.Generator, random.Algorithm = _Generator, _rng.Algorithm
    random.create_rng_state = _rng.create_rng_state
    random.split, random.fold_in = in_default_graph(_rng.split), in_default_graph(_rng.fold_in)
    random.get_global_generator = in_default_graph(_rng.get_global_generator)
    random.set_global_generator = _rng.set_global_generator
    train.Checkpoint, train.CheckpointManager = _checkpoint.Checkpoint, _checkpoint.CheckpointManager
    train.CheckpointOptions = _checkpoint.CheckpointOptions
    summary.SummaryDescription = _summary_v2.SummaryDescription
    summary.get_summary_description = _summary_v2.get_summary_description
    summary.initialize = in_default_graph(_summary_v2.initialize)
    summary.all_v2_summary_ops = in_default_graph(_summary_v2.all_v2_summary_ops)
    data.DatasetSpec = _specs.DatasetSpec
