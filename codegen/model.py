"""Opdefs parsed and validated into frozen dataclasses.

``load(paths)`` reads opdef files (text-format ``OpList``), normalizes TensorFlow's verbose
form and the compact REGISTER_OP spelling into one model, and checks it. Every problem is an
:class:`OpDefError` that names the file and line. Emitters read only these dataclasses.
"""

from __future__ import annotations

import ast
import keyword
import os
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format

from . import dtypes, shape_fns, textproto
from ._proto import opdef_pb2
from .locations import LineMap, Loc


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

_CAMEL = re.compile(r"^_*[A-Z][A-Za-z0-9_>]*$")  # ">" separates namespaces, as in TF
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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


# ---------------------------------------------------------------------------- spec strings

_ATTR_TYPES = ("int", "float", "bool", "string", "type", "shape", "tensor", "func")
_SPEC_ARG = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+?)\s*$")


def _split_top(s: str, sep: str = ",") -> list[str]:
    parts, depth, cur, quote = [], 0, "", ""
    for ch in s:
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _top_level_default_sign(s: str) -> int:
    """Index of the '=' that starts a default (not inside brackets or quotes, not '>='), or -1."""
    depth, quote = 0, ""
    for i, ch in enumerate(s):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0 and (i == 0 or s[i - 1] not in "<>!="):
            return i
    return -1


def _float32_value(v: float) -> float:
    """The shortest decimal that is the same float32 as v: AttrValue.f is a float32, so a
    verbose default 0.2 reads back as 0.20000000298...; the compact '= 0.2' must match it."""
    packed = struct.pack("<f", v)
    for digits in range(1, 10):
        candidate = float(f"{v:.{digits}g}")
        if struct.pack("<f", candidate) == packed:
            return candidate
    return v


def _parse_scalar(tok: str, base: str, loc: Loc, what: str):
    tok = tok.strip()
    try:
        if base == "int":
            return int(tok)
        if base == "float":
            return float(tok)
        if base == "bool":
            if tok not in ("true", "false", "True", "False"):
                raise ValueError
            return tok in ("true", "True")
        if base == "string":
            if len(tok) >= 2 and tok[0] == tok[-1] and tok[0] in "\"'":
                return tok[1:-1]
            raise ValueError
        if base == "type":
            name = dtypes.spec_name(tok)
            if name is None:
                raise ValueError
            return name
        if base == "shape":
            return _parse_shape_literal(tok)
    except ValueError:
        pass
    raise OpDefError(loc, f"malformed {what}: '{tok}' is not a {base}")


def _parse_shape_literal(tok: str):
    if tok in ("?", "<unknown>"):
        return None
    inner = tok.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ValueError
    return tuple(-1 if d.strip() == "?" else int(d) for d in _split_top(inner[1:-1]))


def _parse_types(body: str, loc: Loc, spec: str) -> tuple[str, ...]:
    out: list[str] = []
    for tok in _split_top(body):
        if tok in dtypes.TYPE_CLASSES:
            out.extend(t for t in dtypes.TYPE_CLASSES[tok] if t not in out)
            continue
        name = dtypes.spec_name(tok)
        if name is None:
            raise OpDefError(loc, f"malformed attr spec '{spec}': unknown type '{tok}'")
        if name not in out:
            out.append(name)
    return tuple(out)


