"""The opdef model: the frozen dataclasses every emitter reads, the located error, and the
naming rules (op name -> Python wrapper name, argument -> Python parameter).

Parsing lives in :mod:`codegen.specs` (spec strings, the verbose form), checking in
:mod:`codegen.validate`, loading files in :mod:`codegen.model`, which re-exports all of it.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from typing import Any

from .locations import Loc


class OpDefError(Exception):
    """A located problem in an opdef: ``file:line: message``."""

    def __init__(self, loc: Loc, message: str):
        super().__init__(f"{loc}: {message}")
        self.loc = loc
        self.message = message


# ---------------------------------------------------------------------------- model types


@dataclass(frozen=True)
class Arg:
    """An input or output argument."""

    name: str
    description: str
    type: str | None  # a fixed dtype (spec name), or None
    type_attr: str | None  # the type attr giving its dtype
    number_attr: str | None  # the int attr giving its length (a list of N tensors)
    type_list_attr: str | None  # the list(type) attr giving its dtypes
    is_ref: bool
    loc: Loc

    @property
    def is_list(self) -> bool:
        return bool(self.number_attr or self.type_list_attr)


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # "int", "list(type)", ...
    has_default: bool
    default: Any  # Python value: int, float, bool, str, dtype spec name, list, tuple
    allowed: tuple | None  # allowed values (dtype spec names for type attrs)
    minimum: int | None
    description: str
    loc: Loc

    @property
    def base_type(self) -> str:
        return self.type[5:-1] if self.type.startswith("list(") else self.type


@dataclass(frozen=True)
class ShapeFn:
    name: str  # catalogue name or "custom"
    args: tuple[str, ...]
    loc: Loc


@dataclass(frozen=True)
class Gradient:
    wrt: str
    expr: str
    names: tuple[str, ...]  # free names the expression uses
    loc: Loc


@dataclass(frozen=True)
class Op:
    name: str
    group: str
    loc: Loc
    summary: str
    description: str
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    attrs: tuple[Attr, ...]
    is_commutative: bool
    is_aggregate: bool
    is_stateful: bool
    deprecation: tuple[int, str] | None
    shape_fn: ShapeFn | None
    gradients: tuple[Gradient, ...]
    gradient_fn: str
    not_differentiable: bool
    reference: str
    # TensorFlow's is_distributed_communication: the op talks to other processes (collectives);
    # executors run such ops in the same order on every process.
    is_distributed_communication: bool = False
    # derived
    snake_name: str = field(default="")
    inferred_attrs: frozenset = field(default=frozenset())
    source: str = field(default="")  # the opdef file as generated files name it
    # TensorFlow's api_def renames: {input or attr name: its Python name}
    python_names: tuple[tuple[str, str], ...] = field(default=())

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)

    def input(self, name: str) -> Arg | None:
        return next((a for a in self.inputs if a.name == name), None)

    def py_name(self, name: str) -> str:
        """The Python parameter name of an input or attr (wrapper, raw_ops): its TensorFlow
        api_def rename if it has one, made safe as a Python identifier."""
        return python_param(dict(self.python_names).get(name, name))

    @property
    def explicit_attrs(self) -> tuple[Attr, ...]:
        """Attrs the caller passes (the rest are inferred from the inputs)."""
        return tuple(a for a in self.attrs if a.name not in self.inferred_attrs)

    @property
    def differentiable(self) -> bool:
        return bool(self.gradients or self.gradient_fn)


# ---------------------------------------------------------------------------- naming

CAMEL_NAME = re.compile(r"^_*[A-Z][A-Za-z0-9_>]*$")  # ">" separates namespaces, as in TF
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def snake_case(name: str) -> str:
    """TensorFlow's op-name rule: MatMul -> mat_mul, Conv2D -> conv2d, AddV2 -> add_v2."""
    name = name.replace(">", "_")
    out = []
    n = len(name)
    for i, c in enumerate(name):
        if c.isupper():
            prev = name[i - 1] if i > 0 else ""
            nxt = name[i + 1] if i + 1 < n else ""
            # a word starts after a lowercase letter, or at the last capital of a run
            # (BiasAdd, LRNGrad) or after a digit (L2Loss -> l2_loss; Conv2D stays conv2d)
            if i > 0 and prev != "_" and (prev.islower() or ((prev.isupper() or prev.isdigit()) and nxt.islower())):
                out.append("_")
            out.append(c.lower())
        else:
            out.append(c)
    s = "".join(out)
    return s + "_" if keyword.iskeyword(s) else s


def python_param(name: str) -> str:
    """An argument's Python parameter name: keywords and ``name`` get a trailing underscore."""
    if keyword.iskeyword(name) or keyword.issoftkeyword(name) or name == "name":
        return name + "_"
    return name

