"""Python outputs: wrappers, type stubs, gradient bindings and the op index."""

from __future__ import annotations

from ..api.gradients import grad_module
from ..api.python import py_op
from . import render


def emit(groups: dict[str, list], all_ops: list, with_grads: bool = True) -> dict[str, str]:
    out: dict[str, str] = {}
    for group, ops in groups.items():
        pyops = [py_op(op) for op in ops]
        sources = sorted({op.source for op in ops})
        out[f"python/gen_{group}_ops.py"] = render("python_ops.py.j2", group=group, ops=pyops, sources=sources)
        out[f"python/gen_{group}_ops.pyi"] = render("python_ops.pyi.j2", group=group, ops=pyops)
        if with_grads:
            out[f"python/gen_{group}_grads.py"] = render(
                "python_grads.py.j2", group=group, module=grad_module(ops, all_ops))
    out["python/__init__.py"] = '"""Generated op wrappers and gradient bindings (see op_index.py). Do not edit."""\n'
    out["python/op_index.py"] = render("python_index.py.j2", groups=sorted(groups), ops=all_ops)
    return out
