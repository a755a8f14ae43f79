"""The Markdown op reference."""

from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes
from ..api.python import py_literal, py_op
from . import render


@dataclass(frozen=True)
class DocOp:
    name: str
    signature: str
    summary: str
    description: str
    rows: tuple[tuple[str, str], ...]


def _type_of(arg) -> str:
    t = dtypes.python_name(arg.type) if arg.type else (arg.type_attr or arg.type_list_attr)
    return f"{arg.number_attr} * {t}" if arg.number_attr else t


def _doc_op(op) -> DocOp:
    p = py_op(op)
    sig = f"of.{p.func}(" + ", ".join(x.name if x.default is None else f"{x.name}={x.default}"
                                     for x in p.params) + ")"
    rows = []
    for a in op.inputs:
        rows.append((f"input `{a.name}`", f"`{_type_of(a)}` {a.description}".strip()))
    for a in op.outputs:
        rows.append((f"output `{a.name}`", f"`{_type_of(a)}` {a.description}".strip()))
    for a in op.attrs:
        desc = f"`{a.type}`"
        if a.allowed:
            vals = [dtypes.python_name(v) if a.base_type == "type" else repr(v) for v in a.allowed]
            desc += " in {" + ", ".join(vals) + "}"
        if a.has_default:
            desc += f", default `{py_literal(a, a.default)}`"
        if a.minimum is not None:
            desc += f", at least {a.minimum}"
        if a.name in op.inferred_attrs:
            desc += " (inferred from the inputs)"
        rows.append((f"attr `{a.name}`", desc))
    if op.shape_fn:
        rows.append(("shape", f"`{op.shape_fn.name}({', '.join(op.shape_fn.args)})`"))
    if op.not_differentiable:
        grad = "not differentiable"
    elif op.gradient_fn:
        grad = f"hand-written: `{op.gradient_fn}`"
    elif op.gradients:
        grad = "; ".join(f"d/d{g.wrt}: `{g.expr}`" for g in op.gradients)
    else:
        grad = "none defined"
    rows.append(("gradient", grad.replace("|", "\\|")))
    if op.reference:
        rows.append(("NumPy reference", f"`{op.reference}`".replace("|", "\\|")))
    rows.append(("defined in", f"`{op.source}`"))
    desc = " ".join(op.description.split()) if op.description else ""
    return DocOp(op.name, sig, op.summary, desc, tuple(rows))


@dataclass(frozen=True)
class DocGroup:
    name: str
    ops: tuple[DocOp, ...]


def emit(groups: dict[str, list]) -> dict[str, str]:
    gs = [DocGroup(g, tuple(_doc_op(op) for op in ops)) for g, ops in groups.items()]
    return {"docs/ops.md": render("docs_ops.md.j2", groups=gs)}
