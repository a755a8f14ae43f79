"""Opdefs parsed and validated into frozen dataclasses.

``load(paths)`` reads opdef files (text-format ``OpList``), normalizes TensorFlow's verbose
form and the compact REGISTER_OP spelling into one model, and checks it. Every problem is an
:class:`OpDefError` that names the file and line. Emitters read only these dataclasses.

This module reads the files and builds each op; the pieces it uses live by concern, and are
re-exported here (``from codegen.model import Op, load``):
:mod:`codegen.model_types` (the dataclasses, ``OpDefError``, naming), :mod:`codegen.specs`
(spec strings, the verbose form, expressions), :mod:`codegen.validate` (``check``).
"""

from __future__ import annotations

import keyword
import os
import re

from google.protobuf import text_format

from . import textproto
from ._proto import opdef_pb2
from .locations import LineMap, Loc
from .model_types import IDENTIFIER, Arg, Attr, Gradient, Op, OpDefError, ShapeFn, python_param, snake_case
from .specs import expr_names, parse_arg_spec, parse_attr_spec, verbose_arg, verbose_attr
from .validate import GRADIENT_HELPERS, check

__all__ = [
    "GRADIENT_HELPERS", "Arg", "Attr", "Gradient", "Loc", "Op", "OpDefError", "ShapeFn", "check",
    "load", "opdef_files", "parse_arg_spec", "parse_attr_spec", "parse_file", "python_param",
    "snake_case",
]


# ---------------------------------------------------------------------------- loading

_SHAPE_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def _build_op(pb, lm: LineMap, idx: int, group: str, source: str) -> Op:
    base = ("op", idx)
    loc = lm.loc(*base, "name", 0)
    attrs: list[Attr] = [verbose_attr(a, lm.loc(*base, "attr", i)) for i, a in enumerate(pb.attr)]
    arg_docs = {d.name: d.description for d in pb.arg_doc}
    sig = pb.signature
    for i, s in enumerate(sig.attr):
        a = parse_attr_spec(s, lm.loc(*base, "signature", 0, "attr", i), "")
        attrs.append(Attr(a.name, a.type, a.has_default, a.default, a.allowed, a.minimum,
                          arg_docs.get(a.name, ""), a.loc))
    by_name = {a.name: a for a in attrs}
    inputs = [verbose_arg(a, lm.loc(*base, "input_arg", i)) for i, a in enumerate(pb.input_arg)]
    outputs = [verbose_arg(a, lm.loc(*base, "output_arg", i)) for i, a in enumerate(pb.output_arg)]
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
        gradients.append(Gradient(g.wrt, g.expr.strip(), expr_names(g.expr.strip(), gloc, what), gloc))
    if pb.reference:
        expr_names(pb.reference, lm.loc(*base, "reference", 0), f"reference of op {pb.name}")
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
        python_names=python_names, is_distributed_communication=pb.is_distributed_communication,
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
        if not IDENTIFIER.match(r.rename_to) or keyword.iskeyword(r.rename_to) or r.rename_to == "name":
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



def load(dirs: list[str]) -> list[Op]:
    """Loads and validates every opdef under the given dirs (or files)."""
    ops: list[Op] = []
    for path, display, source in opdef_files(dirs):
        ops.extend(parse_file(path, display, source=source))
    return check(ops)
