"""A fast text-format reader for opdef files that also records where each field came from.

protobuf's own text parser is pure Python and needs ~2 s for TensorFlow's 1,900-op
ops.pbtxt. This reader tokenizes once with a regular expression, fills the (C-backed) message
through its descriptors and records each field's line for diagnostics. It accepts only the
plain subset opdefs use; on anything else (a syntax error, an unknown field, a map field,
extensions) it gives up and the caller falls back to protobuf's parser, whose error message
is then the one reported. So it is never the judge of what is valid, only a fast path.
"""

from __future__ import annotations

import re

from google.protobuf import descriptor, text_encoding

_TOKEN = re.compile(
    r"""
    (?P<nl>\n)
  | [ \t\r\f\v]+
  | \#[^\n]*
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[-+]?(?:[0-9][0-9A-Za-z.+-]*|\.[0-9][0-9A-Za-z.+-]*|inf(?:inity)?|nan))
  | (?P<punct>[{}<>\[\]:,;])
    """,
    re.VERBOSE,
)


class Unsupported(Exception):
    """The text needs protobuf's full parser (or is invalid)."""


def tokenize(text: str) -> list[tuple[str, str, int]]:
    toks = []
    append = toks.append
    line = 1
    end = 0
    for m in _TOKEN.finditer(text):
        if m.start() != end:
            raise Unsupported(f"line {line}: unexpected character")
        end = m.end()
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind is not None:
            append((kind, m.group(kind), line))
    if end != len(text):
        raise Unsupported(f"line {line}: unexpected character")
    return toks


_FD = descriptor.FieldDescriptor
_INT_TYPES = {_FD.TYPE_INT32, _FD.TYPE_INT64, _FD.TYPE_UINT32, _FD.TYPE_UINT64, _FD.TYPE_SINT32,
              _FD.TYPE_SINT64, _FD.TYPE_FIXED32, _FD.TYPE_FIXED64, _FD.TYPE_SFIXED32,
              _FD.TYPE_SFIXED64}
_BOOLS = {"true": True, "True": True, "t": True, "1": True,
          "false": False, "False": False, "f": False, "0": False}


_FIELDS: dict[str, dict] = {}


def _fields(desc) -> dict[str, tuple]:
    """name -> (field, is_message, is_repeated) for a message type; map fields left out."""
    info = _FIELDS.get(desc.full_name)
    if info is None:
        info = {}
        for f in desc.fields:
            is_msg = f.type == _FD.TYPE_MESSAGE
            if is_msg and f.message_type.GetOptions().map_entry:
                continue  # protobuf's parser handles maps
            info[f.name] = (f, is_msg, f.is_repeated)
        _FIELDS[desc.full_name] = info
    return info


class _Reader:
    def __init__(self, toks):
        self.toks = toks
        self.i = 0
        self.lines: dict[tuple, int] = {}

    def peek(self):
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def scalar(self, field):
        kind, tok, _ = self.toks[self.i]
        self.i += 1
        t = field.type
        if t in (_FD.TYPE_STRING, _FD.TYPE_BYTES):
            if kind != "string":
                raise Unsupported("expected a string")
            parts = [tok]
            while self.i < len(self.toks) and self.toks[self.i][0] == "string":
                parts.append(self.toks[self.i][1])
                self.i += 1
            raw = b"".join(text_encoding.CUnescape(p[1:-1]) for p in parts)
            return raw if t == _FD.TYPE_BYTES else raw.decode("utf-8")
        if t == _FD.TYPE_ENUM:
            if kind == "ident":
                v = field.enum_type.values_by_name.get(tok)
                if v is None:
                    raise Unsupported("unknown enum value")
                return v.number
            return int(tok, 0)
        if t == _FD.TYPE_BOOL:
            if tok not in _BOOLS:
                raise Unsupported("bad bool")
            return _BOOLS[tok]
        if t in _INT_TYPES:
            if kind != "number":
                raise Unsupported("expected an integer")
            return int(tok, 0)
        if t in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
            if kind not in ("number", "ident"):
                raise Unsupported("expected a number")
            tok = tok[:-1] if tok[-1:] in "fF" and not tok.lower().endswith("inf") else tok
            return float(tok)
        raise Unsupported("unsupported field type")

    def message(self, msg, path):
        fields = _fields(msg.DESCRIPTOR)
        counts: dict[str, int] = {}
        toks = self.toks
        n = len(toks)
        while self.i < n and toks[self.i][1] not in ("}", ">"):
            kind, name, line = toks[self.i]
            if kind != "ident":
                raise Unsupported("expected a field name")
            info = fields.get(name)
            if info is None:
                raise Unsupported("unknown field")
            field, is_msg, repeated = info
            oneof = field.containing_oneof
            if oneof is not None:
                current = msg.WhichOneof(oneof.name)
                if current is not None and current != name:
                    raise Unsupported("two members of a oneof")
            self.i += 1
            if self.peek() == ":":
                self.i += 1
            elif not is_msg:
                raise Unsupported("expected ':'")
            if self.peek() == "[":
                if not repeated:
                    raise Unsupported("list for a singular field")
                self.i += 1
                container = getattr(msg, name)
                while self.peek() != "]":
                    idx = counts.get(name, 0)
                    counts[name] = idx + 1
                    self.lines[path + (name, idx)] = toks[self.i][2]
                    if is_msg:
                        self.submessage(container.add(), path + (name, idx))
                    else:
                        container.append(self.scalar(field))
                    if self.peek() == ",":
                        self.i += 1
                    elif self.peek() != "]":
                        raise Unsupported("expected ',' or ']'")
                self.i += 1
            else:
                idx = counts.get(name, 0)
                if idx and not repeated:
                    raise Unsupported("singular field given twice")
                counts[name] = idx + 1
                self.lines[path + (name, idx)] = line
                if is_msg:
                    sub = getattr(msg, name).add() if repeated else getattr(msg, name)
                    self.submessage(sub, path + (name, idx))
                elif repeated:
                    getattr(msg, name).append(self.scalar(field))
                else:
                    setattr(msg, name, self.scalar(field))
            if self.peek() in (",", ";"):
                self.i += 1

    def submessage(self, sub, path):
        open_tok = self.peek()
        if open_tok not in ("{", "<"):
            raise Unsupported("expected '{'")
        self.i += 1
        sub.SetInParent()
        self.message(sub, path)
        if self.peek() != ("}" if open_tok == "{" else ">"):
            raise Unsupported("unbalanced braces")
        self.i += 1


def parse(text: str, msg) -> dict[tuple, int]:
    """Fills msg from text; returns the line of every field occurrence by path. Raises
    Unsupported when protobuf's parser must decide (msg may then be partly filled)."""
    r = _Reader(tokenize(text))
    try:
        r.message(msg, ())
    except (IndexError, ValueError, TypeError, UnicodeDecodeError) as e:
        raise Unsupported(str(e)) from None
    if r.i != len(r.toks):
        raise Unsupported("unexpected '}'")
    return r.lines
