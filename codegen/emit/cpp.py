"""C++ outputs: per group, a header of typed call structs and a registration source."""

from __future__ import annotations

from ..api.cpp import cpp_op
from . import render


def emit(groups: dict[str, list]) -> dict[str, str]:
    out: dict[str, str] = {}
    for group, ops in groups.items():
        cops = [cpp_op(op) for op in ops]
        out[f"cpp/opforge/ops/{group}_ops.h"] = render("cpp_ops.h.j2", group=group, ops=cops)
        out[f"cpp/src/{group}_ops.cc"] = render("cpp_ops.cc.j2", group=group, ops=cops)
    return out
