"""The process's function library from Python (runtime: opforge/function.h).

Ops with ``func`` attrs (the dataset ops: map's ``f``, a one-shot iterator's
``dataset_factory``) name a function of the runtime's library: a graph whose arguments are
Placeholders and whose results are tensors of it.

- ``register(graph, args, rets, hint)`` adds a graph (a traced dataset function, an imported
  FunctionDef's body) under a new unique name; ``registered(name)`` gives it back.
- ``imported(key)`` / ``remember_import(key, name)``: the names FunctionDefs of imported
  GraphDefs got (io/importer.py imports them; io/graph_def.py exports registered functions as
  FunctionDefs).
"""

from __future__ import annotations

import itertools
import threading

from .. import _C

__all__ = ["register", "registered", "imported", "remember_import"]

_lock = threading.Lock()
_counter = itertools.count(1)
_graphs: dict = {}  # registered name -> (graph, args, rets)
_imported: dict = {}  # digest of (library, name) -> registered name


def register(graph, args, rets, hint: str) -> str:
    """Adds graph (arguments: its Placeholder tensors ``args``; results ``rets``) to the
    library under a new name, which it returns."""
    name = f"__opforge_{hint}_{next(_counter)}"
    _C.register_function(name, graph._c, [a._ref() for a in args], [r._ref() for r in rets])
    with _lock:
        _graphs[name] = (graph, list(args), list(rets))
    return name


def registered(name: str):
    """(graph, args, rets) of a function registered from Python, or None."""
    with _lock:
        return _graphs.get(name)


def imported(key: str):
    """The registered name of an imported FunctionDef (key: its digest with its library), or None."""
    with _lock:
        return _imported.get(key)


def remember_import(key: str, name: str) -> str:
    """Records an imported FunctionDef's name; the first one recorded for key wins."""
    with _lock:
        return _imported.setdefault(key, name)
