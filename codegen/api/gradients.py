"""Gradient bindings: turn an op's gradient formulas into a Python function.

The function receives the recorded op (inputs and outputs grouped per argument, attrs by
name) and the incoming gradients, and returns one gradient per input argument (None where
the op has no formula for that input).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import GRADIENT_HELPERS, Op, python_param


@dataclass(frozen=True)
class GradFn:
    op: Op
    func: str
    bindings: tuple[str, ...]  # statements binding the names the formulas use
    results: tuple[str, ...]  # one expression per input (or "None")


@dataclass(frozen=True)
class GradModule:
    fns: tuple[GradFn, ...]
    imports: tuple[tuple[str, tuple[str, ...]], ...]  # (module, names)
    helpers: tuple[str, ...]
    not_differentiable: tuple[str, ...]
    custom: tuple[tuple[str, str], ...]  # (op name, gradient function name)


def grad_module(ops: list, all_ops: list, module_of: dict[str, str] | None = None) -> GradModule:
    """``module_of`` maps wrapper names to the module defining them where that is not
    opforge.generated.gen_<group>_ops (ops of a loaded op library)."""
    module_of = module_of or {}
    group_of = {o.snake_name: o.group for o in all_ops}
    fns, custom, nondiff = [], [], []
    imports: dict[str, set[str]] = {}
    helpers: set[str] = set()
    for op in ops:
        if op.not_differentiable:
            nondiff.append(op.name)
            continue
        if op.gradient_fn:
            custom.append((op.name, op.gradient_fn))
            continue
        if not op.gradients:
            continue
        used: list[str] = []
        for g in op.gradients:
            for n in g.names:
                if n not in used:
                    used.append(n)
        own_inputs = [a.name for a in op.inputs]
        own_outputs = [a.name for a in op.outputs]
        own_attrs = [a.name for a in op.attrs]
        bindings = []
        for i, n in enumerate(own_inputs):
            if n in used:
                bindings.append(f"{python_param(n)} = op.inputs[{i}]")
        for i, n in enumerate(own_outputs):
            if n in used and n not in own_inputs:
                bindings.append(f"{python_param(n)} = op.outputs[{i}]")
        for n in own_attrs:
            if n in used:
                bindings.append(f"{python_param(n)} = op.attrs[{n!r}]")
        if "grad" in used:
            bindings.append("grad = grads[0]")
        own = set(own_inputs) | set(own_outputs) | set(own_attrs) | {"grad", "grads"}
        for n in used:
            if n in own:
                continue
            if n in GRADIENT_HELPERS:
                helpers.add(n)
            elif n in module_of:
                imports.setdefault(module_of[n], set()).add(n)
            elif n in group_of:
                imports.setdefault(f"opforge.generated.gen_{group_of[n]}_ops", set()).add(n)
        by_wrt = {g.wrt: g.expr for g in op.gradients}
        results = tuple(by_wrt.get(n, "None") for n in own_inputs)
        fns.append(GradFn(op, f"_{op.snake_name.rstrip('_')}_grad", tuple(bindings), results))
    return GradModule(tuple(fns), tuple((m, tuple(sorted(v))) for m, v in sorted(imports.items())),
                      tuple(sorted(helpers)), tuple(nondiff), tuple(custom))