def parse_attr_spec(spec: str, loc: Loc, description: str = "") -> Attr:
    """Parses ``"T: {float, double} = DT_FLOAT"``, ``"N: int >= 2"``, ``"ksize: list(int)"``."""
    m = _SPEC_ARG.match(spec)
    if not m:
        raise OpDefError(loc, f"malformed attr spec '{spec}': expected 'name: type'")
    name, rest = m.group(1), m.group(2)
    default_tok = None
    eq = _top_level_default_sign(rest)
    if eq >= 0:
        rest, default_tok = rest[:eq].strip(), rest[eq + 1:].strip()
        if not default_tok:
            raise OpDefError(loc, f"malformed attr spec '{spec}': '=' without a default")
    minimum = None
    mm = re.match(r"^(.*?)\s*>=\s*(-?\d+)$", rest)
    if mm:
        rest, minimum = mm.group(1).strip(), int(mm.group(2))
    allowed = None
    is_list = rest.startswith("list(") and rest.endswith(")")
    base = rest[5:-1].strip() if is_list else rest
    if base.startswith("{") and base.endswith("}"):
        body = base[1:-1].strip()
        if body[:1] in "\"'":
            allowed = tuple(_parse_scalar(t, "string", loc, f"attr spec '{spec}'")
                            for t in _split_top(body))
            base = "string"
        else:
            allowed = _parse_types(body, loc, spec)
            base = "type"
    elif base in dtypes.TYPE_CLASSES:
        allowed = dtypes.TYPE_CLASSES[base]
        base = "type"
    if base not in _ATTR_TYPES:
        raise OpDefError(loc, f"malformed attr spec '{spec}': unknown attr type '{rest}'")
    if minimum is not None and not (is_list or base == "int"):
        raise OpDefError(loc, f"malformed attr spec '{spec}': '>=' needs an int or list attr")
    type_name = f"list({base})" if is_list else base
    default = None
    if default_tok is not None:
        if is_list:
            if not (default_tok.startswith("[") and default_tok.endswith("]")):
                raise OpDefError(loc, f"malformed attr spec '{spec}': list default must be [...]")
            default = tuple(_parse_scalar(t, base, loc, f"default in '{spec}'")
                            for t in _split_top(default_tok[1:-1]))
        else:
            default = _parse_scalar(default_tok, base, loc, f"default in '{spec}'")
    return Attr(name, type_name, default_tok is not None, default, allowed, minimum, description, loc)


_ARG_BODY = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*)\s*\*\s*)?([A-Za-z_][A-Za-z0-9_]*)$")


def parse_arg_spec(spec: str, loc: Loc, attrs: dict[str, Attr], description: str = "") -> Arg:
    """Parses ``"x: T"``, ``"values: N * T"``, ``"args: Tlist"``, ``"ref: Ref(T)"``."""
    m = _SPEC_ARG.match(spec)
    if not m:
        raise OpDefError(loc, f"malformed arg spec '{spec}': expected 'name: type'")
    name, body = m.group(1), m.group(2)
    is_ref = False
    if body.startswith("Ref(") and body.endswith(")"):
        is_ref, body = True, body[4:-1].strip()
    bm = _ARG_BODY.match(body)
    if not bm:
        raise OpDefError(loc, f"malformed arg spec '{spec}': expected 'T', 'N * T' or a dtype")
    number_attr, tname = bm.group(1), bm.group(2)
    fixed = dtypes.spec_name(tname) if tname not in attrs else None
    type_attr = type_list_attr = None
    if fixed is None:
        a = attrs.get(tname)
        if a is not None and a.type == "list(type)" and number_attr is None:
            type_list_attr = tname
        else:
            type_attr = tname
    return Arg(name, description, fixed, type_attr, number_attr, type_list_attr, is_ref, loc)


# ---------------------------------------------------------------------------- verbose form


def _attr_value_to_py(av, base: str, is_list: bool):
    if is_list:
        lv = av.list
        if base == "int":
            return tuple(lv.i)
        if base == "float":
            return tuple(_float32_value(f) for f in lv.f)
        if base == "bool":
            return tuple(lv.b)
        if base == "string":
            return tuple(s.decode("utf-8", "replace") for s in lv.s)
        if base == "type":
            return tuple(dtypes.BY_ENUM.get(t, str(t)) for t in lv.type)
        if base == "shape":
            return tuple(_shape_to_py(s) for s in lv.shape)
        if base == "func":
            return tuple(f.name for f in lv.func)
        return tuple(text_format.MessageToString(t, as_one_line=True) for t in lv.tensor)
    if base == "int":
        return av.i
    if base == "float":
        return _float32_value(av.f)
    if base == "bool":
        return av.b
    if base == "string":
        return av.s.decode("utf-8", "replace")
    if base == "type":
        return dtypes.BY_ENUM.get(av.type, str(av.type))
    if base == "shape":
        return _shape_to_py(av.shape)
    if base == "func":
        return av.func.name
    return text_format.MessageToString(av.tensor, as_one_line=True)


