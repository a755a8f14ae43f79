"""Source locations for text-format protos.

protobuf's Python text parser checks syntax and field names but forgets where each value came
from. Diagnostics about meaning (a duplicate op, an undeclared type attr) must still point at
a line, so this module re-scans the already-valid text and records the line of every field
occurrence under a path such as ``("op", 0, "signature", 0, "input", 1)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<ident>\[[^\]]*\]|[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<number>[-+]?[0-9.][0-9A-Za-z.+-]*|-[A-Za-z]+)
  | (?P<punct>[{}<>\[\]:,;])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Loc:
    """A place in an opdef file; ``str(loc)`` is ``file:line``."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


Path = tuple


def _tokens(text: str):
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # the protobuf parser already rejected anything we cannot scan
            pos += 1
            continue
        kind = m.lastgroup
        if kind == "nl":
            line += 1
        elif kind not in ("ws", "comment"):
            yield kind, m.group(), line
        pos = m.end()


def field_lines(text: str) -> dict[Path, int]:
    """Maps each field occurrence path to the line it starts on."""
    toks = list(_tokens(text))
    lines: dict[Path, int] = {}
    i = 0

    def value(path: Path) -> None:
        nonlocal i
        kind, tok, _ = toks[i]
        if tok in ("{", "<"):
            i += 1
            message(path)
            i += 1  # closing brace
        else:
            i += 1
            # adjacent string literals concatenate
            while kind == "string" and i < len(toks) and toks[i][0] == "string":
                i += 1

    def message(prefix: Path) -> None:
        nonlocal i
        counts: dict[str, int] = {}
        while i < len(toks) and toks[i][1] not in ("}", ">"):
            _, name, line = toks[i]
            i += 1
            if i < len(toks) and toks[i][1] == ":":
                i += 1
            if i < len(toks) and toks[i][1] == "[":
                i += 1
                while toks[i][1] != "]":
                    idx = counts.get(name, 0)
                    counts[name] = idx + 1
                    lines[prefix + (name, idx)] = toks[i][2]
                    value(prefix + (name, idx))
                    if toks[i][1] == ",":
                        i += 1
                i += 1
            else:
                idx = counts.get(name, 0)
                counts[name] = idx + 1
                lines[prefix + (name, idx)] = line
                value(prefix + (name, idx))
            if i < len(toks) and toks[i][1] in (",", ";"):
                i += 1

    message(())
    return lines


class LineMap:
    """Looks up lines by path, falling back to the nearest enclosing field."""

    def __init__(self, file: str, text: str | None = None, lines: dict | None = None):
        self.file = file
        self._lines = lines if lines is not None else field_lines(text)

    def loc(self, *path) -> Loc:
        p = tuple(path)
        while p:
            if p in self._lines:
                return Loc(self.file, self._lines[p])
            p = p[:-1]
        return Loc(self.file, 1)
