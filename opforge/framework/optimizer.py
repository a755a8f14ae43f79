"""The graph optimizer (TensorFlow's Grappler, DESIGN.md section 5), from Python.

The passes are C++ (runtime/src/optimizer/: one pass per file over the runtime's own graph,
run in TensorFlow's order by meta_optimizer.cc). A Session runs them itself, once per (feeds,
fetches, targets) signature when it plans that signature, with the passes ``config`` (a
ConfigProto, RewriterConfig or dict: see opforge/config/optimizer.py) turns on. This module gives the same
passes over a GraphDef, for ``opforge optimize`` and the tests: ``optimize(graph_def, preserve,
fed, config)`` returns the optimized GraphDef and a report of node counts per pass.

A pass that fails leaves the graph as the previous pass left it; its failure is reported as a
RuntimeWarning naming the pass, or raised (an InternalError) with ``fail_on_errors``,
RewriterConfig.fail_on_optimizer_errors or OPFORGE_OPTIMIZER_ERRORS=raise.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import _C
from ..config import optimizer as _optimizer_config
from ..config.optimizer import (  # noqa: F401
    TOGGLES,
    enabled_passes,
    fail_on_errors_requested,
    get_experimental_options,
    set_experimental_options,
)
from ..io import graph_def as _gd
from ..io.importer import import_graph_def
from .graph import Graph


@dataclass
class PassResult:
    name: str
    nodes_before: int
    nodes_after: int
    seconds: float
    error: str | None = None


def _parse_input(name: str) -> str:
    return name[1:] if name.startswith("^") else name.partition(":")[0]


def sinks(graph_def) -> list[str]:
    """Names of nodes no other node reads (data or control): the default outputs."""
    used = {_parse_input(i) for nd in graph_def.node for i in nd.input}
    return [nd.name for nd in graph_def.node if nd.name not in used]


def optimize(graph_def, preserve=None, fed=(), config=None, fail_on_errors=False):
    """Optimizes graph_def with the runtime's passes. ``preserve``: names of nodes that must
    survive with their name and outputs (default: the sinks); ``fed``: nodes whose outputs will
    be fed (never treated as constants). Returns (GraphDef, [PassResult])."""
    preserve = list(sinks(graph_def) if preserve is None else preserve)
    fed = list(fed)
    fail = fail_on_errors or fail_on_errors_requested(config)
    passes = [name for name, on in enabled_passes(config).items() if on]
    g = Graph()
    with g.as_default():
        import_graph_def(graph_def, name="")
    c_graph, report = _C.optimize_graph(g._c, preserve + fed, fed, passes, fail)
    out = _gd.graph_def_from_runtime(c_graph)
    out.versions.CopyFrom(graph_def.versions)
    if graph_def.library.function:
        out.library.CopyFrom(graph_def.library)
    results = [PassResult(name, before, after, seconds, error) for name, _, before, after, seconds, error in report]
    _optimizer_config.report_failures([f"{r.name}: {r.error}" for r in results if r.error], stacklevel=2)
    return out, results