def _shape_to_py(s):
    if s.unknown_rank:
        return None
    return tuple(d.size for d in s.dim)


def _verbose_attr(pb, loc: Loc) -> Attr:
    t = pb.type
    is_list = t.startswith("list(") and t.endswith(")")
    base = t[5:-1] if is_list else t
    if base not in _ATTR_TYPES:
        raise OpDefError(loc, f"attr '{pb.name}' has unknown type '{t}'")
    has_default = pb.HasField("default_value")
    if has_default:
        kind = pb.default_value.WhichOneof("value")
        want = "list" if is_list else {"int": "i", "float": "f", "bool": "b", "string": "s",
                                        "type": "type", "shape": "shape", "tensor": "tensor",
                                        "func": "func"}[base]
        if kind != want and not (kind is None and base == "string"):
            raise OpDefError(loc, f"default of attr '{pb.name}' holds a '{kind}' value, but the attr "
                                  f"is '{t}' (expected '{want}')")
    default = _attr_value_to_py(pb.default_value, base, is_list) if has_default else None
    allowed = None
    if pb.HasField("allowed_values"):
        allowed = _attr_value_to_py(pb.allowed_values, base, True)
    minimum = pb.minimum if pb.has_minimum else None
    return Attr(pb.name, t, has_default, default, allowed, minimum, pb.description, loc)


def _verbose_arg(pb, loc: Loc) -> Arg:
    fixed = dtypes.BY_ENUM.get(pb.type) if pb.type else None
    return Arg(pb.name, pb.description, fixed, pb.type_attr or None, pb.number_attr or None,
               pb.type_list_attr or None, pb.is_ref, loc)


# ---------------------------------------------------------------------------- validation


def _check_op(op: Op, known_ops: set[str]) -> None:
    if not _CAMEL.match(op.name):
        raise OpDefError(op.loc, f"op name '{op.name}' is not CamelCase (e.g. 'MatMul')")
    seen: dict[str, Loc] = {}
    for item in op.attrs + op.inputs + op.outputs:
        if not _IDENT.match(item.name):
            raise OpDefError(item.loc, f"'{item.name}' is not a valid name in op {op.name}")
    for a in op.attrs:
        if a.name in seen:
            raise OpDefError(a.loc, f"op {op.name} declares attr '{a.name}' twice")
        seen[a.name] = a.loc
    args_seen: set[str] = set()
    for group in (op.inputs, op.outputs):
        for arg in group:
            if arg.name in args_seen and group is op.inputs:
                raise OpDefError(arg.loc, f"op {op.name} declares input '{arg.name}' twice")
            args_seen.add(arg.name)
            _check_arg(op, arg)
    for a in op.attrs:
        _check_attr(op, a)
    if op.shape_fn is not None:
        _check_shape_fn(op, op.shape_fn)
    _check_gradients(op, known_ops)


def _check_arg(op: Op, arg: Arg) -> None:
    kinds = sum(bool(x) for x in (arg.type, arg.type_attr, arg.type_list_attr))
    if kinds != 1:
        raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} needs exactly one of "
                                  f"type, type_attr, type_list_attr")
    if arg.type_attr:
        a = op.attr(arg.type_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names type attr "
                                      f"'{arg.type_attr}', which is not declared")
        if a.type != "type":
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name}: attr "
                                      f"'{arg.type_attr}' is '{a.type}', not 'type'")
    if arg.type_list_attr:
        a = op.attr(arg.type_list_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names type list attr "
                                      f"'{arg.type_list_attr}', which is not declared")
        if a.type != "list(type)":
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name}: attr "
                                      f"'{arg.type_list_attr}' is '{a.type}', not 'list(type)'")
    if arg.number_attr:
        a = op.attr(arg.number_attr)
        if a is None:
            raise OpDefError(arg.loc, f"arg '{arg.name}' of op {op.name} names number attr "
                                      f"'{arg.number_attr}', which is not declared")
        if a.type != "int":
            raise OpDefError(arg.loc, f"number_attr '{arg.number_attr}' of arg '{arg.name}' in op "
                                      f"{op.name} is '{a.type}', not an int attr")


