"""Parsing the pieces of an opdef into the model: the compact spec strings of REGISTER_OP
(``"T: {float, double} = DT_FLOAT"``, ``"values: N * T"``), TensorFlow's verbose ``attr`` and
``input_arg`` messages, and the free names of a gradient or reference expression. Every
problem is an :class:`OpDefError` at the spec's location."""

from __future__ import annotations

import ast
import re
import struct

from google.protobuf import text_format

from . import dtypes
from .locations import Loc
from .model_types import Arg, Attr, OpDefError

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


def verbose_attr(pb, loc: Loc) -> Attr:
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


def verbose_arg(pb, loc: Loc) -> Arg:
    fixed = dtypes.BY_ENUM.get(pb.type) if pb.type else None
    return Arg(pb.name, pb.description, fixed, pb.type_attr or None, pb.number_attr or None,
               pb.type_list_attr or None, pb.is_ref, loc)


# ---------------------------------------------------------------------------- expressions


def expr_names(expr: str, loc: Loc, what: str) -> tuple[str, ...]:
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

