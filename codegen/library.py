"""Op libraries: the codegen behind ``opforge_add_op_library`` (C++ registration of a
library's opdefs, with its ABI tag and the opdef text embedded) and behind
``of.load_op_library`` (the Python wrappers and gradient bindings, generated at load time
from the opdefs embedded in the library, by the same emitters as the built-in ops).

A library's ops all belong to one group named after the library, so kernels include
``opforge/ops/<library>_ops.h``.
"""

from __future__ import annotations

import os
import re

from . import model
from .api import python as python_api
from .api.gradients import grad_module
from .emit import cpp as emit_cpp
from .emit import render
from .locations import Loc

_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")

_BUILTIN: list | None = None


def builtin_opdefs_dir() -> str:
    """The built-in opdefs: opdefs/ beside codegen/ in a checkout, opforge/opdefs in the
    installed package (same relative layout)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "opdefs")


def builtin_ops() -> list:
    """The built-in ops (loaded once); gradient formulas of library ops may use their wrappers."""
    global _BUILTIN
    if _BUILTIN is None:
        d = builtin_opdefs_dir()
        _BUILTIN = model.load([d]) if os.path.isdir(d) else []
    return _BUILTIN


def check_name(name: str, base_ops: list) -> None:
    if not _NAME.match(name):
        raise model.OpDefError(Loc("<library>", 1), f"library name '{name}' must be a lower-case "
                                                    f"identifier (e.g. 'zero_out')")
    if name in {o.group for o in base_ops}:
        raise model.OpDefError(Loc("<library>", 1), f"library name '{name}' is the name of a "
                                                    f"built-in op group; choose another")


def opdef_files(paths: list[str]) -> list[tuple[str, str]]:
    """(source name, text) of every opdef file under the given files or dirs."""
    out = []
    for path, _display, source in model.opdef_files(paths):
        with open(path, encoding="utf-8") as f:
            out.append((source, f.read()))
    return out


def parse(name: str, files: list[tuple[str, str]]) -> list:
    """The (unchecked) ops of a library from its (source, text) opdef files."""
    ops = []
    for source, text in files:
        ops.extend(model.parse_file(source, display=source, group=name, text=text, source=source))
    return ops


def check(name: str, ops: list, base_ops: list) -> list:
    """Validates library ops together with the ops they may use (built-in and earlier loaded
    libraries): names must not clash, gradient formulas may name any of their wrappers."""
    check_name(name, base_ops)
    if not ops:
        raise model.OpDefError(Loc("<library>", 1), f"library '{name}' defines no ops")
    base_names = {o.name: o for o in base_ops}
    for op in ops:
        if op.name in base_names:
            raise model.OpDefError(op.loc, f"op '{op.name}' is already defined by opforge "
                                           f"({base_names[op.name].source})")
    checked = model.check(list(base_ops) + list(ops))
    own = {id(o) for o in ops}
    return [o for o in checked if id(o) in own]


def _c_lines(text: str) -> list[str]:
    """text as C string literal pieces (one per line), every byte outside printable ASCII
    (and quote, backslash, '?') as an octal escape."""
    lines = []
    for line in text.encode("utf-8").splitlines(keepends=True):
        piece = []
        for b in line:
            c = chr(b)
            if 32 <= b < 127 and c not in '"\\?':
                piece.append(c)
            else:
                piece.append(f"\\{b:03o}")
        lines.append("".join(piece))
    return lines or [""]


def cpp_files(name: str, ops: list, files: list[tuple[str, str]]) -> dict[str, str]:
    """{relative path: text}: the call-struct header, the registration source and the
    library source (ABI tag, name, embedded opdefs)."""
    python_api.clear_cache()
    out = emit_cpp.emit({name: ops}, per_op_headers=False)
    out[f"cpp/src/{name}_library.cc"] = render(
        "cpp_library.cc.j2", name=name, files=[(s.replace('"', "'"), _c_lines(t)) for s, t in files])
    return out


def python_sources(name: str, ops: list, base_ops: list, module_of: dict[str, str],
                   module_name: str) -> tuple[str, str]:
    """(wrappers, gradient bindings) Python source for a library's ops, as the built-in
    modules are generated. ``module_of`` maps wrapper names of earlier libraries to their
    modules; the library's own wrappers live in ``module_name``."""
    python_api.clear_cache()
    pyops = [python_api.py_op(op) for op in ops]
    sources = sorted({op.source for op in ops})
    wrappers = render("python_ops.py.j2", group=name, ops=pyops, sources=sources)
    mods = dict(module_of)
    mods.update({op.snake_name: module_name for op in ops})
    grads = render("python_grads.py.j2", group=name,
                   module=grad_module(ops, list(base_ops) + list(ops), mods))
    return wrappers, grads