def _check_attr(op: Op, a: Attr) -> None:
    if not a.has_default:
        return
    values = a.default if a.type.startswith("list(") else (a.default,)
    if a.allowed is not None:
        for v in values:
            if v not in a.allowed:
                shown = ", ".join(map(str, a.allowed))
                raise OpDefError(a.loc, f"default {v!r} of attr '{a.name}' in op {op.name} is not "
                                        f"among its allowed values {{{shown}}}")
    if a.minimum is not None:
        n = len(values) if a.type.startswith("list(") else a.default
        if n < a.minimum:
            raise OpDefError(a.loc, f"default of attr '{a.name}' in op {op.name} is below its "
                                    f"minimum {a.minimum}")


def _check_shape_fn(op: Op, sf: ShapeFn) -> None:
    if sf.name == shape_fns.CUSTOM:
        return
    spec = shape_fns.CATALOGUE.get(sf.name)
    if spec is None:
        known = ", ".join(sorted(shape_fns.CATALOGUE) + [shape_fns.CUSTOM])
        raise OpDefError(sf.loc, f"unknown shape function '{sf.name}' in op {op.name} "
                                 f"(known: {known})")
    if len(sf.args) != len(spec.params):
        raise OpDefError(sf.loc, f"shape function '{sf.name}' takes {len(spec.params)} "
                                 f"argument(s), op {op.name} gives {len(sf.args)}")
    for arg, param in zip(sf.args, spec.params):
        if param.kind in (shape_fns.INPUT, shape_fns.VALUE):
            if op.input(arg) is None:
                raise OpDefError(sf.loc, f"shape function '{sf.name}' of op {op.name}: "
                                         f"'{param.name}' must be an input, '{arg}' is not one")
        else:
            a = op.attr(arg)
            if a is None or a.type != param.attr_type:
                raise OpDefError(sf.loc, f"shape function '{sf.name}' of op {op.name}: "
                                         f"'{param.name}' must be a {param.attr_type} attr, "
                                         f"'{arg}' is not one")


# Names a gradient expression may use besides the op's own names and the op wrappers.
GRADIENT_HELPERS = ("unbroadcast", "reduce_grad", "reduce_max_grad", "invert_permutation",
                    "shape_of", "dtype_of")


def _check_gradients(op: Op, known_ops: set[str]) -> None:
    if op.not_differentiable and (op.gradients or op.gradient_fn):
        raise OpDefError(op.loc, f"op {op.name} is not_differentiable but declares a gradient")
    own = {a.name for a in op.inputs + op.outputs + op.attrs} | {"grad", "grads"}
    allowed = own | known_ops | set(GRADIENT_HELPERS)
    wrts: set[str] = set()
    for g in op.gradients:
        if op.input(g.wrt) is None:
            raise OpDefError(g.loc, f"gradient of op {op.name} is with respect to '{g.wrt}', "
                                    f"which is not an input")
        if g.wrt in wrts:
            raise OpDefError(g.loc, f"op {op.name} has two gradients with respect to '{g.wrt}'")
        wrts.add(g.wrt)
        for n in g.names:
            if n not in allowed:
                raise OpDefError(g.loc, f"gradient of op {op.name} with respect to '{g.wrt}' "
                                        f"uses unknown name '{n}'")


def _expr_names(expr: str, loc: Loc, what: str) -> tuple[str, ...]:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise OpDefError(loc, f"{what} is not a valid expression: {e.msg}") from None
    names: list[str] = []
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            for t in ast.walk(node.target):
                if isinstance(t, ast.Name):
                    bound.add(t.id)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in node.args.args)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in bound and node.id not in names:
            names.append(node.id)
    return tuple(n for n in names if n not in ("True", "False", "None", "len", "range", "list",
                                                 "tuple", "int", "float"))


# ---------------------------------------------------------------------------- loading

