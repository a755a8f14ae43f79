"""The import graph of the opforge package, read from the sources with ``ast``, and its cycles.

    python tools/import_graph.py            # lists every import cycle; exit status 1 if any
    python tools/import_graph.py --edges    # and every edge (module -> imported module)

Every ``import`` and ``from ... import`` statement counts, wherever it is: at module level,
inside a function, under ``if``/``try``. A function-level import that only breaks a cycle at
run time is still the cycle; so is an import by name (``importlib.import_module``, and
the ``"module:function"`` strings the gradient registry imports). ``from package import name`` is an edge to the submodule
``package.name`` when that is a module, else to the package's ``__init__``. The generated Python
modules (generated/python, installed as opforge.generated) are part of the graph; the compiled
extension opforge._C is a leaf. Public aliases (``opforge.nn`` for opforge.ops.nn, see
``_PUBLIC_MODULES`` in opforge/__init__.py) resolve to the module they name.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "opforge"
# Source folders of the package: opforge/ itself, and the generated modules installed as
# opforge.generated (generated/python in the checkout).
SOURCES = ((os.path.join(ROOT, "opforge"), PACKAGE),
           (os.path.join(ROOT, "generated", "python"), PACKAGE + ".generated"))
EXTENSIONS = {PACKAGE + "._C"}  # compiled modules: they import nothing from the package
ALIAS_TABLES = ("_PUBLIC_MODULES",)  # dict literals in opforge/__init__.py


def find_modules() -> dict[str, str]:
    """Module name -> source file, for every .py file of the package."""
    modules = {}
    for folder, prefix in SOURCES:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            rel = os.path.relpath(dirpath, folder)
            pkg = prefix if rel == "." else prefix + "." + rel.replace(os.sep, ".")
            for f in sorted(filenames):
                if f.endswith(".py"):
                    name = pkg if f == "__init__.py" else f"{pkg}.{f[:-3]}"
                    modules[name] = os.path.join(dirpath, f)
    if PACKAGE + ".generated.proto" not in modules:  # installed from generated/proto
        for f in sorted(os.listdir(os.path.join(ROOT, "generated", "proto"))):
            if f.endswith(".py"):
                modules[f"{PACKAGE}.generated.proto.{f[:-3]}"] = os.path.join(ROOT, "generated", "proto", f)
        modules.setdefault(PACKAGE + ".generated.proto", "")
    return modules


def read_aliases(init_file: str) -> dict[str, str]:
    """Public name -> real module, from the alias tables of the package's __init__."""
    aliases = {}
    tree = ast.parse(open(init_file).read(), init_file)
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id in ALIAS_TABLES:
            for key, value in ast.literal_eval(node.value).items():
                aliases[key if "." in key else f"{PACKAGE}.{key}"] = value
    return aliases


def _pattern(node) -> str | None:
    """The text of a string constant, or of an f-string with ``*`` for each formatted part."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    return None


def _imports(tree, known):
    """(lineno, level, module, name) for every import the module makes: import statements;
    ``importlib.import_module("opforge.x")`` (an f-string stands for every module it can
    spell); and a string constant ``"opforge.x:function"`` (what gradient registration
    imports by name)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, 0, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield node.lineno, node.level, node.module, alias.name
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module" \
                and node.args and isinstance(node.args[0], ast.JoinedStr):
            pattern = _pattern(node.args[0])
            for name in sorted(known):
                if fnmatch.fnmatchcase(name, pattern):
                    yield node.lineno, 0, name, None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.count(":") == 1:
            name = node.value.split(":")[0]
            if name in known:
                yield node.lineno, 0, name, None


def build_graph(modules: dict[str, str] | None = None, aliases: dict[str, str] | None = None):
    """{module: {imported module: first line}} over the package's modules."""
    modules = find_modules() if modules is None else modules
    aliases = read_aliases(modules[PACKAGE]) if aliases is None else aliases
    known = set(modules) | EXTENSIONS

    def resolve(name):
        for _ in range(len(aliases) + 1):  # an alias may name another alias
            if name not in aliases:
                break
            name = aliases[name]
        return name if name in known else None

    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        if not path:
            continue
        is_package = os.path.basename(path) == "__init__.py"
        package = module if is_package else module.rpartition(".")[0]
        tree = ast.parse(open(path).read(), path)
        for lineno, level, base, name in _imports(tree, known):
            if level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - level + 1] + ([base] if base else []))
            if base is None or not (base == PACKAGE or base.startswith(PACKAGE + ".")):
                continue
            target = None
            if name is not None and name != "*":
                target = resolve(f"{base}.{name}")
            if target is None:
                target = resolve(base)
            if target is not None and target != module:
                edges.setdefault(target, lineno)
    return graph


def strongly_connected(graph) -> list[list[str]]:
    """The graph's strongly connected components with more than one module (Tarjan), sorted."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_cycle(graph, component) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first), as a path that
    ends where it starts: a readable witness of the component."""
    members = set(component)
    start = component[0]
    parent = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
            if w not in parent:
                parent[w] = v
                queue.append(w)
    return component


def describe(graph, component, modules=None) -> str:
    """One cycle: its modules, and a shortest loop with the line of each import."""
    modules = find_modules() if modules is None else modules
    loop = shortest_cycle(graph, component)
    steps = []
    for a, b in zip(loop, loop[1:]):
        path = os.path.relpath(modules[a], ROOT) if modules.get(a) else a
        steps.append(f"    {a} -> {b}  ({path}:{graph[a][b]})")
    return f"cycle of {len(component)} modules: {', '.join(component)}\n  e.g.\n" + "\n".join(steps)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edges", action="store_true", help="print every edge too")
    args = parser.parse_args(argv)
    modules = find_modules()
    graph = build_graph(modules)
    if args.edges:
        for module in sorted(graph):
            for target, line in sorted(graph[module].items()):
                print(f"{module} -> {target}  (line {line})")
    cycles = strongly_connected(graph)
    for component in cycles:
        print(describe(graph, component, modules))
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports, {len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
