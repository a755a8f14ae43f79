"""C++ outputs: per group, the typed call structs (one header per op, gathered by a group
header) and a registration source."""

from __future__ import annotations

from ..api.cpp import cpp_op
from . import render


def op_header(group: str, op) -> str:
    """Include path of one op's call-struct header, e.g. opforge/ops/math/cube.h."""
    return f"opforge/ops/{group}/{op.snake_name}.h"


def emit(groups: dict[str, list], per_op_headers: bool = True) -> dict[str, str]:
    """Built-in groups get a header per op (adding an op then recompiles only its own kernel);
    an op library (per_op_headers=False) keeps its structs in its one header."""
    out: dict[str, str] = {}
    for group, ops in groups.items():
        cops = [cpp_op(op) for op in ops]
        headers = []
        if per_op_headers:
            for c in cops:
                h = op_header(group, c.op)
                out[f"cpp/{h}"] = render("cpp_op.h.j2", c=c)
                headers.append(h)
        out[f"cpp/opforge/ops/{group}_ops.h"] = render("cpp_ops.h.j2", group=group, ops=cops,
                                                       op_headers=headers)
        out[f"cpp/src/{group}_ops.cc"] = render("cpp_ops.cc.j2", group=group, ops=cops)
    return out