_SHAPE_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def _build_op(pb, lm: LineMap, idx: int, group: str, source: str) -> Op:
    base = ("op", idx)
    loc = lm.loc(*base, "name", 0)
    attrs: list[Attr] = [_verbose_attr(a, lm.loc(*base, "attr", i)) for i, a in enumerate(pb.attr)]
    arg_docs = {d.name: d.description for d in pb.arg_doc}
    sig = pb.signature
    for i, s in enumerate(sig.attr):
        a = parse_attr_spec(s, lm.loc(*base, "signature", 0, "attr", i), "")
        attrs.append(Attr(a.name, a.type, a.has_default, a.default, a.allowed, a.minimum,
                          arg_docs.get(a.name, ""), a.loc))
    by_name = {a.name: a for a in attrs}
    inputs = [_verbose_arg(a, lm.loc(*base, "input_arg", i)) for i, a in enumerate(pb.input_arg)]
    outputs = [_verbose_arg(a, lm.loc(*base, "output_arg", i)) for i, a in enumerate(pb.output_arg)]
    for i, s in enumerate(sig.input):
        inputs.append(parse_arg_spec(s, lm.loc(*base, "signature", 0, "input", i), by_name))
    for i, s in enumerate(sig.output):
        outputs.append(parse_arg_spec(s, lm.loc(*base, "signature", 0, "output", i), by_name))
    inputs = [_with_doc(a, arg_docs) for a in inputs]
    outputs = [_with_doc(a, arg_docs) for a in outputs]

    shape_fn = None
    if pb.shape_fn:
        sloc = lm.loc(*base, "shape_fn", 0)
        m = _SHAPE_CALL.match(pb.shape_fn)
        if not m:
            raise OpDefError(sloc, f"malformed shape_fn '{pb.shape_fn}': expected 'name(args)'")
        args = tuple(a for a in (x.strip() for x in (m.group(2) or "").split(",")) if a)
        shape_fn = ShapeFn(m.group(1), args, sloc)
    gradients = []
    for i, g in enumerate(pb.gradient):
        gloc = lm.loc(*base, "gradient", i)
        what = f"gradient of op {pb.name} with respect to '{g.wrt}'"
        gradients.append(Gradient(g.wrt, g.expr.strip(), _expr_names(g.expr.strip(), gloc, what), gloc))
    if pb.reference:
        _expr_names(pb.reference, lm.loc(*base, "reference", 0), f"reference of op {pb.name}")
    dep = (pb.deprecation.version, pb.deprecation.explanation) if pb.HasField("deprecation") else None

    inferred = set()
    for a in inputs:
        for n in (a.type_attr, a.number_attr, a.type_list_attr):
            if n:
                inferred.add(n)
    python_names = _python_names(pb, lm, base, inputs, attrs, inferred)
    return Op(
        name=pb.name, group=group, loc=loc, summary=pb.summary, description=pb.description,
        inputs=tuple(inputs), outputs=tuple(outputs), attrs=tuple(attrs),
        is_commutative=pb.is_commutative, is_aggregate=pb.is_aggregate,
        is_stateful=pb.is_stateful, deprecation=dep, shape_fn=shape_fn,
        gradients=tuple(gradients), gradient_fn=pb.gradient_fn,
        not_differentiable=pb.not_differentiable, reference=pb.reference.strip(),
        snake_name=snake_case(pb.name), inferred_attrs=frozenset(inferred), source=source,
        python_names=python_names,
    )


def _python_names(pb, lm: LineMap, base: tuple, inputs: list[Arg], attrs: list[Attr],
                  inferred: set[str]) -> tuple[tuple[str, str], ...]:
    """The op's `python_name { name rename_to }` entries, checked: each renames an input or a
    caller-passed attr, to an identifier no other parameter of the wrapper has."""
    params = [a.name for a in inputs] + [a.name for a in attrs if a.name not in inferred]
    renames: dict[str, str] = {}
    locs = []
    for i, r in enumerate(pb.python_name):
        loc = lm.loc(*base, "python_name", i)
        locs.append(loc)
        if r.name not in params:
            raise OpDefError(loc, f"python_name of op {pb.name} renames '{r.name}', which is not an "
                                  f"input or attr the caller passes ({', '.join(params)})")
        if r.name in renames:
            raise OpDefError(loc, f"op {pb.name} renames '{r.name}' twice")
        if not _IDENT.match(r.rename_to) or keyword.iskeyword(r.rename_to) or r.rename_to == "name":
            raise OpDefError(loc, f"python_name of op {pb.name}: '{r.rename_to}' is not a usable "
                                  f"Python parameter name")
        renames[r.name] = r.rename_to
    for (old, new), loc in zip(renames.items(), locs):
        others = [renames.get(p, p) for p in params if p != old]
        if new in others:
            raise OpDefError(loc, f"python_name of op {pb.name} renames '{old}' to '{new}', the name "
                                  f"of another parameter")
    return tuple(sorted(renames.items()))


