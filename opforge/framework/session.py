"""Session: runs (parts of) a Graph in C++ (TensorFlow 1's tf.Session)."""

from __future__ import annotations

import collections.abc
import contextlib

import numpy as np

from .. import _C
from . import dtypes
from .errors import InvalidArgumentError
from ..config import optimizer as _optimizer
from ..io import graph_def as _graph_def
from . import default_session as _default
from . import step_stats as _step_stats
from .default_session import get_default_session  # noqa: F401  (re-exported: of.get_default_session)
from .graph import GraphTensor, Operation, get_default_graph
from .tensor import Tensor as EagerTensor
from .tensor import convert_to_tensor


class _Composite:
    """Where a composite fetch (a SparseTensor) sits in a fetch structure: the structure of
    its parts and how to build its value from theirs."""

    __slots__ = ("parts", "rebuild")

    def __init__(self, parts, rebuild):
        self.parts = parts
        self.rebuild = rebuild


class Session:
    """Runs graph fragments: ``sess.run(fetches, feed_dict)``.

    Each Session holds its own variable values. The executor prunes the graph to what the
    fetches need, orders it, caches that plan per (feeds, fetches) and runs it in C++.

    When the C++ session plans a (feeds, fetches, targets) signature, its graph optimizer
    (runtime/src/optimizer) rewrites the part of the graph that signature needs, once, and the
    plan runs the rewritten graph (same variables; fed, fetched and target nodes keep their
    names). ``config`` (a ConfigProto with graph_options.rewrite_options) switches its passes;
    a pass that fails is skipped with a RuntimeWarning naming it, or raises under
    RewriterConfig.fail_on_optimizer_errors / OPFORGE_OPTIMIZER_ERRORS=raise.
    """

    def __init__(self, target: str = "", graph=None, config=None):
        del target
        self._graph = graph if graph is not None else get_default_graph()
        self._c = _C.Session(self._graph._c)
        self._config = config
        passes = [name for name, on in _optimizer.enabled_passes(config).items() if on]
        if passes:
            self._c.set_optimizer(passes, _optimizer.fail_on_errors_requested(config))
        self._closed = False
        self._entered = []

    graph = property(lambda self: self._graph)

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    def close(self) -> None:
        self._closed = True
        pipeline = getattr(self._graph, "_data_pipeline", None)
        if pipeline is not None:
            pipeline.session_closed(self)  # stops this Session's dataset threads
        self._c.close_resources()  # and its iterators (dataset ops: data/native.py)

    def __enter__(self) -> Session:
        # As TensorFlow's: inside `with Session(graph=g)`, g is the default graph too.
        graph_cm = self._graph.as_default()
        graph_cm.__enter__()
        cm = self.as_default()
        cm.__enter__()
        self._entered.append((graph_cm, cm))
        return self

    def __exit__(self, *exc) -> None:
        graph_cm, cm = self._entered.pop()
        cm.__exit__(*exc)
        graph_cm.__exit__(*exc)
        self.close()

    @contextlib.contextmanager
    def as_default(self):
        _default.push(self)
        try:
            yield self
        finally:
            _default.remove(self)

    # ---- fetch structure
    def _element(self, obj):
        if isinstance(obj, str):
            return self._graph.as_graph_element(obj)
        if isinstance(obj, (GraphTensor, Operation)):
            if obj.graph is not self._graph:
                raise ValueError(f"Fetch argument {obj!r} is not an element of this graph.")
            return obj
        handle = getattr(obj, "_graph_element", None)
        if handle is not None:
            return handle()
        raise TypeError(f"Fetch argument {obj!r} has invalid type {type(obj).__name__}, must be a "
                        f"string, Tensor or Operation (or a nested list/tuple/dict of them).")

    def _flatten(self, fetches, flat: list):
        components = getattr(fetches, "_fetch_components", None)
        if components is not None:  # a composite (SparseTensor): its parts, rebuilt after the run
            parts, rebuild = components()
            return _Composite(self._flatten(tuple(parts), flat), rebuild)
        if isinstance(fetches, dict):
            return type(fetches)((k, self._flatten(v, flat)) for k, v in fetches.items())
        if isinstance(fetches, tuple) and hasattr(fetches, "_fields"):  # namedtuple
            return type(fetches)(*[self._flatten(v, flat) for v in fetches])
        if isinstance(fetches, (list, tuple)):
            return type(fetches)(self._flatten(v, flat) for v in fetches)
        el = self._element(fetches)
        flat.append(el)
        return len(flat) - 1

    def _rebuild(self, structure, values):
        if isinstance(structure, _Composite):
            return structure.rebuild(self._rebuild(structure.parts, values))
        if isinstance(structure, dict):
            return type(structure)((k, self._rebuild(v, values)) for k, v in structure.items())
        if isinstance(structure, tuple) and hasattr(structure, "_fields"):
            return type(structure)(*[self._rebuild(v, values) for v in structure])
        if isinstance(structure, (list, tuple)):
            return type(structure)(self._rebuild(v, values) for v in structure)
        return values[structure]

    @staticmethod
    def _feed_pairs(feed_dict):
        """(tensor, value) pairs of a feed_dict; a key that is a tuple of tensors (an RNN's
        LSTMStateTuple, say) feeds each of them from the matching part of its value, as in TF."""
        pairs = []

        def add(key, value):
            components = getattr(key, "_fetch_components", None)
            if components is not None:  # a SparseTensor fed a SparseTensorValue
                key = tuple(components()[0])
                value = value._feed_parts() if hasattr(value, "_feed_parts") else value  # a RaggedTensorValue
            if isinstance(key, tuple):
                if not isinstance(value, (list, tuple)) or len(value) != len(key):
                    raise ValueError(f"The value fed to a tuple of {len(key)} tensors must be a sequence of "
                                     f"the same length, got {type(value).__name__}")
                for k, v in zip(key, value):
                    add(k, v)
            else:
                pairs.append((key, value))

        for key, value in (feed_dict or {}).items():
            add(key, value)
        return pairs

    @staticmethod
    def _feed_value(t, value):
        """The tensor a value fed to t becomes (NumPy arrays of t's dtype are used in place)."""
        if isinstance(value, EagerTensor):
            return value
        if t.dtype == dtypes.string:
            return convert_to_tensor(value, dtypes.string, op=t.name)
        arr = np.asarray(value)
        if arr.dtype.kind in "OUS":
            raise InvalidArgumentError(f"cannot feed {type(value).__name__} to {t.name}")
        want = t.dtype.as_numpy_dtype
        if arr.dtype != want:
            return convert_to_tensor(arr.astype(want, copy=False))
        return EagerTensor._borrow_numpy(arr, t.dtype.as_datatype_enum)  # read in place, never written

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs what ``fetches`` needs; returns their values (NumPy) in the same structure.
        Operations fetch as None. ``options`` (a RunOptions) and ``run_metadata`` (a
        RunMetadata) are accepted as TensorFlow's are; with ``options.output_partition_graphs``
        the metadata receives the graph that ran (opforge runs one partition), and with
        ``options.trace_level`` above NO_TRACE (FULL_TRACE, say) ``run_metadata.step_stats``
        gets each node's run: start, duration, thread, outputs and memory, as TensorFlow's
        (framework/step_stats.py; ``of.timeline.Timeline`` turns it into a Chrome trace)."""
        if run_metadata is not None and options is not None and getattr(options, "output_partition_graphs", False):
            run_metadata.partition_graphs.add().CopyFrom(self._graph.as_graph_def())
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat: list = []
        structure = self._flatten(fetches, flat)
        feeds = []
        for key, value in self._feed_pairs(feed_dict):
            t = self._element(key) if not isinstance(key, GraphTensor) else key
            if isinstance(t, Operation):
                raise TypeError(f"Cannot interpret feed_dict key {key!r} as a Tensor: it is an Operation")
            if t.graph is not self._graph:
                raise ValueError(f"Cannot feed {t.name}: it is not an element of this graph")
            if isinstance(value, GraphTensor):
                raise TypeError("The value of a feed cannot be a graph tensor; feed NumPy values")
            feeds.append((t._ref(), self._feed_value(t, value)))
        fetch_refs, targets, slots = [], [], []
        for el in flat:
            if isinstance(el, Operation):
                targets.append(el._id)
                slots.append(None)
            else:
                slots.append(len(fetch_refs))
                fetch_refs.append(el._ref())
        # tf.data iterators (data/iterator_ops.py): the next element of each iterator this run
        # needs is fed to its get_next nodes; an initializer also fetches what it reads.
        pipeline = getattr(self._graph, "_data_pipeline", None)
        after, n_fetches = None, len(fetch_refs)
        if pipeline is not None:
            extra_feeds, extra_fetches, after = pipeline.before_run(self, flat, feeds)
            feeds += [(t._ref(), self._feed_value(t, v)) for t, v in extra_feeds]
            fetch_refs += [t._ref() for t in extra_fetches]
        trace = run_metadata is not None and _step_stats.tracing_requested(options)
        results = self._run_c(feeds, fetch_refs, targets, trace)
        if trace:
            results, step_stats = results
            _step_stats.fill_run_metadata(run_metadata, step_stats)
        if after is not None:
            after([results[i]._take_numpy() for i in range(n_fetches, len(fetch_refs))])
        values = []
        for s in slots:
            if s is None:
                values.append(None)
            else:
                arr = results[s]._take_numpy()  # no copy when the run's result is unshared
                values.append(arr[()] if arr.ndim == 0 else arr)
        return self._rebuild(structure, values)

    # ---- the graph optimizer
    def _run_c(self, feeds, fetch_refs, targets, trace=False):
        try:
            return self._c.run(feeds, fetch_refs, targets, trace)
        finally:
            failures = self._c.take_optimizer_errors()
            if failures:
                _optimizer.report_failures(failures, stacklevel=3)  # at the caller of Session.run

    def _optimized_graph_defs(self) -> list:
        """GraphDefs of the graphs the optimizer made for this session's cached plans (one per
        run signature whose graph it changed beyond pruning)."""
        return [_graph_def.graph_def_from_runtime(g) for g in self._c.optimized_graphs()]

    def make_callable(self, fetches, feed_list=None):
        feed_list = list(feed_list or [])

        def call(*values):
            return self.run(fetches, dict(zip(feed_list, values)))
        return call


class InteractiveSession(Session):
    """A Session that installs itself as the default session on construction."""

    def __init__(self, target: str = "", graph=None, config=None):
        super().__init__(target, graph, config)
        _default.push(self)

    def close(self) -> None:
        super().close()
        _default.remove(self)


_ = collections.abc
