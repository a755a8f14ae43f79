"""The graph optimizer (TensorFlow's Grappler, DESIGN.md section 5): passes over a GraphDef
that run before a Session builds its plan, one pass per module, each switched by its
RewriterConfig name (see config.py).

``optimize(graph_def, preserve, fed, config)`` returns the optimized copy and a report of
node counts per pass. Order: common subgraph elimination, constant folding, arithmetic
simplification, dependency optimization, batch-norm folding (with constant folding, as
TensorFlow pushes constant multiplications into convolutions there), remapping into fused
ops. A pass that raises is skipped and its error recorded (TensorFlow's meta-optimizer does
the same unless fail_on_optimizer_errors): the graph stays as the previous pass left it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import graph_def as _gd
from . import arithmetic, common_subgraph, constant_folding, dependency, fold_batch_norm, remapper
from .config import enabled_passes, get_experimental_options, set_experimental_options  # noqa: F401
from .graph_view import GraphView, parse_input

# (report name, RewriterConfig toggle, module)
PIPELINE = (
    ("common_subgraph_elimination", "common_subgraph_elimination", common_subgraph),
    ("constant_folding", "constant_folding", constant_folding),
    ("arithmetic_optimization", "arithmetic_optimization", arithmetic),
    ("dependency_optimization", "dependency_optimization", dependency),
    ("fold_batch_norm", "constant_folding", fold_batch_norm),
    ("remapping", "remapping", remapper),
)


@dataclass
class PassResult:
    name: str
    nodes_before: int
    nodes_after: int
    seconds: float
    error: str | None = None


def sinks(graph_def) -> list[str]:
    """Names of nodes no other node reads (data or control): the default outputs."""
    used = {parse_input(i)[0] for nd in graph_def.node for i in nd.input}
    return [nd.name for nd in graph_def.node if nd.name not in used]


def optimize(graph_def, preserve=None, fed=(), config=None, fail_on_errors=False):
    """Optimizes a copy of graph_def. ``preserve``: names of nodes that must survive with
    their name and outputs (default: the sinks); ``fed``: nodes whose outputs will be fed
    (never treated as constants). Returns (GraphDef, [PassResult])."""
    gd = _gd.GraphDef()
    gd.CopyFrom(graph_def)
    preserve = set(sinks(gd) if preserve is None else preserve) | set(fed)
    view = GraphView(gd, preserve, fed)
    view.prune_dead()
    enabled = enabled_passes(config)
    report = []
    for name, toggle, module in PIPELINE:
        if not enabled.get(toggle, True):
            continue
        before = len(gd.node)
        t0 = time.perf_counter()
        snapshot = _gd.GraphDef()
        snapshot.CopyFrom(gd)
        error = None
        try:
            module.run(view)
            view.prune_dead()
        except Exception as e:  # noqa: BLE001  see the module docstring
            if fail_on_errors:
                raise
            error = f"{type(e).__name__}: {e}"
            gd.CopyFrom(snapshot)
            view.reset()
        report.append(PassResult(name, before, len(gd.node), time.perf_counter() - t0, error))
    return gd, report