def _with_doc(arg: Arg, docs: dict[str, str]) -> Arg:
    if arg.description or arg.name not in docs:
        return arg
    return Arg(arg.name, docs[arg.name], arg.type, arg.type_attr, arg.number_attr,
               arg.type_list_attr, arg.is_ref, arg.loc)


def parse_file(path: str, display: str | None = None, group: str | None = None,
               text: str | None = None, source: str | None = None) -> list[Op]:
    """Parses one opdef file into (unchecked) ops. ``display`` names the file in diagnostics,
    ``source`` in generated files."""
    display = display or path
    source = source or display
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    msg = opdef_pb2.OpList()
    try:
        lm = LineMap(display, lines=textproto.parse(text, msg))
    except textproto.Unsupported:
        # protobuf's parser decides (and words the error); lines come from a re-scan.
        msg = opdef_pb2.OpList()
        try:
            text_format.Parse(text, msg)
        except text_format.ParseError as e:
            line = e.GetLine() or 1
            detail = re.sub(r"^\d+:\d+ : ", "", str(e))
            raise OpDefError(Loc(display, line), detail) from None
        lm = LineMap(display, text)
    if group is None:
        group = os.path.basename(os.path.dirname(os.path.abspath(path))) or "ops"
    return [_build_op(pb, lm, i, group, source) for i, pb in enumerate(msg.op)]


def _display(p: str) -> str:
    """How diagnostics show a file: relative to the current directory."""
    return os.path.relpath(p)


def _source(p: str, opdefs_dir: str) -> str:
    """How generated files name their source: relative to the folder holding the opdefs
    dir ("opdefs/math/add_v2.pbtxt"), so output does not depend on the current directory."""
    base = os.path.dirname(os.path.abspath(opdefs_dir.rstrip("/" + os.sep)))
    return os.path.relpath(os.path.abspath(p), base).replace(os.sep, "/")


def opdef_files(dirs: list[str]) -> list[tuple[str, str, str]]:
    """All ``*.pbtxt`` files under the given dirs as (path, display path, source name), sorted."""
    out = []
    for d in dirs:
        if os.path.isfile(d):
            out.append((d, d, os.path.basename(d)))
            continue
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith(".pbtxt"):
                    p = os.path.join(root, f)
                    out.append((p, _display(p), _source(p, d)))
    return out


def check(ops: list[Op]) -> list[Op]:
    """Validates a whole set of ops together; returns them sorted by (group, name)."""
    first: dict[str, Op] = {}
    for op in ops:
        if op.name in first:
            raise OpDefError(op.loc, f"duplicate op name '{op.name}' (first defined at "
                                     f"{first[op.name].loc})")
        first[op.name] = op
    by_wrapper: dict[str, Op] = {}
    for op in ops:
        other = by_wrapper.get(op.snake_name)
        if other is not None:
            raise OpDefError(op.loc, f"op '{op.name}' and op '{other.name}' (at {other.loc}) both "
                                     f"get the Python wrapper name '{op.snake_name}'")
        by_wrapper[op.snake_name] = op
    known = set(by_wrapper)
    for op in ops:
        _check_op(op, known)
    return sorted(ops, key=lambda o: (o.group, o.name))


def load(dirs: list[str]) -> list[Op]:
    """Loads and validates every opdef under the given dirs (or files)."""
    ops: list[Op] = []
    for path, display, source in opdef_files(dirs):
        ops.extend(parse_file(path, display, source=source))
    return check(ops)
